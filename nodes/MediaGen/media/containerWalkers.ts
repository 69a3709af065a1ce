/**
 * Walkers of ISO boxes (MP4, QuickTime, HEIF, AVIF) and EBML elements (WebM, Matroska), whose end is the file's: bytes
 * after the last one are read as one more, so nothing may be appended (docs/waiting-and-output.md#what-whole-means).
 */
import {
	fault,
	figure,
	MAX_READ,
	holds,
	read,
	readOrEnd,
	showBytes,
	skip,
	span,
	toEnd,
	type Cursor,
	type Walk,
} from './structure';

/** Boxes made of boxes, walked to check that their children add up to them (not udta: QuickTime ends its lists with a zero word). */
const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'edts', 'dinf', 'mvex', 'moof', 'traf', 'mfra']);

/** Boxes before the first one that says what the file is (padding, previews). */
export const ISO_PADDING: readonly string[] = ['free', 'skip', 'wide', 'pnot', 'uuid'];

const MAX_DEPTH = 8;

interface Box {
	type: string;
	at: number;
	/** Undefined: the box runs to the end of the file (size 0). */
	size?: number;
}

interface IsoState {
	kind: 'video' | 'image';
	top: string[];
	/** The furthest byte the file's index says it holds (HEIF's iloc extents), and what lies there. */
	needed: { end: number; what: string };
}

function* boxHeader(c: Cursor, orEnd: boolean, inside: string): Walk<Box | null> {
	const at = c.at;
	const what = `the box header at byte ${figure(at)}${inside}`;
	const head = orEnd ? yield* readOrEnd(8, what) : yield* read(8, what);
	if (!head) return null;
	const type = head.toString('latin1', 4, 8);
	if (!/^[\x20-\x7e]{4}$/.test(type))
		throw fault(at, `the bytes at byte ${figure(at)} are not a box: ${showBytes(head)}`);
	const size = head.readUInt32BE(0);
	if (size === 0) return { type, at };
	// Size 1: a 64-bit size follows the type.
	const claimed = size === 1 ? Number((yield* read(8, what)).readBigUInt64BE(0)) : size;
	if (claimed < (size === 1 ? 16 : 8)) {
		throw fault(at, `the box "${type}" at byte ${figure(at)} claims ${figure(claimed)} bytes`);
	}
	return { type, at, size: claimed };
}

function field(body: Buffer, at: number, bytes: number): number {
	if (at + bytes > body.length) throw new RangeError('past the box');
	if (bytes === 0) return 0;
	if (bytes === 4) return body.readUInt32BE(at);
	if (bytes === 8) return Number(body.readBigUInt64BE(at));
	throw new RangeError(`a field of ${bytes} bytes`);
}

/** HEIF's item locations: every extent stored in the file itself (construction method 0) must lie inside it. */
function ilocExtents(body: Buffer, at: number, state: IsoState): void {
	try {
		const version = body[0];
		const offsetSize = body[4] >> 4;
		const lengthSize = body[4] & 15;
		const baseSize = body[5] >> 4;
		const indexSize = version ? body[5] & 15 : 0;
		let p = 6;
		const items = version < 2 ? body.readUInt16BE(p) : body.readUInt32BE(p);
		p += version < 2 ? 2 : 4;
		for (let item = 0; item < items; item++) {
			p += version < 2 ? 2 : 4; // item_ID
			const method = version ? body.readUInt16BE(p) & 15 : 0;
			if (version) p += 2;
			const dataReference = body.readUInt16BE(p);
			const base = field(body, p + 2, baseSize);
			p += 2 + baseSize;
			const extents = body.readUInt16BE(p);
			p += 2;
			for (let extent = 0; extent < extents; extent++) {
				p += indexSize;
				const offset = field(body, p, offsetSize);
				const length = field(body, p + offsetSize, lengthSize);
				p += offsetSize + lengthSize;
				const end = base + offset + length;
				if (method === 0 && dataReference === 0 && end > state.needed.end) {
					const what = `the image data its iloc box locates at bytes ${figure(base + offset)}–${figure(end)}`;
					state.needed = { end, what };
				}
			}
		}
	} catch {
		throw fault(at, `its iloc box at byte ${figure(at)} is not a list of item locations`);
	}
}

