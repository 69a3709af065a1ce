/**
 * Result files from hosts that misbehave: transient failures are retried inside the file's deadline (a GET is
 * safe to repeat), permanent ones are not; an empty file is an error, not a completed item; with Split Into Items
 * and Continue On Fail the files that arrived are kept when a sibling fails. And the result lane's shape: many
 * small files side by side, huge ones two at a time. Each scenario runs the node in n8n's engine against a
 * purpose-built server (../../hostile-server.ts).
 */
import type http from 'node:http';

import type { IBinaryData, INodeExecutionData } from 'n8n-workflow';

import { fixtureBytes } from '../../fixtures/media';
import { sendJson } from '../../hostile-server';
import { makePng } from '../../simulator/png';
import { mdatHead } from '../../simulator/server';
import { runNode } from '../../harness';
import { HOSTILE_KEY, useHostileApi } from '../../support';

const { server, useApi, run, betav4 } = useHostileApi();

const png = makePng(8, 8);

function sendPng(response: http.ServerResponse): void {
	response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
	response.end(png);
}

/** Counts the GETs of each file name, so that a handler can fail the first one(s) only. */
function attemptsOf(): (name: string) => number {
	const seen = new Map<string, number>();
	return (name) => {
		const count = (seen.get(name) ?? 0) + 1;
		seen.set(name, count);
		return count;
	};
}

const bytesOf = (item: INodeExecutionData, property = 'data') =>
	(item.binary?.[property] as (IBinaryData & { bytes?: number }) | undefined)?.bytes;

describe('result files: transient failures are retried inside the deadline', () => {
	it('a 503, a 429 with Retry-After: 1 and a reset connection on the first GET: each file arrives on the next one', async () => {
		const attempt = attemptsOf();
		const times = new Map<string, number[]>();
		useApi({
			file: (_request, response, name) => {
				times.set(name, [...(times.get(name) ?? []), Date.now()]);
				if (attempt(name) > 1) return sendPng(response);
				if (name === 'task-0.png') return sendJson(response, { error: 'busy' }, 503);
				if (name === 'task-1.png') {
					response.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' });
					return response.end('slow down');
				}
				response.socket?.destroy();
			},
		});
		const { output, error } = await run(betav4({ downloadResults: true, maxConcurrency: 4 }), 3);
		expect(error).toBeUndefined();
		expect(output.map((item) => item.json.status)).toEqual(['completed', 'completed', 'completed']);
		expect(output.map((item) => bytesOf(item))).toEqual([png.length, png.length, png.length]);
		for (const name of ['task-0.png', 'task-1.png', 'task-2.png']) {
			expect(server.requestsTo(`/files/${name}`)).toHaveLength(2);
		}
		const [first, second] = times.get('task-1.png')!;
		expect(second - first).toBeGreaterThanOrEqual(950); // the server's Retry-After, not the 500 ms backoff
	});

	it('a body cut off mid-stream once: the next GET stores the whole file', async () => {
		const attempt = attemptsOf();
		const body = Buffer.alloc(100_000, 3);
		useApi({
			file: (_request, response, name) => {
				response.writeHead(200, { 'content-type': 'image/png', 'content-length': body.length });
				if (attempt(name) > 1) return void response.end(body);
				response.write(body.subarray(0, 1000));
				setTimeout(() => response.socket?.destroy(), 50);
			},
		});
		const { output, error } = await run(betav4({ downloadResults: true }), 1);
		expect(error).toBeUndefined();
		expect(bytesOf(output[0])).toBe(body.length);
		expect(server.requestsTo('/files/task-0.png')).toHaveLength(2);
	});

	it('a 404 is not retried: one GET, and an error item that keeps the task id', async () => {
		useApi({ file: (_request, response) => sendJson(response, { error: 'gone' }, 404) });
		const { output, error } = await run(betav4({ downloadResults: true }), 1, true);
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({
			taskid: 'task-0',
			status: 'completed',
			error: 'Could not download a result file: HTTP 404 (task task-0) [item 0]',
		});
		expect(server.requestsTo('/files/task-0.png')).toHaveLength(1);
	});

	it('a host that keeps answering 503 fails the item once Request Timeout is spent: every retry fits in it', async () => {
		useApi({ file: (_request, response) => sendJson(response, { error: 'busy' }, 503) });
		const started = Date.now();
		// Attempts at 0, 0.5 s and 1.5 s; the next would come at 3.5 s, after the 2 s deadline.
		const { output, error } = await run(betav4({ downloadResults: true, requestTimeout: 2 }), 1, true);
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({
			taskid: 'task-0',
			error: 'Could not download a result file: HTTP 503 (task task-0) [item 0]',
		});
		expect(server.requestsTo('/files/task-0.png')).toHaveLength(3);
		expect(Date.now() - started).toBeLessThan(3000);
	});
});

