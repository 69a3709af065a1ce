/**
 * Servers that misbehave the way real ones do: downloads that break off, odd success envelopes,
 * redirects to other hosts, bodies and task messages that echo the key back, result URLs with
 * refused schemes. Each scenario runs the node in n8n's engine against a purpose-built server.
 */
import type http from 'node:http';
import type { INodeParameters } from 'n8n-workflow';

import { runNode, testCredential, type RunResult } from '../harness';
import { eventually, HostileServer, sendJson, type HostileRequest } from '../hostile-server';
import { makePng } from '../simulator/png';
import { allText, betav4Parameters, ideaItems } from '../support';

const KEY = 'Zq9kHostileKey-0123456789abcdef';
const CREATE = '/v1/tlimages/betav4';
const INFO = '/v1/tlimages/infobytaskid';

interface ApiBehaviour {
	/** Answers creation number `index` (0-based, in arrival order). */
	create?: (request: HostileRequest, response: http.ServerResponse, index: number) => unknown;
	info?: (request: HostileRequest, response: http.ServerResponse, taskId: string) => unknown;
	file?: (request: HostileRequest, response: http.ServerResponse, name: string) => unknown;
}

const server = new HostileServer(() => {});
const other = new HostileServer(() => {});

beforeAll(async () => {
	await server.start();
	await other.start();
});
afterAll(async () => {
	await server.stop();
	await other.stop();
});

/** A well-behaved API by default: tasks `task-<n>`, done at once, one PNG result each; `behaviour` overrides parts. */
function useApi(behaviour: ApiBehaviour = {}): void {
	let created = 0;
	server.requests.length = 0;
	other.requests.length = 0;
	server.setHandler((request, response) => {
		if (request.path.startsWith('/v1/tl') && !request.path.endsWith('infobytaskid')) {
			const index = created++;
			if (behaviour.create) return behaviour.create(request, response, index);
			return sendJson(response, { code: 1000, msg: 'ok', data: { taskid: `task-${index}` } });
		}
		if (request.path.endsWith('infobytaskid')) {
			const taskId = String(request.json?.taskid ?? '');
			if (behaviour.info) return behaviour.info(request, response, taskId);
			if (!/^task-\d+$/.test(taskId)) return sendJson(response, { code: 9999, msg: 'task not found' });
			return sendJson(response, {
				code: 1000,
				msg: 'ok',
				data: { taskid: taskId, image_status: 2, url: [`${server.url}/files/${taskId}.png`] },
			});
		}
		if (request.path.startsWith('/files/')) {
			const name = request.path.slice('/files/'.length);
			if (behaviour.file) return behaviour.file(request, response, name);
			const png = makePng(8, 8);
			response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
			return response.end(png);
		}
		response.writeHead(404);
		return response.end();
	});
}

const items = ideaItems;

const betav4 = (options: INodeParameters = {}, wait = true): INodeParameters =>
	betav4Parameters({ pollInterval: 0.05, maxWait: 5, maxConcurrency: 1, requestTimeout: 5 }, options, wait);

async function run(parameters: INodeParameters, count = 1, continueOnFail = false): Promise<RunResult> {
	return await runNode({
		parameters,
		items: items(count),
		credentials: { apiKey: KEY, baseUrl: server.url },
		continueOnFail,
	});
}

function errorText(result: RunResult): string {
	const error = result.error as { message?: string; description?: string } | undefined;
	return `${error?.message ?? ''}\n${error?.description ?? ''}`;
}

