/**
 * Waits on many tasks at once: every pending task is polled in the same round, rounds are one Poll
 * Interval apart, and each task ends on its own (results, failure, or Max Wait). Only polls are retried
 * (info is read-only); a poll that hits a network error, 429 or 5xx backs off and tries again within Max Wait.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import type { ItemOutcome } from '../actions/node.type';
import { INFO_PATH, infoRequestBody, type TaskKind } from '../models/endpoints';
import { apiJsonRequest, isRetryableError } from '../transport';
import { downloadResults } from './binary';
import { mapConcurrent } from './concurrency';
import { buildTaskOutput, resultUrls, type RequestSummary } from './output';
import { invalidInput, toList } from './validation';

/** Default bound on requests in flight at once, per node execution. */
export const DEFAULT_MAX_CONCURRENCY = 5;

/** Longest pause between two polls of a task whose polls keep failing. */
const MAX_BACKOFF_MS = 60_000;

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
	image: { pollInterval: 5, maxWait: 300, requestTimeout: 120 },
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

/** Sleeps, waking at once when the execution is cancelled (older n8n versions ignore the signal in sleep). */
async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
	if (signal?.aborted) return;
	let onAbort: () => void = () => {};
	const aborted = new Promise<void>((resolve) => {
		onAbort = resolve;
		signal?.addEventListener('abort', onAbort, { once: true });
	});
	try {
		await Promise.race([sleep(ms, signal).catch(() => undefined), aborted]);
	} finally {
		signal?.removeEventListener('abort', onAbort);
	}
}

export function statusOf(kind: TaskKind, data: IDataObject): number | undefined {
	const value = kind === 'image' ? data.image_status : data.task_status;
	return typeof value === 'number' ? value : value !== undefined && value !== null && value !== '' ? Number(value) : undefined;
}

interface Waiting {
	task: CreatedTask;
	deadline: number;
	nextPollAt: number;
	failures: number;
	lastStatus?: number;
	lastError?: Error;
}

function resumeHint(task: CreatedTask): string {
	return `The task keeps running on the server. Resume with Task → Wait (or Task → Get), Task Type "${task.kind}", Task ID "${task.taskId}".`;
}

function pendingJson(task: CreatedTask, lastStatus: number | undefined): IDataObject {
	return buildTaskOutput({ taskId: task.taskId, kind: task.kind, status: 'pending', lastStatus: lastStatus ?? null, ...task.summary });
}

