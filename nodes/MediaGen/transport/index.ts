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

/** Envelope codes of the API: 1000 success, 9999 failure, 9000 insufficient credits. */
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

/** The same for answer data, which becomes output data and error messages (e.g. a failed task's message). */
function redactDeep(value: unknown, apiKey: string): unknown {
	if (!apiKey) return value;
	if (typeof value === 'string') return redact(value, apiKey);
	if (Array.isArray(value)) return value.map((entry) => redactDeep(entry, apiKey));
	if (value && typeof value === 'object') {
		return Object.fromEntries(Object.entries(value).map(([name, entry]) => [redact(name, apiKey), redactDeep(entry, apiKey)]));
	}
	return value;
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

/** The start of a body for a message: redacted first, then cut, so that a key across the cut cannot leak in part. */
function snippet(body: unknown, apiKey: string): string {
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : JSON.stringify(body);
	const flat = redact(text ?? '', apiKey).replace(/\s+/g, ' ').trim();
	return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

/** "a redirect to <location>" for messages (the location resolved against the request URL). */
function redirectTarget(response: IN8nHttpFullResponse, requestUrl: string): string {
	const location = response.headers.location;
	if (typeof location !== 'string' || !location) return 'a redirect without a Location';
	try {
		return `a redirect to ${new URL(location, requestUrl).href}`;
	} catch {
		return `a redirect to ${location}`;
	}
}

async function send(
	this: IExecuteFunctions,
	path: string,
	body: IDataObject | StreamingForm,
	context: RequestContext,
): Promise<unknown> {
	const { apiKey, baseUrl } = await loadCredentials.call(this);
	const multipart = body instanceof StreamingForm;
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
		// n8n re-sends the credential on redirects, even to other origins: API calls follow none (see below).
		// Not following also keeps uploads streamed: the redirect client buffers a whole body to resend it.
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
	};
	// Multipart bodies get their boundary header from the HTTP client; JSON must be declared.
	if (!multipart) options.headers = { 'Content-Type': 'application/json' };

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
	if (status >= 300 && status < 400) {
		throw apiError.call(this, apiKey, context, {
			message: `The MediaGen API answered HTTP ${status}, ${redirectTarget(response, `${baseUrl}${path}`)}, which the node does not follow`,
			description: `POST ${path} was redirected. API requests never follow redirects, so that the API key is never sent anywhere but the Base URL (and no task ID is taken from another host). If the API has moved, set its new address as the Base URL of the credential.`,
			httpCode: String(status),
			retryable: false,
		});
	}
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
						: `POST ${path} was rejected. Response: ${snippet(response.body, apiKey)}`,
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
			description: `POST ${path} returned HTTP ${status} with: ${snippet(response.body, apiKey)}`,
			httpCode: String(status),
			retryable: true,
		});
	}

	if (envelope.code === RESPONSE_CODE.success) return redactDeep(envelope.data, apiKey);

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

/** POST a JSON body (query and delete endpoints) and return the envelope's `data` (an object, as the API documents it). */
export async function apiJsonRequest(
	this: IExecuteFunctions,
	path: string,
	body: IDataObject,
	context: RequestContext,
): Promise<IDataObject | undefined> {
	return (await send.call(this, path, body, context)) as IDataObject | undefined;
}

/** A task id as the API may send it: a non-empty string, or a number (kept as its digits). */
function taskIdOf(value: unknown): string | undefined {
	if (typeof value === 'string' && value.trim() !== '') return value.trim();
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return undefined;
}

/**
 * POST multipart/form-data (creation endpoints) and return the envelope's `data`, whose `taskid` is
 * always a non-empty string: a success answer without one is an error, never a task "".
 */
export async function apiMultipartRequest(
	this: IExecuteFunctions,
	path: string,
	form: StreamingForm,
	context: RequestContext,
): Promise<IDataObject & { taskid: string }> {
	// The body is typed as n8n's FormData option; axios streams any spec-compliant form (see multipart.ts).
	const data = await send.call(this, path, form, context);
	const isObject = data !== null && typeof data === 'object' && !Array.isArray(data);
	const taskId = isObject ? taskIdOf((data as IDataObject).taskid) : undefined;
	if (taskId === undefined) {
		throw apiError.call(this, '', context, {
			message: 'The MediaGen API answered success (code 1000) without a task ID',
			description: `POST ${path} answered code 1000, but its data ${isObject ? 'has no usable taskid' : 'is missing'}, so the task cannot be followed. A task may have been created (and charged) anyway: check your tasks before running the node again.`,
			retryable: false,
			apiCode: RESPONSE_CODE.success,
		});
	}
	return { ...(data as IDataObject), taskid: taskId };
}

export interface DownloadedFile {
	body: NodeJS.ReadableStream;
	mimeType?: string;
	fileName?: string;
	/** The download's total deadline (and the cancel signal): aborted when reading `body` was cut off. */
	signal: AbortSignal;
}

/** The file name of a Content-Disposition header; a malformed percent-escape falls back instead of failing. */
function fileNameFromDisposition(header: unknown): string | undefined {
	if (typeof header !== 'string') return undefined;
	const star = /filename\*=(?:UTF-8'')?([^;]+)/i.exec(header)?.[1];
	if (star) {
		try {
			return decodeURIComponent(star.trim().replace(/^"|"$/g, ''));
		} catch {
			// e.g. "%E0%A4%A": use the plain filename, or the URL's name
		}
	}
	return /filename="?([^";]+)"?/i.exec(header)?.[1]?.trim();
}

/** Redirects a result download may take (each hop is checked, see below). */
const MAX_DOWNLOAD_REDIRECTS = 5;

/** A URL for a message: long ones (data: URLs) are clipped. */
function showUrl(url: string): string {
	return url.length > 120 ? `${url.slice(0, 120)}…` : url;
}

