/**
 * The key written every way a server can echo it, for the secrets tests and the explorer's
 * generator "keys": each encoding from the text itself, written here without the node's code, and how to tell
 * whether a text still holds it. A server echoes the key inside a longer text (a URL, a page, a token), so each
 * encoding is of the key alone, or of a text around it where the encoding needs one (base64).
 */

export interface KeyEncoding {
	name: string;
	/** The key as this encoding writes it, inside whatever text a server puts it in. */
	encode: (key: string) => string;
	/**
	 * Base64, which may be broken into lines: the characters that the key alone decides, looked for in the text with
	 * its line breaks left out (else the text is searched for `encode(key)` itself).
	 */
	core?: (key: string) => string;
}

const bytesOf = (text: string) => [...Buffer.from(text, 'utf8')];
const hex2 = (value: number) => value.toString(16).padStart(2, '0');
const eachChar = (key: string, write: (char: string, code: number) => string) =>
	[...key].map((char) => write(char, char.codePointAt(0)!)).join('');

/** Every byte percent-encoded, unreserved characters too (as some servers do). */
const percentAll = (text: string, upper = true) =>
	bytesOf(text)
		.map((byte) => `%${upper ? hex2(byte).toUpperCase() : hex2(byte)}`)
		.join('');

/** Named references of HTML for ASCII punctuation; other characters as decimal references. */
const NAMED: Record<string, string> = {
	'&': '&amp;',
	'<': '&lt;',
	'>': '&gt;',
	'"': '&quot;',
	"'": '&apos;',
	'/': '&sol;',
	'-': '&#45;',
	_: '&lowbar;',
	'.': '&period;',
	':': '&colon;',
	'=': '&equals;',
	'+': '&plus;',
	'?': '&quest;',
	'%': '&percnt;',
	'#': '&num;',
};

/** Base64 of `prefix + key + suffix`, and the part of it the key alone decides. */
function base64Of(key: string, prefix: string, url: boolean) {
	const encoded = Buffer.from(`${prefix}${key}!`).toString(url ? 'base64url' : 'base64');
	const start = Math.ceil((Buffer.byteLength(prefix) * 8) / 6) + 1;
	return { encoded, core: encoded.slice(start, start + Math.floor((Buffer.byteLength(key) * 8) / 6) - 2) };
}

/** Line breaks as they may stand in a text that carries base64: real ones, or escaped in JSON. */
const withoutBreaks = (text: string) => text.replace(/\\r|\\n|\s/g, '');

/** Base64 broken into lines of `width` characters with `eol` between them. */
const wrapped = (text: string, width: number, eol: string) => text.match(new RegExp(`.{1,${width}}`, 'g'))!.join(eol);

const base64Encoding = (name: string, prefix: string, url: boolean, width?: number, eol = '\n'): KeyEncoding => ({
	name,
	encode: (key) => {
		const { encoded } = base64Of(key, prefix, url);
		return width ? wrapped(encoded, width, eol) : encoded;
	},
	core: (key) => base64Of(key, prefix, url).core,
});

export const KEY_ENCODINGS: KeyEncoding[] = [
	{ name: 'as it is', encode: (key) => key },
	{ name: 'percent-encoded, every byte', encode: (key) => percentAll(key) },
	{ name: 'percent-encoded in lower case', encode: (key) => percentAll(key, false) },
	{ name: 'percent-encoded twice', encode: (key) => percentAll(key).replace(/%/g, '%25') },
	{ name: 'percent-encoded three times', encode: (key) => percentAll(key).replace(/%/g, '%2525') },
	{
		name: 'percent-encoded, mixed case, some bytes',
		encode: (key) => eachChar(key, (c, i) => (i % 2 ? percentAll(c, i % 3 === 0) : c)),
	},
	{ name: 'form-encoded', encode: (key) => new URLSearchParams({ k: key }).toString().slice(2) },
	{ name: 'HTML decimal references', encode: (key) => eachChar(key, (_c, code) => `&#${code};`) },
	{
		name: 'HTML decimal references, zero-padded, no semicolons',
		encode: (key) => eachChar(key, (_c, code) => `&#00${code}`),
	},
	{ name: 'HTML hex references', encode: (key) => eachChar(key, (_c, code) => `&#x${code.toString(16)};`) },
	{
		name: 'HTML hex references in upper case',
		encode: (key) => eachChar(key, (_c, code) => `&#X${code.toString(16).toUpperCase()};`),
	},
	{ name: 'HTML named references', encode: (key) => eachChar(key, (c, code) => NAMED[c] ?? `&#${code};`) },
	{ name: 'HTML references escaped again', encode: (key) => eachChar(key, (_c, code) => `&amp;#${code};`) },
	{ name: 'HTML references, percent-encoded', encode: (key) => eachChar(key, (_c, code) => `%26%23${code}%3B`) },
	{
		name: 'JSON \\u escapes',
		encode: (key) => eachChar(key, (_c, code) => `\\u${code.toString(16).padStart(4, '0')}`),
	},
	{
		name: 'JSON \\u escapes in upper case',
		encode: (key) => eachChar(key, (_c, code) => `\\u${code.toString(16).padStart(4, '0').toUpperCase()}`),
	},
	{
		name: 'JSON escapes inside a JSON string',
		encode: (key) => eachChar(key, (_c, code) => `\\\\u${code.toString(16).padStart(4, '0')}`),
	},
	{ name: 'JavaScript \\x escapes', encode: (key) => eachChar(key, (_c, code) => `\\x${hex2(code)}`) },
	{ name: 'JavaScript \\u{…} escapes', encode: (key) => eachChar(key, (_c, code) => `\\u{${code.toString(16)}}`) },
	{
		name: 'a mix of all of them, character by character',
		encode: (key) =>
			eachChar(
				key,
				(c, code) =>
					[c, `&#${code};`, `%${hex2(code)}`, `\\u00${hex2(code)}`, `&#x${hex2(code)};`, `%25${hex2(code)}`][code % 6],
			),
	},
	base64Encoding('base64', 'Basic user:', false),
	base64Encoding('base64url', 't=', true),
	base64Encoding('base64 in MIME lines of 76', 'x'.repeat(70), false, 76, '\r\n'),
	base64Encoding('base64 in lines of 8', 'ab', false, 8, '\n'),
	base64Encoding('base64url in lines of 5', 'abc', true, 5, '\n'),
];

/**
 * The encodings of the key that `text` still holds, by name. The text may be JSON that carries what the node wrote
 * (a run's data, stringified): it is also read with one layer of JSON string escapes undone, so that an echo written
 * with backslashes is found there too.
 */
export function keyLeaks(text: string, key: string): string[] {
	const readings = [text, text.replace(/\\(["\\/])/g, '$1')];
	const unbroken = readings.map(withoutBreaks);
	return KEY_ENCODINGS.filter((encoding) =>
		encoding.core
			? unbroken.some((reading) => reading.includes(encoding.core!(key)))
			: readings.some((reading) => reading.includes(encoding.encode(key))),
	).map((encoding) => encoding.name);
}
