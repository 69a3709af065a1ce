/**
 * Result downloads: plain HTTP without the credential (the key never reaches a file host), redirects followed hop by
 * hop, one deadline per attempt. Each error says whether another GET may cure it; waiting/resultDownloads.ts retries.
 */
import type { IExecuteFunctions, IN8nHttpFullResponse, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { abortReason, DEFAULT_REQUEST_TIMEOUT_MS, linkedSignal, requestSignal, type RequestContext } from './context';
import { describeTransportFailure, parseRetryAfter, withFacts, type ErrorFacts } from './errors';
import { shorten, SHOWN } from '../helpers/shorten';

export interface DownloadedFile {
	body: NodeJS.ReadableStream;
	/** The Content-Type the host sent, without its parameters: only quoted in errors (the bytes tell the type). */
	mimeType?: string;
	size?: number;
	/** The download's total deadline (and the cancel signal): aborted when reading `body` was cut off. */
	signal: AbortSignal;
	/**
	 * Closes the connection of a file not read to its end. Destroying `body` would not: it is axios's wrapper of the
	 * response, and the socket stays open until the host ends it, which a stalled host never does.
	 */
	release(): void;
}

/** Connection failures after which a new GET may well succeed (the host was busy, restarting or dropped us). */
const TRANSIENT_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'EAI_AGAIN', 'UND_ERR_SOCKET']);

/** Failures of n8n's binary storage (disk full, no permission, too many open files, …). */
const STORAGE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EACCES', 'EPERM', 'EROFS', 'EMFILE', 'ENFILE', 'EIO']);

function announcedSize(header: unknown): number | undefined {
	const text = Array.isArray(header) ? header[0] : header;
	if (typeof text !== 'string' || !/^\s*\d+\s*$/.test(text)) return undefined;
	const size = Number(text);
	return Number.isSafeInteger(size) ? size : undefined;
}

const MAX_DOWNLOAD_REDIRECTS = 5;

type DownloadFacts = Pick<ErrorFacts, 'transient' | 'retryAfterMs' | 'fault'>;

const downloadable = (url: URL) => url.protocol === 'http:' || url.protocol === 'https:';

export function downloadError(
	this: IExecuteFunctions,
	context: RequestContext,
	message: string,
	description: string,
	httpCode?: string,
	facts?: DownloadFacts,
): NodeApiError {
	const error = new NodeApiError(this.getNode(), { message, description } as JsonObject, {
		message: `${message} (task ${context.taskId}) [item ${context.itemIndex}]`,
		description: `${description} The task ID is kept in the output; its result URLs stay valid on the server for as long as the API keeps them.`,
		httpCode,
		itemIndex: context.itemIndex,
	});
	if (context.taskId) error.context.taskId = context.taskId;
	return withFacts(error, facts ?? {});
}

function refuseScheme(this: IExecuteFunctions, url: string, context: RequestContext): void {
	const parsed = URL.canParse(url) ? new URL(url) : undefined;
	if (parsed && downloadable(parsed)) return;
	throw downloadError.call(
		this,
		context,
		parsed
			? `Could not download a result file: its URL ${shorten(url, SHOWN.url)} uses the scheme ${parsed.protocol}, and only http and https URLs are downloaded`
			: `Could not download a result file: ${shorten(url, SHOWN.url)} is not a URL`,
		'The API answered a result URL that the node does not download.',
	);
}

async function getHop(
	this: IExecuteFunctions,
	target: string,
	hop: AbortSignal,
	deadline: AbortSignal,
	context: RequestContext & { timeout: number },
): Promise<IN8nHttpFullResponse> {
	try {
		return (await this.helpers.httpRequest({
			method: 'GET',
			url: target,
			// The file as it is: a compressed answer would be decompressed on the way, and its Content-Length (the
			// size the result lane weighs and the whole-file check trusts) would not be the file's.
			headers: { 'accept-encoding': 'identity' },
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			timeout: context.timeout,
			abortSignal: hop,
		})) as IN8nHttpFullResponse;
	} catch (error) {
		const { reason, code } = describeTransportFailure(error);
		throw downloadError.call(
			this,
			context,
			`Could not download a result file: ${abortReason(deadline) ?? reason}`,
			`GET ${shorten(target, SHOWN.url)} failed${code ? ` (${code})` : ''}.`,
			undefined,
			// Out of time or stopped: no attempt is left. A connection that failed: another GET may get through.
			{ transient: !deadline.aborted && code !== undefined && TRANSIENT_NETWORK_CODES.has(code) },
		);
	}
}

