/**
 * What "whole" means, row by row of the media table (nodes/MediaGen/media/formats.ts names each row's walker),
 * against real files made by real tools and files broken from them as hosts and transfers break files
 * (../../fixtures/media/broken.ts). The same files go through n8n's engine in ../resilience/whole-files.test.ts.
 */
import { classifyBody, MEDIA_FORMATS, MEDIA_HEAD_BYTES } from '../../../nodes/MediaGen/media/formats';
import { StructureCheck, StructureFault, type Walker } from '../../../nodes/MediaGen/media/structure';
import {
	cutFile,
	ENDS_ITSELF,
	everyBrokenFile,
	lyingSize,
	magicThenText,
	rebranded,
	topBoxes,
	wholeCuts,
} from '../../fixtures/media/broken';
import { fixtureBytes, MEDIA_FIXTURES, type MediaFixture } from '../../fixtures/media';
import { HOST_TEXTS } from '../../fixtures/texts';

/** Runs a walker over `chunks` as they would stream in; undefined when the file is whole, else its fault. */
function faultOf(walker: Walker, chunks: Buffer[], announced?: number): StructureFault | undefined {
	try {
		const check = new StructureCheck(walker, announced);
		for (const chunk of chunks) check.push(chunk);
		check.end();
		return undefined;
	} catch (error) {
		if (error instanceof StructureFault) return error;
		throw error;
	}
}

/** The row a body's first bytes name, when they name one. */
function rowOf(bytes: Buffer) {
	const verdict = classifyBody(bytes.subarray(0, MEDIA_HEAD_BYTES));
	return verdict.kind === 'media' ? verdict.format : undefined;
}

/** In pieces of `size` bytes. */
const pieces = (bytes: Buffer, size: number) =>
	Array.from({ length: Math.ceil(bytes.length / size) }, (_, index) =>
		bytes.subarray(index * size, (index + 1) * size),
	);

const fixturesOf = (mimeType: string) => MEDIA_FIXTURES.filter((fixture) => fixture.mimeType === mimeType);

describe('every row of the media table knows when a file is whole', () => {
	it.each(MEDIA_FORMATS.map((format) => [format.name, format]))(
		'%s: every real file is whole, in one piece, a byte at a time or in pieces of 7 and 4096 bytes',
		(_name, format) => {
			expect(fixturesOf(format.mimeType).length).toBeGreaterThan(0);
			for (const fixture of fixturesOf(format.mimeType)) {
				const bytes = fixtureBytes(fixture);
				for (const size of [bytes.length, 1, 7, 4096]) {
					const fault = faultOf(format.whole, pieces(bytes, size), bytes.length);
					expect({ file: fixture.file, size, fault: fault?.message }).toEqual({
						file: fixture.file,
						size,
						fault: undefined,
					});
				}
			}
		},
	);

	it('every broken file made from every real file is refused: cut at every length, magic then text, a lying size', () => {
		const broken = everyBrokenFile();
		expect(broken.length).toBeGreaterThan(30_000);
		const stored: string[] = [];
		for (const file of broken) {
			const row = rowOf(file.bytes);
			// A body whose first bytes no longer name the fixture's format is not stored as it: text is refused, and
			// a binary the table does not know is stored as application/octet-stream.
			if (row?.mimeType !== file.from.mimeType) continue;
			if (!faultOf(row.whole, [file.bytes])) stored.push(file.what);
		}
		expect(stored).toEqual([]);
	});

	it('a cut of 64 bytes or more, the first 64 bytes then text, and a lying size all still name the format: refused as not whole', () => {
		for (const fixture of MEDIA_FIXTURES) {
			const length = fixtureBytes(fixture).length;
			const files = [
				cutFile(fixture, 64),
				cutFile(fixture, length - 1),
				...HOST_TEXTS.map((_, text) => magicThenText(fixture, 64, text)),
				lyingSize(fixture),
			];
			for (const file of files) {
				expect({ what: file.what, row: rowOf(file.bytes)?.mimeType }).toEqual({
					what: file.what,
					row: fixture.mimeType,
				});
				expect({ what: file.what, whole: !faultOf(rowOf(file.bytes)!.whole, [file.bytes]) }).toEqual({
					what: file.what,
					whole: false,
				});
			}
		}
	});

	it('a fragmented MP4 cut after a whole fragment is whole: nothing in it says more was to come', () => {
		const fixture = MEDIA_FIXTURES.find((entry) => entry.file === 'mp4-fragmented.mp4')!;
		const [cut] = wholeCuts(fixture);
		expect(cut).toBeGreaterThan(0);
		expect(faultOf(rowOf(fixtureBytes(fixture))!.whole, [cutFile(fixture, cut).bytes])).toBeUndefined();
	});

	it('bytes after a format that marks its own end are kept; after ISO boxes or EBML elements they are not whole', () => {
		const tails = [Buffer.from('<html>trailing</html>'), Buffer.alloc(5000), Buffer.from('mediagen-explorer tag')];
		for (const fixture of MEDIA_FIXTURES) {
			for (const tail of tails) {
				const bytes = Buffer.concat([fixtureBytes(fixture), tail]);
				const whole = !faultOf(rowOf(bytes)!.whole, [bytes]);
				expect({ file: fixture.file, tail: tail.length, whole }).toEqual({
					file: fixture.file,
					tail: tail.length,
					whole: ENDS_ITSELF.has(fixture.mimeType),
				});
			}
		}
	});
});

