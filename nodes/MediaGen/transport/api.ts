/** The API call: credentials, the envelope, and every way an answer can fail. The only code that talks to the API. */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';

import { invalidInput } from '../helpers/badInput';
import {
	abortReason,
	clampRequestTimeout,
	DEFAULT_REQUEST_TIMEOUT_MS,
	requestSignal,
	withRequestSignal,
	type RequestContext,
} from './context';
import { apiError, describeTransportFailure, NEVER_CONNECTED, parseRetryAfter } from './errors';
import { StreamingForm, textFormBody } from './multipart';
import { echo, redact, redactDeep, snippet } from './redaction';

const CREDENTIAL_TYPE = 'mediaGenApi';

/** Envelope codes of the API: 1000 success, 9999 failure, 9000 insufficient credits. */
const RESPONSE_CODE = { success: 1000, failure: 9999, insufficientCredits: 9000 } as const;

interface ApiEnvelope<T> {
	code: number;
	msg?: string;
	data?: T;
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

/**
 * What is wrong with a (normalised) Base URL, if anything: the paths are appended to it, so it must be an
 * absolute http(s) address, and a query string or fragment would swallow them (the request would go to the root).
 */
export function baseUrlProblem(baseUrl: string): string | undefined {
	if (!baseUrl) return 'is required';
	let url: URL | undefined;
	try {
		url = new URL(baseUrl);
	} catch {
		url = undefined;
	}
	if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !/^https?:\/\//i.test(baseUrl)) {
		return 'must be an absolute address that starts with http:// or https://, e.g. https://api.example.com';
	}
	if (baseUrl.includes('?')) return 'must not contain a query string (?…): the API paths are appended to it';
	if (baseUrl.includes('#')) return 'must not contain a fragment (#…): the API paths are appended to it';
	return undefined;
}

/**
 * The credential as one node run reads it: once, for all its requests. In n8n every `getCredentials` is a
 * database read and a decryption, and `httpRequestWithAuthentication` makes one more of its own unless it is
 * handed the decrypted credential; a run of 500 items sends thousands of requests. Made per run by whoever
 * starts the run's requests (the waiting engine, Task → Delete), never kept beyond it.
 */
export class ApiSession {
	private loaded?: Promise<ICredentialDataDecryptedObject>;

	constructor(private readonly context: IExecuteFunctions) {}

	async credentials(): Promise<ICredentialDataDecryptedObject> {
		if (!this.loaded) {
			const loading = this.context.getCredentials(CREDENTIAL_TYPE);
			// A failed read is not kept: a later request reads again, as it would have without the session.
			loading.catch(() => {
				if (this.loaded === loading) this.loaded = undefined;
			});
			this.loaded = loading;
		}
		return await this.loaded;
	}
}

/** What an API call needs besides its request context: the run's session. */
export interface ApiRequestContext extends RequestContext {
	session: ApiSession;
}

async function loadCredentials(
	this: IExecuteFunctions,
	context: ApiRequestContext,
): Promise<Credentials & { data: ICredentialDataDecryptedObject }> {
	const credentials = await context.session.credentials();
	const apiKey = String(credentials.apiKey ?? '');
	const baseUrl = normalizeBaseUrl(String(credentials.baseUrl ?? ''));
	const problem = baseUrlProblem(baseUrl);
	if (problem) {
		// Refused before any request: the key goes nowhere but a well-formed Base URL.
		throw invalidInput.call(
			this,
			context.itemIndex,
			'Credential › Base URL',
			redact(String(credentials.baseUrl ?? ''), apiKey),
			problem,
			'Correct the Base URL field of the MediaGen API credential.',
		);
	}
	return { apiKey, baseUrl, data: credentials };
}

/** The body as JSON, when it is JSON. */
function parseJson(body: unknown): unknown {
	let value = body;
	if (Buffer.isBuffer(value)) value = value.toString('utf8');
	if (typeof value !== 'string') return value;
	try {
		return JSON.parse(value);
	} catch {
		return undefined;
	}
}

function envelopeOf(value: unknown): ApiEnvelope<unknown> | undefined {
	if (value && typeof value === 'object' && typeof (value as ApiEnvelope<unknown>).code === 'number') {
		return value as ApiEnvelope<unknown>;
	}
	return undefined;
}