/** The scheme of a URL ("data:"), or undefined when the text is not a URL. */
function schemeOf(url: string): string | undefined {
	try {
		return new URL(url).protocol;
	} catch {
		return undefined;
	}
}

const DOWNLOAD_SCHEMES = ['http:', 'https:'];

function downloadError(
	this: IExecuteFunctions,
	context: RequestContext,
	message: string,
	description: string,
	httpCode?: string,
): NodeApiError {
	const error = new NodeApiError(this.getNode(), { message, description } as JsonObject, {
		message: `${message} (task ${context.taskId}) [item ${context.itemIndex}]`,
		description: `${description} The task ID is kept in the output; its result URLs stay valid on the server for as long as the API keeps them.`,
		httpCode,
		itemIndex: context.itemIndex,
	});
	if (context.taskId) error.context.taskId = context.taskId;
	return error;
}

/**
 * Streams one result file. It uses plain `httpRequest`, never the credential: result files may live on
 * other hosts, and the API key must not travel there. Redirects are followed here, hop by hop, so that
 * each target is checked: only http and https (never file:, data:, …).
 */
export async function downloadResultFile(this: IExecuteFunctions, url: string, context: RequestContext): Promise<DownloadedFile> {
	const scheme = schemeOf(url);
	if (!scheme || !DOWNLOAD_SCHEMES.includes(scheme)) {
		throw downloadError.call(
			this,
			context,
			scheme
				? `Could not download a result file: its URL ${showUrl(url)} uses the scheme ${scheme}, and only http and https URLs are downloaded`
				: `Could not download a result file: ${showUrl(url)} is not a URL`,
			'The API answered a result URL that the node does not download.',
		);
	}
	// One total deadline for the whole download, redirects included (Request Timeout).
	const timeout = context.timeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
	const signal = requestSignal.call(this, timeout, false);
	let target = url;
	for (let redirects = 0; ; redirects++) {
		let response: IN8nHttpFullResponse;
		try {
			response = (await this.helpers.httpRequest({
				method: 'GET',
				url: target,
				encoding: 'stream',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				disableFollowRedirect: true,
				timeout,
				abortSignal: signal,
			})) as IN8nHttpFullResponse;
		} catch (error) {
			const failure = describeTransportFailure(error as { message?: string });
			const code = failure.code;
			throw downloadError.call(this, context, `Could not download a result file: ${abortReason(signal) ?? failure.reason}`, `GET ${showUrl(target)} failed${code ? ` (${code})` : ''}.`);
		}
		const body = response.body as NodeJS.ReadableStream & { destroy?: (error?: Error) => void };
		const status = response.statusCode;
		const location = response.headers.location;
		if (status >= 300 && status < 400 && typeof location === 'string' && location) {
			body.destroy?.();
			let next: string;
			try {
				next = new URL(location, target).href;
			} catch {
				throw downloadError.call(this, context, `Could not download a result file: it redirects to ${showUrl(location)}, which is not a URL`, `GET ${showUrl(target)} answered HTTP ${status}.`, String(status));
			}
			const nextScheme = schemeOf(next) ?? '';
			if (!DOWNLOAD_SCHEMES.includes(nextScheme)) {
				throw downloadError.call(
					this,
					context,
					`Could not download a result file: it redirects to ${showUrl(next)}, and only http and https URLs are downloaded`,
					`GET ${showUrl(target)} answered HTTP ${status}.`,
					String(status),
				);
			}
			if (redirects >= MAX_DOWNLOAD_REDIRECTS) {
				throw downloadError.call(this, context, `Could not download a result file: more than ${MAX_DOWNLOAD_REDIRECTS} redirects`, `GET ${showUrl(url)} kept redirecting; the last hop was ${showUrl(next)}.`, String(status));
			}
			target = next;
			continue;
		}
		if (status < 200 || status >= 300) {
			body.destroy?.();
			throw downloadError.call(this, context, `Could not download a result file: HTTP ${status}`, `GET ${showUrl(target)} answered HTTP ${status}.`, String(status));
		}
		// The deadline covers the whole body too: a file that trickles in is cut off at Request Timeout.
		const onDeadline = () => body.destroy?.(new Error(`${abortReason(signal) ?? 'aborted'}: the download did not finish in time`));
		if (signal.aborted) onDeadline();
		else signal.addEventListener('abort', onDeadline, { once: true });
		body.once?.('close', () => signal.removeEventListener('abort', onDeadline));
		const type = response.headers['content-type'];
		return {
			body,
			signal,
			mimeType: typeof type === 'string' ? type.split(';')[0].trim() : undefined,
			fileName: fileNameFromDisposition(response.headers['content-disposition']),
		};
	}
}

/**
 * The error for a download that broke while its body was being stored (connection closed mid-file,
 * storage failure, …): it names the task and the item like every other download error.
 */
export function downloadInterrupted(
	this: IExecuteFunctions,
	url: string,
	error: unknown,
	context: RequestContext,
	signal?: AbortSignal,
): NodeApiError {
	if (error instanceof NodeApiError) return error;
	const cause = error as { message?: string; code?: unknown };
	const closed = cause?.code === 'ECONNRESET' || /aborted|premature close|socket hang up/i.test(String(cause?.message ?? ''));
	const reason = signal?.aborted
		? abortReason(signal)
		: this.getExecutionCancelSignal()?.aborted
		? 'the execution was cancelled'
		: closed
			? 'the connection was closed before the whole file arrived'
			: describeTransportFailure(cause).reason;
	return downloadError.call(
		this,
		context,
		`Could not download a result file: ${reason}`,
		`GET ${showUrl(url)} broke off while the file was being stored${cause?.message ? ` (${cause.message})` : ''}.`,
	);
}
