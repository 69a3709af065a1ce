/**
 * The only code that talks to the API: the credential (read once per run), the request under its total deadline, and
 * its answer (read by responseBody.ts, judged by envelope.ts).
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	NodeApiError,
} from 'n8n-workflow';

import { invalidInput } from '../helpers/badInput';
import { fingerprint } from '../helpers/fingerprint';
import { taskIdOf } from './responseBody';
import {
	abortReason,
	clampRequestTimeout,
	DEFAULT_REQUEST_TIMEOUT_MS,
	requestSignal,
	withRequestSignal,
	type RequestContext,
	type RequestSignal,
} from './context';
import { apiError, describeTransportFailure, NEVER_CONNECTED } from './errors';
import { StreamingForm, textFormBody } from './multipart';
import { keyRedactor, type Redact } from './redaction';
import { envelopeData, mayHaveCreated, receive, RESPONSE_CODE, type Answer, type ApiCall } from './envelope';

const CREDENTIAL_TYPE = 'mediaGenApi';

/** Without a trailing `/v1` (every path starts with it; users paste it): the credential's test does the same. */
export function normalizeBaseUrl(baseUrl: string): string {
	return baseUrl.trim().replace(/\/+$/, '').replace(/\/v1$/i, '');
}

/** The paths are appended to the Base URL: it must be an absolute http(s) address, with no query or fragment. */
export function baseUrlProblem(baseUrl: string): string | undefined {
	if (!baseUrl) return 'is required';
	if (!/^https?:\/\//i.test(baseUrl) || !URL.canParse(baseUrl)) {
		return 'must be an absolute address that starts with http:// or https://, e.g. https://api.example.com';
	}
	if (baseUrl.includes('?')) return 'must not contain a query string (?…): the API paths are appended to it';
	if (baseUrl.includes('#')) return 'must not contain a fragment (#…): the API paths are appended to it';
	return undefined;
}

interface RunCredential {
	data: ICredentialDataDecryptedObject;
	baseUrl: string;
	redact: Redact;
}

/**
 * The credential, read once per node run (never kept past it): each `getCredentials` is a database read and a
 * decryption, a run of 500 items sends thousands of requests, and a key redactor costs more than most requests.
 */
export class ApiSession {
	private loaded?: Promise<RunCredential>;

	constructor(private readonly context: IExecuteFunctions) {}

	async credential(): Promise<RunCredential> {
		if (!this.loaded) {
			const loading = this.context.getCredentials(CREDENTIAL_TYPE).then((data) => ({
				data,
				baseUrl: normalizeBaseUrl(String(data.baseUrl ?? '')),
				redact: keyRedactor(String(data.apiKey ?? '')),
			}));
			// A failed read is not kept: a later request reads again, as it would have without the session.
			loading.catch(() => {
				if (this.loaded === loading) this.loaded = undefined;
			});
			this.loaded = loading;
		}
		return await this.loaded;
	}

	/** The API as learning keys it, a fingerprint of the Base URL; undefined when the credential cannot be read. */
	async apiId(): Promise<string | undefined> {
		return await this.credential()
			.then(({ baseUrl }) => fingerprint(baseUrl))
			.catch(() => undefined);
	}
}

export interface ApiRequestContext extends RequestContext {
	session: ApiSession;
}

async function loadCredentials(this: IExecuteFunctions, context: ApiRequestContext): Promise<RunCredential> {
	const credential = await context.session.credential();
	const problem = baseUrlProblem(credential.baseUrl);
	if (problem) {
		// Refused before any request: the key goes nowhere but a well-formed Base URL.
		throw invalidInput.call(
			this,
			context.itemIndex,
			'Credential › Base URL',
			credential.redact(String(credential.data.baseUrl ?? '')),
			problem,
			'Correct the Base URL field of the MediaGen API credential.',
		);
	}
	return credential;
}

function requestOptions(call: ApiCall, body: IDataObject | StreamingForm, timeout: number): IHttpRequestOptions {
	const multipart = body instanceof StreamingForm;
	const text = multipart ? textFormBody(body) : undefined;
	return {
		method: 'POST',
		url: `${call.baseUrl}${call.path}`,
		body: multipart ? (text?.body ?? body) : JSON.stringify(body),
		// Read here, with a limit (readAnswerBody), and parsed here: every answer is judged on its bytes.
		encoding: 'stream',
		json: false,
		timeout,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// n8n re-sends the credential on redirects, even to other origins: API calls follow none (see below).
		// Not following also keeps uploads streamed: the redirect client buffers a whole body to resend it.
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
		// A streamed multipart body gets its boundary header from the HTTP client; the others are declared.
		...(text || !multipart ? { headers: { 'Content-Type': text?.contentType ?? 'application/json' } } : {}),
	};
}

