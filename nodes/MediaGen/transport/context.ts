/** What a request is for (its item and task), and the one signal that bounds it: a total deadline plus Stop. */
import type { IExecuteFunctions } from 'n8n-workflow';

export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

/**
 * Longest Request Timeout a request can have: 2^31 - 1 ms (about 24.8 days). The HTTP client's socket timeout
 * overflows above it (and then fires at once), and `AbortSignal.timeout` takes only an integer number of ms.
 */
export const MAX_REQUEST_TIMEOUT_MS = 2 ** 31 - 1;

/** A timeout as the timers take it: a whole number of ms from 1 to MAX_REQUEST_TIMEOUT_MS. */
export function clampRequestTimeout(ms: number): number {
	if (Number.isNaN(ms)) return DEFAULT_REQUEST_TIMEOUT_MS;
	return Math.min(MAX_REQUEST_TIMEOUT_MS, Math.max(1, Math.round(ms)));
}

export interface RequestContext {
	itemIndex: number;
	/** Milliseconds before the request is abandoned. */
	timeout?: number;
	/** Shown with every error so that a paid task is never lost. */
	taskId?: string;
	/**
	 * Not aborted when the execution is stopped (creations: the server may already have created and charged
	 * the task, so the answer with its id is awaited, bounded by the timeout).
	 */
	survivesCancel?: boolean;
	/**
	 * Added to the error when the API answers that the task does not exist, for requests whose Task Type came from
	 * the user or the item (an image task queried as a video, or the reverse, is not found).
	 */
	notFoundHint?: string;
	/** Ends the request early when the caller no longer needs its answer. */
	signal?: AbortSignal;
}

/** A signal that ends a request, and the means to let go of it once the request is over. */
export interface RequestSignal {
	readonly signal: AbortSignal;
	/** Aborts now: the HTTP client closes the connection, also of an answer whose body is not read. */
	abort(reason?: unknown): void;
	/** The request is over: stop listening to the sources (Stop, the deadline), so that none of them is kept. */
	release(): void;
}

/**
 * A signal that aborts when its deadline passes, when any shared source aborts (Stop, the end of a run), or on
 * `abort()`. The shared sources are joined with `AbortSignal.any`, which listens to them weakly: their owners (n8n,
 * the waiting engine) keep them alive, and thousands of requests add no listener count to them. The deadline's
 * timeout signal is owned by nobody else: on Node 20 one that only `AbortSignal.any` refers to is collected by the
 * next garbage collection, timer and all, and never fires (nodejs/node issue 57736). It is listened to here,
 * strongly, which keeps it and its timer alive until the request is released.
 */
export function linkedSignal(deadline: AbortSignal | undefined, shared: AbortSignal[]): RequestSignal {
	const controller = new AbortController();
	const signal = shared.length ? AbortSignal.any([controller.signal, ...shared]) : controller.signal;
	const onDeadline = () => controller.abort(deadline!.reason);
	// Both listeners go once the request is over: a signal with a listener of its own is kept alive until it aborts,
	// and a request that ends well never aborts.
	const release = () => {
		deadline?.removeEventListener('abort', onDeadline);
		signal.removeEventListener('abort', release);
	};
	if (deadline?.aborted) controller.abort(deadline.reason);
	else deadline?.addEventListener('abort', onDeadline, { once: true });
	signal.addEventListener('abort', release, { once: true });
	return { signal, abort: (reason) => controller.abort(reason), release };
}

/**
 * The signal that bounds one request: its total deadline (Request Timeout counts from the first byte sent to
 * the last byte received; the HTTP client's own timeout only limits idle gaps, so a trickling answer would
 * never end), plus the execution's cancel signal unless the request must survive Stop.
 */
export function requestSignal(
	this: IExecuteFunctions,
	timeoutMs: number,
	survivesCancel: boolean,
	extra?: AbortSignal,
): RequestSignal {
	const shared: AbortSignal[] = [];
	const cancel = this.getExecutionCancelSignal();
	if (cancel && !survivesCancel) shared.push(cancel);
	if (extra) shared.push(extra);
	return linkedSignal(AbortSignal.timeout(timeoutMs), shared);
}

/**
 * n8n's httpRequestWithAuthentication replaces the request's `abortSignal` with the calling context's
 * execution cancel signal. Calling it on a context whose cancel signal is this request's own signal keeps
 * the total deadline, and keeps creations in flight alive after Stop.
 */
export function withRequestSignal(context: IExecuteFunctions, signal: AbortSignal): IExecuteFunctions {
	return Object.create(context, { getExecutionCancelSignal: { value: () => signal } }) as IExecuteFunctions;
}

export function abortReason(signal: AbortSignal): string | undefined {
	if (!signal.aborted) return undefined;
	const reason = signal.reason as { name?: string } | undefined;
	return reason?.name === 'TimeoutError' ? 'the request timed out' : 'the execution was cancelled';
}
