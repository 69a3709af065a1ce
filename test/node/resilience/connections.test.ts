/**
 * Deadlines that hold after a garbage collection, connections that are released, and result files that are what
 * they claim (found by the fault explorer, classes d, e, f and g). Each runs the node in n8n's engine against a
 * purpose-built server (../../hostile-server.ts) that records whether the node closed each exchange.
 */
import type http from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import type { IBinaryData } from 'n8n-workflow';

import { eventually, sendJson } from '../../hostile-server';
import { makePng } from '../../simulator/png';
import { useHostileApi } from '../../support';

const { server, useApi, run, betav4 } = useHostileApi();

/** A garbage collection now, as `node --expose-gc` offers it (jest runs without the flag). */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Calls for garbage collections every 50 ms until stopped: the deadlines of requests in flight must survive them. */
function collectingGarbage(): () => void {
	let on = true;
	const loop = () => {
		if (!on) return;
		collectGarbage();
		setTimeout(loop, 50);
	};
	setTimeout(loop, 50);
	return () => (on = false);
}

/** How long each exchange lasted on the server, from its answer's start to its connection's close. */
const lasted: number[] = [];

/**
 * An answer that starts and never ends (the server gives up after 20 s, far past every deadline here): a PNG's
 * header, then an image data chunk that claims 2 GB and trickles in.
 */
function endless(response: http.ServerResponse, status: number, type: string): void {
	const started = Date.now();
	response.on('close', () => lasted.push(Date.now() - started));
	response.writeHead(status, { 'content-type': type });
	const header = makePng(8, 8).subarray(0, 33);
	response.write(Buffer.concat([header, Buffer.from('7fffffff49444154', 'hex')]));
	const trickle = () => {
		if (response.destroyed || Date.now() - started > 20_000) return void response.destroy();
		response.write(Buffer.alloc(1024, 1));
		setTimeout(trickle, 20).unref();
	};
	trickle();
}

const png = makePng(8, 8);

describe('deadlines hold after garbage collection', () => {
	it('a result file that trickles forever is cut off at Request Timeout while garbage is collected', async () => {
		useApi({ file: (_request, response) => endless(response, 200, 'image/png') });
		lasted.length = 0;
		const stop = collectingGarbage();
		try {
			const { output } = await run(betav4({ requestTimeout: 1, downloadResults: true }), 1, true);
			// Timed on the server, from the answer's start: the run's own time includes loading n8n's engine. A lost
			// deadline would leave it open for the server's 20 s.
			await eventually(() => lasted.length === 1, 5000);
			expect(lasted[0]).toBeLessThan(5000);
			expect(String(output[0].json.error)).toMatch(/Could not download a result file: the request timed out/);
		} finally {
			stop();
		}
	});

	it('a status check that never answers is abandoned at Request Timeout while garbage is collected', async () => {
		const checks: number[] = [];
		useApi({
			info: (_request, response) => {
				const started = Date.now();
				response.on('close', () => checks.push(Date.now() - started));
				setTimeout(() => response.destroy(), 20_000).unref();
			},
		});
		const stop = collectingGarbage();
		try {
			const { output } = await run(betav4({ requestTimeout: 1, maxWait: 1, downloadResults: false }), 1, true);
			await eventually(() => checks.length > 0, 5000);
			expect(Math.max(...checks)).toBeLessThan(5000);
			expect(output[0].json).toMatchObject({ taskid: 'task-0', status: 'pending' });
		} finally {
			stop();
		}
	});
});

describe('every connection is released', () => {
	it('a result file answered 503 with a body that never ends: the connection is closed, not left open', async () => {
		useApi({ file: (_request, response) => endless(response, 503, 'text/html') });
		await run(betav4({ requestTimeout: 5, downloadResults: true }), 1, true);
		const files = server.requests.filter((request) => request.path.startsWith('/files/'));
		expect(files.length).toBeGreaterThan(0);
		await eventually(() => files.every((request) => request.closed), 2000);
	});

	it('a result file that redirects with a body that never ends: the hop is closed before the next one', async () => {
		useApi({
			file: (request, response, name) => {
				if (!request.path.includes('moved-')) {
					response.writeHead(302, { location: `/files/moved-${name}`, 'content-type': 'text/html' });
					response.write('<html>');
					return; // the redirect's body never ends
				}
				response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
				return response.end(png);
			},
		});
		const { output, error } = await run(betav4({ requestTimeout: 5, downloadResults: true }), 1);
		expect(error).toBeUndefined();
		expect(output[0].binary?.data).toBeDefined();
		const files = server.requests.filter((request) => request.path.startsWith('/files/'));
		await eventually(() => files.every((request) => request.closed), 2000);
	});

	it('large files that stall after their first bytes: each is asked for once, every connection closed at its deadline', async () => {
		const size = 40 * 1024 * 1024;
		useApi({
			file: (_request, response) => {
				// Announced, then the first bytes only: a file that is read to its end would never finish.
				response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': size });
				response.write(Buffer.alloc(64 * 1024, 1));
			},
		});
		await run(betav4({ requestTimeout: 2, downloadResults: true, maxConcurrency: 64 }), 4, true);
		const files = server.requests.filter((request) => request.path.startsWith('/files/'));
		expect(files).toHaveLength(4);
		await eventually(() => files.every((request) => request.closed), 2000);
	});
});