describe('an empty result file is an error that names the task and the URL, not a completed item', () => {
	it('announced empty (Content-Length: 0), or sent with no bytes at all: the task stays completed in the error item', async () => {
		useApi({
			file: (_request, response, name) => {
				if (name === 'task-0.png') {
					response.writeHead(200, { 'content-type': 'image/png', 'content-length': 0 });
					return void response.end();
				}
				if (name === 'task-1.png') {
					response.writeHead(200, { 'content-type': 'image/png' }); // chunked, then nothing
					return void response.end();
				}
				sendPng(response);
			},
		});
		const { output, error } = await run(betav4({ downloadResults: true, maxConcurrency: 4 }), 3, true);
		expect(error).toBeUndefined();
		for (const index of [0, 1]) {
			expect(output[index].json).toMatchObject({
				taskid: `task-${index}`,
				status: 'completed',
				urls: [`${server.url}/files/task-${index}.png`],
				error: `The result file ${server.url}/files/task-${index}.png is empty (0 bytes) (task task-${index}) [item ${index}]`,
			});
			expect(output[index].binary).toBeUndefined();
		}
		expect(bytesOf(output[2])).toBe(png.length);
		expect(server.requestsTo('/files/task-0.png')).toHaveLength(1); // not retried
	});

	it('without Continue On Fail the empty file stops the node with the same message', async () => {
		useApi({
			file: (_request, response) => {
				response.writeHead(200, { 'content-type': 'image/png', 'content-length': 0 });
				response.end();
			},
		});
		const result = await run(betav4({ downloadResults: true }), 1);
		expect(result.error?.message).toBe(
			`The result file ${server.url}/files/task-0.png is empty (0 bytes) (task task-0) [item 0]`,
		);
	});
});

describe('Split Into Items with Continue On Fail: the files that arrived are kept when a sibling fails', () => {
	const threeFiles = {
		info: (_request: unknown, response: http.ServerResponse, taskId: string) =>
			sendJson(response, {
				code: 1000,
				msg: 'ok',
				data: { taskid: taskId, image_status: 2, url: ['a', 'b', 'c'].map((n) => `${server.url}/files/${n}.png`) },
			}),
		file: (_request: unknown, response: http.ServerResponse, name: string) =>
			name === 'b.png' ? sendJson(response, { error: 'gone' }, 404) : sendPng(response),
	};

	it('one item per file: the second file failed, the first and third have their files', async () => {
		useApi(threeFiles);
		const { output, error } = await run(betav4({ downloadResults: true, splitIntoItems: true }), 1, true);
		expect(error).toBeUndefined();
		expect(output).toHaveLength(3);
		expect(output.map((item) => item.json.resultIndex)).toEqual([0, 1, 2]);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }, { item: 0 }]);
		expect(bytesOf(output[0])).toBe(png.length);
		expect(bytesOf(output[2])).toBe(png.length);
		expect(output[1].binary).toBeUndefined();
		expect(output[1].json).toMatchObject({
			taskid: 'task-0',
			status: 'completed',
			url: `${server.url}/files/b.png`,
			error: 'Could not download a result file: HTTP 404 (task task-0) [item 0]',
		});
		expect(output[0].json).not.toHaveProperty('error');
	});

	it('without Continue On Fail the failed file stops the node, naming the task', async () => {
		useApi(threeFiles);
		const result = await run(betav4({ downloadResults: true, splitIntoItems: true }), 1);
		expect(result.error?.message).toBe('Could not download a result file: HTTP 404 (task task-0) [item 0]');
	});
});

