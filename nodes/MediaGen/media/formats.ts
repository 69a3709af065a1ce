/**
 * The formats a result file may be, one table, each known by its first bytes (never by a host's or a file name's word);
 * a stored file's MIME type and extension come from its row (docs/waiting-and-output.md, "What a result file may be").
 */
import { byteOrderMark, readAsText, type BodyText } from './text';
import { ebml, ISO_PADDING, isoImage, isoVideo } from './containerWalkers';
import type { Walker } from './structure';
import { bmp, gif, jpeg, png, tiff, webp } from './imageWalkers';

/** One part of the bytes a format starts with: latin1 text, a byte, bytes to skip, or one byte of a range. */
type Part = string | number | { skip: number } | { from: number; to: number } | { oneOf: readonly number[] };

export interface MediaFormat {
	name: string;
	mimeType: string;
	/** The extension a stored file gets, then other extensions files of the format go by. */
	extensions: readonly [string, ...string[]];
	/** Any one of them is enough. */
	starts?: ReadonlyArray<readonly Part[]>;
	/** The EBML header's DocType. */
	docType?: string;
	/** ISO base media files (MP4, QuickTime, HEIF, AVIF) are told apart by their boxes, not by fixed bytes. */
	iso?: {
		/** Brands of the ftyp (or styp) box, major or compatible, that make a file this format. */
		brands: readonly string[];
		/** Boxes a file of this format may open with when it has no ftyp at all (QuickTime before ISO, segments). */
		firstBoxes?: readonly string[];
	};
	whole: Walker;
}

/** Every ISO box a file may open with: the ones the walk steps over (padding, previews), then the others. */
const ISO_FIRST_BOXES = ['ftyp', 'styp', ...ISO_PADDING, 'moov', 'mdat', 'moof', 'sidx'];

const EBML = [0x1a, 0x45, 0xdf, 0xa3];

/**
 * ISO rows are tried in this order on a file's brands (an AVIF also lists mif1). SVG is not here: it is markup, which
 * can carry scripts. BMP and TIFF are: image tools export them, and their headers cannot be mistaken for text.
 */
export const MEDIA_FORMATS: readonly MediaFormat[] = [
	{ name: 'PNG', mimeType: 'image/png', extensions: ['png'], starts: [['\x89PNG\r\n\x1a\n']], whole: png },
	// SOI, then any marker: APP0 JFIF (E0), APP1 Exif (E1), a quantisation table (DB), Adobe (EE), a frame (C0…), …
	{
		name: 'JPEG',
		mimeType: 'image/jpeg',
		extensions: ['jpg', 'jpeg', 'jpe'],
		starts: [[0xff, 0xd8, 0xff, { from: 0xc0, to: 0xfe }]],
		whole: jpeg,
	},
	{
		name: 'WebP',
		mimeType: 'image/webp',
		extensions: ['webp'],
		// The RIFF size, then the first chunk: VP8 (lossy), VP8L (lossless) or VP8X (extended).
		starts: [['RIFF', { skip: 4 }, 'WEBPVP8', { oneOf: [...' LX'].map((letter) => letter.charCodeAt(0)) }]],
		whole: webp,
	},
	{ name: 'GIF', mimeType: 'image/gif', extensions: ['gif'], starts: [['GIF87a'], ['GIF89a']], whole: gif },
	{
		name: 'BMP',
		mimeType: 'image/bmp',
		extensions: ['bmp'],
		// File size, four reserved zero bytes, the pixels' offset, then the size of a known DIB header.
		starts: [['BM', { skip: 4 }, 0, 0, 0, 0, { skip: 4 }, { oneOf: [12, 40, 52, 56, 64, 108, 124] }, 0, 0, 0]],
		whole: bmp,
	},
	{
		name: 'TIFF',
		mimeType: 'image/tiff',
		extensions: ['tif', 'tiff'],
		starts: [
			['II', { oneOf: [42, 43] }, 0],
			['MM', 0, { oneOf: [42, 43] }],
		],
		whole: tiff,
	},
	{ name: 'WebM', mimeType: 'video/webm', extensions: ['webm'], starts: [EBML], docType: 'webm', whole: ebml },
	{
		name: 'Matroska',
		mimeType: 'video/x-matroska',
		extensions: ['mkv'],
		starts: [EBML],
		docType: 'matroska',
		whole: ebml,
	},
	{ name: 'AVIF', mimeType: 'image/avif', extensions: ['avif'], iso: { brands: ['avif', 'avis'] }, whole: isoImage },
	{
		name: 'HEIC',
		mimeType: 'image/heic',
		extensions: ['heic'],
		iso: { brands: ['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis'] },
		whole: isoImage,
	},
	{ name: 'HEIF', mimeType: 'image/heif', extensions: ['heif'], iso: { brands: ['mif1', 'msf1'] }, whole: isoImage },
	{
		name: 'QuickTime',
		mimeType: 'video/quicktime',
		extensions: ['mov', 'qt'],
		iso: { brands: ['qt  '], firstBoxes: [...ISO_PADDING, 'moov', 'mdat'] },
		whole: isoVideo,
	},
	{
		name: 'MP4',
		mimeType: 'video/mp4',
		extensions: ['mp4', 'm4v'],
		// ISO's own brands, MP4's, DASH and CMAF segments', iTunes video's (mp4ra.org's list of brands).
		iso: {
			brands: [
				...['isom', 'iso2', 'iso3', 'iso4', 'iso5', 'iso6', 'iso7', 'iso8', 'iso9'],
				...['mp41', 'mp42', 'mp71', 'avc1', 'dash', 'msdh', 'msix', 'cmfc', 'cmf2', 'M4V ', 'M4VH', 'M4VP'],
			],
			firstBoxes: ['moof', 'sidx'],
		},
		whole: isoVideo,
	},
];

