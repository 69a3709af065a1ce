/** The API's errors: what failed, in plain words, and what the error knows (ErrorFacts, read by factsOf). */
import type { IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { RequestContext } from './context';
import type { Redact } from './redaction';

/** For whoever decides what follows (the waiting engine, result lane, Task → Delete); off the saved context. */
export interface ErrorFacts {
	/** A call safe to repeat (a status check) may pass when repeated. */
	retryable: boolean;
	/** The request provably created nothing (HTTP 429, a connection that never opened): a creation may be repeated. */
	nothingSent: boolean;
	/** A creation whose answer leaves open whether a task was created, and names none: repeating it may pay twice. */
	mayHaveCreated: boolean;
	/** A status check refused about the task itself (code 9999, not "not found"): the API says the task failed. */
	refused: boolean;
	rateLimited: boolean;
	/** The server's Retry-After, in milliseconds, when it sent one (an API call's 429, a download's 429 or 503). */
	retryAfterMs?: number;
	/** A refusing envelope's code and whole message (redacted): Task → Delete reads it for the ids it names. */
	refusal?: { code: number; message: string };
	/** A download that another GET may cure (a 5xx, a 429, a reset or refused connection, a body cut off). */
	transient: boolean;
	/** How a file that came cut or malformed broke: the same fault twice is the same bytes, not a transfer's accident. */
	fault?: string;
}

const FACTS = Symbol('mediaGenErrorFacts');

const NO_FACTS: ErrorFacts = {
	retryable: false,
	nothingSent: false,
	mayHaveCreated: false,
	refused: false,
	rateLimited: false,
	transient: false,
};

export function factsOf(error: unknown): ErrorFacts {
	const facts = error instanceof NodeApiError ? (error as unknown as Record<symbol, ErrorFacts>)[FACTS] : undefined;
	return facts ?? NO_FACTS;
}

/** Not enumerable: not in what n8n saves with the execution. */
export function withFacts(error: NodeApiError, facts: Partial<ErrorFacts>): NodeApiError {
	Object.defineProperty(error, FACTS, { value: { ...NO_FACTS, ...facts }, enumerable: false });
	return error;
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
		apiCode?: number;
		facts: Partial<ErrorFacts> & Pick<ErrorFacts, 'retryable'>;
		/** Tasks a failed creation answer names: in the message; the first in `context.taskId`, others `alsoNamed`. */
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
	withFacts(error, {
		...details.facts,
		// A task the answer names exists: the creation did create it.
		mayHaveCreated: details.facts.mayHaveCreated === true && !taskId,
		rateLimited: details.httpCode === '429',
	});
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

/** The code goes to the description only: n8n rewrites messages that hold codes such as ECONNRESET. */
export function describeTransportFailure(error: unknown): { reason: string; code?: string } {
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