/** A request that got no answer at all: why, and whether a task may exist. */
function unreachable(this: IExecuteFunctions, call: ApiCall, error: unknown, deadline: RequestSignal): NodeApiError {
	const { reason, code } = describeTransportFailure(error);
	const nothingSent = code !== undefined && NEVER_CONNECTED.has(code);
	// A creation that got no answer may still have reached the server: it is never retried automatically.
	const advice = !call.creation
		? ' Check the Base URL of the credential and that the service is up, then run the node again.'
		: nothingSent
			? ' The connection never opened, so no task was created. Check the Base URL of the credential and that the service is up.'
			: ` Check the Base URL of the credential and that the service is up. ${mayHaveCreated('If the request reached the server,')}`;
	return apiError.call(this, call.redact, call.context, {
		message: `Could not reach the MediaGen API: ${abortReason(deadline.signal) ?? reason}`,
		description: `POST ${call.path} did not get an answer${code ? ` (${code})` : ''}.${advice}`,
		facts: { retryable: true, nothingSent, mayHaveCreated: call.creation && !nothingSent },
	});
}

/** Every multipart request is a creation: any answer but a refusal may mean a task exists. */
async function send(
	this: IExecuteFunctions,
	path: string,
	body: IDataObject | StreamingForm,
	context: ApiRequestContext,
): Promise<{ data: unknown; taskIds: string[] }> {
	const { baseUrl, redact, data } = await loadCredentials.call(this, context);
	const call: ApiCall = { path, creation: body instanceof StreamingForm, redact, baseUrl, context };
	const timeout = clampRequestTimeout(context.timeout ?? DEFAULT_REQUEST_TIMEOUT_MS);
	const deadline = requestSignal.call(this, timeout, context.survivesCancel === true, context.signal);
	const node = this.getNode().credentials?.[CREDENTIAL_TYPE];
	let answer: Answer;
	try {
		const response = (await this.helpers.httpRequestWithAuthentication
			.call(
				withRequestSignal(this, deadline.signal),
				CREDENTIAL_TYPE,
				requestOptions(call, body, timeout),
				// The session's credential: n8n would otherwise read and decrypt it again for this request.
				{ credentialsDecrypted: { id: node?.id ?? '', name: node?.name ?? '', type: CREDENTIAL_TYPE, data } },
			)
			.catch((error: unknown) => {
				throw unreachable.call(this, call, error, deadline);
			})) as IN8nHttpFullResponse;
		answer = await receive(call, response, deadline);
	} finally {
		deadline.release();
	}
	return { data: envelopeData.call(this, call, answer), taskIds: answer.taskIds };
}

/** Query and delete endpoints: the envelope's `data`, an object as the API documents it. */
export async function apiJsonRequest(
	this: IExecuteFunctions,
	path: string,
	body: IDataObject,
	context: ApiRequestContext,
): Promise<IDataObject | undefined> {
	return (await send.call(this, path, body, context)).data as IDataObject | undefined;
}

interface CreationAnswer {
	data: IDataObject & { taskid: string };
	/** Other tasks the answer names: each may exist and be charged, so each is named wherever the item's task is. */
	alsoNamed: string[];
}

/** Creation endpoints: `data.taskid` is never empty (a success answer without one is an error, never a task ""). */
export async function apiMultipartRequest(
	this: IExecuteFunctions,
	path: string,
	form: StreamingForm,
	context: ApiRequestContext,
): Promise<CreationAnswer> {
	const { data, taskIds } = await send.call(this, path, form, context);
	const isObject = data !== null && typeof data === 'object' && !Array.isArray(data);
	const taskId = isObject ? taskIdOf((data as IDataObject).taskid) : undefined;
	if (taskId === undefined) {
		const named = taskIds.length
			? ` The answer names ${taskIds.length > 1 ? `tasks ${taskIds.join(', ')}` : `task ${taskIds[0]}`} elsewhere: follow ${taskIds.length > 1 ? 'them' : 'it'} with Task → Get or Task → Wait instead of running the node again.`
			: ' A task may have been created (and charged) anyway: check your tasks before running the node again.';
		throw apiError.call(this, (text) => text, context, {
			message: 'The MediaGen API answered success (code 1000) without a task ID',
			description: `POST ${path} answered code 1000, but its data ${isObject ? 'has no usable taskid' : 'is missing'}, so the task cannot be followed.${named}`,
			apiCode: RESPONSE_CODE.success,
			taskIds,
			facts: { retryable: false, mayHaveCreated: true },
		});
	}
	return {
		data: { ...(data as IDataObject), taskid: taskId },
		alsoNamed: taskIds.filter((id) => id !== taskId),
	};
}
