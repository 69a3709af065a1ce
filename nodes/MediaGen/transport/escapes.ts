/**
 * The escapes a server may write a text with (docs/errors-and-n8n-settings.md, "The key in answers"), undone a layer at
 * a time; each character knows where it came from, so that redaction.ts replaces the original text.
 */

export interface Reading {
	text: string;
	/** Absent for the original text itself. */
	segments?: Segments;
}

/** Each segment is a run copied from the previous reading, or one character an escape in it decoded to. */
interface Segments {
	previous: Reading;
	/** Where each segment starts in this reading's text (ascending), and where it came from in the previous one. */
	at: number[];
	from: number[];
	copied: boolean[];
}

/** HTML's names of U+00A0 to U+00FF, sixteen a row. */
const LATIN1_NAMES = [
	'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr',
	'deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest',
	'Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml',
	'ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig',
	'agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml',
	'eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml',
].flatMap((row) => row.split(' '));

/**
 * HTML's named references for what a key or a URL may hold: tab, line feed and ASCII punctuation (each character,
 * then its names), and Latin-1. A Map: a name such as `constructor` is no reference.
 */
const NAMED = new Map<string, number>(LATIN1_NAMES.map((name, index) => [name, 0xa0 + index]));
let named = 0;
for (const token of [
	'\t Tab \n NewLine ! excl " quot QUOT # num $ dollar % percnt & amp AMP \' apos ( lpar ) rpar * ast midast + plus',
	', comma . period / sol : colon ; semi < lt LT = equals > gt GT ? quest @ commat [ lsqb lbrack \\ bsol ] rsqb',
	'rbrack ^ Hat _ lowbar UnderBar ` grave DiacriticalGrave { lcub lbrace | vert verbar VerticalLine } rcub rbrace',
].flatMap((row) => row.split(' '))) {
	if (token.length === 1) named = token.charCodeAt(0);
	else NAMED.set(token, named);
}

/** References browsers read without their semicolon too. */
const LEGACY = new Set(['amp', 'AMP', 'lt', 'LT', 'gt', 'GT', 'quot', 'QUOT']);

/** Single-character escapes of JSON and JavaScript; a quote, a backslash or a slash stands for itself. */
const SHORT_ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v' };

const isCodePoint = (value: number) => value > 0 && value <= 0x10ffff && !(value >= 0xd800 && value <= 0xdfff);

class Output {
	readonly parts: string[] = [];
	readonly segments: Segments;
	length = 0;

	constructor(private readonly reading: Reading) {
		this.segments = { previous: reading, at: [], from: [], copied: [] };
	}

	/** A run copied from the reading as it was, or one character an escape at `from` decoded to. */
	private add(text: string, from: number, copied: boolean): void {
		this.segments.at.push(this.length);
		this.segments.from.push(from);
		this.segments.copied.push(copied);
		this.parts.push(text);
		this.length += text.length;
	}

	copy(from: number, to: number): void {
		if (to > from) this.add(this.reading.text.slice(from, to), from, true);
	}

	push(codePoint: number, at: number): void {
		this.add(String.fromCodePoint(codePoint), at, false);
	}

	done(end: number): Reading {
		// The end of the text maps to the end of the reading before it.
		this.add('', end, true);
		return { text: this.parts.join(''), segments: this.segments };
	}
}