describe('the cases of the issue', () => {
	const png = fixtureBytes('png.png');
	const page = Buffer.from(HOST_TEXTS[0][1]);

	it('PNG or JPEG magic followed by an HTML page is not whole', () => {
		for (const magic of [png.subarray(0, 8), fixtureBytes('jpeg-jfif.jpg').subarray(0, 4)]) {
			const bytes = Buffer.concat([magic, page]);
			expect(faultOf(rowOf(bytes)!.whole, [bytes])).toBeInstanceOf(StructureFault);
		}
	});

	it('an 8-byte free box followed by an HTML page: QuickTime by its first box, not whole', () => {
		const bytes = Buffer.concat([Buffer.from('00000008', 'hex'), Buffer.from('free'), page]);
		expect(rowOf(bytes)?.name).toBe('QuickTime');
		expect(faultOf(rowOf(bytes)!.whole, [bytes])?.cut).toBe(true);
	});

	it('a PNG cut to 30 bytes with a Content-Length of 30: cut inside its header chunk, known as soon as it starts', () => {
		const bytes = png.subarray(0, 30);
		const check = new StructureCheck(rowOf(png)!.whole, 30);
		expect(() => check.push(bytes.subarray(0, 16))).toThrow(
			'the file ends at byte 30, inside the chunk "IHDR" at byte 8 (25 bytes)',
		);
	});

	it('a box that claims more bytes than Content-Length announces fails at once, before the rest is read', () => {
		const head = Buffer.concat([Buffer.from('00000008', 'hex'), Buffer.from('free'), page.subarray(0, 56)]);
		const check = new StructureCheck(rowOf(head)!.whole, 10 * 1024 * 1024);
		expect(() => check.push(head)).toThrow(
			/the file ends at byte 10,485,760, inside the box header at byte 8|inside the box "CTYP"/,
		);
	});

	it('Canon raw stills (crx ) and MP4 audio (M4A ) are no row of the table; every brand a row lists is that row', () => {
		expect(classifyBody(rebranded('crx ', ['crx ', 'isom'])).kind).toBe('unknown');
		expect(classifyBody(rebranded('M4A ', ['M4A ', 'mp42', 'isom'])).kind).toBe('unknown');
		expect(classifyBody(rebranded('zzzz', ['isom'])).kind).toBe('unknown');
		for (const format of MEDIA_FORMATS.filter((row) => row.iso)) {
			for (const brand of format.iso!.brands) {
				// An image brand beside a video's boxes: the brands name the row, the walker the structure.
				expect({ brand, row: rowOf(rebranded(brand, [brand]))?.name }).toEqual({ brand, row: format.name });
			}
		}
	});
});

