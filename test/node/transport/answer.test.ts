/**
 * The steps that read an API answer (nodes/MediaGen/transport/answer.ts) and keep the key out of text
 * (transport/redaction.ts), each on its own. The same answers go through n8n's engine in
 * ../resilience/answers.test.ts and ../secrets.test.ts.
 */
import { Readable } from 'node:stream';

import {
	keptAnswer,
	LEFT_OUT,
	MAX_ANSWER_BYTES,
	MAX_ANSWER_DEPTH,
	parseAnswer,
	readAnswerBody,
	recoverTaskId,
} from '../../../nodes/MediaGen/transport/answer';
import { MAX_LAYERS, readingsOf } from '../../../nodes/MediaGen/transport/escapes';
import { keyRedactor } from '../../../nodes/MediaGen/transport/redaction';
import { KEY_ENCODINGS, keyLeaks } from '../../keyEncodings';

const nested = (depth: number, inner = '1') => `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`;

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
		expect(recoverTaskId(body.bytes, undefined, keyRedactor('key'))).toBe('t-1');
	});

	it('a body that breaks off keeps what came, and the error that ended it', async () => {
		const stream = new Readable({ read() {} });
		stream.push('{"code":1000,"data":{"taskid":"t-2",');
		setImmediate(() => stream.destroy(new Error('aborted')));
		const body = await readAnswerBody(stream, () => {});
		expect(body.brokeOff).toEqual(new Error('aborted'));
		expect(body.bytes.toString()).toBe('{"code":1000,"data":{"taskid":"t-2",');
		expect(recoverTaskId(body.bytes, undefined, keyRedactor('key'))).toBe('t-2');
	});

	it('an id cut off by the end of the bytes is not taken for a whole one', () => {
		expect(recoverTaskId(Buffer.from('{"data":{"taskid":"t-3'), undefined, keyRedactor('key'))).toBeUndefined();
		expect(recoverTaskId(Buffer.from('{"data":{"taskid":12'), undefined, keyRedactor('key'))).toBeUndefined();
	});
});

describe('parseAnswer and keptAnswer', () => {
	it('JSON after a UTF-8 byte order mark is JSON; a page is not', () => {
		expect(parseAnswer(Buffer.from('\ufeff{"code":1000}'))).toEqual({ json: { code: 1000 } });
		expect(parseAnswer(Buffer.from('<html>502</html>'))).toEqual({});
	});

	it('an answer a million levels deep is parsed, and kept down to the limit with a marker', () => {
		const { json } = parseAnswer(Buffer.from(`{"code":1000,"data":{"taskid":"t-4","meta":${nested(1_000_000)}}}`));
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
	});

	it('a short key is still redacted as typed, but not looked for in base64', () => {
		const short = keyRedactor('abc123');
		expect(short('x abc123 y')).toBe('x [redacted] y');
		expect(short(Buffer.from('abc123').toString('base64'))).toBe('YWJjMTIz');
	});
});
