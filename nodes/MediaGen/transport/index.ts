import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { StreamingForm } from './multipart';

export const CREDENTIAL_TYPE = 'mediaGenApi';

/** Envelope codes of the API (spec: Errors). */
export const RESPONSE_CODE = { success: 1000, failure: 9999, insufficientCredits: 9000 } as const;

export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

export interface ApiEnvelope<T> {
	code: number;
	msg?: string;
	data?: T;
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
	/** Ends the request early when the caller no longer needs its answer. */
	signal?: AbortSignal;
}

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

export function isRateLimited(error: unknown): boolean {
	return error instanceof NodeApiError && error.context[RATE_LIMITED] === true;
}

/** The server's Retry-After, in milliseconds, when it sent one. */
export function retryAfterMs(error: unknown): number | undefined {
	const value = error instanceof NodeApiError ? error.context[RETRY_AFTER_MS] : undefined;
	return typeof value === 'number' ? value : undefined;
}

/** Connection failures that happen before any byte of the request could reach the server. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

function parseRetryAfter(header: unknown): number | undefined {
	const text = Array.isArray(header) ? header[0] : header;
	if (typeof text !== 'string' || !text.trim()) return undefined;
	const seconds = Number(text.trim());
	if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
	const date = Date.parse(text);
	return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * The signal that bounds one request: its total deadline (Request Timeout counts from the first byte sent to
 * the last byte received; the HTTP client's own timeout only limits idle gaps, so a trickling answer would
 * never end), plus the execution's cancel signal unless the request must survive Stop.
 */
function requestSignal(this: IExecuteFunctions, timeoutMs: number, survivesCancel: boolean, extra?: AbortSignal): AbortSignal {
	const signals = [AbortSignal.timeout(timeoutMs)];
	const cancel = this.getExecutionCancelSignal();
	if (cancel && !survivesCancel) signals.push(cancel);
	if (extra) signals.push(extra);
	return signals.length === 1 ? signals[0] : AbortSignal.any(signals);
}

/**
 * n8n's httpRequestWithAuthentication replaces the request's `abortSignal` with the calling context's
 * execution cancel signal. Calling it on a context whose cancel signal is this request's own signal keeps
 * the total deadline, and keeps creations in flight alive after Stop.
 */
function withRequestSignal(context: IExecuteFunctions, signal: AbortSignal): IExecuteFunctions {
	return Object.create(context, { getExecutionCancelSignal: { value: () => signal } }) as IExecuteFunctions;
}

function abortReason(signal: AbortSignal): string | undefined {
	if (!signal.aborted) return undefined;
	const reason = signal.reason as { name?: string } | undefined;
	return reason?.name === 'TimeoutError' ? 'the request timed out' : 'the execution was cancelled';
}

interface Credentials {
	apiKey: string;
	baseUrl: string;
}

/**
 * The API root without trailing slashes or a trailing `/v1` (every path starts with /v1, and users often
 * paste the versioned address). The credential's test request applies the same rule.
 */
export function normalizeBaseUrl(baseUrl: string): string {
	return baseUrl.trim().replace(/\/+$/, '').replace(/\/v1$/i, '');
}

async function loadCredentials(this: IExecuteFunctions): Promise<Credentials> {
	const credentials = await this.getCredentials<{ apiKey?: string; baseUrl?: string }>(
		CREDENTIAL_TYPE,
	);
	return {
		apiKey: String(credentials.apiKey ?? ''),
		baseUrl: normalizeBaseUrl(String(credentials.baseUrl ?? '')),
	};
}

/** The key must never reach a message, even if a server or a library echoes it back. */
function redact(text: string, apiKey: string): string {
	return apiKey ? text.split(apiKey).join('[redacted]') : text;
}

