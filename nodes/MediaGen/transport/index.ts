import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

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
}

/** Marks transport failures that are safe to repeat for idempotent calls (info polls). */
const RETRYABLE = 'mediaGenRetryable';

export function isRetryableError(error: unknown): boolean {
	return error instanceof NodeApiError && error.context[RETRYABLE] === true;
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
	details: { message: string; description: string; httpCode?: string; retryable: boolean; apiCode?: number },
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
	if (details.apiCode !== undefined) error.context.apiCode = details.apiCode;
	if (context.taskId) error.context.taskId = context.taskId;
	return error;
}

const NETWORK_MESSAGES: Record<string, string> = {
	ECONNRESET: 'the connection was closed by the server before it answered',
	ECONNREFUSED: 'the connection was refused',
	ENOTFOUND: 'the host name could not be resolved',
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
	body: IDataObject | FormData,
	context: RequestContext,
): Promise<unknown> {
	const { apiKey, baseUrl } = await loadCredentials.call(this);
	const options: IHttpRequestOptions = {
		method: 'POST',
		url: `${baseUrl}${path}`,
		body,
		json: !(body instanceof FormData),
		timeout: context.timeout ?? DEFAULT_REQUEST_TIMEOUT_MS,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	};
	// Multipart bodies get their boundary header from the HTTP client; JSON must be declared.
	if (!(body instanceof FormData)) options.headers = { 'Content-Type': 'application/json' };

	let response: IN8nHttpFullResponse;
	try {
		response = (await this.helpers.httpRequestWithAuthentication.call(
			this,
			CREDENTIAL_TYPE,
			options,
		)) as IN8nHttpFullResponse;
	} catch (error) {
		const { reason, code } = describeTransportFailure(error as { message?: string });
		// A creation that got no answer may still have reached the server: it is never retried automatically.
		const creationNote =
			body instanceof FormData
				? ' If the request reached the server, a task may have been created (and charged) anyway: check your tasks before running the node again.'
				: '';
		throw apiError.call(this, apiKey, context, {
			message: `Could not reach the MediaGen API: ${reason}`,
			description: `POST ${path} did not get an answer${code ? ` (${code})` : ''}. Check the Base URL of the credential and that the service is up, then run the node again.${creationNote}`,
			retryable: true,
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
	form: FormData,
	context: RequestContext,
): Promise<IDataObject | undefined> {
	return (await send.call(this, path, form, context)) as IDataObject | undefined;
}

export interface DownloadedFile {
	body: NodeJS.ReadableStream;
	mimeType?: string;
	fileName?: string;
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
	try {
		response = (await this.helpers.httpRequest({
			method: 'GET',
			url,
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: context.timeout ?? DEFAULT_REQUEST_TIMEOUT_MS,
			abortSignal: this.getExecutionCancelSignal(),
		})) as IN8nHttpFullResponse;
	} catch (error) {
		const { reason, code } = describeTransportFailure(error as { message?: string });
		throw fail(`Could not download a result file: ${reason}`, `GET ${url} failed${code ? ` (${code})` : ''}.`);
	}
	const body = response.body as NodeJS.ReadableStream & { destroy?: () => void };
	if (response.statusCode < 200 || response.statusCode >= 300) {
		body.destroy?.();
		throw fail(`Could not download a result file: HTTP ${response.statusCode}`, `GET ${url} answered HTTP ${response.statusCode}.`, String(response.statusCode));
	}
	const type = response.headers['content-type'];
	return {
		body,
		mimeType: typeof type === 'string' ? type.split(';')[0].trim() : undefined,
		fileName: fileNameFromDisposition(response.headers['content-disposition']),
	};
}
