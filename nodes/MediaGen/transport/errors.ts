/**
 * Error classification: what failed, in plain words, and whether it is safe to repeat (polls) or provably
 * created nothing (creations).
 */
import type { IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { RequestContext } from './context';
import type { Redact } from './redaction';

/** Marks transport failures that are safe to repeat for idempotent calls (info polls). */
const RETRYABLE = 'mediaGenRetryable';

export function isRetryableError(error: unknown): boolean {
	return error instanceof NodeApiError && error.context[RETRYABLE] === true;
}

/** Marks failures where the request provably created nothing: HTTP 429, or a connection that never opened. */
const NOTHING_SENT = 'mediaGenNothingSent';
const RETRY_AFTER_MS = 'mediaGenRetryAfterMs';
const RATE_LIMITED = 'mediaGenRateLimited';

/** A creation may be repeated only when the first attempt provably created no task. */
export function createdNothing(error: unknown): boolean {
	return error instanceof NodeApiError && error.context[NOTHING_SENT] === true;
}

/**
 * Marks a creation whose answer leaves open whether a task was created (HTTP 5xx or 408, a redirect, a body that
 * is not the API's, a dropped connection, no answer in time) and names none: repeating it may pay twice.
 */
const UNCERTAIN = 'mediaGenMayHaveCreated';

export function mayHaveCreatedTask(error: unknown): boolean {
	return error instanceof NodeApiError && error.context[UNCERTAIN] === true;
}

/**
 * Marks a status check the API answered with a refusal about the task itself (code 9999 with a reason such as a
 * moderation refusal, not "not found"): the API says the task failed. Every other failed status check (not found,
 * a proxy's 4xx, a redirect, a page that is not the API's) says nothing about the task.
 */
const TASK_REFUSED = 'mediaGenTaskRefused';

export function taskRefused(error: unknown): boolean {
	return error instanceof NodeApiError && error.context[TASK_REFUSED] === true;
}

/** A refusal as the API worded it: its envelope's code and its whole message (redacted). */
export interface Refusal {
	code: number;
	message: string;
}

/**
 * Where a refusal's code and whole message are kept on its error: off the error's context, which n8n saves with the
 * execution (a message can be megabytes long). Task → Delete reads the message for the ids it names.
 */
const REFUSAL = Symbol('mediaGenRefusal');

/** The API's code and message of an answer that refused the request (an envelope with a code but 1000). */
export function refusalOf(error: unknown): Refusal | undefined {
	return error instanceof NodeApiError
		? ((error as unknown as Record<symbol, Refusal>)[REFUSAL] ?? undefined)
		: undefined;
}

export function isRateLimited(error: unknown): boolean {
	return error instanceof NodeApiError && error.context[RATE_LIMITED] === true;
}

/** The server's Retry-After, in milliseconds, when it sent one. */
export function retryAfterMs(error: unknown): number | undefined {
	const value = error instanceof NodeApiError ? error.context[RETRY_AFTER_MS] : undefined;
	return typeof value === 'number' ? value : undefined;
}

/** Connection failures that happen before any byte of the request could reach the server. */
export const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

export function parseRetryAfter(header: unknown): number | undefined {
	const text = Array.isArray(header) ? header[0] : header;
	if (typeof text !== 'string' || !text.trim()) return undefined;
	const seconds = Number(text.trim());
	if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
	const date = Date.parse(text);
	return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export function apiError(
	this: IExecuteFunctions,
	redactText: Redact,
	context: RequestContext,
	details: {
		message: string;
		description: string;
		httpCode?: string;
		retryable: boolean;
		apiCode?: number;
		nothingSent?: boolean;
		/** A creation that may have created a task, without naming it. */
		uncertain?: boolean;
		/** A status check refused for a reason about the task: the task failed. */
		taskRefused?: boolean;
		/** An envelope that refused the request: its code and whole message (redacted). */
		refusal?: Refusal;
		retryAfterMs?: number;
		/**
		 * The tasks the answer names (a creation answer that failed): kept in the message, the first in
		 * `context.taskId` (the task the item follows), the others in `context.alsoNamed`.
		 */
		taskIds?: string[];
	},
): NodeApiError {
	const named = details.taskIds?.length ? details.taskIds : context.taskId ? [context.taskId] : [];
	const taskId = named[0];
	const taskNote = named.length > 1 ? ` (tasks ${named.join(', ')})` : taskId ? ` (task ${taskId})` : '';
	const message = redactText(`${details.message}${taskNote} [item ${context.itemIndex}]`);
	const description = redactText(details.description);
	const error = new NodeApiError(
		this.getNode(),
		{ message, description, code: details.apiCode ?? null } as JsonObject,
		{ message, description, httpCode: details.httpCode, itemIndex: context.itemIndex },
	);
	error.context[RETRYABLE] = details.retryable;
	if (details.nothingSent) error.context[NOTHING_SENT] = true;
	if (details.uncertain && !taskId) error.context[UNCERTAIN] = true;
	if (details.taskRefused) error.context[TASK_REFUSED] = true;
	if (details.refusal) Object.defineProperty(error, REFUSAL, { value: details.refusal, enumerable: false });
	if (details.httpCode === '429') error.context[RATE_LIMITED] = true;
	if (details.retryAfterMs !== undefined) error.context[RETRY_AFTER_MS] = details.retryAfterMs;
	if (details.apiCode !== undefined) error.context.apiCode = details.apiCode;
	// The waiting engine keeps it in the item's output (output/items.ts, failedCreationJson).
	if (taskId) error.context.taskId = taskId;
	if (named.length > 1) error.context.alsoNamed = named.slice(1);
	return error;
}

const NETWORK_MESSAGES: Record<string, string> = {
	ECONNRESET: 'the connection was closed by the server before it answered',
	ECONNREFUSED: 'the connection was refused',
	ENOTFOUND: 'the host name could not be resolved',
	EAI_AGAIN: 'the host name could not be resolved',
	ETIMEDOUT: 'the request timed out',
	ECONNABORTED: 'the request timed out',
	EPIPE: 'the connection was closed while sending',
	UND_ERR_SOCKET: 'the connection was closed by the server before it answered',
};

/**
 * A plain-words reason for a request that got no HTTP answer. The system error code goes to the
 * description only: n8n rewrites messages that contain codes such as ECONNRESET into generic text.
 */
export function describeTransportFailure(error: { message?: string; cause?: unknown }): {
	reason: string;
	code?: string;
} {
	const seen = new Set<unknown>();
	let current: unknown = error;
	while (current && typeof current === 'object' && !seen.has(current)) {
		seen.add(current);
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string' && NETWORK_MESSAGES[code]) return { reason: NETWORK_MESSAGES[code], code };
		const message = (current as { message?: unknown }).message;
		if (typeof message === 'string' && /timeout|timed out|aborted/i.test(message)) {
			return { reason: 'the request timed out' };
		}
		current = (current as { cause?: unknown }).cause;
	}
	return { reason: 'the request failed' };
}
