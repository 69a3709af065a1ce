/**
 * The node's dispatch to its operation, and its error handling as docs/errors-and-n8n-settings.md promises: every
 * item is read and checked before anything is sent, and no paid task goes unnamed whichever way the node ends.
 */
import {
	ExecutionCancelledError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type NodeApiError,
} from 'n8n-workflow';

import { itemFailure } from '../output/itemFailure';
import { errorItem, type ItemOutcome } from '../output/items';
import { image, video } from './create.operation';
import type { OperationModule, ReadItem } from './node.type';
import { runContained } from './outcomes';
import * as task from './task';
import { failuresContinue, isToolCall } from '../tool/call';
import { toolResultItems } from '../tool/reply';
import { TaskMemory } from '../waiting/memory';

/** The value n8n gives resource and operation when a user picks "Custom API Call" (added by the editor). */
const CUSTOM_API_CALL = '__CUSTOM_API_CALL__';

const RESOURCES: Record<string, Record<string, OperationModule>> = {
	image: image.operations,
	video: video.operations,
	task: task.operations,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const { resource, operation, module } = operationOf.call(this);
	// As an AI Agent's tool every failure is a result the model reads (tool/reply.ts), never a thrown error.
	const continueOnFail = failuresContinue(this);
	const cancel = this.getExecutionCancelSignal();
	// n8n's Retry On Fail calls a node again even after Stop: a stopped execution creates nothing more, and its
	// error still names the tasks that earlier tries created.
	const creates = resource !== 'task';
	if (cancel?.aborted) throw cancelledError.call(this, creates ? TaskMemory.createdTasks(this) : []);

	const { read, outcomes } = await readItems.call(this, module);
	let unreported = new Set<unknown>();
	if (!outcomes.length || continueOnFail) {
		const knownTasks = (itemIndex: number) => (creates ? tasksOfItem(TaskMemory.createdTasks(this), itemIndex) : []);
		const run = await runContained.call(this, module, read, { creates, knownTasks });
		// No argument spread: a run may hold more outcomes than a call can take arguments.
		for (const outcome of run.outcomes) outcomes.push(outcome);
		unreported = run.unreported;
	}
	outcomes.sort((a, b) => a.itemIndex - b.itemIndex);
	// The outcomes' tasks, then those only the run's memory knows (one an answer named beside the item's task).
	const created = () => (creates ? [...new Set([...createdTasks(outcomes), ...TaskMemory.createdTasks(this)])] : []);
	if (cancel?.aborted) throw cancelledError.call(this, created());
	if (!continueOnFail) {
		// The first failure stops the node; an item the run did not report only when nothing else failed.
		const failures = outcomes.filter((outcome) => 'error' in outcome);
		const stopping = failures.find((outcome) => !unreported.has(outcome.error)) ?? failures[0];
		if (stopping) throw withCreatedTasks(stopping.error, created());
	}
	const errorOutput = this.getNode().onError === 'continueErrorOutput';
	const output = isToolCall(this)
		? toolResultItems.call(this, outcomes, { resource, operation })
		: outcomes.flatMap((outcome): INodeExecutionData[] =>
				'items' in outcome
					? outcome.items.map((item) => ({ ...item, pairedItem: item.pairedItem ?? { item: outcome.itemIndex } }))
					: [errorItem(outcome, { resource, operation }, errorOutput)],
			);
	// The task memory learns whether n8n may run the node again on this output (waiting/memory.ts).
	TaskMemory.settle(this, output);
	return [output];
}

function operationOf(this: IExecuteFunctions) {
	const resource = this.getNodeParameter('resource', 0) as string;
	// With resource "Custom API Call" no operation parameter is shown, so it may be missing.
	const operation = this.getNodeParameter('operation', 0, '') as string;
	if (resource === CUSTOM_API_CALL || operation === CUSTOM_API_CALL) {
		// n8n offers "Custom API Call" for every node whose credential can authenticate other requests; like
		// n8n's own nodes, this one leaves such calls to the HTTP Request node, which can use this credential.
		throw new NodeOperationError(
			this.getNode(),
			'Custom API calls are made with the HTTP Request node, not with MediaGen',
			{
				description:
					'Add an HTTP Request node, set Authentication to "Predefined Credential Type" and Credential Type to "MediaGen API", then pick your MediaGen credential: it sends the API key for you. Use the Base URL of the credential followed by the path, e.g. /v1/tlimages/infobytaskid. Here, choose one of the listed operations instead.',
			},
		);
	}
	const module = RESOURCES[resource]?.[operation];
	const unsupported = `The operation "${operation}" of resource "${resource}" is not supported`;
	if (!module) throw new NodeOperationError(this.getNode(), unsupported);
	return { resource, operation, module };
}

/** Every item read and checked before anything is sent; an item that cannot be read is an outcome of its own. */
async function readItems(this: IExecuteFunctions, module: OperationModule) {
	const items = this.getInputData();
	const outcomes: ItemOutcome[] = [];
	const read: ReadItem[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			read.push(await module.read.call(this, itemIndex, items[itemIndex]));
		} catch (error) {
			outcomes.push({ itemIndex, error: itemFailure(this.getNode(), error, itemIndex, { step: 'reading the item' }) });
		}
	}
	return { read, outcomes };
}

/** The ids of an item's entries of a "<taskid> (item <n>)" list (createdTasks). */
function tasksOfItem(created: string[], itemIndex: number): string[] {
	const suffix = ` (item ${itemIndex})`;
	return created.filter((entry) => entry.endsWith(suffix)).map((entry) => entry.slice(0, -suffix.length));
}

/** "<taskid> (item <n>)" for every task the outcomes name, in input order. */
function createdTasks(outcomes: ItemOutcome[]): string[] {
	return outcomes
		.map((outcome) => {
			const json: IDataObject | undefined = 'items' in outcome ? outcome.items[0]?.json : outcome.json;
			return json?.taskid ? `${String(json.taskid)} (item ${outcome.itemIndex})` : undefined;
		})
		.filter((entry): entry is string => entry !== undefined);
}

function createdNote(created: string[]): string {
	return `Tasks created by this run keep running on the server: ${created.join(', ')}. Use Task → Get or Task → Wait with these ids to fetch their results.`;
}

/** A stopping error must not hide tasks that were paid for: its description lists them all. */
function withCreatedTasks(error: NodeApiError | NodeOperationError, created: string[]) {
	if (created.length) {
		const note = createdNote(created);
		error.description = error.description ? `${error.description}\n\n${note}` : note;
	}
	return error;
}

/**
 * Stop: n8n keeps none of what the node returns, so the ids of the tasks this run created are in the message of
 * n8n's own cancellation error (which n8n recognises by its name).
 */
function cancelledError(this: IExecuteFunctions, created: string[]): ExecutionCancelledError {
	// Declared abstract in n8n-workflow 2.x's types, yet constructible in 1.x and 2.x (its subclasses only fix the
	// message); the Stop button and a workflow timeout both end here, so neither subclass's message fits.
	const Cancelled = ExecutionCancelledError as unknown as new (executionId: string) => ExecutionCancelledError;
	const error = new Cancelled(this.getExecutionId());
	if (created.length) error.message = `${error.message}. ${createdNote(created)}`;
	return error;
}
