/**
 * What an API answer means: the envelope's data, or the error it is. Each error says that the API answered and what
 * was wrong, and keeps the tasks a creation answer names (they exist and may be charged).
 */
import type { IExecuteFunctions, IN8nHttpFullResponse, NodeApiError } from 'n8n-workflow';

import {
	keptAnswer,
	MAX_ANSWER_BYTES,
	namedTaskIds,
	parseAnswer,
	readAnswerBody,
	type AnswerBody,
} from './responseBody';
import { answerText } from '../media/text';
import { abortReason, type RequestContext, type RequestSignal } from './context';
import { apiError, parseRetryAfter } from './errors';
import { SHOWN } from '../helpers/shorten';
import { echo, type Redact } from './redaction';
import { mayMeanNotFound, notKnownIn } from './wording';

export const RESPONSE_CODE = { success: 1000, failure: 9999, insufficientCredits: 9000 } as const;

interface ApiEnvelope {
	code: number;
	msg?: string;
	data?: unknown;
}

/** Nothing in it invites a paid re-run. */
export function mayHaveCreated(reason: string): string {
	return `${reason} a task may have been created (and charged) anyway: check your tasks before running the node again.`;
}

/** Each task a creation answer names exists: it is followed rather than paid for again. */
function namesTask(taskIds: string[], path: string): string {
	const taskType = path.startsWith('/v1/tlvideo/') ? 'video' : 'image';
	const ids = taskIds.join(', ');
	const many = taskIds.length > 1;
	return `The answer names ${many ? `${taskIds.length} tasks, ${ids}: each was` : `task ${ids}: it was`} created and may be charged. Follow ${many ? 'them' : 'it'} with Task → Get or Task → Wait (Task Type ${taskType}, Task ID${many ? 's' : ''} ${ids}) instead of running the node again.`;
}

/** The tasks a failed answer names, or, for a creation that may have reached the server, that one may exist. */
function taskAdvice(taskIds: string[], path: string, creation: boolean, reason: string): string {
	return taskIds.length ? namesTask(taskIds, path) : creation ? mayHaveCreated(reason) : '';
}

class AnswerTooLarge extends Error {}

export interface ApiCall {
	path: string;
	/** May create (and charge) a task. */
	creation: boolean;
	redact: Redact;
	baseUrl: string;
	context: RequestContext;
}

export interface Answer {
	response: IN8nHttpFullResponse;
	status: number;
	body: AnswerBody;
	text: string;
	/** Why the body broke off, in words. */
	brokeOff?: string;
	envelope?: ApiEnvelope;
	/** A creation's answer: every task it names (namedTaskIds). */
	taskIds: string[];
	serverMessage?: string;
}

export async function receive(call: ApiCall, response: IN8nHttpFullResponse, deadline: RequestSignal): Promise<Answer> {
	const body = await readAnswerBody(response.body, () => deadline.abort(new AnswerTooLarge()));
	const brokeOff =
		body.brokeOff === undefined
			? undefined
			: (abortReason(deadline.signal) ?? 'the connection was closed before the whole answer arrived');
	const text = answerText(body.bytes);
	const parsed = body.tooLarge || brokeOff ? {} : parseAnswer(text);
	const json = parsed.json as ApiEnvelope | null | undefined;
	const envelope = typeof json?.code === 'number' ? json : undefined;
	return {
		response,
		status: response.statusCode,
		body,
		text,
		brokeOff,
		envelope,
		// Every id a creation answer names is kept, whatever its status: each task exists and may be charged.
		taskIds: call.creation ? namedTaskIds(text, parsed.json, call.redact) : [],
		serverMessage: typeof envelope?.msg === 'string' && envelope.msg ? echo(envelope.msg, call.redact) : undefined,
	};
}

/** API calls follow no redirect, so that the key goes nowhere but the Base URL. */
function redirected(this: IExecuteFunctions, call: ApiCall, answer: Answer): NodeApiError {
	const { path, creation, redact } = call;
	const location = answer.response.headers.location;
	const from = `${call.baseUrl}${path}`;
	const target =
		typeof location !== 'string' || !location
			? 'a redirect without a Location'
			: `a redirect to ${echo(URL.canParse(location, from) ? new URL(location, from).href : location, redact)}`;
	const advice = taskAdvice(answer.taskIds, path, creation, 'The server answered, so');
	return apiError.call(this, redact, call.context, {
		message: `The MediaGen API answered HTTP ${answer.status}, ${target}, which the node does not follow`,
		description: `POST ${path} was redirected. API requests never follow redirects, so that the API key is never sent anywhere but the Base URL (and no task ID is taken from another host). If the API has moved, set its new address as the Base URL of the credential.${advice ? ` ${advice}` : ''}`,
		httpCode: String(answer.status),
		taskIds: answer.taskIds,
		facts: { retryable: false, mayHaveCreated: creation },
	});
}

