/** What an info answer means for a task (done, failed, still waiting, timed out) and the outcome each gives. */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { shorten, SHOWN } from '../helpers/shorten';
import type { TaskType } from '../models/endpoints';
import { buildTaskOutput, resultUrls, type ItemOutcome, type RequestSummary } from '../output/taskOutput';
import type { TaskRef } from '../request/taskItem';
import type { WaitingOptions } from './options';

/** A task that exists on the server: created by this run, or named by an item (Task → Wait). */
export interface CreatedTask extends TaskRef {
	/** The creation answer's data (taskid, and url for some models). */
	creation: IDataObject;
	/** Model and request summary for the output. */
	summary: RequestSummary;
	/** Other tasks the creation's answer named: they may be charged too (their ids are in `summary.warning`). */
	alsoNamed?: string[];
}

export function statusOf(taskType: TaskType, data: IDataObject): number | undefined {
	const value = taskType === 'image' ? data.image_status : data.task_status;
	return typeof value === 'number'
		? value
		: value !== undefined && value !== null && value !== ''
			? Number(value)
			: undefined;
}

function resumeHint(task: CreatedTask): string {
	return `The task keeps running on the server. Resume with Task → Wait (or Task → Get), Task Type "${task.taskType}", Task ID "${task.taskId}".`;
}

export function pendingJson(task: CreatedTask, lastStatus: number | undefined): IDataObject {
	return buildTaskOutput({
		taskId: task.taskId,
		taskType: task.taskType,
		status: 'pending',
		lastStatus: lastStatus ?? null,
		...task.summary,
	});
}

/** A task the API reported failed or refused (not a timeout: that one is pending). */
export function failedJson(task: CreatedTask, lastStatus: number | undefined): IDataObject {
	return buildTaskOutput({
		taskId: task.taskId,
		taskType: task.taskType,
		status: 'failed',
		lastStatus: lastStatus ?? null,
		...task.summary,
	});
}

/**
 * A status check that failed for a reason other than time (the API refused it, a proxy answered 4xx, a redirect):
 * not a verdict on the task, which may be running or done. The item ends with the error, the task pending with
 * its id; the error says what to try, never to create the task again.
 */
export function statusCheckFailed(
	task: CreatedTask,
	error: NodeApiError | NodeOperationError,
	lastStatus: number | undefined,
	remembered: boolean,
): ItemOutcome {
	const resume = remembered ? ' Retry On Fail checks it again rather than creating it again.' : '';
	const note = `This was a status check of task ${task.taskId}, not a verdict on the task: the API did not say that it failed, and it may be running or done. Check it again with Task → Get or Task → Wait (Task ID "${task.taskId}") once the cause is fixed.${resume}`;
	error.description = error.description ? `${error.description} ${note}` : note;
	error.context.statusCheckFailed = true;
	return { itemIndex: task.itemIndex, error, json: pendingJson(task, lastStatus) };
}

/** A creation that failed: no task, unless the failing answer named one (it is kept: it may have been charged). */
export function failedCreationJson(job: { summary: RequestSummary; taskType: TaskType }, error: unknown): IDataObject {
	const taskId = (error as { context?: IDataObject })?.context?.taskId;
	return {
		taskid: typeof taskId === 'string' && taskId ? taskId : null,
		status: 'failed',
		taskType: job.taskType,
		...job.summary,
	};
}

/** The other tasks a failed creation's answer named besides the one its error keeps (transport/errors.ts). */
export function alsoNamedOf(error: unknown): string[] {
	const also = (error as { context?: IDataObject })?.context?.alsoNamed;
	return Array.isArray(also) ? also.filter((id): id is string => typeof id === 'string') : [];
}

/** The JSON of a finished task (also the JSON of its error items when a result file fails). */
export function completedJson(task: CreatedTask, info: IDataObject, urls: string[]): IDataObject {
	return buildTaskOutput({
		taskId: task.taskId,
		taskType: task.taskType,
		status: 'completed',
		urls,
		info,
		...task.summary,
	});
}

/**
 * The output of a finished task: one item, or one item per result URL with Split Into Items. With Download
 * Results, `binaries` holds each URL's stored file (waiting/results.ts downloads them).
 */
export function finish(
	task: CreatedTask,
	info: IDataObject,
	urls: string[],
	options: WaitingOptions,
	binaries: Array<INodeExecutionData['binary']> = [],
): ItemOutcome {
	const json = completedJson(task, info, urls);
	if (!options.split) {
		const binary = Object.assign({}, ...binaries.filter(Boolean)) as INodeExecutionData['binary'];
		return { itemIndex: task.itemIndex, items: [{ json, ...(options.download ? { binary } : {}) }] };
	}
	return {
		itemIndex: task.itemIndex,
		items: urls.map((url, index) => ({
			json: { ...json, url, resultIndex: index },
			...(binaries[index] ? { binary: binaries[index] } : {}),
		})),
	};
}

