/**
 * A stored result is whole and is what its name says: every case of the issue, run in n8n's engine against a file
 * host on 127.0.0.1 (../../hostile-server.ts). A file that is cut or malformed is fetched again, then refused with
 * an error that names the task and the URL, its item still `completed` with its URLs, and nothing of it is kept in
 * n8n's binary storage. What "whole" means per format is checked row by row in ../media/structure.test.ts.
 */
import { readdirSync, statSync } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

import type { IBinaryData, INodeExecutionData } from 'n8n-workflow';

import { MEDIA_FORMATS } from '../../../nodes/MediaGen/media/formats';
import { readBinary } from '../../harness';
import { eventually } from '../../hostile-server';
import { cutFile, lyingSize, magicThenText, rebranded } from '../../fixtures/media/broken';
import { fixtureBytes, MEDIA_FIXTURES } from '../../fixtures/media';
import { encodeText, HOST_TEXTS } from '../../fixtures/texts';
import { makePng } from '../../simulator/png';
import { useHostileApi } from '../../support';

const { server, useApi, run, betav4 } = useHostileApi();

interface Served {
	/** The body of each GET, in order; the last one again for later GETs. */
	bodies: Buffer[];
	type?: string;
}

/** Serves file number n as the result of task-n, each GET with its announced Content-Length. */
function serveEach(files: Served[]): void {
	const gets = new Map<number, number>();
	useApi({
		file: (_request, response: http.ServerResponse, name) => {
			const index = Number(/^task-(\d+)\./.exec(name)?.[1]);
			const get = gets.get(index) ?? 0;
			gets.set(index, get + 1);
			const { bodies, type } = files[index];
			const body = bodies[Math.min(get, bodies.length - 1)];
			response.writeHead(200, { 'content-length': body.length, ...(type ? { 'content-type': type } : {}) });
			response.end(body);
		},
	});
}

const urlOf = (index: number) => `${server.url}/files/task-${index}.png`;
const getsOf = (index: number) => server.requestsTo(`/files/task-${index}.png`).length;

/**
 * Runs one creation per file, Download Results on, Continue On Fail unless told. Bounds are generous: what is
 * checked is what each file became and how often it was asked, on a machine other work may load.
 */
async function download(files: Served[], options = {}, continueOnFail = true) {
	serveEach(files);
	const bounds = { maxConcurrency: 16, maxWait: 60, requestTimeout: 30 };
	return await run(betav4({ downloadResults: true, ...bounds, ...options }), files.length, continueOnFail);
}

/** Item n refused as not whole: the error names the URL, the format, the task and the item; the task stays completed. */
function expectNotWhole(item: INodeExecutionData, index: number, format: string): string {
	expect(item.binary).toBeUndefined();
	expect(item.json).toMatchObject({ taskid: `task-${index}`, status: 'completed', urls: [urlOf(index)] });
	const error = String(item.json.error);
	const start = `The result file ${urlOf(index)} is not a whole ${format} file: `;
	expect({ error: error.slice(0, start.length) }).toEqual({ error: start });
	expect(error.endsWith(`(task task-${index}) [item ${index}]`)).toBe(true);
	return error;
}

const page = Buffer.from(HOST_TEXTS[0][1]);
const png = fixtureBytes('png.png');

