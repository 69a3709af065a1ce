/**
 * Text in any Unicode encoding: an API answer's body (answerText), and whether a result body's first bytes are text
 * (hosts send sign-in and error pages in a file's place, under any Content-Type), in which encoding, of what kind.
 */

export interface BodyText {
	/** "UTF-8", "UTF-16 LE with a byte order mark", "an 8-bit encoding", … */
	encoding: string;
	/** Without its byte order mark. */
	text: string;
}

/** Control characters that text does not hold: every C0 control but tab, line feed, vertical tab, form feed, CR. */
export function isControl(code: number): boolean {
	return (code < 0x20 && (code < 0x09 || code > 0x0d)) || code === 0x7f;
}

const BOMS: ReadonlyArray<readonly [encoding: string, bytes: readonly number[]]> = [
	['UTF-32 LE', [0xff, 0xfe, 0x00, 0x00]],
	['UTF-32 BE', [0x00, 0x00, 0xfe, 0xff]],
	['UTF-8', [0xef, 0xbb, 0xbf]],
	['UTF-16 LE', [0xff, 0xfe]],
	['UTF-16 BE', [0xfe, 0xff]],
];

function bomOf(head: Buffer): (typeof BOMS)[number] | undefined {
	return BOMS.find(([, bytes]) => bytes.every((byte, index) => head[index] === byte));
}

/** The bytes without an incomplete UTF-8 sequence at their end (the head may cut a character in two). */
function wholeUtf8(bytes: Buffer): Buffer {
	for (let back = 1; back <= Math.min(3, bytes.length); back++) {
		const byte = bytes[bytes.length - back];
		if (byte < 0x80) return bytes;
		if (byte >= 0xc0) {
			const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
			return length > back ? bytes.subarray(0, bytes.length - back) : bytes;
		}
	}
	return bytes;
}

/** An incomplete last unit is dropped; one that is no code point is U+FFFD, or with `strict` makes it not UTF-32. */
function decodeUtf32(bytes: Buffer, bigEndian: boolean, strict: boolean): string | undefined {
	const points: number[] = [];
	let text = '';
	for (let at = 0; at + 4 <= bytes.length; at += 4) {
		const point = bigEndian ? bytes.readUInt32BE(at) : bytes.readUInt32LE(at);
		const invalid = point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff);
		if (invalid && strict) return undefined;
		points.push(invalid ? 0xfffd : point);
		// String.fromCodePoint takes its points as arguments: a 4 MiB answer is decoded a slice at a time.
		if (points.length === 8192) text += String.fromCodePoint(...points.splice(0));
	}
	return text + String.fromCodePoint(...points);
}

/** `head`: first bytes, a cut last character dropped, undefined when not text; an answer is read leniently. */
function decode(bytes: Buffer, encoding: string, head: boolean): string | undefined {
	const bigEndian = encoding.endsWith('BE');
	if (encoding.startsWith('UTF-32')) return decodeUtf32(bytes, bigEndian, head);
	if (encoding === 'UTF-8') {
		if (!head) return bytes.toString('utf8');
		try {
			return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(wholeUtf8(bytes));
		} catch {
			return undefined;
		}
	}
	const even = Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
	const text = (bigEndian ? even.swap16() : even).toString('utf16le');
	const last = text.charCodeAt(text.length - 1);
	return head && last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
}

/** Without a byte order mark, JSON's first character is ASCII: its zero bytes tell UTF-16 and UTF-32 (RFC 4627, 3). */
export function answerText(bytes: Buffer): string {
	const mark = bomOf(bytes);
	if (mark) return decode(bytes.subarray(mark[1].length), mark[0], false)!;
	const [a, b, c, d] = [bytes[0], bytes[1], bytes[2], bytes[3]];
	if (bytes.length >= 4 && a === 0 && b === 0 && c === 0 && d !== 0) return decode(bytes, 'UTF-32 BE', false)!;
	if (bytes.length >= 4 && a !== 0 && b === 0 && c === 0 && d === 0) return decode(bytes, 'UTF-32 LE', false)!;
	if (bytes.length >= 2 && a === 0 && b !== 0) return decode(bytes, 'UTF-16 BE', false)!;
	if (bytes.length >= 2 && a !== 0 && b === 0) return decode(bytes, 'UTF-16 LE', false)!;
	return bytes.toString('utf8');
}

