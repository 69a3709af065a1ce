/**
 * What a result file is, by its first bytes, before it is stored: a format of the media table (media.ts),
 * whatever the host's Content-Type says, or text a host sent in its place (a sign-in page, "Access denied", an
 * expired link's JSON, an SVG), which is refused with an error that names the task, the URL and the start of the
 * text. A binary of a format the table does not know is stored as such (application/octet-stream, `.bin`).
 */
import type { IExecuteFunctions, NodeApiError } from 'n8n-workflow';

import { kindOfText } from './bodyText';
import { judgeBody, MEDIA_HEAD_BYTES, type BodyVerdict, type MediaFormat } from './media';
import type { RequestContext } from './context';
import { downloadError, downloadInterrupted, emptyResultFile, showUrl, type DownloadedFile } from './download';
import { clip } from './redaction';

/** Longest part of a refused body an error quotes. */
const MAX_QUOTED_CHARACTERS = 200;

/** A stream's state, as Node's readable streams expose it. */
type StreamState = NodeJS.ReadableStream & { destroyed?: boolean; errored?: Error | null; readableEnded?: boolean };

const cutOff = () => new Error('premature close: the file ended before its first bytes');

/**
 * Reads the first `count` bytes of a stream (all of it, when it is shorter) and puts them back, so that the stream
 * is still whole. `read(count)` takes nothing until that many bytes are buffered or the stream has ended, and the
 * bytes go back in the same tick, before the stream can announce its end. The listeners stay for the whole read: a
 * 'readable' listener added while bytes are buffered fires at once, so adding one per wait would spin. A stream
 * that broke off before the read started has no event left to wait for: its state says so at once.
 */
async function peek(body: NodeJS.ReadableStream, count: number, signal: AbortSignal): Promise<Buffer> {
	const state = body as StreamState;
	let wake = () => {};
	let failure: Error | undefined;
	const onEvent = () => wake();
	const onClose = () => {
		failure ??= cutOff();
		wake();
	};
	const onError = (error: Error) => {
		failure ??= error;
		wake();
	};
	body.on('readable', onEvent);
	body.on('end', onEvent);
	body.on('close', onClose);
	body.on('error', onError);
	signal.addEventListener('abort', onClose);
	try {
		for (;;) {
			const chunk = body.read(count) as Buffer | string | null;
			if (chunk !== null) {
				const head = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
				body.unshift(head);
				return head;
			}
			if (state.errored) throw state.errored;
			if (state.readableEnded) return Buffer.alloc(0);
			if (failure || state.destroyed || signal.aborted) throw failure ?? cutOff();
			await new Promise<void>((resolve) => (wake = resolve));
		}
	} finally {
		body.removeListener('readable', onEvent);
		body.removeListener('end', onEvent);
		body.removeListener('close', onClose);
		body.removeListener('error', onError);
		signal.removeEventListener('abort', onClose);
	}
}

/** The file's first bytes; a body that breaks off first is an error that names the task (and may be retried). */
async function readHead(
	this: IExecuteFunctions,
	file: DownloadedFile,
	url: string,
	context: RequestContext,
): Promise<Buffer> {
	try {
		return await peek(file.body, MEDIA_HEAD_BYTES, file.signal);
	} catch (error) {
		// The reason is read before the connection is closed: closing aborts the signal it is read from.
		const failure = downloadInterrupted.call(this, url, error, context, file.signal);
		file.release();
		throw failure;
	}
}

type Refused = Exclude<BodyVerdict, { kind: 'media' | 'unknown' }>;

/**
 * The start of a refused text, whitespace folded, at most MAX_QUOTED_CHARACTERS characters of it; control characters
 * (a byte order mark before bytes that are not text) are shown as U+FFFD, not as JSON's six-character escapes.
 */
function quote(text: string): string {
	const control = (char: string) => char < ' ' || (char >= '\u007f' && char <= '\u009f');
	const characters = [...text.replace(/\s+/g, ' ').trim()].map((char) => (control(char) ? '\ufffd' : char));
	const shown = characters.slice(0, MAX_QUOTED_CHARACTERS).join('');
	return JSON.stringify(characters.length > MAX_QUOTED_CHARACTERS ? `${shown}…` : shown);
}

function notAFile(
	this: IExecuteFunctions,
	url: string,
	mimeType: string | undefined,
	verdict: Refused,
	context: RequestContext,
): NodeApiError {
	const sent = mimeType ? `as ${clip(mimeType, 100)}` : 'without a Content-Type';
	const what =
		verdict.kind === 'zeros'
			? `only zero bytes ${sent}`
			: `${kindOfText(verdict.text.text)} (${verdict.text.encoding}) ${sent}, starting with ${quote(verdict.text.text)}`;
	return downloadError.call(
		this,
		context,
		`The result file ${showUrl(url)} is not an image or a video: the host sent ${what}`,
		`GET ${showUrl(url)} answered with content that is not a result file (often a sign-in or error page of the file host, or an expired link). Nothing was stored. Check the URL in a browser, or the task with Task → Get.`,
	);
}

/**
 * Checks a result file before it is stored and returns its format, or undefined for a binary the table does not
 * know; throws for an empty body and for text of any kind.
 */
export async function inspectResultFile(
	this: IExecuteFunctions,
	file: DownloadedFile,
	url: string,
	context: RequestContext,
): Promise<MediaFormat | undefined> {
	const head = await readHead.call(this, file, url, context);
	if (!head.length) {
		file.release();
		throw emptyResultFile.call(this, url, context);
	}
	const verdict = judgeBody(head);
	if (verdict.kind === 'media') return verdict.format;
	if (verdict.kind === 'unknown') return undefined;
	file.release();
	throw notAFile.call(this, url, file.mimeType, verdict, context);
}
