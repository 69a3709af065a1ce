/**
 * The steps that read an API answer (nodes/MediaGen/transport/responseBody.ts) and keep the key out of text
 * (transport/redaction.ts), each on its own. The same answers go through n8n's engine in
 * ../resilience/answers.test.ts and ../secrets.test.ts.
 */
import { Readable } from 'node:stream';

import { answerText } from '../../../nodes/MediaGen/media/text';
import {
	keptAnswer,
	LEFT_OUT,
	MAX_ANSWER_BYTES,
	MAX_ANSWER_DEPTH,
	namedTaskIds,
	parseAnswer,
	readAnswerBody,
} from '../../../nodes/MediaGen/transport/responseBody';
import { MAX_LAYERS, readingsOf } from '../../../nodes/MediaGen/transport/escapes';
import { keyRedactor } from '../../../nodes/MediaGen/transport/redaction';
import { encodeText, TEXT_ENCODINGS } from '../../fixtures/texts';
import { KEY_ENCODINGS, keyLeaks } from '../../keyEncodings';

const nested = (depth: number, inner = '1') => `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`;

/** The ids a creation answer's bytes name, as the node reads them (a body that is not JSON has no JSON). */
const idsIn = (bytes: Buffer, key = 'key') => {
	const text = answerText(bytes);
	return namedTaskIds(text, parseAnswer(text).json, keyRedactor(key));
};

/** How deep a value's objects go, counted without recursion. */
function depthOf(value: unknown): number {
	let depth = 0;
	let level: unknown[] = [value];
	while (level.length) {
		level = level.flatMap((entry) => (entry && typeof entry === 'object' ? Object.values(entry) : []));
		if (level.length) depth++;
	}
	return depth;
}

describe('readAnswerBody', () => {
	it('stops at the cap, keeps the first bytes, and closes the connection', async () => {
		let aborted = 0;
		const chunks = ['{"code":1000,"data":{"taskid":"t-1","pad":"', ...Array(6).fill('x'.repeat(1024 * 1024))];
		const body = await readAnswerBody(Readable.from(chunks.map((chunk) => Buffer.from(chunk))), () => aborted++);
		expect(body.tooLarge).toBe(true);
		expect(body.bytes.length).toBe(MAX_ANSWER_BYTES);
		expect(aborted).toBe(1);
		expect(idsIn(body.bytes)).toEqual(['t-1']);
	});

	it('a body that breaks off keeps what came, and the error that ended it', async () => {
		const stream = new Readable({ read() {} });
		stream.push('{"code":1000,"data":{"taskid":"t-2",');
		setImmediate(() => stream.destroy(new Error('aborted')));
		const body = await readAnswerBody(stream, () => {});
		expect(body.brokeOff).toEqual(new Error('aborted'));
		expect(body.bytes.toString()).toBe('{"code":1000,"data":{"taskid":"t-2",');
		expect(idsIn(body.bytes)).toEqual(['t-2']);
	});

	it('an id cut off by the end of the bytes is not taken for a whole one', () => {
		expect(idsIn(Buffer.from('{"data":{"taskid":"t-3'))).toEqual([]);
		expect(idsIn(Buffer.from('{"data":{"taskid":12'))).toEqual([]);
	});
});

describe('parseAnswer and keptAnswer', () => {
	it('JSON after a UTF-8 byte order mark is JSON; a page is not', () => {
		expect(parseAnswer(answerText(Buffer.from('\ufeff{"code":1000}')))).toEqual({ json: { code: 1000 } });
		expect(parseAnswer(answerText(Buffer.from('<html>502</html>')))).toEqual({});
	});

	it('an answer a million levels deep is parsed, and kept down to the limit with a marker', () => {
		const { json } = parseAnswer(`{"code":1000,"data":{"taskid":"t-4","meta":${nested(1_000_000)}}}`);
		const data = (json as { data: unknown }).data;
		const kept = keptAnswer(data, keyRedactor('key'), 1) as { taskid: string };
		expect(kept.taskid).toBe('t-4');
		expect(depthOf(kept)).toBe(MAX_ANSWER_DEPTH - 1);
		expect(JSON.stringify(kept)).toContain(JSON.stringify(LEFT_OUT));
		expect(() => JSON.stringify(kept)).not.toThrow();
	});

	it('lists nest too, and the key is redacted in names and texts at every kept depth', () => {
		const kept = keptAnswer({ 'k-secret-key-1': [['k-secret-key-1 in text', [[[]]]]] }, keyRedactor('k-secret-key-1'));
		expect(kept).toEqual({ '[redacted]': [['[redacted] in text', [[[]]]]] });
	});
});

