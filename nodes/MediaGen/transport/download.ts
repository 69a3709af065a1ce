/**
 * Result downloads: plain HTTP without the credential, redirects followed hop by hop, one deadline per attempt.
 * Each error says whether it is transient (worth another GET: a GET changes nothing on the server) and, for HTTP
 * 429 and 503, how long the server asked to wait; the result lane (waiting/results.ts) decides about retries.
 */
import type { IExecuteFunctions, IN8nHttpFullResponse, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { abortReason, DEFAULT_REQUEST_TIMEOUT_MS, requestSignal, type RequestContext } from './context';
import { describeTransportFailure, parseRetryAfter } from './errors';

export interface DownloadedFile {
	/** Destroyed to release the connection when the file is not read to its end. */
	body: NodeJS.ReadableStream & { destroy?: () => void };
	mimeType?: string;
	fileName?: string;
	/** The size the answer announced (Content-Length), when it announced one. */
	size?: number;
	/** The download's total deadline (and the cancel signal): aborted when reading `body` was cut off. */
	signal: AbortSignal;
}

/** Marks download errors that another attempt may cure, and the wait the server asked for. */
const TRANSIENT = 'mediaGenDownloadTransient';
const RETRY_AFTER = 'mediaGenDownloadRetryAfterMs';

/** Connection failures after which a new GET may well succeed (the host was busy, restarting or dropped us). */
const TRANSIENT_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'EAI_AGAIN', 'UND_ERR_SOCKET']);

/** File system failures of n8n's binary storage (disk full, no permission, too many open files, …). */
const STORAGE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EACCES', 'EPERM', 'EROFS', 'EMFILE', 'ENFILE', 'EIO']);

/** HTTP answers that say "not now" rather than "no": the same GET later may succeed. */
function transientStatus(status: number): boolean {
	return status === 408 || status === 429 || status >= 500;
}

/** Whether a failed download may be tried again (a 5xx, a 429, a reset or refused connection, a body cut off). */
export function isTransientDownloadError(error: unknown): boolean {
	return error instanceof NodeApiError && error.context[TRANSIENT] === true;
}

/** The server's Retry-After on a failed download, in milliseconds. */
export function downloadRetryAfterMs(error: unknown): number | undefined {
	const value = error instanceof NodeApiError ? error.context[RETRY_AFTER] : undefined;
	return typeof value === 'number' ? value : undefined;
}

/** Content-Length as a number of bytes, when it is one. */
function announcedSize(header: unknown): number | undefined {
	const text = Array.isArray(header) ? header[0] : header;
	if (typeof text !== 'string' || !/^\s*\d+\s*$/.test(text)) return undefined;
	const size = Number(text);
	return Number.isSafeInteger(size) ? size : undefined;
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
	retry?: { transient: boolean; retryAfterMs?: number },
): NodeApiError {
	const error = new NodeApiError(this.getNode(), { message, description } as JsonObject, {
		message: `${message} (task ${context.taskId}) [item ${context.itemIndex}]`,
		description: `${description} The task ID is kept in the output; its result URLs stay valid on the server for as long as the API keeps them.`,
		httpCode,
		itemIndex: context.itemIndex,
	});
	if (context.taskId) error.context.taskId = context.taskId;
	if (retry?.transient) error.context[TRANSIENT] = true;
	if (retry?.retryAfterMs !== undefined) error.context[RETRY_AFTER] = retry.retryAfterMs;
	return error;
}

/**
 * Streams one result file. It uses plain `httpRequest`, never the credential: result files may live on
 * other hosts, and the API key must not travel there. Redirects are followed here, hop by hop, so that
 * each target is checked: only http and https (never file:, data:, …).
 */
export async function downloadResultFile(
	this: IExecuteFunctions,
	url: string,
	context: RequestContext,
): Promise<DownloadedFile> {
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
	const signal = requestSignal.call(this, timeout, false, context.signal);
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
			throw downloadError.call(
				this,
				context,
				`Could not download a result file: ${abortReason(signal) ?? failure.reason}`,
				`GET ${showUrl(target)} failed${code ? ` (${code})` : ''}.`,
				undefined,
				// Out of time or stopped: no attempt is left. A connection that failed: another GET may get through.
				{ transient: !signal.aborted && code !== undefined && TRANSIENT_NETWORK_CODES.has(code) },
			);
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
				throw downloadError.call(
					this,
					context,
					`Could not download a result file: it redirects to ${showUrl(location)}, which is not a URL`,
					`GET ${showUrl(target)} answered HTTP ${status}.`,
					String(status),
				);
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
				throw downloadError.call(
					this,
					context,
					`Could not download a result file: more than ${MAX_DOWNLOAD_REDIRECTS} redirects`,
					`GET ${showUrl(url)} kept redirecting; the last hop was ${showUrl(next)}.`,
					String(status),
				);
			}
			target = next;
			continue;
		}
		if (status < 200 || status >= 300) {
			body.destroy?.();
			throw downloadError.call(
				this,
				context,
				`Could not download a result file: HTTP ${status}`,
				`GET ${showUrl(target)} answered HTTP ${status}.`,
				String(status),
				{
					transient: transientStatus(status),
					retryAfterMs: status === 429 || status === 503 ? parseRetryAfter(response.headers['retry-after']) : undefined,
				},
			);
		}
		// The deadline covers the whole body too: a file that trickles in is cut off at Request Timeout.
		const onDeadline = () =>
			body.destroy?.(new Error(`${abortReason(signal) ?? 'aborted'}: the download did not finish in time`));
		if (signal.aborted) onDeadline();
		else signal.addEventListener('abort', onDeadline, { once: true });
		body.once?.('close', () => signal.removeEventListener('abort', onDeadline));
		const type = response.headers['content-type'];
		return {
			body,
			signal,
			mimeType: typeof type === 'string' ? type.split(';')[0].trim() : undefined,
			fileName: fileNameFromDisposition(response.headers['content-disposition']),
			size: announcedSize(response.headers['content-length']),
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
		`GET ${showUrl(url)} broke off while the file was being stored${cause?.message ? ` (${cause.message})` : ''}.`,
		undefined,
		// A body cut off by the host: the whole file may come with another GET. Out of time or stopped: no.
		{ transient: closed && !signal?.aborted && !this.getExecutionCancelSignal()?.aborted },
	);
}

/**
 * A result file that arrived with no bytes at all. The task completed on the server, but its result is not
 * usable: an error that names the task and the URL, never a "completed" item with an empty file.
 */
export function emptyResultFile(this: IExecuteFunctions, url: string, context: RequestContext): NodeApiError {
	return downloadError.call(
		this,
		context,
		`The result file ${showUrl(url)} is empty (0 bytes)`,
		`GET ${showUrl(url)} answered with an empty body. The task completed on the server, but this result has no content: check the task with Task → Get, or run it again.`,
	);
}
