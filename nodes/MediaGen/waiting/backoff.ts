/** How long the engine waits before trying a failed request again: a creation that created nothing, a poll. */
import { MAX_RETRY_AFTER_MS } from './adaptiveConcurrency';
import type { WaitingOptions } from './options';

/** Longest pause between two polls of a task whose polls keep failing. */
export const MAX_POLL_BACKOFF_MS = 60_000;

/** Pauses before repeating a job of the creations' lane: 0.5 s, doubling per attempt, at most 30 s. */
const CREATE_BACKOFF = { firstMs: 500, maxMs: 30_000 };

/** A creation that keeps being refused (429, connection refused) gives up after this long, or after Max Wait. */
const CREATE_RETRY_WINDOW_MS = 300_000;

/**
 * The pause before attempt `attempts + 1` of a request, honouring the server's Retry-After (capped). The backoff is
 * a floor that grows per attempt: a Retry-After of 0 does not mean "at once, forever".
 */
export function retryDelay(attempts: number, retryAfter: number | undefined, backoff: typeof CREATE_BACKOFF): number {
	const floor = Math.min(backoff.firstMs * 2 ** (attempts - 1), backoff.maxMs);
	return Math.max(floor, Math.min(retryAfter ?? 0, MAX_RETRY_AFTER_MS));
}

export function creationRetryWindow(options: WaitingOptions): number {
	return Math.min(CREATE_RETRY_WINDOW_MS, options.maxWaitMs);
}

/**
 * When a failed job of the creations' lane may go again after its backoff: within `window` of its first attempt and
 * before a tool call answers; else undefined.
 */
export function repeatAt(
	options: WaitingOptions,
	job: { attempts: number; firstAttemptAt: number },
	retryAfter: number | undefined,
	window: number,
): number | undefined {
	const at = Date.now() + retryDelay(job.attempts, retryAfter, CREATE_BACKOFF);
	return at - job.firstAttemptAt <= window && at < (options.answerBy ?? Infinity) ? at : undefined;
}

export function pollRetryDelay(options: WaitingOptions, failures: number, retryAfter: number | undefined): number {
	const interval = options.pollIntervalMs;
	const backoff =
		retryAfter !== undefined ? Math.max(interval, Math.min(retryAfter, MAX_RETRY_AFTER_MS)) : interval * 2 ** failures;
	return Math.min(backoff, MAX_POLL_BACKOFF_MS);
}