describe('an API answer is read up to a limit', () => {
	/** A JSON answer that never ends, sent as fast as the socket takes it. */
	function endlessJson(response: http.ServerResponse): void {
		response.writeHead(200, { 'content-type': 'application/json' });
		response.write('{"code":1000,"msg":"');
		const chunk = Buffer.alloc(256 * 1024, 0x61);
		const started = Date.now();
		const pump = () => {
			while (!response.destroyed && Date.now() - started < 20_000) {
				if (!response.write(chunk)) return void response.once('drain', pump);
			}
			response.destroy();
		};
		pump();
	}

	it('a status check answered with an endless body ends at 4 MiB, its connection closed, the task kept', async () => {
		useApi({ info: (_request, response) => endlessJson(response) });
		const { output } = await run(betav4({ requestTimeout: 30, maxWait: 1, downloadResults: false }), 1, true);
		expect(output[0].json).toMatchObject({ taskid: 'task-0', status: 'pending' });
		expect(String(output[0].json.errorDescription)).toMatch(/larger than 4 MiB/);
		const checks = server.requests.filter((request) => request.path.endsWith('infobytaskid'));
		await eventually(() => checks.every((request) => request.closed), 3000);
	});

	it('a creation answered with an endless body may have created a task, and says so', async () => {
		useApi({ create: (_request, response) => endlessJson(response) });
		const { output } = await run(betav4({ requestTimeout: 30 }), 1, true);
		expect(String(output[0].json.error)).toMatch(/larger than 4 MiB/);
		expect(String(output[0].json.errorDescription)).toMatch(/may have been created/);
	});
});

describe('a result file is what it claims to be', () => {
	it.each([
		['an HTML sign-in page served as image/png', 'image/png', '<!DOCTYPE html><html><body>Sign in</body></html>'],
		['"Access denied" as text', 'text/plain', 'Access denied'],
		['an expired link as JSON', 'application/json', '{"error":"link expired"}'],
	])(
		'%s: an error item naming the task, the URL and the first bytes, never a completed file',
		async (_name, type, body) => {
			useApi({
				file: (_request, response) => {
					response.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
					response.end(body);
				},
			});
			const { output } = await run(betav4({ downloadResults: true }), 1, true);
			expect(output[0].binary).toBeUndefined();
			expect(output[0].json.taskid).toBe('task-0');
			const error = String(output[0].json.error);
			expect(error).toMatch(
				/^The result file http:\/\/127\.0\.0\.1:\d+\/files\/task-0\.png is not an image or a video/,
			);
			expect(error).toContain(JSON.stringify(body.slice(0, 16)).slice(1, 10));
			expect(error).toMatch(/\(task task-0\) \[item 0\]$/);
		},
	);

	it('a file whose connection breaks before the node reads its first bytes ends in an error, never a hang', async () => {
		useApi({
			file: (_request, response) => {
				response.writeHead(200, { 'content-type': 'image/png', 'content-length': 100_000 });
				response.write(Buffer.alloc(8, 1));
				response.socket?.destroy();
			},
		});
		const { output } = await run(betav4({ requestTimeout: 3, downloadResults: true }), 4, true);
		for (const item of output) expect(String(item.json.error)).toMatch(/^Could not download a result file/);
	});

	it('a PNG served as application/octet-stream is stored as image/png', async () => {
		useApi({
			file: (_request, response) => {
				response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': png.length });
				response.end(png);
			},
		});
		const { output, error } = await run(betav4({ downloadResults: true }));
		expect(error).toBeUndefined();
		expect((output[0].binary?.data as IBinaryData).mimeType).toBe('image/png');
	});
});

describe("the result lane's estimate", () => {
	it('small images after one large video still download many at a time (a file of unknown size is not assumed large)', async () => {
		const video = 60 * 1024 * 1024;
		let inFlight = 0;
		let most = 0;
		let videoAnswered = false;
		useApi({
			// The video's task is done first; the images' only once its download has announced the video's size.
			info: (_request, response, taskId) => {
				const video = taskId === 'task-0';
				const done = video || videoAnswered;
				sendJson(response, {
					code: 1000,
					msg: 'ok',
					data: {
						taskid: taskId,
						image_status: done ? 2 : 1,
						url: done ? [`${server.url}/files/${taskId}.${video ? 'mp4' : 'png'}`] : [],
					},
				});
			},
			file: (_request, response, name) => {
				if (name.endsWith('.mp4')) {
					// The large file announces its size at once, then streams slowly while the images go.
					response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': video });
					videoAnswered = true;
					const chunk = Buffer.alloc(1024 * 1024, 1);
					let left = video;
					const pump = () => {
						if (response.destroyed) return;
						left -= chunk.length;
						if (left <= 0) return void response.end(chunk.subarray(0, chunk.length + left));
						response.write(chunk);
						setTimeout(pump, 20);
					};
					return pump();
				}
				// Images are answered without a Content-Length, a little later: their sizes stay unknown.
				inFlight++;
				most = Math.max(most, inFlight);
				setTimeout(() => {
					response.writeHead(200, { 'content-type': 'image/png' });
					response.end(png);
					inFlight--;
				}, 300);
			},
		});
		const { output, error } = await run(betav4({ downloadResults: true, maxConcurrency: 64, requestTimeout: 30 }), 25);
		expect(error).toBeUndefined();
		expect(output.filter((item) => item.binary?.data)).toHaveLength(25);
		expect(most).toBeGreaterThanOrEqual(12);
	});
});