function sequenceLength(lead: number): number {
	return lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xc2 && lead < 0xe0 ? 2 : 1;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** -1 unless the bytes are one character's whole, shortest UTF-8. */
function utf8CodePoint(bytes: number[]): number {
	try {
		return utf8.decode(Uint8Array.from(bytes)).codePointAt(0) ?? -1;
	} catch {
		return -1;
	}
}

/** A run of `%XX` (UTF-8 sequences where they are whole, else each byte as Latin-1), or JavaScript's `%uXXXX`. */
const PERCENT = /((?:%[0-9a-fA-F]{2})+)|%[uU]([0-9a-fA-F]{4})/y;

function percentRun(text: string, at: number, out: Output): number {
	PERCENT.lastIndex = at;
	const match = PERCENT.exec(text);
	if (!match) return 0;
	const [whole, run, unit] = match;
	if (unit) {
		out.push(parseInt(unit, 16), at);
		return whole.length;
	}
	const bytes = [...Buffer.from(run.replace(/%/g, ''), 'hex')];
	for (let index = 0; index < bytes.length; ) {
		const size = sequenceLength(bytes[index]);
		const codePoint = size > 1 ? utf8CodePoint(bytes.slice(index, index + size)) : -1;
		out.push(codePoint >= 0 ? codePoint : bytes[index], at + index * 3);
		index += codePoint >= 0 ? size : 1;
	}
	return whole.length;
}

/** `&#65;`, `&#x41;` (at most 9 digits), or `&name` of 2 to 31 letters and digits; the semicolon may be missing. */
const REFERENCE = /&(?:#(?:[xX]([0-9a-fA-F]{1,9})|(\d{1,9}))|([A-Za-z0-9]{2,31})(?![A-Za-z0-9]))(;?)/y;

function characterReference(text: string, at: number, out: Output): number {
	REFERENCE.lastIndex = at;
	const match = REFERENCE.exec(text);
	if (!match) return 0;
	const [whole, hex, decimal, name, semicolon] = match;
	if (name === undefined) {
		const value = hex ? parseInt(hex, 16) : Number(decimal);
		if (!isCodePoint(value)) return 0;
		out.push(value, at);
		return whole.length;
	}
	const value = NAMED.get(name);
	// Without a semicolon only the legacy references, and only as a whole word ("&amp" but not "&ampere").
	if (value === undefined || !(semicolon || LEGACY.has(name))) return 0;
	out.push(value, at);
	return whole.length;
}

/** `\u{41}` (a code point), `\u0041`, `\x41`, or a single-character escape. */
const BACKSLASH = /\\(?:u\{([0-9a-fA-F]{1,9})\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|(["'\\/nrtbfv]))/y;

function backslashEscape(text: string, at: number, out: Output): number {
	BACKSLASH.lastIndex = at;
	const match = BACKSLASH.exec(text);
	if (!match) return 0;
	const [whole, codePoint, unit, byte, char] = match;
	const value = char ? (SHORT_ESCAPES[char] ?? char).charCodeAt(0) : parseInt(codePoint ?? unit ?? byte, 16);
	if (codePoint && !isCodePoint(value)) return 0;
	out.push(value, at);
	return whole.length;
}

/** Where character `index` of a reading came from in the original text. */
export function startOf(reading: Reading, index: number): number {
	let current = reading;
	let position = index;
	while (current.segments) {
		const { at, from, copied, previous } = current.segments;
		// The last segment that starts at or before the position.
		let low = 0;
		let high = at.length - 1;
		while (low < high) {
			const middle = (low + high + 1) >> 1;
			if (at[middle] <= position) low = middle;
			else high = middle - 1;
		}
		position = copied[low] ? from[low] + (position - at[low]) : from[low];
		current = previous;
	}
	return position;
}

/** Undefined when the reading holds no escape. */
const DECODERS = { '%': percentRun, '&': characterReference, '\\': backslashEscape };

function undoOneLayer(reading: Reading): Reading | undefined {
	const { text } = reading;
	const out = new Output(reading);
	let plainFrom = 0;
	const triggers = /[%&\\]/g;
	for (let match = triggers.exec(text); match; match = triggers.exec(text)) {
		const at = match.index;
		out.copy(plainFrom, at);
		// Each decoder writes only when it read an escape; what is not one stays as it is.
		const used = DECODERS[text[at] as keyof typeof DECODERS](text, at, out);
		plainFrom = at + used;
		triggers.lastIndex = Math.max(plainFrom, at + 1);
	}
	if (!out.segments.copied.includes(false)) return undefined;
	out.copy(plainFrom, text.length);
	return out.done(text.length);
}

/** Decoding stops after this many layers: real texts are escaped two or three times at most. */
export const MAX_LAYERS = 8;

export function readingsOf(text: string): Reading[] {
	const readings: Reading[] = [{ text }];
	// Without `%`, `&` or `\` a text holds no escape this file undoes.
	if (!/[%&\\]/.test(text)) return readings;
	for (let layer = 0; layer < MAX_LAYERS; layer++) {
		const next = undoOneLayer(readings[readings.length - 1]);
		if (!next) break;
		readings.push(next);
	}
	return readings;
}
