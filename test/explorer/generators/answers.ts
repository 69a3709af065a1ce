/**
 * Generator "answers": the shape of the API's success answers (a creation's, a status check's). In a fifth of the
 * schedules (drawn from the stream 'answers'), each success answer is shaped by a draw from its request's own
 * stream ('answers', kind, item, attempt): as usual; after a UTF-8 byte order mark; with an object nested 100,
 * 5,000 or 50,000 levels deep after the task's fields or before them; padded to just under the 4 MiB cap; or past
 * the cap with the task's fields in its first bytes, or only after the cap. Each shape says whether the task id
 * reaches a client that reads at most 4 MiB: the world marks a creation's task named or not by it.
 *
 * In another fifth (drawn from the stream 'answers', 'encodings'), answers of every shape but those around the cap
 * are written in a Unicode encoding drawn per request (UTF-8, UTF-16 or UTF-32 in either byte order, with or
 * without a byte order mark), and a quarter of the creations' success answers name a second task: `taskid` given
 * twice, the first naming a task the server created too (the world creates and charges both).
 */
import { Random } from '../random';
import type { Schedule } from '../schedule';
import type { RequestKind } from './faults';
import { encodeText, type TextEncoding } from '../../fixtures/texts';

export type AnswerShape =
	| 'plain'
	| 'bom'
	| 'deep-after'
	| 'deep-before'
	| 'near-cap'
	| 'over-cap-early'
	| 'over-cap-late';

export interface ShapedAnswer {
	shape: AnswerShape;
	bytes: Buffer;
	/** The task's fields are within the first 4 MiB, whole. */
	namesTask: boolean;
}

/** The cap the node reads answers up to (transport/responseBody.ts); the generator draws sizes on both sides of it. */
const CAP = 4 * 1024 * 1024;
const PADDING = Buffer.alloc(CAP + 8192, 0x78);

const SHAPES: ReadonlyArray<readonly [number, AnswerShape]> = [
	[4, 'plain'],
	[2, 'bom'],
	[3, 'deep-after'],
	[2, 'deep-before'],
	[1, 'near-cap'],
	[1, 'over-cap-early'],
	[1, 'over-cap-late'],
];

/** Whether this schedule's API shapes its success answers. */
export function shapesAnswers(schedule: Schedule): boolean {
	return Random.stream(schedule.seed, 'answers').chance(0.2);
}

/** The Unicode encodings an answer may come in. */
const ENCODINGS = [
	'UTF-8',
	'UTF-8 with a byte order mark',
	'UTF-16 LE with a byte order mark',
	'UTF-16 LE',
	'UTF-16 BE with a byte order mark',
	'UTF-16 BE',
	'UTF-32 LE with a byte order mark',
	'UTF-32 LE',
	'UTF-32 BE with a byte order mark',
	'UTF-32 BE',
] as const;

/** Whether this schedule's API writes its answers in drawn Unicode encodings, and names two tasks in some. */
export function encodesAnswers(schedule: Schedule): boolean {
	return Random.stream(schedule.seed, 'answers', 'encodings').chance(0.2);
}

/** Whether the success answer to creation attempt `attempt` of `item` names a second task (`taskid` twice). */
export function namesTwoTasks(schedule: Schedule, item: number, attempt: number): boolean {
	return encodesAnswers(schedule) && Random.stream(schedule.seed, 'answers', 'twice', item, attempt).chance(0.25);
}

/** A text in one of the encodings (the fixtures' encoder: test/fixtures/texts.ts). */
function encoded(text: string, encoding: (typeof ENCODINGS)[number]): Buffer {
	return encodeText(text, encoding.replace('with a byte order mark', 'with BOM') as TextEncoding);
}

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** A JSON text of `size` bytes: the envelope's start, `before`, a padding string, `after`, the end. */
function padded(size: number, head: string, fields: string, idFirst: boolean): Buffer {
	const open = Buffer.from(`${head}${idFirst ? `${fields},` : ''}"pad":"`);
	const close = Buffer.from(`"${idFirst ? '' : `,${fields}`}}}`);
	return Buffer.concat([open, PADDING.subarray(0, Math.max(0, size - open.length - close.length)), close]);
}

/**
 * A success answer to a request of `kind` for `item` (attempt `attempt`), whose envelope is `{code: 1000, msg,
 * data}`; the data's fields keep their order (taskid first).
 */
export function shapedAnswer(
	schedule: Schedule,
	kind: RequestKind,
	item: number,
	attempt: number,
	envelope: { code: number; msg: string; data: Record<string, unknown> },
	/** Another task the answer names first, as a `taskid` given twice (namesTwoTasks). */
	alsoNamed?: string,
): ShapedAnswer {
	const random = Random.stream(schedule.seed, 'answers', kind, item, attempt);
	const shape = shapesAnswers(schedule) ? random.weighted(SHAPES) : 'plain';
	const encoding = encodesAnswers(schedule)
		? Random.stream(schedule.seed, 'answers', 'encoding', kind, item, attempt).pick(ENCODINGS)
		: 'UTF-8';
	const head = `{"code":${envelope.code},"msg":${JSON.stringify(envelope.msg)},"data":{`;
	const also = alsoNamed === undefined ? '' : `"taskid":${JSON.stringify(alsoNamed)},`;
	const fields = `${also}${JSON.stringify(envelope.data).slice(1, -1)}`;
	const text = (body: string) => ({
		shape,
		// A byte order mark of the shape's own (UTF-8) stands where the encoding puts its own.
		bytes: encoding === 'UTF-8' ? Buffer.from(body) : encoded(body.replace(/^\ufeff/, ''), encoding),
		namesTask: true,
	});
	const depth = random.pick([100, 5000, 50_000]);
	switch (shape) {
		case 'bom':
			return text(`\ufeff${head}${fields}}}`);
		case 'deep-after':
			return text(`${head}${fields},"meta":${nested(depth)}}}`);
		case 'deep-before':
			return text(`${head}"meta":${nested(depth)},${fields}}}`);
		case 'near-cap':
			return { shape, bytes: padded(CAP - random.int(1, 4096), head, fields, true), namesTask: true };
		case 'over-cap-early':
			return { shape, bytes: padded(CAP + random.int(1, 4096), head, fields, true), namesTask: true };
		case 'over-cap-late':
			return { shape, bytes: padded(CAP + random.int(1, 4096), head, fields, false), namesTask: false };
		default:
			return text(`${head}${fields}}}`);
	}
}

/** This generator's part of a schedule, in words. */
export function describeAnswers(schedule: Schedule): string {
	const shaped = shapesAnswers(schedule)
		? 'success answers: shaped (a byte order mark, nested up to 50,000 levels, sizes around the 4 MiB cap)'
		: 'success answers: plain';
	return encodesAnswers(schedule)
		? `${shaped}; in UTF-8, UTF-16 or UTF-32 with and without a byte order mark, some creations naming two tasks`
		: shaped;
}
