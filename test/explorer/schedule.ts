/**
 * A fault schedule: n8n's node settings, the servers' behaviour and the faults of every request, all drawn from
 * one seed. Faults are drawn per request by what the request is (its kind, its item, its attempt), not by the
 * order requests arrive in, so that the same seed gives the same schedule however the requests interleave.
 */
import { Random } from './random';

export type RequestKind = 'create' | 'status' | 'download' | 'delete';

/**
 * How a server answers one request. `acted`: the server did the work (created the task) before answering so.
 * `namesTask`: the answer's body names the task it concerns.
 */
export type AnswerClass =
	| 'ok'
	| 'odd-json'
	| 'echo-key'
	| '3xx'
	| '400'
	| '401'
	| '403'
	| '404'
	| '408'
	| '429'
	| '5xx'
	| 'gateway-html'
	| 'cut-200'
	| 'not-json-200'
	| 'drop'
	| 'stall'
	// Downloads only.
	| 'stall-body'
	| 'endless-body'
	| 'truncated'
	| 'html-file'
	| 'text-file'
	| 'json-file'
	| 'chunked';

export interface Fault {
	answer: AnswerClass;
	acted: boolean;
	namesTask: boolean;
	/** Retry-After in seconds (429, 503). */
	retryAfter?: number;
}

export type Operation = 'betav4' | 'alphav15pro' | 'taskWait' | 'taskDelete';

export interface Schedule {
	seed: number;
	operation: Operation;
	items: number;
	onError: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
	/** n8n's Retry On Fail: Max Tries (n8n clamps it to 2–5); undefined when off. */
	maxTries?: number;
	asTool: boolean;
	wait: boolean;
	download: boolean;
	split: boolean;
	/** The node's option that allows creating again after an answer that may have created a task. */
	repeatUncertain: boolean;
	/** Failed Status Codes is set, and some tasks fail on the server with that status. */
	failingTasks: boolean;
	requestTimeoutS: number;
	pollIntervalS: number;
	maxWaitS: number;
	maxConcurrency: number;
	/** Press Stop this long after the start; undefined: no Stop. */
	stopAtMs?: number;
	/** Garbage collections at these times after the start. */
	gcAtMs: number[];
	/** The chance that a request of each kind meets a fault. */
	faultRate: Record<RequestKind, number>;
	/** Poll Schedule; with "learned", render times the workflow remembers from earlier runs (ms), if any. */
	pollSchedule: 'learned' | 'fixed';
	rememberedTimesMs: number[];
}

const API_FAULTS: ReadonlyArray<readonly [number, AnswerClass]> = [
	[3, 'odd-json'],
	[3, 'echo-key'],
	[3, '3xx'],
	[2, '400'],
	[2, '401'],
	[2, '403'],
	[3, '404'],
	[3, '408'],
	[4, '429'],
	[5, '5xx'],
	[3, 'gateway-html'],
	[3, 'cut-200'],
	[3, 'not-json-200'],
	[4, 'drop'],
	[3, 'stall'],
	[2, 'endless-body'],
];

const DOWNLOAD_FAULTS: ReadonlyArray<readonly [number, AnswerClass]> = [
	[2, '3xx'],
	[2, '403'],
	[3, '404'],
	[2, '408'],
	[3, '429'],
	[4, '5xx'],
	[2, 'gateway-html'],
	[3, 'drop'],
	[3, 'stall'],
	[3, 'stall-body'],
	[3, 'endless-body'],
	[3, 'truncated'],
	[3, 'html-file'],
	[2, 'text-file'],
	[2, 'json-file'],
	[3, 'chunked'],
];

/** Answers after which the server cannot have done the work (it refused, or never read the request). */
const REFUSALS: ReadonlySet<AnswerClass> = new Set(['400', '401', '403', '404', '429']);

export function drawSchedule(seed: number): Schedule {
	const random = new Random(seed);
	const operation = random.weighted<Operation>([
		[6, 'betav4'],
		[2, 'alphav15pro'],
		[1, 'taskWait'],
		[1, 'taskDelete'],
	]);
	const items = random.weighted([
		[5, () => random.int(1, 3)],
		[3, () => random.int(4, 12)],
		[2, () => random.int(13, 50)],
	])();
	const creates = operation === 'betav4' || operation === 'alphav15pro';
	const rate = () =>
		random.weighted([
			[2, 0],
			[3, 0.1],
			[3, 0.3],
			[2, 0.7],
		]);
	const requestTimeoutS = random.pick([0.4, 0.6, 1]);
	const schedule: Schedule = {
		seed,
		operation,
		items,
		onError: random.pick(['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'] as const),
		maxTries: random.chance(0.5) ? random.int(1, 5) : undefined,
		asTool: operation !== 'taskDelete' && random.chance(0.15),
		wait: operation === 'taskWait' || (creates && random.chance(0.8)),
		download: random.chance(0.6),
		split: random.chance(0.3),
		repeatUncertain: creates && random.chance(0.2),
		failingTasks: random.chance(0.3),
		requestTimeoutS,
		pollIntervalS: 0.05,
		maxWaitS: random.pick([0.5, 1, 2]),
		maxConcurrency: random.pick([1, 4, 64, 256]),
		stopAtMs: random.chance(0.2) ? random.int(0, 1500) : undefined,
		gcAtMs: Array.from({ length: random.int(0, 2) }, () => random.int(0, 1500)),
		faultRate: { create: rate(), status: rate(), download: rate(), delete: rate() },
		pollSchedule: 'learned',
		rememberedTimesMs: [],
	};
	// Drawn last, so that the draws above (and every seed's schedule before Poll Schedule existed) stay as they were.
	if (random.chance(0.3)) schedule.pollSchedule = 'fixed';
	else if (random.chance(0.4))
		schedule.rememberedTimesMs = Array.from({ length: random.int(1, 20) }, () => random.int(10, 3000));
	// The tool reads JSON: downloads are off unless switched on, and it waits (As a tool the node waits by default).
	if (!schedule.wait) schedule.download = false;
	if (schedule.maxTries === 1) schedule.maxTries = undefined;
	return schedule;
}

