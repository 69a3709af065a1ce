/**
 * What "whole" means for the image formats of the media table, walked by structure.ts's driver (containerWalkers.ts
 * holds the formats whose end is the file's). The rules in words: docs/waiting-and-output.md#what-whole-means.
 */
import { fault, figure, holds, MAX_READ, read, showBytes, skip, span, type Cursor, type Walk } from './structure';

export function* png(c: Cursor): Walk {
	yield* skip(8, 'the PNG signature');
	let images = 0;
	for (let first = true; ; first = false) {
		const at = c.at;
		const header = yield* read(8, `the chunk header at byte ${figure(at)}`);
		const length = header.readUInt32BE(0);
		const type = header.toString('latin1', 4, 8);
		if (!/^[A-Za-z]{4}$/.test(type) || length > 0x7fffffff) {
			throw fault(at, `the bytes at byte ${figure(at)} are not a PNG chunk: ${showBytes(header)}`);
		}
		if (first && (type !== 'IHDR' || length !== 13)) {
			throw fault(at, `its first chunk is ${JSON.stringify(type)} (${figure(length)} bytes), not a header (IHDR)`);
		}
		yield* skip(length + 4, span(`the chunk ${JSON.stringify(type)}`, at, length + 12));
		if (type === 'IDAT') images++;
		if (type === 'IEND') {
			if (!images) throw fault(at, 'it ends (IEND) without image data (IDAT)');
			return;
		}
	}
}

/** JPEG markers without a length: restarts, TEM. */
export const standalone = (marker: number) => (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01;

/** SOF0 … SOF15 (C4, C8, CC are tables and a reserved code). */
export const isFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);

export function* jpeg(c: Cursor): Walk {
	yield* skip(2, 'the JPEG start (SOI)');
	let frame = false;
	let scan = false;
	let next: number | undefined;
	for (;;) {
		let at = c.at;
		let marker = next;
		next = undefined;
		if (marker === undefined) {
			const bytes = yield* read(2, `the marker at byte ${figure(at)}`);
			if (bytes[0] !== 0xff)
				throw fault(at, `the bytes at byte ${figure(at)} are not a JPEG marker: ${showBytes(bytes)}`);
			marker = bytes[1];
			while (marker === 0xff) marker = (yield* read(1, `the marker at byte ${figure(at)}`))[0];
		} else {
			at -= 2;
		}
		const name = `FF ${marker.toString(16).toUpperCase().padStart(2, '0')}`;
		if (marker === 0xd9) {
			if (!frame || !scan) throw fault(at, 'it ends (EOI) before its image data');
			return;
		}
		if (marker === 0xd8 || marker === 0x00) throw fault(at, `a marker ${name} at byte ${figure(at)} is out of place`);
		if (standalone(marker)) continue;
		const length = (yield* read(2, `the segment ${name} at byte ${figure(at)}`)).readUInt16BE(0);
		if (length < 2) throw fault(at, `the segment ${name} at byte ${figure(at)} claims ${figure(length)} bytes`);
		yield* skip(length - 2, span(`the segment ${name}`, at, length + 2));
		if (isFrame(marker)) frame = true;
		if (marker === 0xda) {
			if (!frame) throw fault(at, `a scan at byte ${figure(at)} comes before the frame header`);
			scan = true;
			next = (yield { op: 'jpegScan', what: `the image data from byte ${figure(c.at)}` }) as number;
		}
	}
}

export function* gif(c: Cursor): Walk {
	const head = yield* read(13, 'the GIF header');
	if (head[10] & 0x80) yield* skip(3 * 2 ** ((head[10] & 7) + 1), 'the global colour table');
	let images = 0;
	for (;;) {
		const at = c.at;
		const [kind] = yield* read(1, `the block at byte ${figure(at)}`);
		if (kind === 0x3b) {
			if (!images) throw fault(at, 'it ends (trailer) without an image');
			return;
		}
		if (kind === 0x21) {
			yield* skip(1, `the extension at byte ${figure(at)}`);
			yield { op: 'gifBlocks', what: `the extension at byte ${figure(at)}` };
		} else if (kind === 0x2c) {
			const descriptor = yield* read(9, `the image at byte ${figure(at)}`);
			if (descriptor[8] & 0x80) yield* skip(3 * 2 ** ((descriptor[8] & 7) + 1), `the image at byte ${figure(at)}`);
			yield* skip(1, `the image at byte ${figure(at)}`);
			yield { op: 'gifBlocks', what: `the image at byte ${figure(at)}` };
			images++;
		} else {
			throw fault(at, `the byte at ${figure(at)} (${showBytes(Buffer.from([kind]))}) starts no GIF block`);
		}
	}
}

