/**
 * What a result file is, by its first bytes, and whether it is whole as n8n stores it (a broken one fails the stream,
 * so that n8n keeps nothing). The rules: docs/waiting-and-output.md, "What a result file may be", "What whole means".
 */
import type { IExecuteFunctions, NodeApiError } from 'n8n-workflow';

import { kindOfText } from '../media/text';
import { classifyBody, MEDIA_HEAD_BYTES, type BodyClass, type MediaFormat } from '../media/formats';
import type { RequestContext } from './context';
import { downloadError, downloadInterrupted, emptyResultFile, type DownloadedFile } from './download';
import { shorten, SHOWN } from '../helpers/shorten';
import { StructureCheck, StructureFault } from '../media/structure';

/** The stream n8n's binary helpers take (Node's Readable, which community nodes may not import). */
export type StoredStream = Exclude<Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0], Buffer>;

type ReadableFrom = (iterable: AsyncIterable<Buffer>, options: { objectMode: boolean }) => StoredStream;

type StreamState = NodeJS.ReadableStream & { destroyed?: boolean; errored?: Error | null; readableEnded?: boolean };

const cutOff = () => new Error('premature close: the file ended before its first bytes');

/**
 * The first `count` bytes, put back in the same tick, before the stream can announce its end. The listeners stay for
 * the whole read: one added while bytes are buffered fires at once, so one per wait would spin.
 */
async function peek(body: NodeJS.ReadableStream, count: number, signal: AbortSignal): Promise<Buffer> {
	const state = body as StreamState;
	let wake = () => {};
	let failure: Error | undefined;
	const onEvent = () => wake();
	const onError = (error: Error) => {
		failure ??= error;
		wake();
	};
	const onClose = () => onError(cutOff());
	const listeners = Object.entries({ readable: onEvent, end: onEvent, close: onClose, error: onError });
	for (const [event, listener] of listeners) body.on(event, listener);
	signal.addEventListener('abort', onClose);
	try {
		for (;;) {
			const chunk = body.read(count) as Buffer | string | null;
			if (chunk !== null) {
				const head = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
				body.unshift(head);
				return head;
			}
			// A stream that broke off before the read has no event left to wait for: its state says so.
			if (state.errored) throw state.errored;
			if (state.readableEnded) return Buffer.alloc(0);
			if (failure || state.destroyed || signal.aborted) throw failure ?? cutOff();
			await new Promise<void>((resolve) => (wake = resolve));
		}
	} finally {
		for (const [event, listener] of listeners) body.removeListener(event, listener);
		signal.removeEventListener('abort', onClose);
	}
}

type Refused = Exclude<BodyClass, { kind: 'media' | 'unknown' }>;

interface Fetched {
	file: DownloadedFile;
	url: string;
	context: RequestContext;
}

/** Control characters (a byte order mark before bytes that are not text) as U+FFFD, not JSON's `\u` escapes. */
function quote(text: string): string {
	const shown = [...text].map((char) => (/\p{Cc}/u.test(char) && !/\s/.test(char) ? '\ufffd' : char)).join('');
	return JSON.stringify(shorten(shown, SHOWN.body, { fold: true, codePoints: true }));
}

function notAFile(this: IExecuteFunctions, { file, url, context }: Fetched, verdict: Refused): NodeApiError {
	const { mimeType } = file;
	const sent = mimeType ? `as ${shorten(mimeType, SHOWN.mimeType, { sayLength: true })}` : 'without a Content-Type';
	const what =
		verdict.kind === 'zeros'
			? `only zero bytes ${sent}`
			: `${kindOfText(verdict.text.text)} (${verdict.text.encoding}) ${sent}, starting with ${quote(verdict.text.text)}`;
	return downloadError.call(
		this,
		context,
		`The result file ${shorten(url, SHOWN.url)} is not an image or a video: the host sent ${what}`,
		`GET ${shorten(url, SHOWN.url)} answered with content that is not a result file (often a sign-in or error page of the file host, or an expired link). Nothing was stored. Check the URL in a browser, or the task with Task → Get.`,
	);
}

/** `Readable.from` of the body's class: community nodes may not import node:stream; every stream inherits it. */
function readableFrom(body: NodeJS.ReadableStream): ReadableFrom {
	for (let type: unknown = body.constructor; typeof type === 'function'; type = Object.getPrototypeOf(type)) {
		const from = (type as { from?: unknown }).from;
		if (type.name === 'Readable' && typeof from === 'function') return from as ReadableFrom;
	}
	throw new TypeError('the download is not a Node.js stream');
}

function notWhole(this: IExecuteFunctions, got: Fetched, format: MediaFormat, fault: StructureFault): NodeApiError {
	const { file, url, context } = got;
	const sent = file.mimeType ? ` (sent as ${shorten(file.mimeType, SHOWN.mimeType, { sayLength: true })})` : '';
	const how = fault.cut ? 'end before the file does' : 'break its structure';
	return downloadError.call(
		this,
		context,
		`The result file ${shorten(url, SHOWN.url)} is not a whole ${format.name} file: ${fault.message}`,
		`GET ${shorten(url, SHOWN.url)} answered bytes that start as ${format.name}${sent} but ${how} (a transfer cut short, a file still being written, or another body after the first bytes). Nothing was stored. It is fetched again, up to 4 times inside Request Timeout, until it comes back whole or broken as before.`,
		undefined,
		// Another GET may bring the whole file; the same fault again means the host has nothing else to send.
		{ transient: true, fault: fault.message },
	);
}

/** Fails the stream as soon as the bytes break the format, or at their end when the file is cut. */
function checkedBody(this: IExecuteFunctions, got: Fetched, format: MediaFormat): StoredStream {
	const { file } = got;
	const check = new StructureCheck(format.whole, file.size);
	const checked = (step: () => void) => {
		try {
			step();
		} catch (error) {
			throw error instanceof StructureFault ? notWhole.call(this, got, format, error) : error;
		}
	};
	async function* chunks(): AsyncGenerator<Buffer> {
		for await (const chunk of file.body) {
			const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			checked(() => check.push(bytes));
			yield bytes;
		}
		checked(() => check.end());
	}
	return readableFrom(file.body)(chunks(), { objectMode: false });
}

/** Throws for an empty body and any text; without `format`: a binary the table does not know (stored as it came). */
export async function inspectResultFile(
	this: IExecuteFunctions,
	file: DownloadedFile,
	url: string,
	context: RequestContext,
): Promise<{ format?: MediaFormat; body: StoredStream }> {
	let head: Buffer;
	try {
		head = await peek(file.body, MEDIA_HEAD_BYTES, file.signal);
	} catch (error) {
		// A body that breaks off first may be retried. The reason is read before the connection is closed: closing
		// aborts the signal it is read from.
		const failure = downloadInterrupted.call(this, url, error, context, file.signal);
		file.release();
		throw failure;
	}
	if (!head.length) {
		file.release();
		throw emptyResultFile.call(this, url, context);
	}
	const verdict = classifyBody(head);
	if (verdict.kind === 'media') {
		return { format: verdict.format, body: checkedBody.call(this, { file, url, context }, verdict.format) };
	}
	if (verdict.kind === 'unknown') return { body: file.body as StoredStream };
	file.release();
	throw notAFile.call(this, { file, url, context }, verdict);
}