describe('answers in any Unicode encoding, and every task they name', () => {
	const envelope = '{"code":1000,"msg":"ok","data":{"taskid":"t-507"}}';
	const encodings: Array<[string, Buffer]> = [
		...TEXT_ENCODINGS.filter((encoding) => encoding !== 'UTF-32 BE').map((encoding): [string, Buffer] => [
			encoding.replace('with BOM', 'with a byte order mark'),
			encodeText(envelope, encoding),
		]),
		['UTF-32 BE', encodeText(`\n ${envelope}`, 'UTF-32 BE')],
	];

	it.each(encodings)('%s is read as text: JSON, naming its task', (_name, bytes) => {
		expect(parseAnswer(answerText(bytes)).json).toEqual(JSON.parse(envelope));
		expect(idsIn(bytes)).toEqual(['t-507']);
	});

	it.each(encodings)('%s cut off after the task id still names it', (name, bytes) => {
		// The last character missing, and half of the one before it (both "}").
		const unit = name.startsWith('UTF-32') ? 4 : name.startsWith('UTF-16') ? 2 : 1;
		const cut = bytes.subarray(0, bytes.length - unit - Math.floor(unit / 2));
		expect(parseAnswer(answerText(cut)).json).toBeUndefined();
		expect(idsIn(cut)).toEqual(['t-507']);
	});

	it('every id of a taskid given twice (or more), the one JSON.parse keeps first', () => {
		const twice = Buffer.from('{"code":1000,"data":{"taskid":"t-1","url":"u","taskid":"t-2"},"taskid":"t-3"}');
		expect(idsIn(twice)).toEqual(['t-2', 't-1', 't-3']);
	});

	it('a taskid whose name or value is written with escapes, and numbers', () => {
		expect(idsIn(Buffer.from('{"data":{"task\\u0069d":"t\\u002d9","taskid":12}}'))).toEqual(['12', 't-9']);
	});

	it('an id in a page, a message that only quotes one, and an id that echoes the key', () => {
		expect(idsIn(Buffer.from('<html><!-- {"taskid":"t-8"} --></html>'))).toEqual(['t-8']);
		expect(idsIn(Buffer.from('{"code":9999,"msg":"no \\"taskid\\": \\"x\\" here"}'))).toEqual([]);
		expect(idsIn(Buffer.from('{"data":{"taskid":"t-&#107;&#101;&#121;-0123456789ab"}}'), 'key-0123456789ab')).toEqual([
			't-[redacted]',
		]);
	});
});

describe('keyRedactor', () => {
	const key = 'sk live/Key+é=?&#%0123456789';
	const redact = keyRedactor(key);

	it('finds the key however each of its characters is written, in any mix', () => {
		const percent = encodeURIComponent(key);
		const written = [
			key,
			percent,
			percent.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
			encodeURIComponent(percent), // encoded twice
			new URLSearchParams({ k: key }).toString().slice(2),
			encodeURI(key),
			JSON.stringify(key).slice(1, -1),
			[...key].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
			`${encodeURIComponent(key.slice(0, 7))}${key.slice(7)}`, // half percent-encoded
		];
		for (const text of written)
			expect({ text, redacted: redact(`<${text}>`) }).toEqual({ text, redacted: '<[redacted]>' });
	});

	it('finds the key in base64 and base64url at every offset inside a longer base64 text', () => {
		for (let offset = 0; offset < 6; offset++) {
			const prefix = 'p'.repeat(offset);
			for (const encoding of ['base64', 'base64url'] as const) {
				const encoded = Buffer.from(`${prefix}${key}suffix`).toString(encoding);
				const redacted = redact(encoded);
				expect({ offset, encoding, hasMarker: redacted.includes('[redacted]') }).toEqual({
					offset,
					encoding,
					hasMarker: true,
				});
				// At most the two characters on each side that mix the key's bits with its neighbours' remain.
				expect(redacted.replace('[redacted]', '').length).toBeLessThanOrEqual(
					encoded.length - ((key.length + 4) * 4) / 3 + 12,
				);
			}
		}
	});

	it('leaves other text alone: other keys, the key in another case, base64 of other text', () => {
		const other = [
			'sk live/Kez+é=?&#%0123456789',
			'SK LIVE/KEY+É=?&#%0123456789',
			Buffer.from('hello world, hello key').toString('base64'),
		];
		for (const text of other) expect(redact(text)).toBe(text);
	});

	it.each(['Zq9kHostileKey-0123456789abcdef', key, 'k&amp;#39;%41\\u0041-0123456789'])(
		'finds the key %j in every encoding of test/keyEncodings.ts, in a page, a URL and a JSON text',
		(apiKey) => {
			const redactKey = keyRedactor(apiKey);
			// A key that holds escapes itself (`&amp;`, `%41`) is found in every encoding of the whole key, but not when
			// each of its characters is escaped to another depth: undone layer by layer, its own escapes and the
			// server's then read differently (docs/errors-and-n8n-settings.md, "The key in answers").
			const ownEscapes = /%[0-9a-f]{2}|&[a-z#]|\\/i.test(apiKey);
			for (const encoding of KEY_ENCODINGS.filter((entry) => !ownEscapes || !entry.name.startsWith('a mix'))) {
				const page = `<p title="${encoding.encode(apiKey)}">https://files.example/a.png?sig=${encoding.encode(apiKey)}&v=1</p>`;
				for (const text of [page, JSON.stringify({ page }), encodeURIComponent(page)]) {
					expect({ encoding: encoding.name, text, leaks: keyLeaks(redactKey(text), apiKey) }).toEqual({
						encoding: encoding.name,
						text,
						leaks: [],
					});
				}
			}
		},
	);

	it('reads a text at most MAX_LAYERS layers deep, however many escapes it nests', () => {
		expect(readingsOf('\\'.repeat(100_000))).toHaveLength(MAX_LAYERS + 1);
		expect(readingsOf('%'.repeat(10) + '25'.repeat(20) + '41').map((reading) => reading.text.length)).toEqual(
			readingsOf('%'.repeat(10) + '25'.repeat(20) + '41').map((reading) => reading.text.length),
		);
		expect(readingsOf('no escape here')).toHaveLength(1);
	});

	it('leaves text without the key as it was, escapes and all', () => {
		const text = 'a%41&amp;b\\u0041 &#x4b;ey &notakey; %zz \\q';
		expect(redact(text)).toBe(text);
		// Names of JavaScript's objects are no references of HTML.
		expect(redact(`&constructor; &toString; ${key}`)).toBe('&constructor; &toString; [redacted]');
	});

	it('a short key is still redacted as typed, but not looked for in base64', () => {
		const short = keyRedactor('abc123');
		expect(short('x abc123 y')).toBe('x [redacted] y');
		expect(short(Buffer.from('abc123').toString('base64'))).toBe('YWJjMTIz');
	});
});
