/**
 * An API answer's body, bounded whatever a server sends (so that redaction, n8n's copies of items and JSON.stringify
 * never recurse without a bound). A body cut short keeps the bytes that came: a creation's task id may be in them.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Redact } from './redaction';

/** Envelopes are a few kilobytes: a larger body is not one. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** The deepest nesting kept from an answer (the API's answers are three levels deep). */
export const MAX_ANSWER_DEPTH = 32;

export const LEFT_OUT = `[nested deeper than ${MAX_ANSWER_DEPTH} levels: left out]`;

export interface AnswerBody {
	bytes: Buffer;
	/** Past MAX_ANSWER_BYTES: the read stopped there and the connection was closed. */
	tooLarge?: boolean;
	/** The error that broke the body off (connection closed, deadline, Stop). */
	brokeOff?: unknown;
}

/** n8n's helper would read any body whole, an endless one until Request Timeout. Never throws. */
export async function readAnswerBody(body: unknown, abort: () => void): Promise<AnswerBody> {
	if (Buffer.isBuffer(body)) return { bytes: body };
	if (typeof body === 'string') return { bytes: Buffer.from(body) };
	if (!body || typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') {
		return { bytes: Buffer.from(body === undefined ? '' : JSON.stringify(body)) };
	}
	const chunks: Buffer[] = [];
	let size = 0;
	try {
		for await (const chunk of body as AsyncIterable<Buffer | string>) {
			const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			if (size + bytes.length > MAX_ANSWER_BYTES) {
				chunks.push(bytes.subarray(0, MAX_ANSWER_BYTES - size));
				abort();
				return { bytes: Buffer.concat(chunks), tooLarge: true };
			}
			size += bytes.length;
			chunks.push(bytes);
		}
	} catch (error) {
		return { bytes: Buffer.concat(chunks), brokeOff: error };
	}
	return { bytes: Buffer.concat(chunks) };
}

/** A copy of a parsed answer kept down to MAX_ANSWER_DEPTH (deeper values are LEFT_OUT), its texts and names redacted. */
export function keptAnswer(value: unknown, redactText: Redact, depth = 0): unknown {
	if (typeof value === 'string') return redactText(value);
	if (!value || typeof value !== 'object') return value;
	if (depth >= MAX_ANSWER_DEPTH) return LEFT_OUT;
	if (Array.isArray(value)) return value.map((inner) => keptAnswer(inner, redactText, depth + 1));
	const kept: IDataObject = {};
	for (const [name, inner] of Object.entries(value)) {
		kept[redactText(name)] = keptAnswer(inner, redactText, depth + 1) as IDataObject[string];
	}
	return kept;
}

/** No `json` when the text is not JSON. V8's parser takes any depth (it does not recurse): keptAnswer bounds it. */
export function parseAnswer(text: string): { json?: unknown } {
	try {
		return { json: JSON.parse(text) as unknown };
	} catch {
		return {};
	}
}

/** A task id as the API may send it: a non-empty string, or a number (kept as its digits). */
export function taskIdOf(value: unknown): string | undefined {
	if (typeof value === 'string' && value.trim() !== '') return value.trim();
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return undefined;
}

/** The name `taskid` as JSON may write it: each letter as itself or as a `\u` escape (any case of its hex digits). */
const TASKID_NAME = '(?:t|\\\\u0074)(?:a|\\\\u0061)(?:s|\\\\u0073)(?:k|\\\\u006[bB])(?:i|\\\\u0069)(?:d|\\\\u0064)';

/** A `taskid` string with its closing quote, or digits and a delimiter: an id cut off at the end is not taken. */
const TASK_ID_IN_TEXT = new RegExp(
	`"${TASKID_NAME}"\\s*:\\s*(?:"((?:[^"\\\\\\r\\n]|\\\\.){1,400})"|(-?\\d{1,40})(?=\\s*[,}\\]]))`,
	'g',
);

/**
 * Every task a creation answer names, whatever its status (each exists and may be charged): the one its JSON gives
 * first, then every other `taskid` in the text (given twice, or in a body cut off, past the cap, wrapped in a page).
 */
export function namedTaskIds(text: string, json: unknown, redactText: Redact): string[] {
	const envelope = json && typeof json === 'object' ? (json as IDataObject) : {};
	const data = envelope.data && typeof envelope.data === 'object' ? (envelope.data as IDataObject) : {};
	const followed = taskIdOf(data.taskid) ?? taskIdOf(envelope.taskid);
	const ids = new Set(followed === undefined ? [] : [followed]);
	for (const match of text.matchAll(TASK_ID_IN_TEXT)) {
		let id: unknown = match[2];
		try {
			if (match[1] !== undefined) id = JSON.parse(`"${match[1]}"`);
		} catch {
			id = undefined;
		}
		const taskId = taskIdOf(id);
		if (taskId !== undefined) ids.add(taskId);
	}
	return [...new Set([...ids].map(redactText))];
}
