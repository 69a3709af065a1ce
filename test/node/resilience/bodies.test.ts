/**
 * What a result file's body can be (issue 31, point 1): real files made by real tools are stored as what their
 * bytes are, whatever the host's Content-Type says; pages, messages and markup in every encoding are refused with
 * an error that names the task, the URL and at most 200 characters of what came. Each scenario runs the node in
 * n8n's engine against a purpose-built server on 127.0.0.1 (../../hostile-server.ts).
 */
import type http from 'node:http';

import type { IBinaryData, INodeExecutionData } from 'n8n-workflow';

import { readBinary } from '../../harness';
import { fixtureBytes, MEDIA_FIXTURES } from '../../fixtures/media';
import { encodeText, HOST_TEXTS, TEXT_ENCODINGS, TYPE_HEADERS } from '../../fixtures/texts';
import { useHostileApi } from '../../support';

const { useApi, run, betav4 } = useHostileApi();

interface Served {
	body: Buffer;
	type: string | undefined;
}

/** Serves body number n as the result file of task-n, with its Content-Type (none when undefined). */
function serveEach(bodies: Served[]): void {
	useApi({
		file: (_request, response: http.ServerResponse, name) => {
			const served = bodies[Number(/^task-(\d+)\./.exec(name)?.[1])];
			const headers: http.OutgoingHttpHeaders = { 'content-length': served.body.length };
			if (served.type !== undefined) headers['content-type'] = served.type;
			response.writeHead(200, headers);
			response.end(served.body);
		},
	});
}

/** Runs one creation per body, Download Results on, Continue On Fail. */
async function download(bodies: Served[]): Promise<INodeExecutionData[]> {
	serveEach(bodies);
	const { output, error } = await run(betav4({ downloadResults: true, maxConcurrency: 16 }), bodies.length, true);
	expect(error).toBeUndefined();
	expect(output).toHaveLength(bodies.length);
	return output;
}

/** The refusal of item n: an error item that keeps the task, names the URL, and stored nothing. */
function expectRefused(item: INodeExecutionData, index: number): string {
	expect(item.binary).toBeUndefined();
	expect(item.json.taskid).toBe(`task-${index}`);
	const error = String(item.json.error);
	expect(error).toMatch(
		new RegExp(
			`^The result file http://127\\.0\\.0\\.1:\\d+/files/task-${index}\\.png is not an image or a video: .*\\(task task-${index}\\) \\[item ${index}\\]$`,
			's',
		),
	);
	return error;
}

const typeName = (type: string | undefined) => type ?? 'no Content-Type';

describe('issue 31: text where a file should be is refused, whatever its Content-Type', () => {
	const html = HOST_TEXTS.find(([name]) => name === 'an HTML sign-in page')![1];
	const svg = HOST_TEXTS.find(([name]) => name === 'an SVG with a script')![1];

	it.each([
		['image/png', 'image/png'],
		['no Content-Type', undefined],
	])('an HTML sign-in page starting with a UTF-8 byte order mark, served as %s', async (_name, type) => {
		const [item] = await download([{ body: encodeText(html, 'UTF-8 with BOM'), type }]);
		const error = expectRefused(item, 0);
		expect(error).toContain('an HTML page');
		expect(error).toContain('<!DOCTYPE html>');
	});

	it('an SVG with a <script> starting with a byte order mark, as image/svg+xml, image/png or without a type', async () => {
		const body = encodeText(svg, 'UTF-8 with BOM');
		const types = ['image/svg+xml', 'image/png', undefined];
		const output = await download(types.map((type) => ({ body, type })));
		output.forEach((item, index) => expect(expectRefused(item, index)).toContain('an SVG image'));
	});

	it('« Accès refusé », « Доступ запрещён », « 访问被拒绝 » as text served as image/png', async () => {
		const texts = ['« Accès refusé »', '« Доступ запрещён »', '« 访问被拒绝 »'];
		const output = await download(texts.map((text) => ({ body: Buffer.from(text), type: 'image/png' })));
		output.forEach((item, index) => expect(expectRefused(item, index)).toContain(JSON.stringify(texts[index])));
	});

	it('{"msg":"链接已过期"} as application/octet-stream or without a type', async () => {
		const body = Buffer.from('{"msg":"链接已过期"}');
		const output = await download([
			{ body, type: 'application/octet-stream' },
			{ body, type: undefined },
		]);
		output.forEach((item, index) => expect(expectRefused(item, index)).toContain('JSON'));
	});

	it('an HTML page in UTF-16 (FF FE) as image/png', async () => {
		const [item] = await download([{ body: encodeText(html, 'UTF-16 LE with BOM'), type: 'image/png' }]);
		const error = expectRefused(item, 0);
		expect(error).toContain('an HTML page (UTF-16 LE with a byte order mark)');
		expect(error).toContain('<!DOCTYPE html>'); // decoded, not shown as bytes
	});

	it('a refused 300 KB page: the error quotes at most its first 200 characters', async () => {
		const page = `<html><body>${'<p>Please sign in to continue.</p>\n'.repeat(9000)}</body></html>`;
		expect(page.length).toBeGreaterThan(300_000);
		const [item] = await download([{ body: Buffer.from(page), type: 'image/png' }]);
		const error = expectRefused(item, 0);
		const quoted = /starting with "(.*)"/s.exec(error)?.[1] ?? '';
		expect(quoted.length).toBeGreaterThan(100);
		expect(quoted.length).toBeLessThanOrEqual(201); // 200 characters and the ellipsis
		expect(error.length).toBeLessThan(600);
		expect(String(item.json.errorDescription).length).toBeLessThan(600);
	});

	it('a byte order mark before binary bytes, under a Content-Type of 2,000 characters: refused, the error still short', async () => {
		const binary = Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 37) % 256));
		const body = Buffer.concat([Buffer.from([0x00, 0x00, 0xfe, 0xff]), binary]);
		const [item] = await download([{ body, type: `image/${'y'.repeat(2000)}` }]);
		const error = expectRefused(item, 0);
		expect(error).toContain('(UTF-32 BE with a byte order mark)');
		expect(error.length).toBeLessThan(700);
	});

	it.each(TYPE_HEADERS.map((type) => [typeName(type), type]))(
		'every text in every encoding, served with %s, is refused',
		async (_name, type) => {
			const bodies = HOST_TEXTS.flatMap(([, text]) =>
				TEXT_ENCODINGS.map((encoding) => ({ body: encodeText(text, encoding), type })),
			);
			const output = await download(bodies);
			output.forEach((item, index) => expectRefused(item, index));
		},
	);

	it('an empty body and a body of zero bytes only are refused too', async () => {
		const output = await download([
			{ body: Buffer.alloc(0), type: 'image/png' },
			{ body: Buffer.alloc(4096), type: 'application/octet-stream' },
		]);
		expect(String(output[0].json.error)).toMatch(/is empty \(0 bytes\)/);
		expect(expectRefused(output[1], 1)).toContain('only zero bytes');
	});
});

