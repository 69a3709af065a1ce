/** What an info answer means for a task (done, failed, still waiting, timed out) and the outcome each gives. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { shorten, SHOWN } from '../helpers/shorten';
import type { TaskType } from '../models/endpoints';
import { pendingJson, resultUrls, taskJson, type ItemOutcome, type OutputTask } from '../output/items';
import type { TaskRef } from '../request/taskItem';
import type { WaitingOptions } from './options';

/** A task that exists on the server: created by this run, or named by an item (Task → Wait). */
export interface CreatedTask extends TaskRef, OutputTask {
	creation: IDataObject;
	/** Other tasks the creation's answer named: they may be charged too (their ids are in `summary.warning`). */
	alsoNamed?: string[];
}

/** A task as its wait left it. */
export interface Waited {
	task: CreatedTask;
	lastStatus?: number;
	lastError?: Error;
}

export function statusOf(taskType: TaskType, data: IDataObject): number | undefined {
	const value = taskType === 'image' ? data.image_status : data.task_status;
	if (typeof value === 'number') return value;
	return value !== undefined && value !== null && value !== '' ? Number(value) : undefined;
}

function resumeHint(task: CreatedTask): string {
	return `The task keeps running on the server. Resume with Task → Wait (or Task → Get), Task Type "${task.taskType}", Task ID "${task.taskId}".`;
}

/**
 * A status check that failed for a reason other than time: not a verdict on the task, which may be running or done.
 * The item ends pending with its task id; the error says what to try, never to create the task again.
 */
export function statusCheckFailed(
	{ task, lastStatus }: Waited,
	error: NodeApiError | NodeOperationError,
	remembered: boolean,
): ItemOutcome {
	const resume = remembered ? ' Retry On Fail checks it again rather than creating it again.' : '';
	const note = `This was a status check of task ${task.taskId}, not a verdict on the task: the API did not say that it failed, and it may be running or done. Check it again with Task → Get or Task → Wait (Task ID "${task.taskId}") once the cause is fixed.${resume}`;
	error.description = error.description ? `${error.description} ${note}` : note;
	error.context.statusCheckFailed = true;
	return { itemIndex: task.itemIndex, error, json: pendingJson(task, lastStatus) };
}

/** The other tasks a failed creation's answer named besides the one its error keeps (transport/errors.ts). */
export function alsoNamedOf(error: unknown): string[] {
	const also = (error as { context?: IDataObject })?.context?.alsoNamed;
	return Array.isArray(also) ? also.filter((id): id is string => typeof id === 'string') : [];
}

export type TaskState =
	| { state: 'waiting' }
	| { state: 'done'; urls: string[] }
	| { state: 'ended'; outcome: ItemOutcome };

/** With Succeeded Status Codes only those (or a failed code) end the wait, not a partial url list; else URLs do. */
export function decideTaskState(
	this: IExecuteFunctions,
	task: CreatedTask,
	info: IDataObject,
	status: number | undefined,
	options: WaitingOptions,
): TaskState {
	if (status !== undefined && options.failedCodes.includes(status)) {
		// The info was redacted when it arrived (transport); a long message is cut for the error.
		const detail =
			typeof info.message === 'string' && info.message
				? `: ${shorten(info.message, SHOWN.echo, { sayLength: true })}`
				: '';
		return failedVerdict.call(this, task, info, status, {
			short: `Task ${task.taskId} failed`,
			message: `Task ${task.taskId} failed with status ${status}${detail} [item ${task.itemIndex}]`,
			description: `Status ${status} is listed in Failed Status Codes. The task ID is kept in the output.`,
		});
	}
	const urls = resultUrls(info);
	if (!options.succeededCodes.length) return urls.length ? { state: 'done', urls } : { state: 'waiting' };
	if (status === undefined || !options.succeededCodes.includes(status)) return { state: 'waiting' };
	if (urls.length) return { state: 'done', urls };
	return failedVerdict.call(this, task, info, status, {
		short: 'no result URLs',
		message: `Task ${task.taskId} finished with status ${status} but returned no result URLs [item ${task.itemIndex}]`,
		description: `Status ${status} is listed in Succeeded Status Codes, yet the url list is empty. Check the task with Task → Get.`,
	});
}

/** A task the answer ended as failed: the error, and the output that keeps its id and the last info. */
function failedVerdict(
	this: IExecuteFunctions,
	task: CreatedTask,
	info: IDataObject,
	status: number,
	text: { short: string; message: string; description: string },
): TaskState {
	const { itemIndex } = task;
	const { short, ...shown } = text;
	const error = new NodeApiError(this.getNode(), { message: short, status } as never, { ...shown, itemIndex });
	const json = taskJson(task, 'failed', { lastStatus: status, info });
	return { state: 'ended', outcome: { itemIndex, error, json } };
}

export function timedOutOutcome(this: IExecuteFunctions, waited: Waited, options: WaitingOptions): ItemOutcome {
	const { task, lastStatus, lastError } = waited;
	if (options.onTimeout === 'returnPending') {
		return { itemIndex: task.itemIndex, items: [{ json: pendingJson(task, lastStatus) }] };
	}
	const seconds = Number((options.maxWaitMs / 1000).toFixed(1));
	const lastErrorNote = lastError ? ` Last poll error: ${lastError.message}.` : '';
	const message = `Task ${task.taskId} did not finish within ${seconds} s [item ${task.itemIndex}]`;
	const description = `Last status: ${lastStatus ?? 'unknown'}.${lastErrorNote} ${resumeHint(task)} Raise Max Wait, or set On Timeout to "Return Pending Task".`;
	return stillPending.call(this, waited, message, description);
}

export function cancelledOutcome(this: IExecuteFunctions, waited: Waited): ItemOutcome {
	const { task } = waited;
	const message = `Stopped waiting for task ${task.taskId}: the execution was cancelled [item ${task.itemIndex}]`;
	return stillPending.call(this, waited, message, resumeHint(task));
}

/** An item that ends with an error while its task may still be running: the output keeps the task pending. */
function stillPending(this: IExecuteFunctions, waited: Waited, message: string, description: string): ItemOutcome {
	const { itemIndex } = waited.task;
	const error = new NodeOperationError(this.getNode(), message, { itemIndex, description });
	return { itemIndex, error, json: pendingJson(waited.task, waited.lastStatus) };
}
