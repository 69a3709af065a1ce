/**
 * Run options of creation and Task → Wait, and what an info answer means for a task: done, failed, timed out.
 * The scheduling itself lives in engine.ts.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ItemOutcome } from '../actions/node.type';
import type { TaskKind } from '../models/endpoints';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../transport';
import { downloadResults } from './binary';
import { buildTaskOutput, resultUrls, type RequestSummary } from './output';
import { invalidInput, toList } from './validation';

/**
 * Default bound on API requests in flight at once, per node execution. Chosen with `npm run bench` at 150 ms
 * round trip: 500 tasks polled every 2 s need about 40 polls in flight plus the creations (with 5, the old
 * default, the 500 creations alone take 500 x 150 ms / 5 = 15 s); 128 measured no faster than 64 (the
 * client's CPU is the limit by then) and doubles the burst an API sees before its first 429. The bound halves
 * on every HTTP 429, so a rate-limited account is not flooded.
 */
export const DEFAULT_MAX_CONCURRENCY = 64;

export interface CreatedTask {
	itemIndex: number;
	kind: TaskKind;
	taskId: string;
	/** The creation answer's data (taskid, and url for some models). */
	creation: IDataObject;
	/** Model and request summary for the output. */
	summary: RequestSummary;
	/** Sent with video info requests. */
	moreTaskInfo?: boolean;
}

export interface RunOptions {
	wait: boolean;
	maxConcurrency: number;
	requestTimeoutMs: number;
	pollIntervalMs: number;
	maxWaitMs: number;
	onTimeout: 'error' | 'returnPending';
	succeededCodes: number[];
	failedCodes: number[];
	download: boolean;
	binaryPrefix: string;
	split: boolean;
}

/** Defaults in seconds per task type; the editor shows the same values (helpers/parameters.ts). */
export const WAIT_DEFAULTS: Record<TaskKind, { pollInterval: number; maxWait: number; requestTimeout: number }> = {
	// Image requests default to the transport's own timeout, which every request without an option uses.
	image: { pollInterval: 5, maxWait: 300, requestTimeout: DEFAULT_REQUEST_TIMEOUT_MS / 1000 },
	video: { pollInterval: 10, maxWait: 1800, requestTimeout: 300 },
};

type WaitDefaults = (typeof WAIT_DEFAULTS)[TaskKind];

/** Defaults that suit every given task type (shortest interval, longest waits): one type gives its own. */
export function waitDefaults(kinds: readonly TaskKind[]): WaitDefaults {
	const list = kinds.length ? kinds.map((kind) => WAIT_DEFAULTS[kind]) : [WAIT_DEFAULTS.image];
	return {
		pollInterval: Math.min(...list.map((entry) => entry.pollInterval)),
		maxWait: Math.max(...list.map((entry) => entry.maxWait)),
		requestTimeout: Math.max(...list.map((entry) => entry.requestTimeout)),
	};
}

function statusCodes(this: IExecuteFunctions, value: unknown, field: string): number[] {
	return toList(value).map((entry) => {
		const code = Number(entry);
		// Options are read once, from the first item.
		if (!Number.isInteger(code)) throw invalidInput.call(this, 0, field, value, 'must be a comma-separated list of integers');
		return code;
	});
}

export function readRunOptions(this: IExecuteFunctions, kind: TaskKind | readonly TaskKind[], wait: boolean): RunOptions {
	const options = (this.getNodeParameter('options', 0, {}) as IDataObject) ?? {};
	const defaults = waitDefaults(typeof kind === 'string' ? [kind] : [...new Set(kind)]);
	const seconds = (value: unknown, fallback: number) => {
		const number = Number(value ?? fallback);
		return Number.isFinite(number) && number >= 0 ? number : fallback;
	};
	return {
		wait,
		maxConcurrency: Math.max(1, Math.floor(seconds(options.maxConcurrency, DEFAULT_MAX_CONCURRENCY))),
		requestTimeoutMs: Math.max(1, seconds(options.requestTimeout, defaults.requestTimeout)) * 1000,
		pollIntervalMs: Math.max(0.05, seconds(options.pollInterval, defaults.pollInterval)) * 1000,
		maxWaitMs: seconds(options.maxWait, defaults.maxWait) * 1000,
		onTimeout: options.onTimeout === 'returnPending' ? 'returnPending' : 'error',
		succeededCodes: statusCodes.call(this, options.succeededStatusCodes, 'Succeeded Status Codes'),
		failedCodes: statusCodes.call(this, options.failedStatusCodes, 'Failed Status Codes'),
		// On unless switched off: an image node should return images (URLs stay in the JSON either way).
		download: options.downloadResults !== false,
		binaryPrefix: String(options.binaryPropertyPrefix ?? 'data').trim() || 'data',
		split: options.splitIntoItems === true,
	};
}

