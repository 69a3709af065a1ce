/**
 * Generator "faults": how the servers answer each request (its answer class, whether the server acted before
 * answering so, whether the answer names the task). Drawn per request from the request's own stream (its kind,
 * item and attempt), so that the same seed gives the same answers however requests interleave.
 */
import { Random } from '../random';
import type { Schedule } from '../schedule';

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

/** The fault of attempt `attempt` (0-based, across tries) of a request of `kind` for `item`. */
export function faultFor(schedule: Schedule, kind: RequestKind, item: number, attempt: number): Fault {
	const random = Random.stream(schedule.seed, 'faults', kind, item, attempt);
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