describe('structures the fixtures do not show', () => {
	const mp4 = fixtureBytes('mp4-faststart.mp4');
	const isoVideo = rowOf(mp4)!.whole;

	it('a box with a 64-bit size, and a last box that runs to the end of the file (size 0), are whole', () => {
		const boxes = topBoxes(mp4);
		const mdat = boxes.find((box) => box.type === 'mdat')!;
		const payload = mp4.subarray(mdat.at + 8, mdat.at + mdat.size);
		const large = Buffer.alloc(16);
		large.writeUInt32BE(1, 0);
		large.write('mdat', 4, 'latin1');
		large.writeBigUInt64BE(BigInt(payload.length + 16), 8);
		const toEnd = Buffer.from('00000000', 'hex');
		for (const header of [large, Buffer.concat([toEnd, Buffer.from('mdat')])]) {
			const bytes = Buffer.concat([mp4.subarray(0, mdat.at), header, payload]);
			expect(faultOf(isoVideo, pieces(bytes, 100))).toBeUndefined();
		}
	});

	it('an MP4 without its moov or without its mdat is not whole', () => {
		const boxes = topBoxes(mp4);
		for (const type of ['moov', 'mdat']) {
			const bytes = Buffer.concat(
				boxes.filter((box) => box.type !== type).map((box) => mp4.subarray(box.at, box.at + box.size)),
			);
			expect(faultOf(isoVideo, [bytes])?.message).toContain(`no "${type}" box`);
		}
	});

	it('a box inside moov whose size runs past moov is not whole', () => {
		const bytes = Buffer.from(mp4);
		const moov = topBoxes(mp4).find((box) => box.type === 'moov')!;
		const child = moov.at + 8;
		bytes.writeUInt32BE(bytes.readUInt32BE(child) + moov.size, child);
		expect(faultOf(isoVideo, [bytes])?.message).toMatch(/runs past the end of "moov"/);
	});

	it('a live WebM (Segment and Cluster of unknown size) is whole, and cut inside a block it is not', () => {
		const webm = Buffer.from(fixtureBytes('webm.webm'));
		const segment = webm.indexOf(Buffer.from([0x18, 0x53, 0x80, 0x67])) + 4;
		webm.fill(0xff, segment + 1, segment + 8); // 01 FF FF FF FF FF FF FF: unknown size
		const cluster = webm.indexOf(Buffer.from([0x1f, 0x43, 0xb6, 0x75])) + 4;
		const length = Math.clz32(webm[cluster]) - 23;
		webm[cluster] |= 0xff >> length;
		webm.fill(0xff, cluster + 1, cluster + length);
		const walker = rowOf(webm)!.whole;
		expect(faultOf(walker, pieces(webm, 5))).toBeUndefined();
		expect(faultOf(walker, [webm.subarray(0, webm.length - 3)])?.cut).toBe(true);
	});

	it('a TIFF whose strip lies past the end is not whole', () => {
		const tiff = fixtureBytes('tiff.tif');
		const walker = rowOf(tiff)!.whole;
		const strip = Buffer.from(tiff);
		const ifd = strip.readUInt32LE(4);
		for (let entry = 0; entry < strip.readUInt16LE(ifd); entry++) {
			const at = ifd + 2 + entry * 12;
			if (strip.readUInt16LE(at) === 273) strip.writeUInt32LE(tiff.length, at + 8); // StripOffsets
		}
		expect(faultOf(walker, [strip])?.message).toMatch(/before the image data at byte/);
	});

	it('a JPEG that ends (EOI) before its scan, and a GIF that ends before an image, are not whole', () => {
		const jpeg = fixtureBytes('jpeg-dqt.jpg');
		const sos = jpeg.indexOf(Buffer.from([0xff, 0xda]));
		const early = Buffer.concat([jpeg.subarray(0, sos), Buffer.from([0xff, 0xd9])]);
		expect(faultOf(rowOf(jpeg)!.whole, [early])?.message).toContain('before its image data');
		const gif = fixtureBytes('gif89a.gif');
		const image = gif.indexOf(0x2c, 13 + 3 * 2 ** ((gif[10] & 7) + 1));
		const empty = Buffer.concat([gif.subarray(0, image), Buffer.from([0x3b])]);
		expect(faultOf(rowOf(gif)!.whole, [empty])?.message).toContain('without an image');
	});
});

describe('the fixtures the broken files come from', () => {
	it('are every fixture, each broken in each way', () => {
		const from = new Set(everyBrokenFile().map((file) => file.from));
		expect([...from].map((fixture: MediaFixture) => fixture.file).sort()).toEqual(
			MEDIA_FIXTURES.map((fixture) => fixture.file).sort(),
		);
	});
});
