/**
 * A multipart/form-data body whose file parts are read from n8n's binary storage only while they are sent. The
 * platform FormData takes only Blobs, held in memory (sixteen 32 MB references would be read whole); axios streams
 * any spec-compliant form (`append`, an entry iterator, the FormData tag) through each part's `stream()` and `size`.
 */
import { randomBytes } from 'node:crypto';

/** `stream()` is called once, when the part is sent. */
export interface StreamedFile {
	readonly name: string;
	readonly type: string;
	readonly size: number;
	stream(): AsyncIterable<Uint8Array>;
}

type FormValue = string | Blob | StreamedFile;

export class StreamingForm {
	readonly [Symbol.toStringTag] = 'FormData';

	/** Own and enumerable, so that n8n's "is the body empty" check never drops the form. */
	readonly entryList: Array<[string, FormValue]> = [];

	append(name: string, value: FormValue, fileName?: string): void {
		const named = value instanceof Blob && fileName !== undefined;
		this.entryList.push([name, named ? new File([value], fileName, { type: value.type }) : value]);
	}

	entries(): IterableIterator<[string, FormValue]> {
		return this.entryList[Symbol.iterator]();
	}

	[Symbol.iterator](): IterableIterator<[string, FormValue]> {
		return this.entries();
	}
}

/** Opens its source only when sent; refuses to send other than `size` bytes (the Content-Length says it). */
export function streamedFile(
	name: string,
	type: string,
	size: number,
	open: () => Promise<AsyncIterable<Uint8Array> & { destroy?: () => void }>,
): StreamedFile {
	return {
		name,
		type,
		size,
		stream: () =>
			(async function* () {
				const source = await open();
				let sent = 0;
				try {
					for await (const chunk of source) {
						sent += chunk.length;
						if (sent > size) throw new Error(`file "${name}" is larger than its stored size (${size} bytes)`);
						yield chunk;
					}
				} finally {
					source.destroy?.();
				}
				if (sent !== size) throw new Error(`file "${name}" ended after ${sent} of ${size} bytes`);
			})(),
	};
}

/** Text fields as one buffer skip the form streaming's 0.1–0.2 ms of CPU, a tenth or more of a creation's cost. */
export function textFormBody(form: StreamingForm): { body: Buffer; contentType: string } | undefined {
	if (form.entryList.some(([, value]) => typeof value !== 'string')) return undefined;
	const fields = form.entryList as Array<[string, string]>;
	const boundary = `----MediaGenFormBoundary${randomBytes(16).toString('hex')}`;
	// A value that holds the boundary would end its part early: such a form is streamed instead.
	if (fields.some(([name, value]) => value.includes(boundary) || name.includes(boundary))) return undefined;
	const parts = fields.map(
		([name, value]) =>
			`--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(name)}"\r\n\r\n${wireText(value)}\r\n`,
	);
	return {
		body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`, 'utf8'),
		contentType: `multipart/form-data; boundary=${boundary}`,
	};
}

/** Line breaks as every form encoder sends them, CRLF: the API counts what it receives, so length limits do too. */
export function wireText(value: string): string {
	return value.replace(/\r?\n|\r/g, '\r\n');
}

/** A field name inside its quotes, escaped as the HTML form encoding (and the HTTP client's own form) does. */
function escapeName(name: string): string {
	return name.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}