function* isoBoxes(c: Cursor, end: number | undefined, path: string, state: IsoState): Walk {
	const depth = path ? path.split('/').length : 0;
	const inside = end === undefined ? '' : ` (inside "${path}", which ends at byte ${figure(end)})`;
	for (;;) {
		if (end !== undefined && c.at >= end) return;
		const box = yield* boxHeader(c, end === undefined, inside);
		if (!box) return;
		const name = path ? `${path}/${box.type}` : box.type;
		if (!depth) state.top.push(box.type);
		if (box.size === undefined) {
			if (end !== undefined)
				throw fault(box.at, `the box "${name}" at byte ${figure(box.at)} claims the rest of the file`);
			yield* toEnd();
			return;
		}
		const boxEnd = box.at + box.size;
		const what = span(`the box "${name}"`, box.at, box.size);
		if (end !== undefined && boxEnd > end)
			throw fault(box.at, `${what} runs past the end of "${path}", byte ${figure(end)}`);
		if (CONTAINERS.has(box.type) && depth < MAX_DEPTH) {
			yield* isoBoxes(c, boxEnd, name, state);
		} else if (box.type === 'meta' && !depth && state.kind === 'image' && box.size >= 12) {
			yield* skip(4, what); // a full box: version and flags, then boxes
			yield* isoBoxes(c, boxEnd, name, state);
		} else if (box.type === 'iloc' && path === 'meta' && boxEnd - c.at <= MAX_READ) {
			ilocExtents(yield* read(boxEnd - c.at, what), box.at, state);
		} else {
			yield* skip(boxEnd - c.at, what);
		}
	}
}

function* iso(c: Cursor, kind: IsoState['kind']): Walk {
	const state: IsoState = { kind, top: [], needed: { end: 0, what: '' } };
	yield* isoBoxes(c, undefined, '', state);
	const length = c.at;
	const has = (type: string) => state.top.includes(type);
	const opening = state.top.find((type) => !ISO_PADDING.includes(type) && type !== 'ftyp');
	const missing = (what: string) => fault(length, `it holds no ${what}`);
	if (kind === 'video') {
		// A media segment (styp, or a fragment first) carries its index in moof; a file carries it in moov.
		const segment = has('styp') || opening === 'moof' || opening === 'sidx';
		const index = segment ? 'moof' : 'moov';
		if (!has(index)) throw missing(`"${index}" box (its index)`);
		if (!has('mdat')) throw missing('"mdat" box (its media data)');
		return;
	}
	if (!has('meta') && !has('moov')) throw missing('"meta" box (its image items)');
	if (!has('meta') && !has('mdat')) throw missing('"mdat" box (its media data)');
	yield* holds(state.needed);
}

export const isoVideo = (c: Cursor) => iso(c, 'video');
export const isoImage = (c: Cursor) => iso(c, 'image');

const EBML_HEADER = 0x1a45dfa3;
const SEGMENT = 0x18538067;
const CLUSTER = 0x1f43b675;
const TRACKS = 0x1654ae6b;

/** The Segment's own elements: what ends a Cluster of unknown size. */
const SEGMENT_CHILDREN = new Map([
	[0x114d9b74, 'SeekHead'],
	[0x1549a966, 'Info'],
	[TRACKS, 'Tracks'],
	[CLUSTER, 'Cluster'],
	[0x1c53bb6b, 'Cues'],
	[0x1941a469, 'Attachments'],
	[0x1043a770, 'Chapters'],
	[0x1254c367, 'Tags'],
]);

interface Element {
	id: number;
	at: number;
	/** Undefined: unknown size (all of its size bits set), as a live recording writes a Segment or a Cluster. */
	size?: number;
}

