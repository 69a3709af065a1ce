/** The API key never reaches a message or output data, whatever a server echoes back. */

/** The key must never reach a message, even if a server or a library echoes it back. */
export function redact(text: string, apiKey: string): string {
	return apiKey ? text.split(apiKey).join('[redacted]') : text;
}

/** The same for answer data, which becomes output data and error messages (e.g. a failed task's message). */
export function redactDeep(value: unknown, apiKey: string): unknown {
	if (!apiKey) return value;
	if (typeof value === 'string') return redact(value, apiKey);
	if (Array.isArray(value)) return value.map((entry) => redactDeep(entry, apiKey));
	if (value && typeof value === 'object') {
		return Object.fromEntries(
			Object.entries(value).map(([name, entry]) => [redact(name, apiKey), redactDeep(entry, apiKey)]),
		);
	}
	return value;
}

/** The start of a body for a message: redacted first, then cut, so that a key across the cut cannot leak in part. */
export function snippet(body: unknown, apiKey: string): string {
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : JSON.stringify(body);
	const flat = redact(text ?? '', apiKey)
		.replace(/\s+/g, ' ')
		.trim();
	return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