export function* webp(c: Cursor): Walk {
	const head = yield* read(12, 'the RIFF header');
	const end = 8 + head.readUInt32LE(4);
	let images = 0;
	while (c.at < end) {
		const at = c.at;
		if (at + 8 > end)
			throw fault(at, `the RIFF data ends at byte ${figure(end)}, inside a chunk header at byte ${figure(at)}`);
		const header = yield* read(8, `the chunk header at byte ${figure(at)}`);
		const type = header.toString('latin1', 0, 4);
		const length = header.readUInt32LE(4);
		if (!/^[\x20-\x7e]{4}$/.test(type))
			throw fault(at, `the bytes at byte ${figure(at)} are not a RIFF chunk: ${showBytes(header)}`);
		const chunk = span(`the chunk ${JSON.stringify(type)}`, at, length + 8);
		if (at + 8 + length > end) throw fault(at, `${chunk} runs past the RIFF data's end, byte ${figure(end)}`);
		// Odd chunks are padded to an even size; the padding of the last one may be missing.
		yield* skip(Math.min(length + (length & 1), end - at - 8), chunk);
		if (['VP8 ', 'VP8L', 'ANMF'].includes(type)) images++;
	}
	if (!images) throw fault(12, 'it holds no image chunk (VP8, VP8L or ANMF)');
}

/** BI_RGB, BI_BITFIELDS, BI_ALPHABITFIELDS: uncompressed rows; the others (RLE, JPEG, PNG) say their size. */
const UNCOMPRESSED = [0, 3, 6];

export function* bmp(c: Cursor): Walk {
	const head = yield* read(18, 'the BMP header');
	const fileSize = head.readUInt32LE(2);
	const pixelsAt = head.readUInt32LE(10);
	const dibSize = head.readUInt32LE(14);
	const dib = yield* read(dibSize - 4, 'the BMP header');
	const core = dibSize === 12;
	const width = core ? dib.readUInt16LE(0) : dib.readInt32LE(0);
	const height = Math.abs(core ? dib.readUInt16LE(2) : dib.readInt32LE(4));
	const bits = core ? dib.readUInt16LE(6) : dib.readUInt16LE(10);
	const compression = core ? 0 : dib.readUInt32LE(12);
	const imageSize = core ? 0 : dib.readUInt32LE(16);
	const pixels = UNCOMPRESSED.includes(compression) ? Math.floor((bits * width + 31) / 32) * 4 * height : imageSize;
	if (width <= 0 || !height || !bits || !pixels) throw fault(0, 'its header describes no pixels');
	if (pixelsAt < 14 + dibSize) throw fault(10, `its pixels start at byte ${figure(pixelsAt)}, inside its header`);
	const end = Math.max(fileSize, pixelsAt + pixels);
	yield* skip(
		end - c.at,
		`its pixels (bytes ${figure(pixelsAt)}–${figure(pixelsAt + pixels)}; the header's file size is ${figure(fileSize)})`,
	);
}

/** Bytes per value of each TIFF field type (1 BYTE … 18 IFD8); unknown types are 0 (skipped by readers). */
const TIFF_TYPE_BYTES = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4, 0, 0, 8, 8, 8];
const STRIP_OFFSETS = 273;
const STRIP_COUNTS = 279;
const TILE_OFFSETS = 324;
const TILE_COUNTS = 325;
const ARRAY_TAGS = [STRIP_OFFSETS, STRIP_COUNTS, TILE_OFFSETS, TILE_COUNTS];
const MAX_ENTRIES = 4096;

/** An IFD, or (with `array`) the values of its strip or tile array. */
interface TiffTarget {
	at: number;
	ifd: number;
	array?: { tag: number; count: number; type: number };
}

/** A TIFF's numbers in its byte order, classic or BigTIFF, and what its walk has found so far. */
interface Tiff {
	big: boolean;
	/** Bytes of an offset, and at most of the values an entry holds itself. */
	word: number;
	uint(bytes: Buffer, at: number, size: number): number;
	/** The furthest byte the file must hold (an IFD, values, strips, tiles), and what lies there. */
	needed: { end: number; what: string };
	targets: TiffTarget[];
	/** By `ifd:tag`. */
	arrays: Map<string, number[]>;
}

function tiffValues(t: Tiff, bytes: Buffer, at: number, type: number, count: number): number[] {
	const size = TIFF_TYPE_BYTES[type];
	return Array.from({ length: count }, (_, index) => t.uint(bytes, at + index * size, size));
}