describe('issue 31: a real file is stored as what its bytes are, whatever its Content-Type', () => {
	it('MP4 and MOV files whose first box is not ftyp (free, skip, wide, mdat, moov), as binary/octet-stream or application/mp4', async () => {
		const noFtyp = ['mov-free.mov', 'mov-skip.mov', 'mov-wide.mov', 'mov-mdat.mov', 'mov-moov.mov', 'mp4-uuid.mp4'];
		const fixtures = MEDIA_FIXTURES.filter((fixture) => noFtyp.includes(fixture.file));
		const bodies = ['binary/octet-stream', 'application/mp4'].flatMap((type) =>
			fixtures.map((fixture) => ({ body: fixtureBytes(fixture), type })),
		);
		const output = await download(bodies);
		for (const [index, item] of output.entries()) {
			const fixture = fixtures[index % fixtures.length];
			expect({ file: fixture.file, error: item.json.error }).toEqual({ file: fixture.file, error: undefined });
			const binary = item.binary!.data as IBinaryData;
			expect(binary).toMatchObject({ mimeType: fixture.mimeType, fileName: `task-${index}-0.${fixture.extension}` });
			expect((await readBinary(binary)).equals(fixtureBytes(fixture))).toBe(true);
		}
	});

	it.each(TYPE_HEADERS.map((type) => [typeName(type), type]))(
		'every real file, served with %s, is stored whole with the type and extension of its bytes',
		async (_name, type) => {
			const output = await download(MEDIA_FIXTURES.map((fixture) => ({ body: fixtureBytes(fixture), type })));
			for (const [index, item] of output.entries()) {
				const fixture = MEDIA_FIXTURES[index];
				expect({ file: fixture.file, error: item.json.error }).toEqual({ file: fixture.file, error: undefined });
				const binary = item.binary!.data as IBinaryData;
				expect({ file: fixture.file, mimeType: binary.mimeType, fileName: binary.fileName }).toEqual({
					file: fixture.file,
					mimeType: fixture.mimeType,
					fileName: `task-${index}-0.${fixture.extension}`,
				});
				expect((await readBinary(binary)).equals(fixtureBytes(fixture))).toBe(true);
			}
		},
	);

	it('a binary that is no known format and no text is stored as application/octet-stream, named .bin', async () => {
		// A JPEG XL codestream: a real format the table does not list.
		const body = Buffer.concat([Buffer.from([0xff, 0x0a, 0xfa, 0x1f, 0x41, 0x91, 0x08, 0x06]), Buffer.alloc(64, 0x9c)]);
		const [item] = await download([{ body, type: 'image/png' }]);
		expect(item.json.error).toBeUndefined();
		expect(item.binary!.data).toMatchObject({ mimeType: 'application/octet-stream', fileName: 'task-0-0.bin' });
	});
});
