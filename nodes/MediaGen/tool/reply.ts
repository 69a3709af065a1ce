/**
 * What an AI Agent's model, or an MCP client, reads when it calls MediaGen as a tool (docs/ai-agent.md). n8n hands
 * the model the JSON of the tool's output items as text and drops their binary data, so each outcome is rewritten
 * for a model: a failure is an item, never a thrown error (n8n 1.x fails the whole workflow on a thrown tool error,
 * 2.x passes on the bare message only), and bad input names the model's argument.
 */
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, NodeApiError } from 'n8n-workflow';

import { failureJson, type ItemOutcome, type Operation } from '../output/items';
import { problemEntry, problemsMessage, problemsOf, type InputProblem } from '../helpers/badInput';
import { itemFailure } from '../output/itemFailure';
import { isMcpCall } from './call';
import { toolArguments, type ToolArguments } from './arguments';

/**
 * The fields of a task the model reads: not the request (a prompt of up to 32,000 characters would come back into
 * the model's context), not raw status values or timestamps.
 */
const TASK_FIELDS = [
	'taskid',
	'status',
	'urls',
	'url',
	'resultIndex',
	'taskType',
	'model',
	'width',
	'height',
	'duration',
	'resolution',
	'ratio',
	'warning',
];

/** What the model needs to come back for a failed item's task; `warning` names its other paid tasks. */
const FAILURE_FIELDS = ['taskid', 'taskType', 'model', 'warning'];

/** The named fields that hold something (`urls` even when empty). */
function pick(json: IDataObject, keys: readonly string[]): IDataObject {
	const picked: IDataObject = {};
	for (const key of keys) {
		const value = json[key];
		if (value === undefined || value === null || value === '') continue;
		if (Array.isArray(value) && !value.length && key !== 'urls') continue;
		picked[key] = value;
	}
	return picked;
}

/**
 * A failure as the model reads it: `status: "failed"`, what is known of its task, `message` (what happened) and
 * `hint` (what to do). No top-level `error` key: with Retry On Fail, n8n runs a node again when its first item has one.
 */
function failedJson(json: IDataObject, message: string, hint?: string, fields = FAILURE_FIELDS): IDataObject {
	return { ...pick(json, fields), status: 'failed', message, ...(hint !== undefined ? { hint } : {}) };
}

/** n8n's item markers mean nothing to a model: "… [item 0]" and "Item 0: …". */
export function forModel(text: string): string {
	return text
		.replace(/\s*\[item \d+\]/g, '')
		.replace(/^Item \d+: /, '')
		.replace(/\brun the node again\b/g, 'call this tool again')
		.trim();
}

/** What failed, in the model's words: a field the model filled is named by its argument first. */
function failureMessage(error: Error, args: ToolArguments): string {
	const problems = problemsOf(error);
	const argumentsOf = (problem: InputProblem) => (problem.parameter ? args.get(problem.parameter) : undefined);
	if (!problems?.some(argumentsOf)) return forModel(error.message);
	return forModel(
		problemsMessage(problems, (problem) => {
			const names = argumentsOf(problem);
			if (!names) return problemEntry(problem);
			return `${names.join(' and ')} ${problem.rule} ("${problem.field}"); got ${problem.shown}`;
		}),
	);
}

/** " (an image task)": which Task → Wait tool fits, when an agent has one per task type. */
function kind(taskType: unknown): string {
	return taskType === 'image' ? ' (an image task)' : taskType === 'video' ? ' (a video task)' : '';
}

export function pendingHint(json: IDataObject): string {
	const id = String(json.taskid);
	const noun = json.taskType === 'video' ? 'video' : json.taskType === 'image' ? 'images' : 'result';
	return `Task ${id} is not finished yet. It keeps running on the server and is not charged again. To get the ${noun}, call the MediaGen tool that waits for tasks with taskid "${id}"${kind(json.taskType)}: now (each call waits for it up to that tool's Max Wait), and again while it answers pending; or tell the user the taskid so they can ask for the result later. Do not create the task again.`;
}

function taskResult(json: IDataObject, operation: Operation): IDataObject {
	// Task → Delete answers {status: "deleted", message, taskids, taskType}: already what a model needs.
	if (operation.resource === 'task' && operation.operation === 'delete') return json;
	const result = pick(json, TASK_FIELDS);
	if (result.status === 'pending') result.hint = pendingHint(json);
	return result;
}

function taskAdvice(error: NodeApiError | NodeOperationError, json: IDataObject, taskid: string): string {
	const checkAgain = `To check it again, call the MediaGen tool that waits for tasks with taskid "${taskid}"${kind(json.taskType)}.`;
	if (error.context.statusCheckFailed === true) {
		const other = json.taskType === 'image' ? 'video' : json.taskType === 'video' ? 'image' : undefined;
		const otherTool = other
			? ` If it is ${other === 'image' ? 'an image' : 'a video'} task, call the MediaGen tool that waits for ${other} tasks instead.`
			: '';
		return `Checking task ${taskid} failed; the task itself was not reported failed and may be running or done. ${checkAgain}${otherTool} Do not create it again: it exists and may be charged.`;
	}
	// A task that failed on the server has a last status; a failed creation that named a task has none.
	if (json.status === 'failed' && 'lastStatus' in json)
		return `Task ${taskid} failed on the server and will not produce a result. Tell the user; a new creation (for example with a changed prompt) is charged again.`;
	return `Task ${taskid} exists on the server and may have been charged. ${checkAgain} Do not create it again unless the user asks: every new creation is charged.`;
}

