/**
 * The shape of every output item (docs/waiting-and-output.md, "Output"): a task's (creation with or without
 * waiting, Task → Get, Task → Wait, and the error items of created tasks), a failure's (in the shape n8n routes for
 * the On Error mode), Task → Delete's, and what an AI Agent's model reads. One shape per kind, so that expressions
 * keep working when a user swaps one operation for another. The node's own fields always win over same-named fields
 * of an API answer: an answer that names another task, or sends a numeric taskid, never replaces the id of the task
 * this item paid for.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { TaskType } from '../models/endpoints';
import type { ItemError } from './itemFailure';

/** What a workflow's IF node can test: finished with results, still running, or failed. */
export type TaskStatus = 'completed' | 'pending' | 'failed';

/** What the output says about the creation request: the model and what was sent (no file bytes). */
export interface RequestSummary {
	/** The model as the node names it (the operation value, e.g. `betav45`). */
	model?: string;
	/** The fields that were sent, numbers as numbers, plus the uploaded files' names and types. */
	request?: IDataObject;
	/** Something about the item's tries that must stay visible, e.g. an earlier try's paid task. */
	warning?: string;
}

/** A task an item follows, as its output names it. */
export interface OutputTask {
	itemIndex: number;
	taskId: string;
	taskType: TaskType;
	summary: RequestSummary;
	/** The creation answer's data (taskid, and url for some models). */
	creation?: IDataObject;
}

/** The operation an output item came from: a failure names its task type and model from it. */
export interface Operation {
	resource: string;
	operation: string;
}

/** The result of one input item: its output items, or the error that ended it. */
export type ItemOutcome =
	| { itemIndex: number; items: INodeExecutionData[] }
	| {
			itemIndex: number;
			error: ItemError;
			/** Kept on the error item so that a paid task is never lost (e.g. taskid, model). */
			json?: IDataObject;
	  };

/** Field names the node owns: an API answer cannot overwrite them. */
const NODE_FIELDS = ['taskid', 'status', 'urls', 'url', 'taskType', 'model', 'request', 'lastStatus', 'warning'];

/** Non-empty result URLs of an API answer (`url` is a list on info answers, a string on some creations). */
export function resultUrls(data: IDataObject | undefined): string[] {
	const raw = data?.url;
	const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
	return list.filter((url): url is string => typeof url === 'string' && url.trim() !== '');
}

/**
 * A task's JSON. `info` is the API's answer (creation data or task info), its own taskid/status/url fields
 * dropped; `lastStatus` the last raw status value the API reported, for tasks that are not completed.
 */
export function taskJson(
	task: OutputTask,
	status: TaskStatus,
	{ urls, info, lastStatus }: { urls?: string[]; info?: IDataObject; lastStatus?: number | null } = {},
): IDataObject {
	const fields: IDataObject = {};
	for (const [key, value] of Object.entries(info ?? {})) {
		if (!NODE_FIELDS.includes(key)) fields[key] = value;
	}
	const { model, request, warning } = task.summary;
	return {
		taskid: String(task.taskId),
		status,
		urls: urls ?? [],
		...(lastStatus !== undefined ? { lastStatus } : {}),
		...fields,
		taskType: task.taskType,
		...(model !== undefined ? { model } : {}),
		...(request !== undefined ? { request } : {}),
		...(warning !== undefined ? { warning } : {}),
	};
}

export function pendingJson(task: OutputTask, lastStatus: number | undefined): IDataObject {
	return taskJson(task, 'pending', { lastStatus: lastStatus ?? null });
}

/** A task the API reported failed or refused (not a timeout: that one is pending). */
export function failedJson(task: OutputTask, lastStatus: number | undefined): IDataObject {
	return taskJson(task, 'failed', { lastStatus: lastStatus ?? null });
}

/** The JSON of a finished task (also the JSON of its error items when a result file fails). */
export function completedJson(task: OutputTask, info: IDataObject, urls: string[]): IDataObject {
	return taskJson(task, 'completed', { urls, info });
}