function apiError(
	this: IExecuteFunctions,
	apiKey: string,
	context: RequestContext,
	details: {
		message: string;
		description: string;
		httpCode?: string;
		retryable: boolean;
		apiCode?: number;
		nothingSent?: boolean;
		retryAfterMs?: number;
	},
): NodeApiError {
	const taskNote = context.taskId ? ` (task ${context.taskId})` : '';
	const message = redact(`${details.message}${taskNote} [item ${context.itemIndex}]`, apiKey);
	const description = redact(details.description, apiKey);
	const error = new NodeApiError(
		this.getNode(),
		{ message, description, code: details.apiCode ?? null } as JsonObject,
		{ message, description, httpCode: details.httpCode, itemIndex: context.itemIndex },
	);
	error.context[RETRYABLE] = details.retryable;
	if (details.nothingSent) error.context[NOTHING_SENT] = true;
	if (details.httpCode === '429') error.context[RATE_LIMITED] = true;
	if (details.retryAfterMs !== undefined) error.context[RETRY_AFTER_MS] = details.retryAfterMs;
	if (details.apiCode !== undefined) error.context.apiCode = details.apiCode;
	if (context.taskId) error.context.taskId = context.taskId;
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
function describeTransportFailure(error: { message?: string; cause?: unknown }): { reason: string; code?: string } {
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

function parseBody(body: unknown): ApiEnvelope<unknown> | undefined {
	let value = body;
	if (Buffer.isBuffer(value)) value = value.toString('utf8');
	if (typeof value === 'string') {
		try {
			value = JSON.parse(value);
		} catch {
			return undefined;
		}
	}
	if (value && typeof value === 'object' && typeof (value as ApiEnvelope<unknown>).code === 'number') {
		return value as ApiEnvelope<unknown>;
	}
	return undefined;
}

function snippet(body: unknown): string {
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : JSON.stringify(body);
	const flat = (text ?? '').replace(/\s+/g, ' ').trim();
	return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

async function send(
	this: IExecuteFunctions,
	path: string,
	body: IDataObject | FormData | StreamingForm,
	context: RequestContext,
): Promise<unknown> {
	const { apiKey, baseUrl } = await loadCredentials.call(this);
	const multipart = body instanceof FormData || body instanceof StreamingForm;
	const timeout = context.timeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
	const signal = requestSignal.call(this, timeout, context.survivesCancel === true, context.signal);
	const options: IHttpRequestOptions = {
		method: 'POST',
		url: `${baseUrl}${path}`,
		body,
		json: !multipart,
		timeout,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	};
	// Multipart bodies get their boundary header from the HTTP client; JSON must be declared.
	if (!multipart) options.headers = { 'Content-Type': 'application/json' };
	// A redirect is not followed with an upload: the redirect client keeps the whole body in memory to be
	// able to send it again, and a creation must not be re-posted elsewhere. A 3xx answer is reported.
	if (multipart) options.disableFollowRedirect = true;

	let response: IN8nHttpFullResponse;
	try {
		response = (await this.helpers.httpRequestWithAuthentication.call(
			withRequestSignal(this, signal),
			CREDENTIAL_TYPE,
			options,
		)) as IN8nHttpFullResponse;
	} catch (error) {
		const failure = describeTransportFailure(error as { message?: string });
		const reason = abortReason(signal) ?? failure.reason;
		const code = failure.code;
		// A creation that got no answer may still have reached the server: it is never retried automatically.
		const creationNote =
			multipart
				? ' If the request reached the server, a task may have been created (and charged) anyway: check your tasks before running the node again.'
				: '';
		throw apiError.call(this, apiKey, context, {
			message: `Could not reach the MediaGen API: ${reason}`,
			description: `POST ${path} did not get an answer${code ? ` (${code})` : ''}. Check the Base URL of the credential and that the service is up, then run the node again.${creationNote}`,
			retryable: true,
			nothingSent: code !== undefined && NEVER_CONNECTED.has(code),
		});
	}

	const status = response.statusCode;
	const envelope = parseBody(response.body);

	if (status < 200 || status >= 300) {
		const serverMessage = envelope?.msg ? `: ${envelope.msg}` : '';
		const retryable = status === 429 || status >= 500;
		throw apiError.call(this, apiKey, context, {
			message: `The MediaGen API answered HTTP ${status}${serverMessage}`,
			description:
				status === 401 || status === 403
					? 'The API refused the key. Check the API Key of the MediaGen API credential.'
					: retryable
						? 'The service is busy or failing. Try again later.'
						: `POST ${path} was rejected. Response: ${snippet(response.body)}`,
			httpCode: String(status),
			retryable,
			apiCode: envelope?.code,
			// A 429 is the server refusing before it does any work: nothing was created.
			nothingSent: status === 429,
			retryAfterMs: status === 429 ? parseRetryAfter(response.headers?.['retry-after']) : undefined,
		});
	}

	if (!envelope) {
		throw apiError.call(this, apiKey, context, {
			message: 'The MediaGen API answered with a body that is not a JSON envelope',
			description: `POST ${path} returned HTTP ${status} with: ${snippet(response.body)}`,
			httpCode: String(status),
			retryable: true,
		});
	}

	if (envelope.code === RESPONSE_CODE.success) return envelope.data;

	if (envelope.code === RESPONSE_CODE.insufficientCredits) {
		throw apiError.call(this, apiKey, context, {
			message: 'Insufficient credits',
			description: `The API answered code 9000${envelope.msg ? ` ("${envelope.msg}")` : ''}: the account behind this API key has no credits left for this request. Top up the account, or use a credential with credits, then run the node again.`,
			retryable: false,
			apiCode: envelope.code,
		});
	}

	throw apiError.call(this, apiKey, context, {
		message: `The MediaGen API refused the request: ${envelope.msg || 'no message given'}`,
		description: `POST ${path} answered code ${envelope.code}${envelope.msg ? ` with message "${envelope.msg}"` : ''}.`,
		retryable: false,
		apiCode: envelope.code,
	});
}

/** POST a JSON body (query and delete endpoints) and return the envelope's `data` (an object per the spec). */
export async function apiJsonRequest(
	this: IExecuteFunctions,
	path: string,
	body: IDataObject,
	context: RequestContext,
): Promise<IDataObject | undefined> {
	return (await send.call(this, path, body, context)) as IDataObject | undefined;
}

/** POST multipart/form-data (creation endpoints) and return the envelope's `data` (an object per the spec). */
export async function apiMultipartRequest(
	this: IExecuteFunctions,
	path: string,
	form: FormData | StreamingForm,
	context: RequestContext,
): Promise<IDataObject | undefined> {
	// The body is typed as n8n's FormData option; axios streams any spec-compliant form (see multipart.ts).
	return (await send.call(this, path, form, context)) as IDataObject | undefined;
}

export interface DownloadedFile {
	body: NodeJS.ReadableStream;
	mimeType?: string;
	fileName?: string;
	/** The error to report when reading `body` fails (cut off at the deadline, connection lost…). */
	readFailure: (error: unknown) => NodeApiError;
}

function fileNameFromDisposition(header: unknown): string | undefined {
	if (typeof header !== 'string') return undefined;
	const star = /filename\*=(?:UTF-8'')?([^;]+)/i.exec(header)?.[1];
	if (star) return decodeURIComponent(star.trim().replace(/^"|"$/g, ''));
	return /filename="?([^";]+)"?/i.exec(header)?.[1]?.trim();
}

/**
 * Streams one result file. It uses plain `httpRequest`, never the credential: result files may live on
 * other hosts, and the API key must not travel there.
 */
export async function downloadResultFile(this: IExecuteFunctions, url: string, context: RequestContext): Promise<DownloadedFile> {
	const fail = (message: string, description: string, httpCode?: string) =>
		new NodeApiError(this.getNode(), { message, description } as JsonObject, {
			message: `${message} (task ${context.taskId}) [item ${context.itemIndex}]`,
			description: `${description} The task ID is kept in the output; its result URLs stay valid on the server for as long as the API keeps them.`,
			httpCode,
			itemIndex: context.itemIndex,
		});
	let response: IN8nHttpFullResponse;
	const timeout = context.timeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
	const signal = requestSignal.call(this, timeout, false);
	try {
		response = (await this.helpers.httpRequest({
			method: 'GET',
			url,
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout,
			abortSignal: signal,
		})) as IN8nHttpFullResponse;
	} catch (error) {
		const failure = describeTransportFailure(error as { message?: string });
		const code = failure.code;
		throw fail(`Could not download a result file: ${abortReason(signal) ?? failure.reason}`, `GET ${url} failed${code ? ` (${code})` : ''}.`);
	}
	const body = response.body as NodeJS.ReadableStream & { destroy?: (error?: Error) => void };
	// The deadline covers the whole body too: a file that trickles in is cut off at Request Timeout.
	const onDeadline = () =>
		body.destroy?.(new Error(`${abortReason(signal) ?? 'aborted'}: the download did not finish within ${Math.round(timeout / 1000)} s`));
	if (signal.aborted) onDeadline();
	else signal.addEventListener('abort', onDeadline, { once: true });
	body.once?.('close', () => signal.removeEventListener('abort', onDeadline));
	if (response.statusCode < 200 || response.statusCode >= 300) {
		body.destroy?.();
		throw fail(`Could not download a result file: HTTP ${response.statusCode}`, `GET ${url} answered HTTP ${response.statusCode}.`, String(response.statusCode));
	}
	const type = response.headers['content-type'];
	const readFailure = (error: unknown) => {
		const failure = describeTransportFailure(error as { message?: string });
		return fail(`Could not download a result file: ${abortReason(signal) ?? failure.reason}`, `GET ${url} failed while receiving the file${failure.code ? ` (${failure.code})` : ''}.`);
	};
	return {
		body,
		readFailure,
		mimeType: typeof type === 'string' ? type.split(';')[0].trim() : undefined,
		fileName: fileNameFromDisposition(response.headers['content-disposition']),
	};
}