/** Bytes read from a file's start to tell what it is: the ISO walk steps over boxes inside them. */
export const MEDIA_HEAD_BYTES = 4096;

function partMatches(head: Buffer, at: number, part: Part): number | undefined {
	if (typeof part === 'string') {
		return head.toString('latin1', at, at + part.length) === part ? at + part.length : undefined;
	}
	if (typeof part === 'number') return head[at] === part ? at + 1 : undefined;
	if ('skip' in part) return at + part.skip <= head.length ? at + part.skip : undefined;
	const byte = head[at];
	if (byte === undefined) return undefined;
	const inside = 'oneOf' in part ? part.oneOf.includes(byte) : byte >= part.from && byte <= part.to;
	return inside ? at + 1 : undefined;
}

function startsWith(head: Buffer, pattern: readonly Part[]): boolean {
	let at: number | undefined = 0;
	for (const part of pattern) at = at === undefined ? undefined : partMatches(head, at, part);
	return at !== undefined;
}

/** The DocType of an EBML header (element 0x4282 with a one-byte size), within the header's first bytes. */
function ebmlDocType(head: Buffer): string | undefined {
	const at = head.subarray(0, 64).indexOf(Buffer.from([0x42, 0x82]));
	if (at < 0 || (head[at + 2] & 0x80) === 0) return undefined;
	const size = head[at + 2] & 0x7f;
	return head.toString('latin1', at + 3, at + 3 + size);
}

interface IsoHead {
	brands?: string[];
	firstBox: string;
}

/** Walks the boxes at the start of a file, over padding and previews, up to its ftyp or its first other box. */
function isoHead(head: Buffer): IsoHead | undefined {
	const firstBox = head.toString('latin1', 4, 8);
	if (head.length < 8 || !ISO_FIRST_BOXES.includes(firstBox)) return undefined;
	for (let at = 0; at + 8 <= head.length; ) {
		const size = head.readUInt32BE(at);
		const type = head.toString('latin1', at + 4, at + 8);
		if (!ISO_FIRST_BOXES.includes(type) || (size > 1 && size < 8)) return at === 0 ? undefined : { firstBox };
		if (type === 'ftyp' || type === 'styp') {
			const end = Math.min(size >= 16 ? at + size : head.length, head.length);
			const brands = [head.toString('latin1', at + 8, at + 12)];
			for (let brand = at + 16; brand + 4 <= end; brand += 4) brands.push(head.toString('latin1', brand, brand + 4));
			return { brands, firstBox };
		}
		if (!ISO_PADDING.includes(type) || size < 8) return { firstBox };
		at += size;
	}
	return { firstBox };
}

/**
 * By its brands when a row lists its major brand, else none: whatever else it claims to be compatible with (a Canon
 * raw still is `crx ` and `isom`), it is none of them. By its first box when it has no ftyp.
 */
function isoFormat(iso: IsoHead): MediaFormat | undefined {
	const rows = MEDIA_FORMATS.filter((format) => format.iso);
	if (iso.brands) {
		const [major] = iso.brands;
		if (!rows.some(({ iso: rule }) => rule!.brands.includes(major))) return undefined;
		return rows.find(({ iso: rule }) => rule!.brands.some((brand) => iso.brands!.includes(brand)));
	}
	return rows.find(({ iso: rule }) => rule!.firstBoxes?.includes(iso.firstBox));
}

export type BodyClass =
	| { kind: 'media'; format: MediaFormat }
	| { kind: 'text'; text: BodyText }
	| { kind: 'zeros' }
	| { kind: 'unknown' };

/** Signatures (no text starts like them), then text, then ISO boxes, whose names a sentence may hold ("free"). */
export function classifyBody(head: Buffer): BodyClass {
	const signed = MEDIA_FORMATS.find(
		(format) =>
			format.starts?.some((pattern) => startsWith(head, pattern)) &&
			(format.docType === undefined || ebmlDocType(head) === format.docType),
	);
	if (signed) return { kind: 'media', format: signed };
	const text = readAsText(head);
	if (text) return { kind: 'text', text };
	const iso = isoHead(head);
	const format = iso ? isoFormat(iso) : undefined;
	if (format) return { kind: 'media', format };
	const marked = byteOrderMark(head);
	if (marked) return { kind: 'text', text: marked };
	if (head.length && head.every((byte) => byte === 0)) return { kind: 'zeros' };
	return { kind: 'unknown' };
}

/** For an input file without a type. */
export function mimeFromFileName(fileName: string | undefined): string | undefined {
	const extension = /\.([a-z0-9]+)$/i.exec(fileName ?? '')?.[1]?.toLowerCase();
	return extension ? MEDIA_FORMATS.find((format) => format.extensions.includes(extension))?.mimeType : undefined;
}