/** A redirect's target (http or https only), undefined for the file, or the error any other answer is. */
function nextHop(
	this: IExecuteFunctions,
	response: IN8nHttpFullResponse,
	hops: { url: string; target: string; redirects: number },
	context: RequestContext,
): string | undefined {
	const { statusCode: status, headers } = response;
	if (status >= 200 && status < 300) return undefined;
	const answered = `GET ${shorten(hops.target, SHOWN.url)} answered HTTP ${status}.`;
	const refuse = (why: string, description = answered, facts?: DownloadFacts) =>
		downloadError.call(this, context, `Could not download a result file: ${why}`, description, String(status), facts);
	const location = headers.location;
	if (status < 300 || status >= 400 || typeof location !== 'string' || !location) {
		throw refuse(`HTTP ${status}`, answered, {
			// Answers that say "not now" rather than "no": the same GET later may succeed.
			transient: status === 408 || status === 429 || status >= 500,
			retryAfterMs: status === 429 || status === 503 ? parseRetryAfter(headers['retry-after']) : undefined,
		});
	}
	if (!URL.canParse(location, hops.target)) {
		throw refuse(`it redirects to ${shorten(location, SHOWN.url)}, which is not a URL`);
	}
	const next = new URL(location, hops.target);
	if (!downloadable(next)) {
		throw refuse(`it redirects to ${shorten(next.href, SHOWN.url)}, and only http and https URLs are downloaded`);
	}
	if (hops.redirects >= MAX_DOWNLOAD_REDIRECTS) {
		throw refuse(
			`more than ${MAX_DOWNLOAD_REDIRECTS} redirects`,
			`GET ${shorten(hops.url, SHOWN.url)} kept redirecting; the last hop was ${shorten(next.href, SHOWN.url)}.`,
		);
	}
	return next.href;
}

export async function downloadResultFile(
	this: IExecuteFunctions,
	url: string,
	context: RequestContext,
): Promise<DownloadedFile> {
	refuseScheme.call(this, url, context);
	// One total deadline for the whole download, redirects included (Request Timeout).
	const timeout = context.timeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
	const deadline = requestSignal.call(this, timeout, false, context.signal);
	let target = url;
	for (let redirects = 0; ; redirects++) {
		// One hop's connection: aborting it closes that hop only; the download's deadline stays with the next hop.
		const hop = linkedSignal(undefined, [deadline.signal]);
		const done = () => {
			hop.release();
			deadline.release();
		};
		const release = () => {
			hop.abort();
			done();
		};
		// Whatever fails on the way (no answer, a refused redirect or status) closes the hop and ends the download.
		let failed = true;
		try {
			const response = await getHop.call(this, target, hop.signal, deadline.signal, { ...context, timeout });
			const next = nextHop.call(this, response, { url, target, redirects }, context);
			failed = false;
			if (next) {
				// The redirect's body is not read (it may never end): its connection is closed.
				hop.abort();
				hop.release();
				target = next;
				continue;
			}
			// The deadline covers the body too: when it passes, the hop aborts and the HTTP client ends the body. Once
			// the body is over, nothing holds the deadline any more.
			const body = response.body as NodeJS.ReadableStream;
			body.once?.('close', done);
			const type = response.headers['content-type'];
			return {
				body,
				signal: hop.signal,
				release,
				mimeType: typeof type === 'string' ? type.split(';')[0].trim() : undefined,
				size: announcedSize(response.headers['content-length']),
			};
		} finally {
			if (failed) release();
		}
	}
}

/** A download that broke while its body was being stored (connection closed mid-file, storage failure, …). */
export function downloadInterrupted(
	this: IExecuteFunctions,
	url: string,
	error: unknown,
	context: RequestContext,
	signal?: AbortSignal,
): NodeApiError {
	if (error instanceof NodeApiError) return error;
	const cause = error as { message?: string; code?: unknown };
	const closed =
		cause?.code === 'ECONNRESET' || /aborted|premature close|socket hang up/i.test(String(cause?.message ?? ''));
	const reason = signal?.aborted
		? abortReason(signal)
		: this.getExecutionCancelSignal()?.aborted
			? 'the execution was cancelled'
			: closed
				? 'the connection was closed before the whole file arrived'
				: typeof cause?.code === 'string' && STORAGE_CODES.has(cause.code)
					? `n8n's binary storage could not take the file (${cause.code})`
					: describeTransportFailure(cause).reason;
	return downloadError.call(
		this,
		context,
		`Could not download a result file: ${reason}`,
		`GET ${shorten(url, SHOWN.url)} broke off while the file was being stored${cause?.message ? ` (${cause.message})` : ''}.`,
		undefined,
		// A body cut off by the host: the whole file may come with another GET. Out of time or stopped: no.
		{ transient: closed && !signal?.aborted && !this.getExecutionCancelSignal()?.aborted },
	);
}

/** Never a "completed" item with an empty file. */
export function emptyResultFile(this: IExecuteFunctions, url: string, context: RequestContext): NodeApiError {
	return downloadError.call(
		this,
		context,
		`The result file ${shorten(url, SHOWN.url)} is empty (0 bytes)`,
		`GET ${shorten(url, SHOWN.url)} answered with an empty body. The task completed on the server, but this result has no content: check the task with Task → Get, or run it again.`,
	);
}