/** A stable mix of the schedule's seed and a request's identity: the seed of that request's fault. */
function requestSeed(seed: number, kind: RequestKind, item: number, attempt: number): number {
	let h = seed ^ 0x5bd1e995;
	for (const part of [kind.length * 31 + kind.charCodeAt(0), item, attempt]) {
		h = Math.imul(h ^ part, 0x27d4eb2d);
		h ^= h >>> 15;
	}
	return h >>> 0;
}

/** The fault of attempt `attempt` (0-based, across tries) of a request of `kind` for `item`. */
export function faultFor(schedule: Schedule, kind: RequestKind, item: number, attempt: number): Fault {
	const random = new Random(requestSeed(schedule.seed, kind, item, attempt));
	if (!random.chance(schedule.faultRate[kind])) return { answer: 'ok', acted: true, namesTask: false };
	const answer = random.weighted(kind === 'download' ? DOWNLOAD_FAULTS : API_FAULTS);
	const refusal = REFUSALS.has(answer);
	// A server that refused did nothing, unless its answer names the task (then it did: the body says so); a
	// success (odd, or echoing the key) always did.
	const success = answer === 'odd-json' || answer === 'echo-key';
	const namesTask = success || (kind === 'create' ? random.chance(0.4) : random.chance(0.3));
	const acted = kind !== 'create' || success || namesTask || (!refusal && random.chance(0.6));
	return {
		answer,
		acted,
		namesTask,
		retryAfter: answer === '429' || answer === '5xx' ? random.pick([0, 0.1, 0.5, 2]) : undefined,
	};
}

/** What a task does on the server: how many status checks see it running, and how it ends. */
export interface TaskPlan {
	checksBeforeDone: number;
	fails: boolean;
	files: number;
}

export function taskPlan(schedule: Schedule, item: number, serial: number): TaskPlan {
	const random = new Random(requestSeed(schedule.seed, 'status', item, 1000 + serial));
	return {
		checksBeforeDone: random.int(0, 3),
		fails: schedule.failingTasks && random.chance(0.25),
		files: random.weighted([
			[3, 1],
			[1, 2],
		]),
	};
}

/** The schedule in words, for a failing seed's report. */
export function describeSchedule(schedule: Schedule): string {
	const rates = Object.entries(schedule.faultRate)
		.map(([kind, value]) => `${kind} ${Math.round(value * 100)}%`)
		.join(', ');
	return [
		`${schedule.operation} on ${schedule.items} item(s)${schedule.asTool ? ' as an AI Agent tool' : ''}`,
		`On Error ${schedule.onError}, Retry On Fail ${schedule.maxTries ? `${schedule.maxTries} tries` : 'off'}`,
		`Wait ${schedule.wait ? 'on' : 'off'}, Download ${schedule.download ? 'on' : 'off'}, Split ${schedule.split ? 'on' : 'off'}, Repeat Uncertain ${schedule.repeatUncertain ? 'on' : 'off'}`,
		`Request Timeout ${schedule.requestTimeoutS} s, Poll Interval ${schedule.pollIntervalS} s, Max Wait ${schedule.maxWaitS} s, Max Concurrent ${schedule.maxConcurrency}`,
		`Poll Schedule ${schedule.pollSchedule}${schedule.rememberedTimesMs.length ? `, remembering ${schedule.rememberedTimesMs.length} render times (${Math.min(...schedule.rememberedTimesMs)}–${Math.max(...schedule.rememberedTimesMs)} ms)` : ''}`,
		`tasks that fail on the server: ${schedule.failingTasks ? 'some' : 'none'}; Stop: ${schedule.stopAtMs === undefined ? 'none' : `at ${schedule.stopAtMs} ms`}; GC at: ${schedule.gcAtMs.join(', ') || 'never'}`,
		`fault rates: ${rates}`,
	].join('\n');
}