describe('a paid task id is never lost when a download breaks', () => {
	it('a result file that breaks off mid-stream: the stopping error names the task and lists every created task', async () => {
		useApi({
			file: (_request, response, name) => {
				if (name !== 'task-0.png') {
					const png = makePng(8, 8);
					response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
					response.end(png);
					return;
				}
				response.writeHead(200, { 'content-type': 'image/png', 'content-length': 100_000 });
				response.write(Buffer.alloc(1000, 1));
				setTimeout(() => response.socket?.destroy(), 50);
			},
		});
		const result = await run(betav4({ downloadResults: true }), 2);
		expect(result.error?.message).toMatch(
			/^Could not download a result file: the connection was closed before the whole file arrived \(task task-0\) \[item 0\]$/,
		);
		const description = (result.error as { description?: string }).description ?? '';
		expect(description).toMatch(
			/Tasks created by this run keep running on the server: task-0 \(item 0\), task-1 \(item 1\)/,
		);
	});

	it('the same break with Continue On Fail: the error item keeps its task id, the other item has its file', async () => {
		useApi({
			file: (_request, response, name) => {
				response.writeHead(200, { 'content-type': 'image/png', 'content-length': 100_000 });
				response.write(Buffer.alloc(1000, 1));
				if (name === 'task-0.png') setTimeout(() => response.socket?.destroy(), 50);
				else response.end(Buffer.alloc(99_000, 2));
			},
		});
		const { output, error } = await run(betav4({ downloadResults: true }), 2, true);
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({
			taskid: 'task-0',
			error: expect.stringMatching(/\(task task-0\) \[item 0\]$/),
		});
		expect(output[1].binary?.data?.fileSize).toBeDefined();
	});

	it('a malformed percent-escape in Content-Disposition does not fail the download, and the whole body is read', async () => {
		const big = Buffer.alloc(8 * 1024 * 1024, 7);
		useApi({
			file: (request, response) => {
				response.writeHead(200, {
					'content-type': 'image/png',
					'content-length': big.length,
					'content-disposition': "attachment; filename*=UTF-8''bad%E0%A4%A.png",
				});
				response.end(big);
			},
		});
		const result = await run(betav4({ downloadResults: true }), 1);
		expect(errorText(result)).toBe('\n');
		expect(result.output[0].json.taskid).toBe('task-0');
		expect(result.output[0].binary?.data?.fileName).toBe('task-0-0.png');
		await eventually(() => server.requestsTo('/files/task-0.png').every((request) => request.closed));
	});
});

describe('a success envelope without a task id', () => {
	const answers: Array<[string, unknown]> = [
		['no data', { code: 1000, msg: 'ok' }],
		['data without taskid', { code: 1000, msg: 'ok', data: {} }],
		['an empty taskid', { code: 1000, msg: 'ok', data: { taskid: '  ' } }],
		['data that is not an object', { code: 1000, msg: 'ok', data: 'done' }],
	];
	it.each(answers)('%s is an API error that says so, and nothing is polled', async (_name, body) => {
		useApi({ create: (_request, response) => sendJson(response, body) });
		const { output, error } = await run(betav4(), 1, true);
		expect(error).toBeUndefined();
		expect(output[0].json.error).toBe('The MediaGen API answered success (code 1000) without a task ID [item 0]');
		expect(output[0].json.errorDescription).toMatch(/a task may have been created \(and charged\)/i);
		expect(output[0].json.taskid).toBeUndefined();
		expect(server.requestsTo(INFO)).toHaveLength(0);
	});

	it('a numeric taskid is accepted as a string', async () => {
		useApi({ create: (_request, response) => sendJson(response, { code: 1000, data: { taskid: 42 } }) });
		const { output, error } = await run(betav4({}, false));
		expect(error).toBeUndefined();
		expect(output[0].json.taskid).toBe('42');
	});
});

describe('only creation operations create', () => {
	it('Task → Get: the stopping error does not call other items\' ids "created by this run"', async () => {
		useApi();
		const result = await runNode({
			parameters: { resource: 'task', operation: 'get', taskType: 'image', taskId: '={{ $json.id }}' },
			items: [{ json: { id: 'task-1' } }, { json: { id: 'missing' } }],
			credentials: { apiKey: KEY, baseUrl: server.url },
		});
		expect(result.error?.message).toBe('The MediaGen API refused the request: task not found (task missing) [item 1]');
		expect(errorText(result)).not.toMatch(/created by this run/);
	});

	it('Task → Wait: the same', async () => {
		useApi();
		const result = await runNode({
			parameters: {
				resource: 'task',
				operation: 'wait',
				taskType: 'image',
				taskId: '={{ $json.id }}',
				options: { pollInterval: 0.05, maxWait: 2 },
			},
			items: [{ json: { id: 'task-1' } }, { json: { id: 'missing' } }],
			credentials: { apiKey: KEY, baseUrl: server.url },
		});
		expect(result.error?.message).toMatch(/task not found \(task missing\) \[item 1\]$/);
		expect(errorText(result)).not.toMatch(/created by this run/);
	});
});