export function statusOf(kind: TaskKind, data: IDataObject): number | undefined {
	const value = kind === 'image' ? data.image_status : data.task_status;
	return typeof value === 'number' ? value : value !== undefined && value !== null && value !== '' ? Number(value) : undefined;
}

function resumeHint(task: CreatedTask): string {
	return `The task keeps running on the server. Resume with Task → Wait (or Task → Get), Task Type "${task.kind}", Task ID "${task.taskId}".`;
}

export function pendingJson(task: CreatedTask, lastStatus: number | undefined): IDataObject {
	return buildTaskOutput({ taskId: task.taskId, kind: task.kind, status: 'pending', lastStatus: lastStatus ?? null, ...task.summary });
}

export async function finish(
	this: IExecuteFunctions,
	task: CreatedTask,
	info: IDataObject,
	urls: string[],
	options: RunOptions,
): Promise<ItemOutcome> {
	const json = buildTaskOutput({ taskId: task.taskId, kind: task.kind, status: 'completed', urls, info, ...task.summary });
	let binaries: Array<INodeExecutionData['binary']> = urls.map(() => undefined);
	if (options.download) {
		try {
			binaries = await downloadResults.call(this, task, urls, options);
		} catch (error) {
			return { itemIndex: task.itemIndex, error, json };
		}
	}
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
export function judgeInfo(this: IExecuteFunctions, task: CreatedTask, info: IDataObject, status: number | undefined, options: RunOptions): InfoVerdict {
	if (status !== undefined && options.failedCodes.includes(status)) {
		const detail = typeof info.message === 'string' && info.message ? `: ${info.message}` : '';
		return {
			state: 'ended',
			outcome: {
				itemIndex: task.itemIndex,
				error: new NodeApiError(this.getNode(), { message: `Task ${task.taskId} failed`, status } as never, {
					message: `Task ${task.taskId} failed with status ${status}${detail} [item ${task.itemIndex}]`,
					description: `Status ${status} is listed in Failed Status Codes. The task ID is kept in the output.`,
					itemIndex: task.itemIndex,
				}),
				json: buildTaskOutput({ taskId: task.taskId, kind: task.kind, status: 'failed', lastStatus: status, info, ...task.summary }),
			},
		};
	}
	const urls = resultUrls(info);
	if (!options.succeededCodes.length) return urls.length ? { state: 'done', urls } : { state: 'waiting' };
	if (status === undefined || !options.succeededCodes.includes(status)) return { state: 'waiting' };
	if (urls.length) return { state: 'done', urls };
	return {
		state: 'ended',
		outcome: {
			itemIndex: task.itemIndex,
			error: new NodeApiError(this.getNode(), { message: 'no result URLs', status } as never, {
				message: `Task ${task.taskId} finished with status ${status} but returned no result URLs [item ${task.itemIndex}]`,
				description: `Status ${status} is listed in Succeeded Status Codes, yet the url list is empty. Check the task with Task → Get.`,
				itemIndex: task.itemIndex,
			}),
			json: buildTaskOutput({ taskId: task.taskId, kind: task.kind, status: 'failed', lastStatus: status, info, ...task.summary }),
		},
	};
}

export function timedOutOutcome(
	this: IExecuteFunctions,
	task: CreatedTask,
	options: RunOptions,
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
		error: new NodeOperationError(this.getNode(), `Task ${task.taskId} did not finish within ${seconds} s [item ${task.itemIndex}]`, {
			itemIndex: task.itemIndex,
			description: `Last status: ${lastStatus ?? 'unknown'}.${lastErrorNote} ${resumeHint(task)} Raise Max Wait, or set On Timeout to "Return Pending Task".`,
		}),
		json: pendingJson(task, lastStatus),
	};
}

export function cancelledOutcome(this: IExecuteFunctions, task: CreatedTask, lastStatus: number | undefined): ItemOutcome {
	return {
		itemIndex: task.itemIndex,
		error: new NodeOperationError(this.getNode(), `Stopped waiting for task ${task.taskId}: the execution was cancelled [item ${task.itemIndex}]`, {
			itemIndex: task.itemIndex,
			description: resumeHint(task),
		}),
		json: pendingJson(task, lastStatus),
	};
}

/** The output of a created task that is not (or no longer) waited on. */
export function createdOutcome(task: CreatedTask): ItemOutcome {
	// Not waited on: pending, even when the creation answer already carries a URL (betav5, gammaimage).
	const json = buildTaskOutput({ taskId: task.taskId, kind: task.kind, status: 'pending', urls: resultUrls(task.creation), info: task.creation, ...task.summary });
	return { itemIndex: task.itemIndex, items: [{ json }] };
}