describe('issue: files judged by their first bytes only', () => {
	it.each([
		['PNG magic followed by an HTML page', Buffer.concat([png.subarray(0, 8), page]), 'PNG'],
		[
			'JPEG magic followed by an HTML page',
			Buffer.concat([fixtureBytes('jpeg-jfif.jpg').subarray(0, 4), page]),
			'JPEG',
		],
		[
			'an 8-byte free box followed by an HTML page',
			Buffer.concat([Buffer.from('00000008', 'hex'), Buffer.from('free'), page]),
			'QuickTime',
		],
		['a PNG cut to 30 bytes, served with a matching Content-Length', png.subarray(0, 30), 'PNG'],
	])(
		'%s: fetched again, then an error naming the task and the URL; completed, with its URLs',
		async (_name, body, format) => {
			const { output, error } = await download([{ bodies: [body], type: 'image/png' }]);
			expect(error).toBeUndefined();
			expectNotWhole(output[0], 0, format);
			// Once more, and not a third time: the same bytes broke the same way.
			expect(getsOf(0)).toBe(2);
		},
	);

	it('the PNG cut to 30 bytes says where it ends, and the stopping error (without Continue On Fail) says the same', async () => {
		const { error } = await download([{ bodies: [png.subarray(0, 30)], type: 'image/png' }], {}, false);
		expect(error?.message).toBe(
			`The result file ${urlOf(0)} is not a whole PNG file: the file ends at byte 30, inside the chunk "IHDR" at byte 8 (25 bytes) (task task-0) [item 0]`,
		);
	});

	it('a Canon raw still (brand crx ) and MP4 audio (M4A ) are stored as application/octet-stream, .bin, byte for byte', async () => {
		const bodies = [rebranded('crx ', ['crx ', 'isom']), rebranded('M4A ', ['M4A ', 'mp42', 'isom'])];
		const { output, error } = await download(bodies.map((body) => ({ bodies: [body], type: 'video/mp4' })));
		expect(error).toBeUndefined();
		for (const [index, item] of output.entries()) {
			expect(item.json.error).toBeUndefined();
			const binary = item.binary!.data as IBinaryData;
			expect(binary).toMatchObject({ mimeType: 'application/octet-stream', fileName: `task-${index}-0.bin` });
			expect((await readBinary(binary)).equals(bodies[index])).toBe(true);
		}
	});

	it('UTF-32 JSON without a byte order mark is refused as JSON, not stored as .bin', async () => {
		const json = '{"msg":"链接已过期"}';
		const bodies = (['UTF-32 LE', 'UTF-32 BE'] as const).map((encoding) => encodeText(json, encoding));
		const { output } = await download(bodies.map((body) => ({ bodies: [body], type: 'application/octet-stream' })));
		for (const [index, item] of output.entries()) {
			expect(item.binary).toBeUndefined();
			expect(String(item.json.error)).toContain(
				`is not an image or a video: the host sent JSON (UTF-32 ${index ? 'BE' : 'LE'}) as application/octet-stream, starting with ${JSON.stringify(json)}`,
			);
		}
	});
});

