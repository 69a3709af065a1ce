/**
 * The API key never reaches a message or output data, whatever a server echoes back, in whatever encoding it comes
 * back: raw, percent-encoded (a result URL), form-encoded, base64 (a token), JSON-escaped.
 */

/** A text with the key replaced, in every form it can take (see keyRedactor). */
export type Redact = (text: string) => string;

/** The key as the HTTP client puts it into a header: it drops C0 control characters (but tab) and DEL anywhere. */
function withoutControlCharacters(text: string): string {
	return [...text].filter((char) => !isControl(char.codePointAt(0)!)).join('');
}

function isControl(code: number): boolean {
	return (code <= 0x1f && code !== 0x09) || code === 0x7f;
}

/** What a header value can carry on the wire: tab and Latin-1 text; the HTTP client drops anything else. */
function withinLatin1(text: string): string {
	return [...text]
		.filter((char) => {
			const code = char.codePointAt(0)!;
			return code === 0x09 || (code >= 0x20 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);
		})
		.join('');
}

/** Spaces and tabs around a header value: the HTTP client and servers trim them. */
const trimHeaderSpace = (text: string) => text.replace(/^[ \t]+|[ \t]+$/g, '');

/**
 * Every form of the key that can reach the server, and so come back in an answer: as typed, and as the
 * Authorization header carries it (a key pasted with a trailing newline, CRLF or spaces is sent and echoed
 * trimmed). Longest first, so that a longer form is replaced whole before a shorter one inside it.
 */
function keyForms(apiKey: string): string[] {
	if (!apiKey) return [];
	const header = trimHeaderSpace(withoutControlCharacters(apiKey));
	const onTheWire = trimHeaderSpace(withinLatin1(header));
	const forms = new Set([apiKey, apiKey.trim(), header, onTheWire].filter((form) => form.length > 0));
	return [...forms].sort((a, b) => b.length - a.length);
}

/** Keys shorter than this (UTF-8 bytes) are not looked for in base64: their few stable characters could match by chance. */
const MIN_BASE64_KEY_BYTES = 12;

/**
 * The key's bytes in base64 at each of the three alignments it can have inside a longer base64 text (an
 * Authorization header, a token, a data: URL), cut to the characters that the key's bytes alone decide; in the
 * standard and the URL alphabet.
 */
function base64Forms(form: string): string[] {
	const bytes = Buffer.from(form, 'utf8');
	if (bytes.length < MIN_BASE64_KEY_BYTES) return [];
	const cores: string[] = [];
	for (const offset of [0, 1, 2]) {
		const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
		// Character i holds bits [6i, 6i + 6): it is the key's own when they all lie inside the key's bits.
		const core = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
		cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
	}
	return cores;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A number in hex digits, each as it may be written, in either case. */
const hex = (value: number, width: number) =>
	[...value.toString(16).padStart(width, '0')]
		.map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit))
		.join('');

/** JSON's short escapes of the characters that have one, as patterns. */
const JSON_SHORT_ESCAPES: Record<string, string> = { '"': '\\\\"', '\\': '\\\\\\\\', '/': '\\\\/' };

/**
 * Every way one character may be written in a text that carries it: as itself; percent-encoded (its UTF-8 bytes,
 * hex in either case, also encoded twice as %25XX), `+` for a space (form encoding); JSON-escaped (`\u00e9`, `\"`).
 */
function characterPattern(char: string): string {
	const utf8 = [...Buffer.from(char, 'utf8')];
	const units = [...Array(char.length).keys()].map((index) => char.charCodeAt(index));
	const ways = [
		escapeRegExp(char),
		utf8.map((byte) => `%${hex(byte, 2)}`).join(''),
		utf8.map((byte) => `%25${hex(byte, 2)}`).join(''),
		units.map((unit) => `\\\\u${hex(unit, 4)}`).join(''),
	];
	if (char === ' ') ways.push('\\+');
	if (JSON_SHORT_ESCAPES[char]) ways.push(JSON_SHORT_ESCAPES[char]);
	return `(?:${ways.join('|')})`;
}

/** Replaces every occurrence of each text (longest first) with `[redacted]`. */
function replaceLiterally(text: string, forms: string[]): string {
	let result = text;
	for (const form of forms) if (result.includes(form)) result = result.split(form).join('[redacted]');
	return result;
}

/**
 * A redactor for one key: it replaces with `[redacted]` every form in which the key can reach a text (as typed and
 * as sent, see keyForms, and each of them in base64), each character of which may be written as itself,
 * percent-encoded (also form-encoded) or JSON-escaped, in any mix. A text without `%` or `\` holds no escape, so
 * only the forms as they are (and with `+` for a space) are looked for; the pattern for escapes is built on the
 * first text that needs it.
 */
export function keyRedactor(apiKey: string): Redact {
	const forms = keyForms(apiKey);
	if (!forms.length) return (text) => text;
	const written = [...new Set([...forms, ...forms.flatMap(base64Forms)])];
	const literal = [...new Set([...written, ...written.map((form) => form.replace(/ /g, '+'))])].sort(
		(a, b) => b.length - a.length,
	);
	let escaped: RegExp | undefined;
	return (text) => {
		if (!text.includes('%') && !text.includes('\\')) return replaceLiterally(text, literal);
		escaped ??= new RegExp(literal.map((form) => [...form].map(characterPattern).join('')).join('|'), 'g');
		return text.replace(escaped, '[redacted]');
	};
}

/** Longest text an answer may put into an error message or description (a message can be megabytes long). */
export const MAX_ECHO_CHARACTERS = 500;

/**
 * A text from an answer (a message, a location) for an error: redacted first, then cut, so that a key across the
 * cut cannot leak in part.
 */
export function echo(text: string, redactText: Redact, max = MAX_ECHO_CHARACTERS): string {
	return clip(redactText(text), max);
}

/** Cuts an already redacted text to `max` characters, saying how long it was. */
export function clip(text: string, max = MAX_ECHO_CHARACTERS): string {
	return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/** The start of a body for a message: redacted first, then cut, so that a key across the cut cannot leak in part. */
export function snippet(body: unknown, redactText: Redact): string {
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : JSON.stringify(body);
	const flat = redactText(text ?? '')
		.replace(/\s+/g, ' ')
		.trim();
	return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