describe('the key never leaves the Base URL origin', () => {
	const redirectTo =
		(target: () => string, status = 307) =>
		(_request: HostileRequest, response: http.ServerResponse) => {
			response.writeHead(status, { location: target() });
			response.end();
		};

	beforeEach(() => {
		other.setHandler((request, response) => {
			if (request.path.startsWith('/files/')) {
				const png = makePng(8, 8);
				response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
				response.end(png);
				return;
			}
			sendJson(response, {
				code: 1000,
				msg: 'ok',
				data: { taskid: 'stolen-task', image_status: 2, url: [`${other.url}/files/x.png`] },
			});
		});
	});

	it.each([307, 302, 308])(
		'a creation answered %i to another host is refused; the key, prompt and files do not go there',
		async (status) => {
			useApi({ create: redirectTo(() => `${other.url}${CREATE}`, status) });
			const { output, error } = await run(betav4(), 1, true);
			expect(error).toBeUndefined();
			expect(other.requests).toHaveLength(0);
			expect(output[0].json.error).toBe(
				`The MediaGen API answered HTTP ${status}, a redirect to ${other.url}${CREATE}, which the node does not follow [item 0]`,
			);
			expect(output[0].json.errorDescription).toMatch(/never sent anywhere but the Base URL/);
			expect(allText(output)).not.toContain('stolen-task');
		},
	);

	it('a redirect on the same origin is refused too, with the same clear error', async () => {
		useApi({ create: redirectTo(() => `${server.url}/elsewhere${CREATE}`) });
		const { output } = await run(betav4(), 1, true);
		expect(output[0].json.error).toMatch(
			/^The MediaGen API answered HTTP 307, a redirect to .*\/elsewhere\/v1\/tlimages\/betav4/,
		);
		expect(server.requestsTo(/elsewhere/)).toHaveLength(0);
	});

	it('an info poll answered 302 to another host ends that task with an error that keeps its id', async () => {
		useApi({ info: redirectTo(() => `${other.url}${INFO}`, 302) });
		const { output } = await run(betav4(), 1, true);
		expect(other.requests).toHaveLength(0);
		expect(output[0].json).toMatchObject({
			taskid: 'task-0',
			error: expect.stringMatching(/^The MediaGen API answered HTTP 302, a redirect to .* \(task task-0\) \[item 0\]$/),
		});
	});

	it('Task → Get answered 307 to another host: no key there', async () => {
		useApi({ info: redirectTo(() => `${other.url}${INFO}`) });
		const result = await runNode({
			parameters: { resource: 'task', operation: 'get', taskType: 'image', taskId: 'task-9' },
			credentials: { apiKey: KEY, baseUrl: server.url },
		});
		expect(other.requests).toHaveLength(0);
		expect(result.error?.message).toMatch(/answered HTTP 307, a redirect to/);
	});

	it('the credential test answered 307 to another host fails there, without sending the key', async () => {
		useApi({ info: redirectTo(() => `${other.url}${INFO}`) });
		const result = await testCredential({ apiKey: KEY, baseUrl: server.url });
		expect(result.status).toBe('Error');
		expect(server.requestsTo(INFO)).toHaveLength(1);
		expect(other.requests).toHaveLength(0);
	});

	it('a result file may redirect to another http host (no key is ever sent with downloads)', async () => {
		useApi({ file: redirectTo(() => `${other.url}/files/moved.png`, 302) });
		const { output, error } = await run(betav4({ downloadResults: true }));
		expect(error).toBeUndefined();
		expect(output[0].binary?.data).toBeDefined();
		expect(other.requests.map((request) => [request.path, request.headers.authorization])).toEqual([
			['/files/moved.png', undefined],
		]);
	});

	it('a result file redirecting to file: is refused, naming the URL and the task', async () => {
		useApi({ file: redirectTo(() => 'file:///etc/passwd', 302) });
		const { output } = await run(betav4({ downloadResults: true }), 1, true);
		expect(output[0].json).toMatchObject({
			taskid: 'task-0',
			error:
				'Could not download a result file: it redirects to file:///etc/passwd, and only http and https URLs are downloaded (task task-0) [item 0]',
		});
	});
});

