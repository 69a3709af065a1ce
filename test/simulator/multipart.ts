export interface MultipartPart {
	name: string;
	filename?: string;
	contentType?: string;
	data: Buffer;
}

/** A strict-enough multipart/form-data parser: the simulator must see exactly what a client sent. */
export function parseMultipart(body: Buffer, contentTypeHeader: string): MultipartPart[] {
	const match = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentTypeHeader);
	if (!match) throw new Error('multipart body without boundary');
	const boundary = Buffer.from(`--${match[1] ?? match[2]}`);
	const parts: MultipartPart[] = [];
	let position = body.indexOf(boundary);
	if (position < 0) throw new Error('multipart boundary not found in body');
	while (true) {
		position += boundary.length;
		if (body.subarray(position, position + 2).toString() === '--') break;
		position += 2; // CRLF after the boundary
		const headerEnd = body.indexOf('\r\n\r\n', position);
		if (headerEnd < 0) throw new Error('multipart part without header end');
		const headerText = body.subarray(position, headerEnd).toString('utf8');
		const next = body.indexOf(boundary, headerEnd + 4);
		if (next < 0) throw new Error('multipart part without closing boundary');
		const data = body.subarray(headerEnd + 4, next - 2); // strip the CRLF before the boundary
		const headers: Record<string, string> = {};
		for (const line of headerText.split('\r\n')) {
			const colon = line.indexOf(':');
			if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
		}
		const disposition = headers['content-disposition'] ?? '';
		const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
		if (name === undefined) throw new Error('multipart part without a name');
		const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
		parts.push({ name, filename, contentType: headers['content-type'], data });
		position = next;
	}
	return parts;
}
