/** The options of creation and Task → Wait, with their defaults per task type. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { TaskType } from '../models/endpoints';
import { invalidInput } from '../helpers/badInput';
import { toList } from '../request/validation';
import { isToolCall, TOOL_MAX_WAIT_SECONDS } from '../tool/call';
import { clampRequestTimeout, DEFAULT_REQUEST_TIMEOUT_MS } from '../transport';

/**
 * Default Max Concurrent Requests, and the adaptive bound's start, chosen with `npm run bench` at 150 ms round trip: a
 * cap of 64 made 500 creations wait for each other (500 x 150 ms / 64 = 1.2 s, more on a loaded machine) and starved
 * polls (500 tasks polled every 2 s need 250 answers a second), while n8n's HTTP Request node sends every item at once;
 * starting the bound at 64 cost 500 creations two more round trips (0.9 s against the HTTP Request loop's 0.35 s).
 */
export const DEFAULT_MAX_CONCURRENCY = 256;

export interface WaitingOptions {
	wait: boolean;
	maxConcurrency: number;
	requestTimeoutMs: number;
	pollIntervalMs: number;
	/** "learned": polls go where the model's renders finish (learning/); "fixed": creation + k × Poll Interval. */
	pollSchedule: 'learned' | 'fixed';
	maxWaitMs: number;
	onTimeout: 'error' | 'returnPending';
	succeededCodes: number[];
	failedCodes: number[];
	download: boolean;
	binaryPrefix: string;
	split: boolean;
	/** Create again, on a later try, an item whose creation may have created a task (Repeat Uncertain Creations). */
	repeatUncertain: boolean;
	/** As a tool: when the call must have answered (its start + Max Wait), for the caller to get the task ids. */
	answerBy?: number;
}

/** As a tool, a task's last check starts this long before the call must answer (at most), to be answered in time. */
const LAST_CHECK_MS = 3000;

/** A request's timeout when it starts at `now`: Request Timeout, cut to the time left before a tool call answers. */
export function requestTimeoutAt(options: WaitingOptions, now: number): number {
	if (options.answerBy === undefined) return options.requestTimeoutMs;
	return Math.max(1, Math.min(options.requestTimeoutMs, options.answerBy - now));
}

/** When a task's wait ends with its last check: Max Wait after its creation's first try, as a tool maybe sooner. */
export function waitEndsAt(options: WaitingOptions, firstAttemptAt: number): number {
	const end = firstAttemptAt + options.maxWaitMs;
	if (options.answerBy === undefined) return end;
	const lastCheck = Math.min(LAST_CHECK_MS, options.requestTimeoutMs, options.maxWaitMs / 4);
	return Math.min(end, options.answerBy - lastCheck);
}

/** Defaults in seconds per task type; the editor shows the same values (actions/descriptions.ts). */
export const WAIT_DEFAULTS: Record<TaskType, { pollInterval: number; maxWait: number; requestTimeout: number }> = {
	// Image requests default to the transport's own timeout, which every request without an option uses.
	image: { pollInterval: 5, maxWait: 300, requestTimeout: DEFAULT_REQUEST_TIMEOUT_MS / 1000 },
	video: { pollInterval: 10, maxWait: 1800, requestTimeout: 300 },
};

/** Defaults that suit every given task type (shortest interval, longest waits): one type gives its own. */
export function waitDefaults(taskTypes: readonly TaskType[]): (typeof WAIT_DEFAULTS)[TaskType] {
	const list = taskTypes.length ? taskTypes.map((taskType) => WAIT_DEFAULTS[taskType]) : [WAIT_DEFAULTS.image];
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
		if (!Number.isInteger(code))
			throw invalidInput.call(this, 0, field, value, 'must be a comma-separated list of integers');
		return code;
	});
}

export function readWaitingOptions(
	this: IExecuteFunctions,
	taskType: TaskType | readonly TaskType[],
	wait: boolean,
): WaitingOptions {
	const options = (this.getNodeParameter('options', 0, {}) as IDataObject) ?? {};
	const defaults = waitDefaults(typeof taskType === 'string' ? [taskType] : [...new Set(taskType)]);
	// As an AI Agent's tool (tool/properties.ts shows the same defaults): the model reads only JSON, so no
	// downloads unless switched on; a short wait that ends in a pending task the model can come back for.
	const tool = isToolCall(this);
	const seconds = (value: unknown, fallback: number) => {
		const number = Number(value ?? fallback);
		return Number.isFinite(number) && number >= 0 ? number : fallback;
	};
	const maxWaitMs = seconds(options.maxWait, tool ? TOOL_MAX_WAIT_SECONDS : defaults.maxWait) * 1000;
	return {
		wait,
		maxConcurrency: Math.max(1, Math.floor(seconds(options.maxConcurrency, DEFAULT_MAX_CONCURRENCY))),
		// Whole milliseconds, at most 2^31 - 1 (about 24.8 days): 8.05 s or 30 days would break every request.
		requestTimeoutMs: clampRequestTimeout(Math.max(1, seconds(options.requestTimeout, defaults.requestTimeout)) * 1000),
		pollIntervalMs: Math.max(0.05, seconds(options.pollInterval, defaults.pollInterval)) * 1000,
		pollSchedule: options.pollSchedule === 'fixed' ? 'fixed' : 'learned',
		maxWaitMs,
		onTimeout:
			options.onTimeout === 'returnPending' || (tool && options.onTimeout === undefined) ? 'returnPending' : 'error',
		succeededCodes: statusCodes.call(this, options.succeededStatusCodes, 'Succeeded Status Codes'),
		failedCodes: statusCodes.call(this, options.failedStatusCodes, 'Failed Status Codes'),
		// On unless switched off: an image node should return images (URLs stay in the JSON either way).
		download: tool ? options.downloadResults === true : options.downloadResults !== false,
		binaryPrefix: String(options.binaryPropertyPrefix ?? 'data').trim() || 'data',
		split: options.splitIntoItems === true,
		repeatUncertain: options.repeatUncertainCreations === true,
		// Read when the call's operation starts: reading and checking its one item takes no time worth counting.
		answerBy: tool ? Date.now() + maxWaitMs : undefined,
	};
}
