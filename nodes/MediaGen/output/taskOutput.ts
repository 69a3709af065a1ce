/**
 * The one output shape of a task, used by every operation (creation with or without waiting, Task → Get,
 * Task → Wait, and the error items of created tasks), so that expressions keep working when a user swaps
 * one operation for another:
 *
 *   taskid, status, urls, <the API's info fields>, taskType, model, request (and warning, when an earlier try
 *   of the item created another task)
 *
 * The node's own fields always win over same-named fields of an API answer: an answer that names another
 * task, or sends a numeric taskid, never replaces the id of the task this item paid for.
 */
import type { IDataObject, INodeExecutionData, NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { TaskType } from '../models/endpoints';

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

export interface TaskOutput extends RequestSummary {
	taskId: string;
	taskType: TaskType;
	status: TaskStatus;
	urls?: string[];
	/** The API's answer (creation data or task info); its own taskid/status/url fields are dropped. */
	info?: IDataObject;
	/** The last raw status value the API reported, for tasks that are not completed. */
	lastStatus?: number | null;
}

/** Field names the node owns: an API answer cannot overwrite them. */
const NODE_FIELDS = ['taskid', 'status', 'urls', 'url', 'taskType', 'model', 'request', 'lastStatus', 'warning'];

/** Non-empty result URLs of an API answer (`url` is a list on info answers, a string on some creations). */
export function resultUrls(data: IDataObject | undefined): string[] {
	const raw = data?.url;
	const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
	return list.filter((url): url is string => typeof url === 'string' && url.trim() !== '');
}

export function buildTaskOutput(output: TaskOutput): IDataObject {
	const info: IDataObject = {};
	for (const [key, value] of Object.entries(output.info ?? {})) {
		if (!NODE_FIELDS.includes(key)) info[key] = value;
	}
	return {
		taskid: String(output.taskId),
		status: output.status,
		urls: output.urls ?? [],
		...(output.lastStatus !== undefined ? { lastStatus: output.lastStatus } : {}),
		...info,
		taskType: output.taskType,
		...(output.model !== undefined ? { model: output.model } : {}),
		...(output.request !== undefined ? { request: output.request } : {}),
		...(output.warning !== undefined ? { warning: output.warning } : {}),
	};
}

/** The result of one input item: its output items, or the error that ended it. */
export type ItemOutcome =
	| { itemIndex: number; items: INodeExecutionData[] }
	| {
			itemIndex: number;
			error: NodeApiError | NodeOperationError;
			/** Kept on the error item so that a paid task is never lost (e.g. taskid, model). */
			json?: IDataObject;
	  };