function elementName(id: number): string {
	const name = id === SEGMENT ? 'Segment' : id === EBML_HEADER ? 'EBML header' : SEGMENT_CHILDREN.get(id);
	return `the element ${id.toString(16).toUpperCase()}${name ? ` (${name})` : ''}`;
}

/** Its length from the first byte's leading zeros, at most `most` bytes. */
function* vint(orEnd: boolean, most: number, at: number, what: string): Walk<Buffer | null> {
	const first = orEnd ? yield* readOrEnd(1, what) : yield* read(1, what);
	if (!first) return null;
	const length = Math.clz32(first[0]) - 23;
	if (length > most) throw fault(at, `the bytes at byte ${figure(at)} are not an EBML element`);
	return length > 1 ? Buffer.concat([first, yield* read(length - 1, what)]) : first;
}

function* element(c: Cursor, orEnd: boolean, inside = ''): Walk<Element | null> {
	const at = c.at;
	const what = `the element header at byte ${figure(at)}${inside}`;
	const idBytes = yield* vint(orEnd, 4, at, what);
	if (!idBytes) return null;
	const sizeBytes = (yield* vint(false, 8, at, what))!;
	const id = idBytes.reduce((value, byte) => value * 256 + byte, 0);
	const mask = 0xff >> sizeBytes.length;
	if ((sizeBytes[0] & mask) === mask && sizeBytes.subarray(1).every((byte) => byte === 0xff)) return { id, at };
	const size = sizeBytes.subarray(1).reduce((value, byte) => value * 256 + byte, sizeBytes[0] & mask);
	return { id, at, size };
}

interface SegmentSeen {
	tracks: boolean;
	clusters: number;
}

function* segment(c: Cursor, end: number | undefined, seen: SegmentSeen): Walk {
	const inside = end === undefined ? '' : ` (inside the Segment, which ends at byte ${figure(end)})`;
	let openCluster = false;
	for (;;) {
		if (end !== undefined && c.at >= end) return;
		const child = yield* element(c, end === undefined, inside);
		if (!child) return;
		// Inside a Cluster of unknown size until an element of the Segment's own comes.
		openCluster &&= !SEGMENT_CHILDREN.has(child.id);
		if (!openCluster) {
			if (child.id === TRACKS) seen.tracks = true;
			if (child.id === CLUSTER) seen.clusters++;
			if (child.size === undefined && child.id === CLUSTER) {
				openCluster = true;
				continue;
			}
		}
		const what = span(elementName(child.id), child.at, c.at - child.at + (child.size ?? 0));
		if (child.size === undefined)
			throw fault(child.at, `${elementName(child.id)} at byte ${figure(child.at)} has no size`);
		if (end !== undefined && c.at + child.size > end) {
			throw fault(child.at, `${what} runs past the end of its Segment, byte ${figure(end)}`);
		}
		yield* skip(child.size, what);
	}
}

export function* ebml(c: Cursor): Walk {
	const header = (yield* element(c, false))!;
	if (header.id !== EBML_HEADER || header.size === undefined) throw fault(0, 'it does not open with an EBML header');
	yield* skip(header.size, 'the EBML header');
	const seen: SegmentSeen = { tracks: false, clusters: 0 };
	let segments = 0;
	for (;;) {
		const top = yield* element(c, true);
		if (!top) break;
		if (top.id === SEGMENT) {
			segments++;
			yield* segment(c, top.size === undefined ? undefined : c.at + top.size, seen);
			continue;
		}
		if (top.size === undefined) throw fault(top.at, `${elementName(top.id)} at byte ${figure(top.at)} has no size`);
		yield* skip(top.size, span(elementName(top.id), top.at, top.size));
	}
	const length = c.at;
	if (!segments) throw fault(length, 'it holds no Segment');
	if (!seen.tracks) throw fault(length, 'it holds no Tracks element (its streams)');
	if (!seen.clusters) throw fault(length, 'it holds no Cluster (its frames)');
}