describe('the result lane: bounded by streams and bytes in flight, not by a fixed count', () => {
	it('many small files download side by side, each answered after 300 ms', async () => {
		let open = 0;
		let most = 0;
		useApi({
			file: (_request, response) => {
				most = Math.max(most, ++open);
				response.on('close', () => open--);
				setTimeout(() => sendPng(response), 300);
			},
		});
		const { output, error } = await run(betav4({ downloadResults: true, maxConcurrency: 64 }), 24);
		expect(error).toBeUndefined();
		expect(output.filter((item) => bytesOf(item) === png.length)).toHaveLength(24);
		expect(most).toBeGreaterThanOrEqual(12);
	});

	/** A whole MP4 of `size` bytes (the fixture's boxes, then filler media data), written as the socket takes it. */
	/** What the host sent of one body: when it was asked for, when it was flowing (past what buffers hold), its end. */
	interface Span {
		asked: number;
		flowing?: number;
		to?: number;
	}

	/**
	 * A whole MP4 of `size` bytes (the fixture's boxes, then filler media data), written as the socket takes it; the
	 * span says when it flowed: once more than FLOWING bytes were taken, more than the socket buffers of a body left
	 * unread can hold.
	 */
	const FLOWING = 16 * 1024 * 1024;
	function sendMp4(response: http.ServerResponse, size: number, announce = true, span?: Span): void {
		const chunk = Buffer.alloc(1024 * 1024, 9);
		const head = mdatHead(fixtureBytes('mp4-faststart.mp4'), size);
		response.writeHead(200, { 'content-type': 'video/mp4', ...(announce ? { 'content-length': size } : {}) });
		response.on('close', () => span && (span.to = Date.now()));
		let left = size;
		const pump = () => {
			while (left > 0) {
				const next = left === size ? Buffer.concat([head, chunk.subarray(head.length)]) : chunk;
				const piece = next.subarray(0, Math.min(next.length, left));
				left -= piece.length;
				if (span && size - left > FLOWING) span.flowing ??= Date.now();
				if (!response.write(piece)) return void response.once('drain', pump);
			}
			response.end();
		};
		pump();
	}

	/** The most bodies flowing at once (Span). */
	const mostFlowing = (list: Span[]) => {
		const flowing = list.filter((span) => span.flowing !== undefined);
		return Math.max(
			0,
			...flowing.map((span) => flowing.filter((o) => o.flowing! <= span.flowing! && o.to! > span.flowing!).length),
		);
	};

	/** Task → Wait on `count` existing tasks of `taskType`, each done at once with one result file. */
	const waitOn = (taskType: 'image' | 'video', count: number) =>
		runNode({
			parameters: {
				resource: 'task',
				operation: 'wait',
				taskType,
				taskId: '={{ $json.taskid }}',
				options: { pollInterval: 0.05, maxWait: 60, requestTimeout: 60, downloadResults: true, maxConcurrency: 64 },
			},
			items: Array.from({ length: count }, (_, i) => ({ json: { taskid: `task-${i}` } })),
			credentials: { apiKey: HOSTILE_KEY, baseUrl: server.url },
		});

	it('huge videos (40 MB each, announced) flow two at a time, each asked for once', async () => {
		const size = 40 * 1024 * 1024;
		const sent: Span[] = [];
		useApi({
			file: (_request, response) => {
				const span: Span = { asked: Date.now() };
				sent.push(span);
				sendMp4(response, size, true, span);
			},
		});
		const { output, error } = await waitOn('video', 6);
		expect(error).toBeUndefined();
		expect(output.map((item) => bytesOf(item))).toEqual(Array(6).fill(size));
		expect(server.requestsTo(/^\/files\//)).toHaveLength(6);
		expect(mostFlowing(sent)).toBeLessThanOrEqual(2);
		// Two more are asked for ahead, waiting unread: never all six at once.
		const asked = (span: Span) => sent.filter((o) => o.asked <= span.asked && o.to! > span.asked).length;
		expect(Math.max(...sent.map(asked))).toBeLessThanOrEqual(4);
	});

	it('large images: those asked for before any size was known wait unread, and flow two at a time, each asked for once', async () => {
		const size = 40 * 1024 * 1024;
		const sent: Span[] = [];
		useApi({
			file: (_request, response) => {
				const span: Span = { asked: Date.now() };
				sent.push(span);
				sendMp4(response, size, true, span);
			},
		});
		const { output, error } = await run(betav4({ downloadResults: true, maxConcurrency: 64, requestTimeout: 60 }), 20);
		expect(error).toBeUndefined();
		expect(output.map((item) => bytesOf(item))).toEqual(Array(20).fill(size));
		expect(server.requestsTo(/^\/files\//)).toHaveLength(20);
		expect(mostFlowing(sent)).toBeLessThanOrEqual(2);
	});

	it('a file whose host drops it while it waits unread is asked for again, as a host failure is', async () => {
		const size = 60 * 1024 * 1024;
		const sent: Span[] = [];
		let dropped = false;
		useApi({
			file: (_request, response, name) => {
				// The third video is answered while the first two flow, and its connection dropped while it waits.
				if (name === 'task-2.png' && !dropped) {
					dropped = true;
					response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': size });
					response.write(mdatHead(fixtureBytes('mp4-faststart.mp4'), size));
					return void setTimeout(() => response.socket?.destroy(), 50);
				}
				const span: Span = { asked: Date.now() };
				sent.push(span);
				sendMp4(response, size, true, span);
			},
		});
		const { output, error } = await waitOn('video', 3);
		expect(error).toBeUndefined();
		expect(output.map((item) => bytesOf(item))).toEqual(Array(3).fill(size));
		expect(server.requestsTo('/files/task-2.png')).toHaveLength(2);
		expect(server.requestsTo(/^\/files\//)).toHaveLength(4);
	});

	it('many small files, a mix of small and large ones, and sizes never announced: each file asked for once', async () => {
		const large = 24 * 1024 * 1024;
		useApi({ file: (_request, response) => sendPng(response) });
		expect((await run(betav4({ downloadResults: true, maxConcurrency: 64 }), 60)).error).toBeUndefined();
		expect(server.requestsTo(/^\/files\//)).toHaveLength(60);
		// A mix: every third file large.
		useApi({
			file: (_request, response, name) =>
				Number(/\d+/.exec(name)![0]) % 3 ? sendPng(response) : sendMp4(response, large),
		});
		const mixed = await run(betav4({ downloadResults: true, maxConcurrency: 64 }), 24);
		expect(mixed.error).toBeUndefined();
		expect(mixed.output.filter((item) => bytesOf(item) === large)).toHaveLength(8);
		expect(server.requestsTo(/^\/files\//)).toHaveLength(24);
		// No Content-Length: the files weigh what is guessed for their type, or the largest seen, and run to the end.
		useApi({ file: (_request, response) => sendMp4(response, large, false) });
		const unknown = await waitOn('video', 6);
		expect(unknown.error).toBeUndefined();
		expect(unknown.output.map((item) => bytesOf(item))).toEqual(Array(6).fill(large));
		expect(server.requestsTo(/^\/files\//)).toHaveLength(6);
	});

	it('a host that stalls one file: the others arrive, the stalled one fails at its Request Timeout, each asked for once', async () => {
		useApi({
			file: (_request, response, name) => {
				if (name !== 'task-2.png') return sendPng(response);
				response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
				response.write(png.subarray(0, 20)); // and nothing more
			},
		});
		const { output } = await run(betav4({ downloadResults: true, maxConcurrency: 64, requestTimeout: 1 }), 5, true);
		expect(output.map((item) => (item.json.error ? 'error' : bytesOf(item)))).toEqual([
			png.length,
			png.length,
			'error',
			png.length,
			png.length,
		]);
		expect(String(output[2].json.error)).toMatch(/task-2/);
		expect(server.requestsTo(/^\/files\//)).toHaveLength(5);
	});
});