/** A task id as the API may send it: a non-empty string, or a number (kept as its digits). */
function taskIdOf(value: unknown): string | undefined {
	if (typeof value === 'string' && value.trim() !== '') return value.trim();
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return undefined;
}

/**
 * `"taskid": "<id>"` with its closing quote, or `"taskid": <digits>` followed by a delimiter: an id cut off by the
 * end of the body is not taken for a whole one.
 */
const TASK_ID_IN_TEXT = /"taskid"\s*:\s*(?:"([^"\\\s]{1,200})"|(\d{1,40})(?=\s*[,}\]]))/;

/**
 * The id of a task an answer names, whatever its status: in `data.taskid` (or `taskid`) of a JSON body, or, in a
 * body that is not JSON (cut off, or wrapped in a page), by a strict pattern. Creation answers only: an answer
 * that names a task means the task exists and may be charged.
 */
function recoverTaskId(body: unknown, json: unknown, apiKey: string): string | undefined {
	let taskId: string | undefined;
	if (json && typeof json === 'object') {
		const data = (json as { data?: unknown }).data;
		taskId =
			(data && typeof data === 'object' ? taskIdOf((data as IDataObject).taskid) : undefined) ??
			taskIdOf((json as IDataObject).taskid);
	}
	if (taskId === undefined) {
		const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : undefined;
		const match = text ? TASK_ID_IN_TEXT.exec(text) : null;
		taskId = match ? (match[1] ?? match[2]).trim() || undefined : undefined;
	}
	return taskId === undefined ? undefined : redact(taskId, apiKey);
}

/** "a redirect to <location>" for messages (the location resolved against the request URL). */
function redirectTarget(response: IN8nHttpFullResponse, requestUrl: string, apiKey: string): string {
	const location = response.headers.location;
	if (typeof location !== 'string' || !location) return 'a redirect without a Location';
	try {
		return `a redirect to ${echo(new URL(location, requestUrl).href, apiKey)}`;
	} catch {
		return `a redirect to ${echo(location, apiKey)}`;
	}
}

/** The advice of an answer to a creation that may have created a task; nothing in it invites a paid re-run. */
function mayHaveCreated(reason: string): string {
	return `${reason} a task may have been created (and charged) anyway: check your tasks before running the node again.`;
}

/** The advice of an answer to a creation that names a task: it exists, and is followed rather than paid for again. */
function namesTask(taskId: string, path: string): string {
	const taskType = path.startsWith('/v1/tlvideo/') ? 'video' : 'image';
	return `The answer names task ${taskId}: it was created and may be charged. Follow it with Task → Get or Task → Wait (Task Type ${taskType}, Task ID ${taskId}) instead of running the node again.`;
}

/**
 * What a failed answer means for a task: the task it names, or, for a creation that may have reached the server
 * (`reason` says why), that one may exist; else nothing.
 */
function taskAdvice(taskId: string | undefined, path: string, creation: boolean, reason: string): string {
	if (taskId) return namesTask(taskId, path);
	return creation ? mayHaveCreated(reason) : '';
}

