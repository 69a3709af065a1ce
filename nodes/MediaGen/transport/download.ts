/**
 * Result downloads: plain HTTP without the credential, redirects followed hop by hop, one deadline per attempt.
 * Each error says whether it is transient (worth another GET: a GET changes nothing on the server) and, for HTTP
 * 429 and 503, how long the server asked to wait; the result lane (waiting/results.ts) decides about retries.
 */
import type { IExecuteFunctions, IN8nHttpFullResponse, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { sniffMediaType } from '../helpers/mime';
import { abortReason, DEFAULT_REQUEST_TIMEOUT_MS, linkedSignal, requestSignal, type RequestContext } from './context';
import { describeTransportFailure, parseRetryAfter } from './errors';

export interface DownloadedFile {
	body: NodeJS.ReadableStream;
	mimeType?: string;
	fileName?: string;
	/** The size the answer announced (Content-Length), when it announced one. */
	size?: number;
	/** The download's total deadline (and the cancel signal): aborted when reading `body` was cut off. */
	signal: AbortSignal;
	/**
	 * Closes the connection of a file that is not read to its end. Destroying `body` would not: the HTTP client
	 * hands out a wrapper of the response (n8n sets no size limit, so axios wraps the stream), and destroying the
	 * wrapper leaves the response and its socket open until the host ends it, which a stalled host never does.
	 */
	release(): void;
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
	const deadline = requestSignal.call(this, timeout, false, context.signal);
	let target = url;
	for (let redirects = 0; ; redirects++) {
		// Each hop has a signal of its own under the deadline: aborting it closes that hop's connection only.
		const hop = linkedSignal(undefined, [deadline.signal]);
		const release = () => {
			hop.abort();
			hop.release();
			deadline.release();
		};
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
				abortSignal: hop.signal,
			})) as IN8nHttpFullResponse;
		} catch (error) {
			const failure = describeTransportFailure(error as { message?: string });
			const code = failure.code;
			const reason = abortReason(deadline.signal) ?? failure.reason;
			const transient = !deadline.signal.aborted && code !== undefined && TRANSIENT_NETWORK_CODES.has(code);
			release();
			throw downloadError.call(
				this,
				context,
				`Could not download a result file: ${reason}`,
				`GET ${showUrl(target)} failed${code ? ` (${code})` : ''}.`,
				undefined,
				// Out of time or stopped: no attempt is left. A connection that failed: another GET may get through.
				{ transient },
			);
		}
		const body = response.body as NodeJS.ReadableStream;
		const status = response.statusCode;
		const location = response.headers.location;
		if (status >= 300 && status < 400 && typeof location === 'string' && location) {
			// The hop's body is not read (it may never end): its connection is closed.
			hop.abort();
			hop.release();
			let next: string;
			try {
				next = new URL(location, target).href;
			} catch {
				deadline.release();
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
				deadline.release();
				throw downloadError.call(
					this,
					context,
					`Could not download a result file: it redirects to ${showUrl(next)}, and only http and https URLs are downloaded`,
					`GET ${showUrl(target)} answered HTTP ${status}.`,
					String(status),
				);
			}
			if (redirects >= MAX_DOWNLOAD_REDIRECTS) {
				deadline.release();
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
			release();
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
		// The deadline covers the whole body too: when it passes, the hop aborts and the HTTP client ends the body.
		// Once the body is over, nothing holds the deadline any more.
		body.once?.('close', () => {
			hop.release();
			deadline.release();
		});
		const type = response.headers['content-type'];
		return {
			body,
			signal: hop.signal,
			release,
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

/** Bytes read from the start of a result file to tell what it is. */
const SNIFF_BYTES = 16;

/** Media types a result file may be of; anything that announces itself as text, a page or data is not a result. */
function isMediaType(mimeType: string | undefined): boolean {
	return mimeType === undefined || /^(image|video)\//.test(mimeType) || mimeType === 'application/octet-stream';
}

/**
 * Text a host sends instead of a file (a login page, an error, a JSON message): printable from its first byte, with
 * at least one visible character (a run of blanks or control bytes is no message).
 */
function looksLikeText(head: Buffer): boolean {
	if (!head.some((byte) => byte > 32 && byte < 127)) return false;
	return [...head].every(
		(byte) => byte === 9 || byte === 10 || byte === 13 || (byte >= 32 && byte < 127) || byte >= 0xc2,
	);
}

/** A stream's state, as Node's readable streams expose it. */
type StreamState = NodeJS.ReadableStream & { destroyed?: boolean; errored?: Error | null; readableEnded?: boolean };

/**
 * Reads up to `count` bytes from the start of a stream and puts them back, so that the stream is still whole. A
 * stream that broke off before the read started has no event left to wait for: its state says so at once.
 */
async function peek(body: NodeJS.ReadableStream, count: number, signal: AbortSignal): Promise<Buffer> {
	const state = body as StreamState;
	const chunks: Buffer[] = [];
	let length = 0;
	while (length < count) {
		const chunk = body.read() as Buffer | string | null;
		if (chunk !== null) {
			const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			chunks.push(bytes);
			length += bytes.length;
			continue;
		}
		if (state.errored) throw state.errored;
		if (state.readableEnded) break;
		if (state.destroyed || signal.aborted) throw new Error('premature close: the file ended before its first bytes');
		const more = await new Promise<boolean>((resolve, reject) => {
			const settle = (outcome: () => void) => () => {
				body.removeListener('readable', onReadable);
				body.removeListener('end', onEnd);
				body.removeListener('close', onClose);
				body.removeListener('error', onError);
				signal.removeEventListener('abort', onClose);
				outcome();
			};
			const onReadable = settle(() => resolve(true));
			const onEnd = settle(() => resolve(false));
			const onClose = settle(() => reject(new Error('premature close: the file ended before its first bytes')));
			const onError = (error: Error) => settle(() => reject(error))();
			body.once('readable', onReadable);
			body.once('end', onEnd);
			body.once('close', onClose);
			body.once('error', onError);
			signal.addEventListener('abort', onClose, { once: true });
		});
		if (!more) break;
	}
	const head = Buffer.concat(chunks);
	if (head.length) body.unshift(head);
	return head;
}

/**
 * Checks that a result file is what it claims to be before it is stored: an image or a video by its first bytes,
 * never a page or a message a host sent in its place (a sign-in page, "Access denied", an expired link's JSON,
 * with status 200 and often an image type). Returns the file's media type as its bytes tell it, when they do.
 */
export async function inspectResultFile(
	this: IExecuteFunctions,
	file: DownloadedFile,
	url: string,
	context: RequestContext,
): Promise<string | undefined> {
	let head: Buffer;
	try {
		head = await peek(file.body, SNIFF_BYTES, file.signal);
	} catch (error) {
		// The reason is read before the connection is closed: closing aborts the signal it is read from.
		const failure = downloadInterrupted.call(this, url, error, context, file.signal);
		file.release();
		throw failure;
	}
	const sniffed = sniffMediaType(head);
	if (sniffed) return sniffed;
	if (isMediaType(file.mimeType) && !looksLikeText(head)) return undefined;
	file.release();
	const shown = JSON.stringify(head.toString('utf8').replace(/\s+/g, ' ').trim());
	throw downloadError.call(
		this,
		context,
		`The result file ${showUrl(url)} is not an image or a video: the host sent ${file.mimeType ?? 'an unnamed type'} starting with ${shown}`,
		`GET ${showUrl(url)} answered with content that is not a result file (often a sign-in or error page of the file host, or an expired link). Nothing was stored. Check the URL in a browser, or the task with Task → Get.`,
	);
}
