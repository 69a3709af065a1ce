/**
 * The API key never reaches a message or output data, in whatever encoding a server echoes it back: the forms and
 * encodings are listed in docs/errors-and-n8n-settings.md, "The key in answers"; escapes.ts undoes the escapes.
 */
import { shorten, SHOWN, type Shortening } from '../helpers/shorten';
import { isControl } from '../media/text';
import { readingsOf, startOf } from './escapes';

export type Redact = (text: string) => string;

const filtered = (text: string, keep: (code: number) => boolean) =>
	[...text].filter((char) => keep(char.codePointAt(0)!)).join('');

/** Spaces and tabs around a header value: the HTTP client and servers trim them. */
const trimHeaderSpace = (text: string) => text.replace(/^[ \t]+|[ \t]+$/g, '');

/**
 * The key as typed and as the Authorization header carries it (a key pasted with a trailing newline or spaces is sent
 * trimmed), longest first, so that a longer form is replaced whole before a shorter one inside it.
 */
function keyForms(apiKey: string): string[] {
	if (!apiKey) return [];
	// The HTTP client drops control characters from a header, line breaks too (it keeps only the tab), and on the wire
	// a header value carries only tab and Latin-1 text.
	const header = trimHeaderSpace(filtered(apiKey, (code) => !isControl(code) && (code < 0x0a || code > 0x0d)));
	const onTheWire = trimHeaderSpace(
		filtered(header, (code) => code === 0x09 || (code >= 0x20 && code <= 0x7e) || (code >= 0x80 && code <= 0xff)),
	);
	const forms = new Set([apiKey, apiKey.trim(), header, onTheWire].filter((form) => form.length > 0));
	return [...forms].sort((a, b) => b.length - a.length);
}

/** Keys shorter than this (bytes) are not looked for in base64: their few stable characters could match by chance. */
const MIN_BASE64_KEY_BYTES = 12;

/**
 * The key in base64 (standard and URL alphabet) at each of its three alignments inside a longer base64 text, cut to
 * the characters the key's bytes alone decide; of its UTF-8 bytes and, for Latin-1 keys, the bytes its header carried.
 */
function base64Forms(form: string): string[] {
	const encodings = [Buffer.from(form, 'utf8')];
	if (![...form].some((char) => char.codePointAt(0)! > 0xff)) encodings.push(Buffer.from(form, 'latin1'));
	return encodings
		.filter((bytes) => bytes.length >= MIN_BASE64_KEY_BYTES)
		.flatMap((bytes) =>
			[0, 1, 2].flatMap((offset) => {
				const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
				// Character i holds bits [6i, 6i + 6): it is the key's own when they all lie inside the key's bits.
				const core = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
				return [core, core.replace(/\+/g, '-').replace(/\//g, '_')];
			}),
		);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Built once per run. A key that holds escapes itself (`%41`) is looked for with them undone too. */
export function keyRedactor(apiKey: string): Redact {
	const forms = keyForms(apiKey);
	if (!forms.length) return (text) => text;
	const literal = new Set(
		forms.flatMap((form) => readingsOf(form).flatMap(({ text }) => [text, text.replace(/ /g, '+')])),
	);
	const cores = [...new Set(forms.flatMap(base64Forms))];
	const alternatives = [
		...[...literal].map((form) => ({ length: form.length, pattern: escapeRegExp(form) })),
		// Base64 ignores whitespace: a line may break anywhere in the key's characters.
		...cores.map((core) => ({ length: core.length, pattern: [...core].map(escapeRegExp).join('\\s*') })),
	].sort((a, b) => b.length - a.length);
	const pattern = new RegExp(alternatives.map((entry) => entry.pattern).join('|'), 'g');
	// Undoing escapes never lengthens a text: one shorter than every form holds none of them, in any reading.
	const shortest = Math.min(...alternatives.map((entry) => entry.length));
	return (text) => {
		if (text.length < shortest) return text;
		const spans: Array<[number, number]> = [];
		for (const reading of readingsOf(text)) {
			pattern.lastIndex = 0;
			for (let match = pattern.exec(reading.text); match; match = pattern.exec(reading.text)) {
				spans.push([startOf(reading, match.index), startOf(reading, match.index + match[0].length)]);
				if (!match[0].length) pattern.lastIndex++;
			}
		}
		return spans.length ? replaceSpans(text, spans) : text;
	};
}

/** The text with every span (overlapping ones merged) replaced by `by`. */
export function replaceSpans(text: string, spans: Array<[number, number]>, by = '[redacted]'): string {
	spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
	let result = '';
	let from = 0;
	for (const [start, end] of spans) {
		if (end <= from) continue;
		if (start >= from) result += `${text.slice(from, start)}${by}`;
		from = end;
	}
	return result + text.slice(from);
}

/** A text from an answer for an error: redacted before it is shortened, so that a key across the cut cannot leak. */
export function echo(
	text: string,
	redactText: Redact,
	max: number = SHOWN.echo,
	how: Shortening = { sayLength: true },
): string {
	return shorten(redactText(text), max, how);
}
