/**
 * An API answer's body: read up to a cap, parsed, and kept down to a depth. Whatever a server sends, what leaves
 * this file is bounded: at most MAX_ANSWER_BYTES of bytes, and JSON at most MAX_ANSWER_DEPTH levels deep, so that
 * nothing after it (redaction, n8n's copies of output items, JSON.stringify) recurses without a bound. A body that
 * is not whole (too large, or broken off) keeps the bytes that came: a creation's task id may be in them.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Redact } from './redaction';

/** The largest answer the node reads from the API: envelopes are a few kilobytes, so a larger body is not one. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** The deepest nesting kept from an answer (the API's answers are three levels deep). */
export const MAX_ANSWER_DEPTH = 32;

/** What stands in an answer's data for what lay deeper than MAX_ANSWER_DEPTH. */
export const LEFT_OUT = `[nested deeper than ${MAX_ANSWER_DEPTH} levels: left out]`;

/** An answer's body as it came: whole, or its first bytes and why the rest is missing. */
export interface AnswerBody {
	bytes: Buffer;
	/** Past MAX_ANSWER_BYTES: the read stopped there and the connection was closed. */
	tooLarge?: boolean;
	/** The body broke off (connection closed, deadline, Stop): the error that ended it. */
	brokeOff?: unknown;
}

/**
 * Reads an answer's body to its end as bytes, never more than MAX_ANSWER_BYTES: n8n's request helper would read any
 * body whole, and one that never ends would fill memory until Request Timeout. Past the cap the request is aborted
 * (`abort` closes its connection). Never throws: a body that breaks off is returned with what came of it.
 */
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

/** A body parsed as JSON; `json` is absent when it is not JSON. */
export interface ParsedAnswer {
	json?: unknown;
}

/** The body's text as JSON, when it is JSON. V8's parser takes any depth (it does not recurse): keptAnswer bounds it. */
export function parseAnswer(text: string): ParsedAnswer {
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

/**
 * `"taskid": "<id>"` with its closing quote (escapes allowed), or `"taskid": <digits>` followed by a delimiter,
 * anywhere in a text, as often as it stands there: an id cut off by the end of the body is not taken for a whole one.
 */
const TASK_ID_IN_TEXT = new RegExp(
	`"${TASKID_NAME}"\\s*:\\s*(?:"((?:[^"\\\\\\r\\n]|\\\\.){1,400})"|(-?\\d{1,40})(?=\\s*[,}\\]]))`,
	'g',
);

/**
 * Every task a creation answer names, whatever its status: first the one a reader of its JSON takes (`data.taskid`,
 * else `taskid`; with a name given twice, the last), then every other id that stands in the text as a `taskid`'s
 * value (duplicate names, other places, a body that is not JSON: cut off, past the cap, wrapped in a page). Each
 * exists and may be charged; all are redacted.
 */
export function namedTaskIds(text: string, json: unknown, redactText: Redact): string[] {
	let followed: string | undefined;
	if (json && typeof json === 'object') {
		const data = (json as { data?: unknown }).data;
		followed =
			(data && typeof data === 'object' ? taskIdOf((data as IDataObject).taskid) : undefined) ??
			taskIdOf((json as IDataObject).taskid);
	}
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