describe('a cut or malformed file is fetched again, and never stored', () => {
	it('cut on the first GET, whole on the second: stored whole', async () => {
		const { output, error } = await download([{ bodies: [png.subarray(0, 200), png], type: 'image/png' }]);
		expect(error).toBeUndefined();
		expect(output[0].json.error).toBeUndefined();
		expect((await readBinary(output[0].binary!.data as IBinaryData)).equals(png)).toBe(true);
		expect(getsOf(0)).toBe(2);
	});

	it('cut at another length on every GET: fetched four times at most (all inside Request Timeout), then refused', async () => {
		const video = fixtureBytes('mp4-faststart.mp4');
		const bodies = [100, 900, 1500, 2000, 2100].map((length) => video.subarray(0, length));
		const { output } = await download([{ bodies, type: 'video/mp4' }]);
		expect(expectNotWhole(output[0], 0, 'MP4')).toContain('the file ends at byte 2,000');
		expect(getsOf(0)).toBe(4);
	});

	it('every real file broken three ways (cut in half, its first 64 bytes then a page, a size that lies), under any Content-Type: none stored', async () => {
		const broken = MEDIA_FIXTURES.flatMap((fixture) => [
			cutFile(fixture, Math.floor(fixtureBytes(fixture).length / 2)),
			magicThenText(fixture, 64, 0),
			lyingSize(fixture),
		]);
		const types = [undefined, 'application/octet-stream', 'image/png', 'video/mp4'];
		const { output, error } = await download(
			broken.map((file, index) => ({ bodies: [file.bytes], type: types[index % types.length] })),
			{ maxConcurrency: 64 },
		);
		expect(error).toBeUndefined();
		for (const [index, item] of output.entries()) {
			const { what, from } = broken[index];
			expect({ what, stored: item.binary !== undefined }).toEqual({ what, stored: false });
			expectNotWhole(item, index, MEDIA_FORMATS.find((format) => format.mimeType === from.mimeType)!.name);
		}
	});

	it("nothing of a refused file stays in n8n's binary storage, while a whole sibling is stored", async () => {
		const folder = process.env.N8N_USER_FOLDER!;
		const files = () => {
			const found: string[] = [];
			const walk = (dir: string) => {
				for (const entry of readdirSync(dir, { withFileTypes: true })) {
					const full = path.join(dir, entry.name);
					if (entry.isDirectory()) walk(full);
					else found.push(full);
				}
			};
			walk(folder);
			return found;
		};
		const before = new Set(files());
		const video = fixtureBytes('mp4-plain.mp4');
		const { output } = await download([
			{ bodies: [video.subarray(0, video.length - 10)], type: 'video/mp4' },
			{ bodies: [png], type: 'image/png' },
		]);
		expectNotWhole(output[0], 0, 'MP4');
		const stored = await readBinary(output[1].binary!.data as IBinaryData);
		expect(stored.equals(png)).toBe(true);
		const added = files().filter((file) => !before.has(file));
		const sizes = added.map((file) => statSync(file).size);
		// The sibling's file (and n8n's metadata beside it), nothing of the cut video: no file of its size or larger.
		expect(added.some((file) => file.includes('.tmp.'))).toBe(false);
		expect(sizes.filter((size) => size >= video.length - 10 - 1000)).toEqual([]);
		expect(sizes).toContain(png.length);
	});

	it('a box that claims more than Content-Length announces: refused at its first bytes, the rest never sent', async () => {
		const total = 64 * 1024 * 1024;
		const exchanges: Array<{ sent: number; closed: boolean }> = [];
		useApi({
			file: (_request, response) => {
				const exchange = { sent: 0, closed: false };
				exchanges.push(exchange);
				response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': total });
				response.on('close', () => (exchange.closed = true));
				const head = Buffer.concat([Buffer.from('00000008', 'hex'), Buffer.from('free'), page]);
				const chunk = Buffer.alloc(64 * 1024, 0x20);
				const pump = () => {
					while (!exchange.closed && exchange.sent < total) {
						const part = exchange.sent ? chunk : Buffer.concat([head, chunk.subarray(head.length)]);
						exchange.sent += part.length;
						if (!response.write(part)) return void response.once('drain', pump);
					}
				};
				pump();
			},
		});
		const { output } = await run(betav4({ downloadResults: true, requestTimeout: 30 }), 1, true);
		expect(String(output[0].json.error)).toMatch(
			/is not a whole QuickTime file: the file ends at byte 67,108,864, inside the box "CTYP" at byte 8/,
		);
		await eventually(() => exchanges.length === 2 && exchanges.every((exchange) => exchange.closed));
		// Each GET closed after its first chunks: a few MB at most went out of 64 MB (socket buffers included).
		for (const exchange of exchanges) expect(exchange.sent).toBeLessThan(total / 4);
	});
});

describe('whole files are still stored', () => {
	it('from a host that compresses when the client allows it: the file is asked as it is, and stored whole', async () => {
		// A BMP's pixels compress well: gzipped, its Content-Length is far less than the size its header gives.
		const bmp = fixtureBytes('bmp.bmp');
		useApi({
			file: (request, response) => {
				const gzip = /gzip/.test(String(request.headers['accept-encoding'] ?? ''));
				const body = gzip ? gzipSync(bmp) : bmp;
				const encoding = gzip ? { 'content-encoding': 'gzip' } : {};
				response.writeHead(200, { 'content-type': 'image/bmp', 'content-length': body.length, ...encoding });
				response.end(body);
			},
		});
		expect(gzipSync(bmp).length).toBeLessThan(bmp.length / 2);
		const { output } = await run(betav4({ downloadResults: true, requestTimeout: 30 }), 1, true);
		expect(server.requestsTo('/files/task-0.png')[0].headers['accept-encoding']).toBe('identity');
		expect(output[0].json.error).toBeUndefined();
		expect((await readBinary(output[0].binary!.data as IBinaryData)).equals(bmp)).toBe(true);
	});

	it('a PNG whole with bytes after its end (IEND) is stored byte for byte, as it came', async () => {
		const body = Buffer.concat([makePng(4, 4), Buffer.from('<html>after the end</html>')]);
		const { output } = await download([{ bodies: [body], type: 'image/png' }]);
		expect(output[0].json.error).toBeUndefined();
		expect((await readBinary(output[0].binary!.data as IBinaryData)).equals(body)).toBe(true);
	});
});