function failedStatus(this: IExecuteFunctions, call: ApiCall, answer: Answer): NodeApiError {
	const { path, creation, redact } = call;
	const { status, taskIds, serverMessage, envelope } = answer;
	// 408: the server (or a proxy) gave up waiting for the request; like a 5xx, another status check may pass.
	const unfinished = status === 408 || status >= 500;
	const refusedKey = status === 401 || status === 403;
	const advice = taskIds.length
		? namesTask(taskIds, path)
		: refusedKey
			? 'The API refused the key. Check the API Key of the MediaGen API credential.'
			: status === 429
				? 'The API is limiting the rate of requests; a refused request created nothing.'
				: unfinished && creation
					? `The service is failing. ${mayHaveCreated('The request reached the server, so')}`
					: unfinished
						? 'The service is busy or failing. Try again later.'
						: `POST ${path} was rejected.`;
	const quoted =
		status >= 500 || status === 429 || refusedKey
			? ''
			: ` Response: ${echo(answer.text, redact, SHOWN.body, { fold: true })}`;
	return apiError.call(this, redact, call.context, {
		message: `The MediaGen API answered HTTP ${status}${serverMessage ? `: ${serverMessage}` : ''}`,
		description: `${advice}${quoted}`,
		httpCode: String(status),
		apiCode: envelope?.code,
		taskIds,
		facts: {
			retryable: status === 429 || unfinished,
			// A 429 is the server refusing before it does any work: nothing was created, unless it names a task.
			nothingSent: status === 429 && !taskIds.length,
			mayHaveCreated: creation && unfinished,
			retryAfterMs: status === 429 ? parseRetryAfter(answer.response.headers?.['retry-after']) : undefined,
		},
	});
}

/** A 2xx whose body is not an envelope. The advice comes first: the body's start follows, and may end anywhere. */
function notAnEnvelope(this: IExecuteFunctions, call: ApiCall, answer: Answer): NodeApiError {
	const { path, creation, redact } = call;
	const { status, body, taskIds } = answer;
	const limit = `${MAX_ANSWER_BYTES / 1024 / 1024} MiB`;
	const [what, said] = body.tooLarge
		? [
				`answered HTTP ${status} with a body larger than ${limit}, which no answer of the API is`,
				`answered HTTP ${status}; the first ${limit} were read, then the connection was closed, starting with:`,
			]
		: answer.brokeOff
			? [
					`answered HTTP ${status}, but its answer broke off: ${answer.brokeOff}`,
					`answered HTTP ${status}; ${body.bytes.length} bytes arrived, starting with:`,
				]
			: ['answered with a body that is not a JSON envelope', `returned HTTP ${status} with:`];
	const advice = taskAdvice(taskIds, path, creation, 'The request reached the server, so');
	return apiError.call(this, redact, call.context, {
		message: `The MediaGen API ${what}`,
		description: `${advice ? `${advice} ` : ''}POST ${path} ${said} ${echo(answer.text, redact, SHOWN.body, { fold: true })}`,
		httpCode: String(status),
		taskIds,
		facts: { retryable: true, mayHaveCreated: creation },
	});
}

/** Code 9000: nothing was created, unless the answer names a task. */
function noCredits(this: IExecuteFunctions, call: ApiCall, answer: Answer): NodeApiError {
	const { taskIds, serverMessage, envelope } = answer;
	return apiError.call(this, call.redact, call.context, {
		message: 'Insufficient credits',
		description: `The API answered code 9000${serverMessage ? ` ("${serverMessage}")` : ''}: the account behind this API key has no credits left for this request. ${
			taskIds.length
				? namesTask(taskIds, call.path)
				: call.creation
					? 'No task was created for this item. Top up the account, or use a credential with credits. Tasks that other items of this run created keep running and are charged (follow them with Task → Wait): create again only the items that failed.'
					: 'Top up the account, or use a credential with credits, then run the node again.'
		}`,
		apiCode: envelope!.code,
		taskIds,
		facts: { retryable: false },
	});
}

function refused(this: IExecuteFunctions, call: ApiCall, answer: Answer): NodeApiError {
	const { path, creation, context } = call;
	const { taskIds, serverMessage } = answer;
	const { code, msg } = answer.envelope!;
	const message = typeof msg === 'string' ? msg : '';
	// The hint (which Task Type, which User ID) only where the refusal says that tasks are not known (wording.ts's
	// rules); an "Unknown error, please try again later" is not about them.
	const notKnown = notKnownIn(message, [...taskIds, context.taskId ?? '']) !== undefined;
	const hint = !creation && context.notFoundHint && notKnown ? ` ${context.notFoundHint}` : '';
	return apiError.call(this, call.redact, context, {
		message: `The MediaGen API refused the request: ${serverMessage ?? 'no message given'}`,
		description: `POST ${path} answered code ${code}${serverMessage ? ` with message "${serverMessage}"` : ''}.${hint}${taskIds.length ? ` ${namesTask(taskIds, path)}` : ''}`,
		apiCode: code,
		taskIds,
		facts: {
			retryable: false,
			// About a task (a status check): a refusal other than "not found" is the API's word on the task.
			refused: !creation && !mayMeanNotFound(message),
			// Task → Delete reads the whole message for the tasks it says are not known (wording.ts).
			refusal: { code, message: call.redact(message) },
		},
	});
}

/** The envelope's data (redacted, kept down to MAX_ANSWER_DEPTH), or the error the answer is. */
export function envelopeData(this: IExecuteFunctions, call: ApiCall, answer: Answer): unknown {
	const { status, envelope } = answer;
	if (status >= 300 && status < 400) throw redirected.call(this, call, answer);
	if (status < 200 || status >= 300) throw failedStatus.call(this, call, answer);
	if (answer.body.tooLarge || answer.brokeOff || !envelope) throw notAnEnvelope.call(this, call, answer);
	// The envelope is the first level: its data starts at the second.
	if (envelope.code === RESPONSE_CODE.success) return keptAnswer(envelope.data, call.redact, 1);
	if (envelope.code === RESPONSE_CODE.insufficientCredits) throw noCredits.call(this, call, answer);
	throw refused.call(this, call, answer);
}
