/**
 * The one way a text is shortened for a message: an answer's message, a body's start, a URL, a value of bad input,
 * a quoted result body. Messages can be megabytes long and URLs (data:) as long; an error shows their start.
 */

/** How many characters of each kind of text a message shows. */
export const SHOWN = {
	/** A text the API answered (a message, a location, a status text): long enough to be read whole. */
	echo: 500,
	/** The start of a body that is not what was expected, on one line. */
	body: 200,
	url: 120,
	/** A Content-Type a host sent. */
	mimeType: 100,
	/** The original error an unexpected exception's message quotes (its text may come from data). */
	cause: 200,
	/** A value of bad input (a value can be a whole document). */
	value: 60,
} as const;

export interface Shortening {
	/** Each run of whitespace folded into one space, the ends trimmed, so that a page's start reads on one line. */
	fold?: boolean;
	/** After the cut, how long the text was: "… (1234 characters)". */
	sayLength?: boolean;
	/** Counted in characters rather than UTF-16 code units, so that no character is cut in two. */
	codePoints?: boolean;
}

/** The text, or its first `max` characters and "…" when it is longer. */
export function shorten(text: string, max: number, { fold, sayLength, codePoints }: Shortening = {}): string {
	const flat = fold ? text.replace(/\s+/g, ' ').trim() : text;
	const characters = codePoints ? [...flat] : undefined;
	const length = characters ? characters.length : flat.length;
	if (length <= max) return flat;
	const kept = characters ? characters.slice(0, max).join('') : flat.slice(0, max);
	return `${kept}…${sayLength ? ` (${length} characters)` : ''}`;
}
