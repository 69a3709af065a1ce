/**
 * The media table (nodes/MediaGen/media/formats.ts) against real files made by real tools (../../fixtures/media),
 * and the line between a file and text (media/text.ts) on bodies built to sit on it. The same bodies go
 * through n8n's engine in ../resilience/bodies.test.ts; here each rule is checked on its own.
 */
import { kindOfText, readAsText } from '../../../nodes/MediaGen/media/text';
import { classifyBody, MEDIA_FORMATS, MEDIA_HEAD_BYTES, mimeFromFileName } from '../../../nodes/MediaGen/media/formats';
import { fixtureBytes, MEDIA_FIXTURES } from '../../fixtures/media';
import { encodeText, HOST_TEXTS, TEXT_ENCODINGS } from '../../fixtures/texts';

const head = (bytes: Buffer) => bytes.subarray(0, MEDIA_HEAD_BYTES);
const mimeOf = (bytes: Buffer) => {
	const verdict = classifyBody(head(bytes));
	return verdict.kind === 'media' ? verdict.format.mimeType : verdict.kind;
};

describe('the media table', () => {
	it('every row is a real file of the fixtures, and every fixture is the row its tools made', () => {
		for (const format of MEDIA_FORMATS) {
			expect({ format: format.name, fixtures: MEDIA_FIXTURES.some((f) => f.mimeType === format.mimeType) }).toEqual({
				format: format.name,
				fixtures: true,
			});
		}
		for (const fixture of MEDIA_FIXTURES) {
			const verdict = classifyBody(head(fixtureBytes(fixture)));
			expect({ file: fixture.file, mimeType: verdict.kind === 'media' && verdict.format.mimeType }).toEqual({
				file: fixture.file,
				mimeType: fixture.mimeType,
			});
			expect(verdict.kind === 'media' && verdict.format.extensions[0]).toBe(fixture.extension);
		}
	});

	it('a file cut short after its signature, or padded with anything, is still what it starts as', () => {
		for (const fixture of MEDIA_FIXTURES) {
			const bytes = fixtureBytes(fixture);
			for (const cut of [64, 40, Math.floor(bytes.length / 2)]) {
				expect({ file: fixture.file, cut, mime: mimeOf(bytes.subarray(0, cut)) }).toEqual({
					file: fixture.file,
					cut,
					mime: fixture.mimeType,
				});
			}
			const padded = Buffer.concat([bytes, Buffer.from('<html>trailing</html>'), Buffer.alloc(9000, 0xab)]);
			expect(mimeOf(padded)).toBe(fixture.mimeType);
		}
	});

	it('reads a file by its extension for uploads (every extension of every row), and nothing else', () => {
		for (const format of MEDIA_FORMATS) {
			for (const extension of format.extensions) {
				expect(mimeFromFileName(`photo.${extension.toUpperCase()}`)).toBe(format.mimeType);
			}
		}
		expect(mimeFromFileName('notes.pdf')).toBeUndefined();
		expect(mimeFromFileName('no-extension')).toBeUndefined();
	});

	it('QuickTime without ftyp opens with any of its boxes; a box of 65,279 bytes is not a UTF-32 byte order mark', () => {
		const box = (size: number, type: string, fill = 0x11) => {
			const bytes = Buffer.alloc(Math.min(size, 64), fill);
			bytes.writeUInt32BE(size, 0);
			bytes.write(type, 4, 'latin1');
			return bytes;
		};
		for (const type of ['moov', 'mdat', 'wide', 'free', 'skip', 'pnot', 'uuid']) {
			expect({ type, mime: mimeOf(Buffer.concat([box(0xfeff, type), box(40, 'mdat')])) }).toEqual({
				type,
				mime: 'video/quicktime',
			});
		}
		expect(mimeOf(Buffer.concat([box(24, 'moof'), box(40, 'mdat')]))).toBe('video/mp4');
	});
});

describe('text is not a file', () => {
	it('every host text in every encoding is text, of the kind it is', () => {
		const kinds: Record<string, string> = {
			'an HTML sign-in page': 'an HTML page',
			'an SVG with a script': 'an SVG image (markup, which can carry scripts)',
			'an expired link as JSON': 'JSON',
			'an S3 error as XML': 'XML',
		};
		for (const [name, text] of HOST_TEXTS) {
			for (const encoding of TEXT_ENCODINGS) {
				const verdict = classifyBody(head(encodeText(text, encoding)));
				expect({ name, encoding, kind: verdict.kind }).toEqual({ name, encoding, kind: 'text' });
				if (verdict.kind !== 'text') continue;
				if (kinds[name]) {
					expect({ name, encoding, kind: kindOfText(verdict.text.text) }).toEqual({
						name,
						encoding,
						kind: kinds[name],
					});
				}
			}
		}
	});

	it('a sentence that holds the name of a box ("Try free trial") is text, not QuickTime', () => {
		for (const text of ['Try free trial now', 'Get moov.ie', 'The mdat box', 'Bad ftypisom']) {
			expect({ text, kind: classifyBody(Buffer.from(text)).kind }).toEqual({ text, kind: 'text' });
		}
	});

	it('names its encoding, and decodes UTF-16 and UTF-32 of either byte order without a mark', () => {
		const page = '<html><body>Доступ запрещён</body></html>';
		expect(readAsText(encodeText(page, 'UTF-16 LE'))).toEqual({ encoding: 'UTF-16 LE', text: page });
		expect(readAsText(encodeText(page, 'UTF-16 BE'))).toEqual({ encoding: 'UTF-16 BE', text: page });
		expect(readAsText(encodeText(page, 'UTF-8 with BOM'))).toEqual({
			encoding: 'UTF-8 with a byte order mark',
			text: page,
		});
		for (const encoding of ['UTF-32 LE', 'UTF-32 BE'] as const) {
			expect(readAsText(encodeText('{"msg":"链接已过期"}', encoding))).toEqual({
				encoding,
				text: '{"msg":"链接已过期"}',
			});
		}
		expect(readAsText(Buffer.from('Accès refusé', 'latin1'))).toEqual({
			encoding: 'an 8-bit encoding',
			text: 'Accès refusé',
		});
	});

	it('a character cut in two by the end of the head is still text', () => {
		const bytes = Buffer.from('访问被拒绝 '.repeat(400));
		expect(readAsText(bytes.subarray(0, MEDIA_HEAD_BYTES))?.encoding).toBe('UTF-8');
	});

	it('binaries the table does not know are neither text nor a format: a repeated byte, random bytes, JPEG XL', () => {
		let seed = 7;
		const random = Buffer.from(Array.from({ length: 4096 }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24));
		const jpegXl = Buffer.concat([Buffer.from([0xff, 0x0a, 0xfa, 0x1f]), random.subarray(0, 200)]);
		for (const [name, bytes] of [
			['0x01 repeated', Buffer.alloc(4096, 1)],
			['random bytes', random],
			['JPEG XL', jpegXl],
		] as const) {
			expect({ name, kind: classifyBody(bytes).kind }).toEqual({ name, kind: 'unknown' });
		}
		expect(classifyBody(Buffer.alloc(4096)).kind).toBe('zeros');
	});
});