describe('the key never appears in messages or output', () => {
	it('an error body that echoes the key across the 200-character cut does not leak any part of it', async () => {
		for (const offset of [190, 195, 199, 200]) {
			useApi({
				create: (request, response) => {
					const text = `${'a'.repeat(offset)}${String(request.headers.authorization)} and more text after the key`;
					response.writeHead(400, { 'content-type': 'text/plain' });
					response.end(text);
				},
			});
			const result = await run(betav4(), 1, true);
			const text = allText(result.output);
			expect(text).toMatch(/HTTP 400/);
			expect(text).not.toContain(KEY.slice(0, 4));
			const stopped = await run(betav4(), 1, false);
			expect(errorText(stopped)).toMatch(/HTTP 400/);
			expect(allText(stopped.error)).not.toContain(KEY.slice(0, 4));
		}
	});

	it('a non-JSON 200 body that echoes the key is redacted before it is cut', async () => {
		useApi({
			create: (request, response) => {
				response.writeHead(200, { 'content-type': 'text/html' });
				response.end(`<html>${'b'.repeat(190)}${String(request.headers.authorization)}</html>`);
			},
		});
		const result = await run(betav4(), 1, true);
		expect(result.output[0].json.error).toMatch(/not a JSON envelope/);
		expect(allText(result.output)).not.toContain(KEY.slice(0, 4));
	});

	it('a failed task whose info message echoes the key: the error is redacted', async () => {
		useApi({
			info: (request, response, taskId) =>
				sendJson(response, {
					code: 1000,
					data: {
						taskid: taskId,
						image_status: 3,
						message: `rejected request with Authorization: ${String(request.headers.authorization)}`,
					},
				}),
		});
		const result = await run(betav4({ failedStatusCodes: '3' }));
		expect(result.error?.message).toMatch(
			/^Task task-0 failed with status 3: rejected request with Authorization: \[redacted\] \[item 0\]$/,
		);
		expect(allText(result.error)).not.toContain(KEY);
	});

	it('info fields that echo the key are redacted in the output data', async () => {
		useApi({
			info: (request, response, taskId) =>
				sendJson(response, {
					code: 1000,
					data: {
						taskid: taskId,
						image_status: 2,
						url: [`${server.url}/files/${taskId}.png`],
						source: `header ${String(request.headers.authorization)}`,
					},
				}),
		});
		const { output, error } = await run(betav4());
		expect(error).toBeUndefined();
		expect(output[0].json.source).toBe('header [redacted]');
		expect(allText(output)).not.toContain(KEY);
	});
});

describe('result URLs with a refused scheme', () => {
	it.each([
		['data:', 'data:image/png;base64,iVBORw0KGgo='],
		['file:', 'file:///etc/passwd'],
		['ftp:', 'ftp://127.0.0.1/result.png'],
	])('a %s result URL says why it is not downloaded, naming the URL and the task', async (scheme, url) => {
		useApi({
			info: (_request, response, taskId) =>
				sendJson(response, { code: 1000, data: { taskid: taskId, image_status: 2, url: [url] } }),
		});
		const { output } = await run(betav4({ downloadResults: true }), 1, true);
		expect(output[0].json).toMatchObject({
			taskid: 'task-0',
			urls: [url],
			error: `Could not download a result file: its URL ${url} uses the scheme ${scheme}, and only http and https URLs are downloaded (task task-0) [item 0]`,
		});
	});
});