function failureResult(
	outcome: Extract<ItemOutcome, { error: unknown }>,
	operation: Operation,
	args: ToolArguments,
): IDataObject {
	const json = failureJson(outcome, operation);
	const taskid = json.taskid ? String(json.taskid) : undefined;
	const urls = Array.isArray(json.urls) ? (json.urls as string[]) : [];
	// A finished task whose files could not be downloaded (Download Results on): its URLs are the result.
	if (json.status === 'completed' && urls.length)
		return { ...pick(json, FAILURE_FIELDS), status: 'completed', urls, message: forModel(outcome.error.message) };
	const { error } = outcome;
	const hint = [error.description && forModel(error.description), taskid && taskAdvice(error, json, taskid)];
	return failedJson(json, failureMessage(error, args), hint.filter(Boolean).join(' '));
}

/** The items the model reads, one per output item (or failure), each paired with the item it came from. */
export function toolResultItems(
	this: IExecuteFunctions,
	outcomes: ItemOutcome[],
	operation: Operation,
): INodeExecutionData[] {
	const args = toolArguments(this.getNode());
	const items: INodeExecutionData[] = [];
	for (const outcome of outcomes) {
		try {
			for (const item of resultItems(outcome, operation, args)) items.push(item);
		} catch (error) {
			// Writing the result failed (hostile data, a bug): the model still reads a failure, with the task's id.
			const failure = itemFailure(this.getNode(), error, outcome.itemIndex, { step: 'writing its tool result' });
			const json = ('items' in outcome ? outcome.items[0]?.json : outcome.json) ?? {};
			const result = failedJson(json, forModel(failure.message), undefined, ['taskid', 'taskType']);
			items.push({ json: result, pairedItem: { item: outcome.itemIndex } });
		}
	}
	return items;
}

function resultItems(outcome: ItemOutcome, operation: Operation, args: ToolArguments): INodeExecutionData[] {
	if (!('items' in outcome)) {
		return [{ json: failureResult(outcome, operation, args), pairedItem: { item: outcome.itemIndex } }];
	}
	// Binary data stays with the item (Download Results switched on by the user); the model never sees it.
	return outcome.items.map((item) => ({
		json: taskResult(item.json, operation),
		...(item.binary ? { binary: item.binary } : {}),
		pairedItem: item.pairedItem ?? { item: outcome.itemIndex },
	}));
}

/**
 * Runs the node for the agent: whatever fails outside the items (a setting the node cannot use) becomes the one
 * result the model reads too. Only a Stop of the execution still ends the node with n8n's cancellation error.
 */
export async function runAsTool(
	this: IExecuteFunctions,
	run: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>,
): Promise<INodeExecutionData[][]> {
	let items: INodeExecutionData[];
	try {
		items = (await run.call(this))[0];
	} catch (thrown) {
		const error = thrown as Error & { description?: string | null };
		// n8n recognises its cancellation error by its name: it must reach n8n as it is.
		if (this.getExecutionCancelSignal()?.aborted || /Cancel/.test(String(error?.name))) throw error;
		const hint = error.description ? forModel(error.description) : undefined;
		const json = failedJson({}, failureMessage(error, toolArguments(this.getNode())), hint || undefined);
		items = [{ json, pairedItem: { item: 0 } }];
	}
	// n8n runs a tool that throws again when its Retry On Fail is on, each try as a new run that remembers no task
	// of the one before (waiting/memory.ts): a failed creation could then be paid for again.
	if (isMcpCall(this) && this.getNode().retryOnFail !== true) throwIfFailed.call(this, items);
	return [items];
}

/**
 * Over MCP a failed call must be an error to the client (`isError`): many clients, and the models behind them, read
 * only that flag. n8n's MCP Server Trigger sets it for a tool that throws, and sends the error's message and
 * description (as "Details") as the result's text, so the model still reads what to do, with the task id.
 */
function throwIfFailed(this: IExecuteFunctions, items: INodeExecutionData[]): void {
	const failed = items.filter((item) => item.json.status === 'failed');
	if (!failed.length || failed.length < items.length) return;
	const text = (key: string) =>
		failed
			.map((item) => item.json[key])
			.filter((value): value is string => typeof value === 'string' && value !== '')
			.join(' ');
	const ids = failed.map((item) => item.json.taskid).filter((id) => typeof id === 'string' && id);
	const message = text('message') || 'The MediaGen tool call failed';
	const hint = [text('hint'), text('warning')].filter(Boolean).join(' ');
	const named = ids.length && !`${message} ${hint}`.includes(String(ids[0])) ? ` Task ID: ${ids.join(', ')}.` : '';
	throw new NodeOperationError(this.getNode(), message, {
		description: `${hint}${named}`.trim() || undefined,
		itemIndex: 0,
	});
}