/** Whether a refusal says that the task does not exist (the API documents no code for it: its message tells). */
export function saysNotFound(message: string | undefined): boolean {
	return typeof message === 'string' && /not\s*found|unknown|no such|n[o']t exist/i.test(message);
}

/** The largest answer the node reads from the API: envelopes are a few kilobytes, so a larger body is not one. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** An answer cut off at MAX_ANSWER_BYTES. */
class AnswerTooLarge extends Error {}

/**
 * Reads an answer's body to its end as bytes. n8n's request helper would read any body whole, without a limit: a
 * body that never ends (a misbehaving server or proxy) would fill memory until Request Timeout. Past
 * MAX_ANSWER_BYTES the request is aborted, which closes its connection.
 */
async function readAnswer(body: unknown, abort: () => void): Promise<unknown> {
	if (!body || typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') return body;
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of body as AsyncIterable<Buffer | string>) {
		const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
		size += bytes.length;
		if (size > MAX_ANSWER_BYTES) {
			abort();
			throw new AnswerTooLarge();
		}
		chunks.push(bytes);
	}
	return Buffer.concat(chunks);
}

async function send(
	this: IExecuteFunctions,
	path: string,
	body: IDataObject | StreamingForm,
	context: ApiRequestContext,
): Promise<unknown> {
	const { apiKey, baseUrl, data } = await loadCredentials.call(this, context);
	const multipart = body instanceof StreamingForm;
	// Every multipart request is a creation: any answer but a refusal may mean a task exists (and was charged).
	const creation = multipart;
	const timeout = clampRequestTimeout(context.timeout ?? DEFAULT_REQUEST_TIMEOUT_MS);
	const deadline = requestSignal.call(this, timeout, context.survivesCancel === true, context.signal);
	const text = multipart ? textFormBody(body) : undefined;
	const options: IHttpRequestOptions = {
		method: 'POST',
		url: `${baseUrl}${path}`,
		body: multipart ? (text?.body ?? body) : JSON.stringify(body),
		// Read here, with a limit (readAnswer), and parsed here: every answer is judged on its bytes.
		encoding: 'stream',
		json: false,
		timeout,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// n8n re-sends the credential on redirects, even to other origins: API calls follow none (see below).
		// Not following also keeps uploads streamed: the redirect client buffers a whole body to resend it.
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
	};
	// A streamed multipart body gets its boundary header from the HTTP client; the others are declared.
	if (text) options.headers = { 'Content-Type': text.contentType };
	if (!multipart) options.headers = { 'Content-Type': 'application/json' };

	let response: IN8nHttpFullResponse;
	let answer: unknown;
	try {
		const node = this.getNode().credentials?.[CREDENTIAL_TYPE];
		response = (await this.helpers.httpRequestWithAuthentication.call(
			withRequestSignal(this, deadline.signal),
			CREDENTIAL_TYPE,
			options,
			// The session's credential: n8n would otherwise read and decrypt it again for this request.
			{ credentialsDecrypted: { id: node?.id ?? '', name: node?.name ?? '', type: CREDENTIAL_TYPE, data } },
		)) as IN8nHttpFullResponse;
		answer = await readAnswer(response.body, () => deadline.abort(new AnswerTooLarge()));
	} catch (error) {
		const failure = describeTransportFailure(error as { message?: string });
		const tooLarge = error instanceof AnswerTooLarge || deadline.signal.reason instanceof AnswerTooLarge;
		const reason = tooLarge
			? `the answer was larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB, which no answer of the API is`
			: (abortReason(deadline.signal) ?? failure.reason);
		const code = failure.code;
		const nothingSent = code !== undefined && NEVER_CONNECTED.has(code);
		// A creation that got no answer may still have reached the server: it is never retried automatically.
		const advice = !creation
			? ' Check the Base URL of the credential and that the service is up, then run the node again.'
			: nothingSent
				? ' The connection never opened, so no task was created. Check the Base URL of the credential and that the service is up.'
				: ` Check the Base URL of the credential and that the service is up. ${mayHaveCreated('If the request reached the server,')}`;
		throw apiError.call(this, apiKey, context, {
			message: `Could not reach the MediaGen API: ${reason}`,
			description: `POST ${path} did not get an answer${code ? ` (${code})` : ''}.${advice}`,
			retryable: true,
			nothingSent,
			uncertain: creation && !nothingSent,
		});
	} finally {
		// The whole answer is in: nothing needs the deadline any more.
		deadline.release();
	}

	const status = response.statusCode;
	const json = parseJson(answer);
	const envelope = envelopeOf(json);
	// Every id a creation answer names is kept, whatever its status: the task exists and may be charged.
	const taskId = creation ? recoverTaskId(answer, json, apiKey) : undefined;
	const serverMessage = typeof envelope?.msg === 'string' && envelope.msg ? echo(envelope.msg, apiKey) : undefined;

	if (status >= 300 && status < 400) {
		const target = redirectTarget(response, `${baseUrl}${path}`, apiKey);
		const advice = taskAdvice(taskId, path, creation, 'The server answered, so');
		const created = advice ? ` ${advice}` : '';
		throw apiError.call(this, apiKey, context, {
			message: `The MediaGen API answered HTTP ${status}, ${target}, which the node does not follow`,
			description: `POST ${path} was redirected. API requests never follow redirects, so that the API key is never sent anywhere but the Base URL (and no task ID is taken from another host). If the API has moved, set its new address as the Base URL of the credential.${created}`,
			httpCode: String(status),
			retryable: false,
			uncertain: creation,
			taskId,
		});
	}

	if (status < 200 || status >= 300) {
		// 408: the server (or a proxy) gave up waiting for the request; like a 5xx, another status check may pass.
		const unfinished = status === 408 || status >= 500;
		const retryable = status === 429 || unfinished;
		const refusedKey = status === 401 || status === 403;
		const advice = taskId
			? namesTask(taskId, path)
			: refusedKey
				? 'The API refused the key. Check the API Key of the MediaGen API credential.'
				: status === 429
					? 'The API is limiting the rate of requests; a refused request created nothing.'
					: unfinished && creation
						? `The service is failing. ${mayHaveCreated('The request reached the server, so')}`
						: unfinished
							? 'The service is busy or failing. Try again later.'
							: `POST ${path} was rejected.`;
		const response_ = status >= 500 || status === 429 || refusedKey ? '' : ` Response: ${snippet(answer, apiKey)}`;
		throw apiError.call(this, apiKey, context, {
			message: `The MediaGen API answered HTTP ${status}${serverMessage ? `: ${serverMessage}` : ''}`,
			description: `${advice}${response_}`,
			httpCode: String(status),
			retryable,
			apiCode: envelope?.code,
			// A 429 is the server refusing before it does any work: nothing was created, unless it names a task.
			nothingSent: status === 429 && taskId === undefined,
			uncertain: creation && unfinished,
			retryAfterMs: status === 429 ? parseRetryAfter(response.headers?.['retry-after']) : undefined,
			taskId,
		});
	}

	if (!envelope) {
		// The advice comes first: the body's start follows, and may end anywhere.
		const advice = taskAdvice(taskId, path, creation, 'The request reached the server, so');
		const created = advice ? `${advice} ` : '';
		throw apiError.call(this, apiKey, context, {
			message: 'The MediaGen API answered with a body that is not a JSON envelope',
			description: `${created}POST ${path} returned HTTP ${status} with: ${snippet(answer, apiKey)}`,
			httpCode: String(status),
			retryable: true,
			uncertain: creation,
			taskId,
		});
	}

	if (envelope.code === RESPONSE_CODE.success) return redactDeep(envelope.data, apiKey);

	const quoted = serverMessage ? ` ("${serverMessage}")` : '';
	if (envelope.code === RESPONSE_CODE.insufficientCredits) {
		throw apiError.call(this, apiKey, context, {
			message: 'Insufficient credits',
			description: `The API answered code 9000${quoted}: the account behind this API key has no credits left for this request. ${
				taskId
					? namesTask(taskId, path)
					: 'No task was created for this item. Top up the account, or use a credential with credits. Tasks that other items of this run created keep running and are charged (follow them with Task → Wait): create again only the items that failed.'
			}`,
			retryable: false,
			apiCode: envelope.code,
			taskId,
		});
	}

	const notFound = saysNotFound(envelope.msg);
	const hint = !creation && context.notFoundHint && notFound ? ` ${context.notFoundHint}` : '';
	throw apiError.call(this, apiKey, context, {
		message: `The MediaGen API refused the request: ${serverMessage ?? 'no message given'}`,
		description: `POST ${path} answered code ${envelope.code}${serverMessage ? ` with message "${serverMessage}"` : ''}.${hint}${taskId ? ` ${namesTask(taskId, path)}` : ''}`,
		retryable: false,
		apiCode: envelope.code,
		// About a task (a status check, a delete): a refusal other than "not found" is the API's word on the task.
		taskRefused: !creation && !notFound,
		notFound: !creation && notFound,
		taskId,
	});
}

/** POST a JSON body (query and delete endpoints) and return the envelope's `data` (an object, as the API documents it). */
export async function apiJsonRequest(
	this: IExecuteFunctions,
	path: string,
	body: IDataObject,
	context: ApiRequestContext,
): Promise<IDataObject | undefined> {
	return (await send.call(this, path, body, context)) as IDataObject | undefined;
}

/**
 * POST multipart/form-data (creation endpoints) and return the envelope's `data`, whose `taskid` is
 * always a non-empty string: a success answer without one is an error, never a task "".
 */
export async function apiMultipartRequest(
	this: IExecuteFunctions,
	path: string,
	form: StreamingForm,
	context: ApiRequestContext,
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
			uncertain: true,
			apiCode: RESPONSE_CODE.success,
		});
	}
	return { ...(data as IDataObject), taskid: taskId };
}