/** One result of a task split into items: the task's JSON with its own URL and place in `urls`. */
export function splitJson(json: IDataObject, urls: string[], index: number): IDataObject {
	return { ...json, url: urls[index], resultIndex: index };
}

/** The least an item says of its task, when its full JSON could not be built. */
export function bareTaskJson(task: OutputTask, status: TaskStatus, urls: string[]): IDataObject {
	return { taskid: task.taskId, taskType: task.taskType, status, urls };
}

/** The fields of a task that always fit in an output: its id, type and status (a delete's ids). */
export function essentialJson(json: IDataObject | undefined): IDataObject {
	const fields: IDataObject = {};
	for (const key of ['taskid', 'taskType', 'status', 'taskids']) {
		if (json?.[key] !== undefined) fields[key] = json[key];
	}
	return fields;
}

/** A creation that failed: no task, unless the failing answer named one (it is kept: it may have been charged). */
export function failedCreationJson(job: { summary: RequestSummary; taskType: TaskType }, error?: unknown): IDataObject {
	const taskId = (error as { context?: IDataObject })?.context?.taskId;
	return {
		taskid: typeof taskId === 'string' && taskId ? taskId : null,
		status: 'failed',
		taskType: job.taskType,
		...job.summary,
	};
}

/**
 * The output of a finished task: one item, or one item per result URL with Split Into Items. With Download
 * Results, `binaries` holds each URL's stored file.
 */
export function completedOutcome(
	task: OutputTask,
	info: IDataObject,
	urls: string[],
	options: { split: boolean; download: boolean },
	binaries: Array<INodeExecutionData['binary']> = [],
): ItemOutcome {
	const json = completedJson(task, info, urls);
	if (!options.split) {
		const binary = Object.assign({}, ...binaries.filter(Boolean)) as INodeExecutionData['binary'];
		return { itemIndex: task.itemIndex, items: [{ json, ...(options.download ? { binary } : {}) }] };
	}
	return {
		itemIndex: task.itemIndex,
		items: urls.map((_, index) => ({
			json: splitJson(json, urls, index),
			...(binaries[index] ? { binary: binaries[index] } : {}),
		})),
	};
}

/** A created task that is not (or no longer) waited on. */
export function createdOutcome(task: OutputTask): ItemOutcome {
	// Not waited on: pending, even when the creation answer already carries a URL (betav5, gammaimage).
	const json = taskJson(task, 'pending', { urls: resultUrls(task.creation), info: task.creation });
	return { itemIndex: task.itemIndex, items: [{ json }] };
}

/** Task → Get: a task that is not finished, as its answer describes it. */
export function checkedOutcome(task: OutputTask, info: IDataObject): ItemOutcome {
	return { itemIndex: task.itemIndex, items: [{ json: taskJson(task, 'pending', { info }) }] };
}

/**
 * The error item of a failed item (Continue On Fail), with its task's fields (`taskid: null` when none was created)
 * and the error, in the shape n8n routes for the On Error mode: one flat item on the regular output; on the error
 * output the task's fields go inside `error` (`$json.error.taskid`), since n8n moves an item there only when its json
 * holds nothing but `error` and `message` (n8n-core's WorkflowExecute, handleNodeErrorOutput). `item.error` is
 * never set: n8n replaces the json of such an item with `{ error: message }` in every mode, losing the task id.
 */
export function errorItem(
	outcome: Extract<ItemOutcome, { error: unknown }>,
	operation: Operation,
	errorOutput: boolean,
): INodeExecutionData {
	const { error, itemIndex } = outcome;
	const json = failureJson(outcome, operation);
	const description = error.description ? { errorDescription: error.description } : {};
	if (!errorOutput) {
		return { json: { ...json, error: error.message, ...description }, pairedItem: { item: itemIndex } };
	}
	return {
		json: {
			error: { message: error.message, ...(error.description ? { description: error.description } : {}), ...json },
			message: error.message,
		},
		pairedItem: { item: itemIndex },
	};
}