/** What one info answer means for a task still being waited on. */
export type InfoVerdict =
	| { state: 'waiting' }
	| { state: 'done'; urls: string[] }
	| { state: 'ended'; outcome: ItemOutcome };

/**
 * Reads one info answer. When the user declared Succeeded Status Codes, only those (or a failed code) end the
 * wait: a partial url list while the task is still processing does not. Without them, result URLs do.
 */
export function judgeInfo(
	this: IExecuteFunctions,
	task: CreatedTask,
	info: IDataObject,
	status: number | undefined,
	options: WaitingOptions,
): InfoVerdict {
	if (status !== undefined && options.failedCodes.includes(status)) {
		// The info was redacted when it arrived (transport); a long message is cut for the error.
		const detail =
			typeof info.message === 'string' && info.message
				? `: ${shorten(info.message, SHOWN.echo, { sayLength: true })}`
				: '';
		return failedVerdict(
			task,
			info,
			status,
			new NodeApiError(this.getNode(), { message: `Task ${task.taskId} failed`, status } as never, {
				message: `Task ${task.taskId} failed with status ${status}${detail} [item ${task.itemIndex}]`,
				description: `Status ${status} is listed in Failed Status Codes. The task ID is kept in the output.`,
				itemIndex: task.itemIndex,
			}),
		);
	}
	const urls = resultUrls(info);
	if (!options.succeededCodes.length) return urls.length ? { state: 'done', urls } : { state: 'waiting' };
	if (status === undefined || !options.succeededCodes.includes(status)) return { state: 'waiting' };
	if (urls.length) return { state: 'done', urls };
	return failedVerdict(
		task,
		info,
		status,
		new NodeApiError(this.getNode(), { message: 'no result URLs', status } as never, {
			message: `Task ${task.taskId} finished with status ${status} but returned no result URLs [item ${task.itemIndex}]`,
			description: `Status ${status} is listed in Succeeded Status Codes, yet the url list is empty. Check the task with Task → Get.`,
			itemIndex: task.itemIndex,
		}),
	);
}

/** A task the answer ended as failed: the error, and the output that keeps its id and the last info. */
function failedVerdict(
	task: CreatedTask,
	info: IDataObject,
	status: number | undefined,
	error: NodeApiError,
): InfoVerdict {
	return {
		state: 'ended',
		outcome: {
			itemIndex: task.itemIndex,
			error,
			json: buildTaskOutput({
				taskId: task.taskId,
				taskType: task.taskType,
				status: 'failed',
				lastStatus: status,
				info,
				...task.summary,
			}),
		},
	};
}

export function timedOutOutcome(
	this: IExecuteFunctions,
	task: CreatedTask,
	options: WaitingOptions,
	lastStatus: number | undefined,
	lastError: Error | undefined,
): ItemOutcome {
	if (options.onTimeout === 'returnPending') {
		return { itemIndex: task.itemIndex, items: [{ json: pendingJson(task, lastStatus) }] };
	}
	const seconds = Number((options.maxWaitMs / 1000).toFixed(1));
	const lastErrorNote = lastError ? ` Last poll error: ${lastError.message}.` : '';
	return {
		itemIndex: task.itemIndex,
		error: new NodeOperationError(
			this.getNode(),
			`Task ${task.taskId} did not finish within ${seconds} s [item ${task.itemIndex}]`,
			{
				itemIndex: task.itemIndex,
				description: `Last status: ${lastStatus ?? 'unknown'}.${lastErrorNote} ${resumeHint(task)} Raise Max Wait, or set On Timeout to "Return Pending Task".`,
			},
		),
		json: pendingJson(task, lastStatus),
	};
}

export function cancelledOutcome(
	this: IExecuteFunctions,
	task: CreatedTask,
	lastStatus: number | undefined,
): ItemOutcome {
	return {
		itemIndex: task.itemIndex,
		error: new NodeOperationError(
			this.getNode(),
			`Stopped waiting for task ${task.taskId}: the execution was cancelled [item ${task.itemIndex}]`,
			{
				itemIndex: task.itemIndex,
				description: resumeHint(task),
			},
		),
		json: pendingJson(task, lastStatus),
	};
}

/** The output of a created task that is not (or no longer) waited on. */
export function createdOutcome(task: CreatedTask): ItemOutcome {
	// Not waited on: pending, even when the creation answer already carries a URL (betav5, gammaimage).
	const json = buildTaskOutput({
		taskId: task.taskId,
		taskType: task.taskType,
		status: 'pending',
		urls: resultUrls(task.creation),
		info: task.creation,
		...task.summary,
	});
	return { itemIndex: task.itemIndex, items: [{ json }] };
}

/** Task → Get: a task that is not finished, as its answer describes it. */
export function checkedOutcome(task: CreatedTask, info: IDataObject): ItemOutcome {
	const json = buildTaskOutput({
		taskId: task.taskId,
		taskType: task.taskType,
		status: 'pending',
		info,
		...task.summary,
	});
	return { itemIndex: task.itemIndex, items: [{ json }] };
}
