/** What a request is for (its item and task), and the one signal that bounds it: a total deadline plus Stop. */
import type { IExecuteFunctions } from 'n8n-workflow';

export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

/** 2^31 - 1 ms (24.8 days): the HTTP client's socket timeout overflows above it and then fires at once. */
export const MAX_REQUEST_TIMEOUT_MS = 2 ** 31 - 1;

/** `AbortSignal.timeout` takes only a whole number of ms. */
export function clampRequestTimeout(ms: number): number {
	if (Number.isNaN(ms)) return DEFAULT_REQUEST_TIMEOUT_MS;
	return Math.min(MAX_REQUEST_TIMEOUT_MS, Math.max(1, Math.round(ms)));
}

export interface RequestContext {
	itemIndex: number;
	timeout?: number;
	/** Shown with every error so that a paid task is never lost. */
	taskId?: string;
	/** Creations: Stop does not abort them, as the server may already have created (and charged) the task. */
	survivesCancel?: boolean;
	/** Added to a "task not found" error: an image task queried as a video, or the reverse, is not found. */
	notFoundHint?: string;
	signal?: AbortSignal;
}

export interface RequestSignal {
	readonly signal: AbortSignal;
	/** The HTTP client then closes the connection, also of an answer whose body is not read. */
	abort(reason?: unknown): void;
	/** The request is over: stop listening to Stop and the deadline, so that neither is kept alive. */
	release(): void;
}

/**
 * `AbortSignal.any` listens weakly, so thousands of requests add no listeners to the shared sources (Stop, the end of a
 * run); but on Node 20 a timeout signal only it refers to is collected and never fires (nodejs/node issue 57736): the
 * deadline is listened to strongly here until release.
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

/** Request Timeout counts first byte sent to last received: the HTTP client's own only limits idle gaps. */
export function requestSignal(
	this: IExecuteFunctions,
	timeoutMs: number,
	survivesCancel: boolean,
	extra?: AbortSignal,
): RequestSignal {
	const cancel = survivesCancel ? undefined : this.getExecutionCancelSignal();
	const shared = [cancel, extra].filter((source) => source !== undefined);
	return linkedSignal(AbortSignal.timeout(timeoutMs), shared);
}

/** httpRequestWithAuthentication sends with its context's cancel signal: this context's is the request's own. */
export function withRequestSignal(context: IExecuteFunctions, signal: AbortSignal): IExecuteFunctions {
	return Object.create(context, { getExecutionCancelSignal: { value: () => signal } }) as IExecuteFunctions;
}

export function abortReason(signal: AbortSignal): string | undefined {
	if (!signal.aborted) return undefined;
	const reason = signal.reason as { name?: string } | undefined;
	return reason?.name === 'TimeoutError' ? 'the request timed out' : 'the execution was cancelled';
}