/** No control character and no lone surrogate (UTF-16 of something that is not text has them). */
function isText(text: string): boolean {
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		if (isControl(code) || code === 0xfffe || code === 0xffff) return false;
		if (code >= 0xd800 && code <= 0xdbff) {
			const next = text.charCodeAt(index + 1);
			if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
			index++;
		} else if (code >= 0xdc00 && code <= 0xdfff) return false;
	}
	return true;
}

/**
 * The scripts and punctuation of messages. UTF-16 without a byte order mark is text only when every unit is in them:
 * a binary file's units fall outside about every third unit, so a head of a few hundred never passes by chance.
 */
const SCRIPT_RANGES: ReadonlyArray<readonly [number, number]> = [
	[0x09, 0x0d],
	[0x20, 0x7e],
	[0xa0, 0x24f], // Latin
	[0x370, 0x52f], // Greek, Cyrillic
	[0x590, 0x6ff], // Hebrew, Arabic
	[0x900, 0x97f], // Devanagari
	[0xe00, 0xe7f], // Thai
	[0x2000, 0x20cf], // punctuation, currency
	[0x3000, 0x30ff], // CJK punctuation, kana
	[0x3400, 0x4dbf], // CJK extension A
	[0x4e00, 0x9fff], // CJK
	[0xac00, 0xd7a3], // Hangul
	[0xff00, 0xffef], // full-width forms
];

function inScripts(text: string): boolean {
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		if (!SCRIPT_RANGES.some(([from, to]) => code >= from && code <= to)) return false;
	}
	return true;
}

const asciiUnits = (text: string) => [...text].filter((char) => char >= '\t' && char <= '~').length;

/**
 * The byte order that reads as text (with more ASCII, if both do): a message holds some (0x01 0x01 reads as "ā"), a
 * binary file's UTF-32 units almost always exceed 0x10FFFF, and the script rule keeps out arrays of small integers.
 */
function withoutMark(head: Buffer, unicode: 'UTF-32' | 'UTF-16'): BodyText | undefined {
	const readings = ['LE', 'BE']
		.map((order) => ({ encoding: `${unicode} ${order}`, text: decode(head, `${unicode} ${order}`, true) }))
		.filter(({ text }) => text !== undefined && asciiUnits(text) > 0 && isText(text) && inScripts(text));
	return (readings as BodyText[]).sort((a, b) => asciiUnits(b.text) - asciiUnits(a.text))[0];
}

/** Undefined for bytes that are not text in any encoding. */
export function readAsText(head: Buffer): BodyText | undefined {
	const mark = bomOf(head);
	if (mark) {
		const text = decode(head.subarray(mark[1].length), mark[0], true);
		return text !== undefined && isText(text) ? { encoding: `${mark[0]} with a byte order mark`, text } : undefined;
	}
	const utf8 = decode(head, 'UTF-8', true);
	if (utf8 !== undefined && utf8.length > 0 && isText(utf8)) return { encoding: 'UTF-8', text: utf8 };
	const wide = withoutMark(head, 'UTF-32') ?? withoutMark(head, 'UTF-16');
	if (wide || !head.length || head.some(isControl)) return wide;
	// Single-byte text (Latin-1, Windows-125x, …): no control byte at all. Shown as Latin-1.
	return { encoding: 'an 8-bit encoding', text: head.toString('latin1') };
}

/** A byte order mark before bytes that are not text: still text by its own account (no format starts with one). */
export function byteOrderMark(head: Buffer): BodyText | undefined {
	const mark = bomOf(head);
	if (!mark) return undefined;
	const text = head.subarray(mark[1].length).toString(mark[0] === 'UTF-8' ? 'utf8' : 'latin1');
	return { encoding: `${mark[0]} with a byte order mark`, text };
}

export function kindOfText(text: string): string {
	const start = text.trimStart().slice(0, 2048).toLowerCase();
	if (/^<!doctype html|^<html/.test(start)) return 'an HTML page';
	if (/<svg[\s>]/.test(start)) return 'an SVG image (markup, which can carry scripts)';
	if (/<html[\s>]|<body[\s>]|<head[\s>]/.test(start)) return 'an HTML page';
	if (start.startsWith('<')) return 'XML';
	if (/^[{[]/.test(start)) return 'JSON';
	return 'text';
}