function need(t: Tiff, end: number, what: string): void {
	if (end > t.needed.end) t.needed = { end, what: `${what}, which ends at byte ${figure(end)}` };
}

/** Once both arrays of an IFD are known, its strips and tiles must lie inside the file. */
function settle(t: Tiff, ifd: number): void {
	for (const [offsetsTag, countsTag] of [
		[STRIP_OFFSETS, STRIP_COUNTS],
		[TILE_OFFSETS, TILE_COUNTS],
	]) {
		const offsets = t.arrays.get(`${ifd}:${offsetsTag}`);
		const counts = t.arrays.get(`${ifd}:${countsTag}`);
		if (!offsets || !counts) continue;
		offsets.forEach((offset, index) =>
			need(t, offset + (counts[index] ?? 0), `the image data at byte ${figure(offset)} (IFD ${ifd})`),
		);
	}
}

/** One IFD: values stored outside it must lie inside the file; its strip and tile arrays are kept or read later. */
function* tiffIfd(t: Tiff, at: number, ifd: number): Walk {
	const countSize = t.big ? 8 : 2;
	const count = t.uint(yield* read(countSize, `IFD ${ifd} at byte ${figure(at)}`), 0, countSize);
	if (!count || count > MAX_ENTRIES)
		throw fault(at, `IFD ${ifd} at byte ${figure(at)} claims ${figure(count)} entries`);
	const entrySize = t.big ? 20 : 12;
	const table = yield* read(count * entrySize + t.word, span(`IFD ${ifd}`, at, count * entrySize + t.word));
	const offset = (from: number) => t.uint(table, from, t.word);
	for (let entry = 0; entry < count * entrySize; entry += entrySize) {
		const tag = t.uint(table, entry, 2);
		const type = t.uint(table, entry + 2, 2);
		const values = offset(entry + 4);
		const bytes = values * (TIFF_TYPE_BYTES[type] ?? 0);
		const field = entry + (t.big ? 12 : 8);
		const outside = bytes > t.word ? offset(field) : undefined;
		if (outside !== undefined)
			need(t, outside + bytes, `the values of tag ${tag} in IFD ${ifd}, at byte ${figure(outside)}`);
		if (!ARRAY_TAGS.includes(tag) || !bytes) continue;
		if (outside === undefined) t.arrays.set(`${ifd}:${tag}`, tiffValues(t, table, field, type, values));
		else if (bytes <= MAX_READ) t.targets.push({ at: outside, ifd, array: { tag, count: values, type } });
	}
	settle(t, ifd);
	const nextAt = offset(count * entrySize);
	if (nextAt) t.targets.push({ at: nextAt, ifd: ifd + 1 });
}

export function* tiff(c: Cursor): Walk {
	const head = yield* read(8, 'the TIFF header');
	const little = head[0] === 0x49;
	const uint = (bytes: Buffer, at: number, size: number) =>
		size === 8
			? Number(little ? bytes.readBigUInt64LE(at) : bytes.readBigUInt64BE(at))
			: little
				? bytes.readUIntLE(at, size)
				: bytes.readUIntBE(at, size);
	const big = uint(head, 2, 2) === 43;
	const first = big ? uint(yield* read(8, 'the BigTIFF header'), 0, 8) : uint(head, 4, 4);
	const t: Tiff = { big, word: big ? 8 : 4, uint, needed: { end: 0, what: '' }, targets: [], arrays: new Map() };
	t.targets.push({ at: first, ifd: 1 });
	while (t.targets.length) {
		t.targets.sort((a, b) => a.at - b.at);
		const target = t.targets.shift()!;
		if (target.at < c.at) {
			// Behind the bytes already passed: inside the file (a table's range is needed already), but no longer
			// readable in a stream. Reading forward only also ends every chain of IFDs, a looping one too.
			if (!target.array) need(t, target.at + 2, `IFD ${target.ifd} at byte ${figure(target.at)}`);
			continue;
		}
		yield* skip(target.at - c.at, `the bytes up to IFD ${target.ifd} at byte ${figure(target.at)}`);
		if (!target.array) {
			yield* tiffIfd(t, target.at, target.ifd);
			continue;
		}
		const { tag, count, type } = target.array;
		const what = `the strip table of IFD ${target.ifd} at byte ${figure(target.at)}`;
		t.arrays.set(
			`${target.ifd}:${tag}`,
			tiffValues(t, yield* read(count * TIFF_TYPE_BYTES[type], what), 0, type, count),
		);
		settle(t, target.ifd);
	}
	yield* holds(t.needed);
}