/** The task fields of a failed item: what its outcome kept, else the operation's task type and model. */
export function failureJson(
	outcome: Extract<ItemOutcome, { error: unknown }>,
	{ resource, operation }: Operation,
): IDataObject {
	return {
		taskid: null,
		taskType: resource === 'task' ? null : resource,
		status: 'failed',
		...(resource === 'task' ? {} : { model: operation }),
		...outcome.json,
	};
}

/** What became of one id Task → Delete was given (actions/task/deleteRequests.ts); unset: not sent, the run stopped. */
export type DeleteFate = 'deleted' | 'gone' | 'uncertain' | 'failed';

/** The ids of a request group (an input item, or with Combine All Items every item of one Task Type and User ID). */
export interface DeleteResult {
	taskType: TaskType;
	taskIds: string[];
	fates: ReadonlyMap<string, DeleteFate>;
	/** The status texts of the API's success answers. */
	texts: ReadonlySet<string>;
	/** Said when the API found none of the ids. */
	warning?: string;
}

/** Distinct status texts a message quotes; the rest are counted. */
const MAX_TEXTS = 3;

function deleteMessage(texts: ReadonlySet<string>): string | null {
	if (!texts.size) return null;
	const shown = [...texts].slice(0, MAX_TEXTS).join('; ');
	return texts.size > MAX_TEXTS ? `${shown}; … (${texts.size} different texts)` : shown;
}

/** The ids of a result by fate, in the order they were given; `failed` holds every id not deleted or gone. */
export function sortedIds({ taskIds, fates }: Pick<DeleteResult, 'taskIds' | 'fates'>) {
	const having = (...wanted: Array<DeleteFate | undefined>) => taskIds.filter((id) => wanted.includes(fates.get(id)));
	return {
		deleted: having('deleted'),
		alreadyGone: having('gone'),
		failed: having('failed', 'uncertain', undefined),
		uncertain: having('uncertain'),
	};
}

/**
 * Task → Delete's JSON (docs/waiting-and-output.md, "Output"): an item whose ids were not all deleted is an error
 * item, with `failed` (and `uncertain`) in place of the API's status texts.
 */
export function deleteJson(result: DeleteResult): IDataObject {
	const { deleted, alreadyGone, failed, uncertain } = sortedIds(result);
	const ids = { taskids: result.taskIds, taskType: result.taskType, deleted, alreadyGone };
	// An error item's message is the error's (on the error output n8n reads `message` as it): no status text there.
	if (failed.length) return { status: 'failed', ...ids, failed, ...(uncertain.length ? { uncertain } : {}) };
	return {
		status: 'deleted',
		message: deleteMessage(result.texts),
		...ids,
		...(result.warning ? { warning: result.warning } : {}),
	};
}

/**
 * The fields of a task an AI Agent's model reads: taskid, status, urls, taskType, model and the result's size; not
 * the request (a prompt of up to 32,000 characters would come back into the model's context), not raw status
 * values or timestamps.
 */
const TOOL_TASK_FIELDS = [
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
const TOOL_FAILURE_FIELDS = ['taskid', 'taskType', 'model', 'warning'];

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

/** A task's item as the model reads it (a pending one gets its hint from the caller). */
export function toolTaskJson(json: IDataObject): IDataObject {
	return pick(json, TOOL_TASK_FIELDS);
}

/**
 * A failure as the model reads it, never a thrown error: `status: "failed"`, what is known of its task, `message`
 * (what happened) and `hint` (what to do). No top-level `error` key: with Retry On Fail, n8n runs a node again
 * when its first item has one.
 */
export function toolFailureJson(
	json: IDataObject,
	message: string,
	hint?: string,
	fields: readonly string[] = TOOL_FAILURE_FIELDS,
): IDataObject {
	return { ...pick(json, fields), status: 'failed', message, ...(hint !== undefined ? { hint } : {}) };
}

/** A finished task whose files could not be downloaded (Download Results on): its URLs are the result. */
export function toolUndownloadedJson(json: IDataObject, urls: string[], message: string): IDataObject {
	return { ...pick(json, TOOL_FAILURE_FIELDS), status: 'completed', urls, message };
}
