/**
 * The shape of every output item, one per kind so that expressions keep working when a user swaps one operation for
 * another (docs/waiting-and-output.md, "Output"): a task's, a failure's, Task → Delete's. The node's own fields always
 * win over an API answer's: an answer that names another task, or sends a numeric taskid, never replaces the id of
 * the task this item paid for.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { TaskType } from '../models/endpoints';
import type { ItemError } from './itemFailure';

/** What a workflow's IF node can test: finished with results, still running, or failed. */
export type TaskStatus = 'completed' | 'pending' | 'failed';

/** What the output says about the creation request (request/body.ts, requestSummary). */
export interface RequestSummary {
	model?: string;
	request?: IDataObject;
	/** Something about the item's tries that must stay visible, e.g. an earlier try's paid task. */
	warning?: string;
}

export interface OutputTask {
	itemIndex: number;
	taskId: string;
	taskType: TaskType;
	summary: RequestSummary;
	/** The creation answer's data (taskid, and url for some models). */
	creation?: IDataObject;
}

/** A failure names its task type and model from the operation. */
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

const NODE_FIELDS = ['taskid', 'status', 'urls', 'url', 'taskType', 'model', 'request', 'lastStatus', 'warning'];

/** Non-empty result URLs of an API answer (`url` is a list on info answers, a string on some creations). */
export function resultUrls(data: IDataObject | undefined): string[] {
	const raw = data?.url;
	const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
	return list.filter((url): url is string => typeof url === 'string' && url.trim() !== '');
}

/** A task's JSON: `info` is the API's answer less the node's fields; `lastStatus` is on unfinished tasks. */
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

/** One result of a task split into items: the task's JSON with its own URL and place in `urls`. */
export function splitJson(json: IDataObject, urls: string[], index: number): IDataObject {
	return { ...json, url: urls[index], resultIndex: index };
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

/** A finished task's items: one, or one per result URL (Split Into Items); `binaries` are each URL's stored file. */
export function completedOutcome(
	task: OutputTask,
	info: IDataObject,
	urls: string[],
	options: { split: boolean; download: boolean },
	binaries: Array<INodeExecutionData['binary']> = [],
): ItemOutcome {
	const json = taskJson(task, 'completed', { urls, info });
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

/** A created task that is not (or no longer) waited on: pending, even when its creation answer carries a URL. */
export function createdOutcome(task: OutputTask): ItemOutcome {
	const json = taskJson(task, 'pending', { urls: resultUrls(task.creation), info: task.creation });
	return { itemIndex: task.itemIndex, items: [{ json }] };
}

/** Task → Get: a task that is not finished, as its answer describes it. */
export function checkedOutcome(task: OutputTask, info: IDataObject): ItemOutcome {
	return { itemIndex: task.itemIndex, items: [{ json: taskJson(task, 'pending', { info }) }] };
}

/**
 * The error item of a failed item, in the shape n8n routes for the On Error mode (docs/errors-and-n8n-settings.md):
 * on the error output the task's fields go inside `error`, since n8n moves an item there only when its json holds
 * nothing but `error` and `message` (n8n-core's handleNodeErrorOutput). `item.error` is never set: n8n replaces the
 * json of such an item with `{ error: message }`, losing the task id.
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

/** Distinct status texts a delete's message quotes; the rest are counted. */
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