async function finish(
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

/** Polls every task until it finishes, fails or runs out of time; one outcome per task, in any order. */
export async function waitForTasks(this: IExecuteFunctions, tasks: CreatedTask[], options: RunOptions): Promise<ItemOutcome[]> {
	const signal = this.getExecutionCancelSignal();
	const started = Date.now();
	const outcomes: ItemOutcome[] = [];
	let waiting: Waiting[] = tasks.map((task) => ({ task, deadline: started + options.maxWaitMs, nextPollAt: 0, failures: 0 }));

	const timedOut = (entry: Waiting): ItemOutcome => {
		const { task } = entry;
		if (options.onTimeout === 'returnPending') {
			return { itemIndex: task.itemIndex, items: [{ json: pendingJson(task, entry.lastStatus) }] };
		}
		const seconds = Number((options.maxWaitMs / 1000).toFixed(1));
		const lastError = entry.lastError ? ` Last poll error: ${entry.lastError.message}.` : '';
		return {
			itemIndex: task.itemIndex,
			error: new NodeOperationError(this.getNode(), `Task ${task.taskId} did not finish within ${seconds} s [item ${task.itemIndex}]`, {
				itemIndex: task.itemIndex,
				description: `Last status: ${entry.lastStatus ?? 'unknown'}.${lastError} ${resumeHint(task)} Raise Max Wait, or set On Timeout to "Return Pending Task".`,
			}),
			json: pendingJson(task, entry.lastStatus),
		};
	};

	while (waiting.length) {
		const now = Date.now();
		const wakeAt = Math.min(...waiting.map((entry) => Math.max(entry.nextPollAt, now + options.pollIntervalMs)));
		const nextDeadline = Math.min(...waiting.map((entry) => entry.deadline));
		await pause(Math.max(0, Math.min(wakeAt, nextDeadline) - Date.now()), signal);
		if (signal?.aborted) {
			for (const { task, lastStatus } of waiting) {
				outcomes.push({
					itemIndex: task.itemIndex,
					error: new NodeOperationError(this.getNode(), `Stopped waiting for task ${task.taskId}: the execution was cancelled [item ${task.itemIndex}]`, {
						itemIndex: task.itemIndex,
						description: resumeHint(task),
					}),
					json: pendingJson(task, lastStatus),
				});
			}
			return outcomes;
		}

		// A task at its deadline gets one last poll before it times out.
		const due = waiting.filter((entry) => entry.nextPollAt <= Date.now() || entry.deadline <= Date.now());
		const ended = new Set<Waiting>();
		await mapConcurrent(
			due,
			options.maxConcurrency,
			async (entry) => {
				const { task } = entry;
				let info: IDataObject;
				try {
					info = (await apiJsonRequest.call(
						this,
						INFO_PATH[task.kind],
						infoRequestBody(task.kind, task.taskId, task.moreTaskInfo),
						{ itemIndex: task.itemIndex, taskId: task.taskId, timeout: options.requestTimeoutMs },
					)) ?? {};
				} catch (error) {
					if (isRetryableError(error) && !signal?.aborted) {
						entry.failures++;
						entry.lastError = error as Error;
						entry.nextPollAt = Date.now() + Math.min(options.pollIntervalMs * 2 ** entry.failures, MAX_BACKOFF_MS);
						return;
					}
					ended.add(entry);
					outcomes.push({ itemIndex: task.itemIndex, error, json: pendingJson(task, entry.lastStatus) });
					return;
				}
				entry.failures = 0;
				entry.lastStatus = statusOf(task.kind, info);
				const urls = resultUrls(info);
				const status = entry.lastStatus;
				if (status !== undefined && options.failedCodes.includes(status)) {
					ended.add(entry);
					const detail = typeof info.message === 'string' && info.message ? `: ${info.message}` : '';
					outcomes.push({
						itemIndex: task.itemIndex,
						error: new NodeApiError(this.getNode(), { message: `Task ${task.taskId} failed`, status } as never, {
							message: `Task ${task.taskId} failed with status ${status}${detail} [item ${task.itemIndex}]`,
							description: `Status ${status} is listed in Failed Status Codes. The task ID is kept in the output.`,
							itemIndex: task.itemIndex,
						}),
						json: buildTaskOutput({ taskId: task.taskId, kind: task.kind, status: 'failed', lastStatus: status, info, ...task.summary }),
					});
					return;
				}
				const declaredDone = status !== undefined && options.succeededCodes.includes(status);
				if (urls.length) {
					ended.add(entry);
					outcomes.push(await finish.call(this, task, info, urls, options));
				} else if (declaredDone) {
					ended.add(entry);
					outcomes.push({
						itemIndex: task.itemIndex,
						error: new NodeApiError(this.getNode(), { message: 'no result URLs', status } as never, {
							message: `Task ${task.taskId} finished with status ${status} but returned no result URLs [item ${task.itemIndex}]`,
							description: `Status ${status} is listed in Succeeded Status Codes, yet the url list is empty. Check the task with Task → Get.`,
							itemIndex: task.itemIndex,
						}),
						json: buildTaskOutput({ taskId: task.taskId, kind: task.kind, status: 'failed', lastStatus: status, info, ...task.summary }),
					});
				}
			},
			() => signal?.aborted === true,
		);

		const stillWaiting: Waiting[] = [];
		for (const entry of waiting) {
			if (ended.has(entry)) continue;
			if (entry.deadline <= Date.now()) outcomes.push(timedOut(entry));
			else stillWaiting.push(entry);
		}
		waiting = stillWaiting;
	}
	return outcomes;
}
