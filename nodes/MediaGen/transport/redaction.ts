/** The API key never reaches a message or output data, whatever a server echoes back. */

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

function redactForms(text: string, forms: string[]): string {
	let result = text;
	for (const form of forms) result = result.split(form).join('[redacted]');
	return result;
}

/** The key must never reach a message, even if a server or a library echoes it back (in any form it was sent). */
export function redact(text: string, apiKey: string): string {
	return redactForms(text, keyForms(apiKey));
}

/** The same for answer data, which becomes output data and error messages (e.g. a failed task's message). */
export function redactDeep(value: unknown, apiKey: string): unknown {
	if (!apiKey) return value;
	// The key's forms once for the whole answer, not per string in it.
	const forms = keyForms(apiKey);
	const walk = (entry: unknown): unknown => {
		if (typeof entry === 'string') return redactForms(entry, forms);
		if (Array.isArray(entry)) return entry.map(walk);
		if (entry && typeof entry === 'object') {
			return Object.fromEntries(Object.entries(entry).map(([name, inner]) => [redactForms(name, forms), walk(inner)]));
		}
		return entry;
	};
	return walk(value);
}

/** Longest text an answer may put into an error message or description (a message can be megabytes long). */
export const MAX_ECHO_CHARACTERS = 500;

/**
 * A text from an answer (a message, a location) for an error: redacted first, then cut, so that a key across the
 * cut cannot leak in part.
 */
export function echo(text: string, apiKey: string, max = MAX_ECHO_CHARACTERS): string {
	return clip(redact(text, apiKey), max);
}

/** Cuts an already redacted text to `max` characters, saying how long it was. */
export function clip(text: string, max = MAX_ECHO_CHARACTERS): string {
	return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/** The start of a body for a message: redacted first, then cut, so that a key across the cut cannot leak in part. */
export function snippet(body: unknown, apiKey: string): string {
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : JSON.stringify(body);
	const flat = redact(text ?? '', apiKey)
		.replace(/\s+/g, ' ')
		.trim();
	return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
