/**
 * Servers that misbehave the way real ones do and the simulator does not: downloads that break off, success
 * envelopes without a task ID, task ids that do not exist, result URLs (or redirects) with refused schemes. A
 * task id is never lost, and only creations count as tasks "created by this run". Each scenario runs the node
 * in n8n's engine against a purpose-built server. Redirects to other hosts and answers that echo the key are in
 * ../secrets.test.ts.
 */
import { runNode } from '../../harness';
import { eventually, sendJson } from '../../hostile-server';
import { makePng } from '../../simulator/png';
import { errorText, HOSTILE_KEY as KEY, redirectTo, useHostileApi } from '../../support';

const INFO = '/v1/tlimages/infobytaskid';

const { server, useApi, run, betav4 } = useHostileApi();

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
		const big = Buffer.concat([makePng(8, 8), Buffer.alloc(8 * 1024 * 1024, 7)]);
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
		expect(output[0].json.taskid).toBeNull();
		expect(server.requestsTo(INFO)).toHaveLength(0);
	});

	it('a numeric taskid is accepted as a string', async () => {
		useApi({ create: (_request, response) => sendJson(response, { code: 1000, data: { taskid: 42 } }) });
		const { output, error } = await run(betav4({}, false));
		expect(error).toBeUndefined();
		expect(output[0].json.taskid).toBe('42');
	});
});

describe('answers that may have charged (issue 18, point 7)', () => {
	const CREATE = '/v1/tlimages/betav4';
	const ADVICE_OF_A_PAID_RERUN = /try again later|then run the node again/i;

	const answer =
		(status: number, body: string, headers: Record<string, string> = {}) =>
		(_request: unknown, response: import('node:http').ServerResponse) => {
			response.writeHead(status, { 'content-type': 'application/json', ...headers });
			response.end(body);
		};

	it.each([500, 502, 503])(
		'a creation answered HTTP %i says a task may have been created, and invites no re-run',
		async (status) => {
			useApi({ create: answer(status, JSON.stringify({ code: 9999, msg: 'internal error' })) });
			const { output } = await run(betav4(), 1, true);
			expect(output[0].json.error).toBe(`The MediaGen API answered HTTP ${status}: internal error [item 0]`);
			expect(output[0].json.errorDescription).toMatch(/a task may have been created \(and charged\) anyway/);
			expect(output[0].json.errorDescription).not.toMatch(ADVICE_OF_A_PAID_RERUN);
			expect(server.requestsTo(CREATE)).toHaveLength(1);
		},
	);

	it.each([
		['HTTP 500', 500],
		['HTTP 429', 429],
		['HTTP 400', 400],
		['HTTP 307', 307],
	])('a creation answered %s whose body names a task keeps its id, and is not repeated', async (_name, status) => {
		useApi({
			create: answer(status, JSON.stringify({ code: 9999, msg: 'queue full', data: { taskid: 'task-77' } }), {
				'retry-after': '0',
				location: `${server.url}/elsewhere`,
			}),
		});
		const { output } = await run(betav4(), 1, true);
		expect(output[0].json).toMatchObject({
			taskid: 'task-77',
			status: 'failed',
			error: expect.stringMatching(/\(task task-77\) \[item 0\]$/),
		});
		expect(output[0].json.errorDescription).toMatch(/names task task-77: it was created and may be charged/);
		expect(output[0].json.errorDescription).not.toMatch(ADVICE_OF_A_PAID_RERUN);
		expect(server.requestsTo(CREATE)).toHaveLength(1); // a 429 that names a task created it: never repeated
	});

	it('the stopping error of such an answer names the task among the tasks this run created', async () => {
		useApi({
			create: (request, response, index) =>
				index === 1
					? answer(503, JSON.stringify({ code: 9999, data: { taskid: 'task-paid' } }))(request, response)
					: sendJson(response, { code: 1000, data: { taskid: `task-${index}` } }),
		});
		const result = await run(betav4({ maxConcurrency: 1 }), 2);
		expect(result.error?.message).toBe('The MediaGen API answered HTTP 503 (task task-paid) [item 1]');
		expect(errorText(result)).toMatch(/Tasks created by this run keep running on the server: .*task-paid \(item 1\)/);
	});

	it('an HTTP 200 with cut-off JSON: the id it holds is recovered, and the error says the task may be charged', async () => {
		useApi({ create: answer(200, '{"code":1000,"msg":"ok","data":{"taskid":"task-cut","url":"http://files.exam') });
		const { output } = await run(betav4(), 1, true);
		expect(output[0].json).toMatchObject({
			taskid: 'task-cut',
			error: 'The MediaGen API answered with a body that is not a JSON envelope (task task-cut) [item 0]',
		});
		expect(output[0].json.errorDescription).toMatch(/names task task-cut: it was created and may be charged/);
	});

	it.each([
		['cut inside the id', '{"code":1000,"data":{"taskid":"task-c'],
		['cut before the id', '{"code":1000,"data":{"tas'],
		['an HTML page', '<html><body>502 Bad Gateway</body></html>'],
	])('an HTTP 200 %s names no task, and says one may have been created', async (_name, body) => {
		useApi({ create: answer(200, body) });
		const { output } = await run(betav4(), 1, true);
		expect(output[0].json.taskid).toBeNull();
		expect(output[0].json.errorDescription).toMatch(/a task may have been created \(and charged\) anyway/);
	});

	it('Retry On Fail follows a task an error answer named instead of creating (and paying for) it again', async () => {
		useApi({
			create: (request, response, index) =>
				index === 0
					? answer(500, JSON.stringify({ code: 9999, msg: 'timeout upstream', data: { taskid: 'task-0' } }))(
							request,
							response,
						)
					: sendJson(response, { code: 1000, data: { taskid: `task-${index}` } }),
		});
		const result = await runNode({
			parameters: betav4(),
			items: [{ json: { idea: 'one' } }],
			credentials: { apiKey: KEY, baseUrl: server.url },
			retryOnFail: { maxTries: 2 },
		});
		expect(result.error).toBeUndefined();
		expect(result.output[0].json).toMatchObject({ taskid: 'task-0', status: 'completed' });
		expect(server.requestsTo(CREATE)).toHaveLength(1);
	});

	it('insufficient credits (code 9000) does not advise running the node again', async () => {
		useApi({
			create: (_request, response) => sendJson(response, { code: 9000, msg: 'insufficient credits' }),
		});
		const { output } = await run(betav4(), 1, true);
		expect(output[0].json.error).toBe('Insufficient credits [item 0]');
		expect(output[0].json.errorDescription).not.toMatch(/run the node again/i);
		expect(output[0].json.errorDescription).toMatch(/create again only the items that failed/);
	});
});

describe('a huge message is cut in errors (issue 18, point 11)', () => {
	const huge = `${'m'.repeat(3_000_000)} end`;

	it.each([
		['a refusal (code 9999)', 200],
		['an HTTP 500', 500],
	])('%s with a 3 MB msg: the error item holds a few hundred characters of it, not 2 copies', async (_name, status) => {
		useApi({
			create: (request, response) => {
				const text = JSON.stringify({ code: 9999, msg: `${String(request.headers.authorization)} ${huge}` });
				response.writeHead(status, { 'content-type': 'application/json' });
				response.end(text);
			},
		});
		for (const onError of ['continueRegularOutput', 'continueErrorOutput'] as const) {
			const result = await runNode({
				parameters: betav4(),
				items: [{ json: { idea: 'x' } }],
				credentials: { apiKey: KEY, baseUrl: server.url },
				onError,
			});
			const item = onError === 'continueErrorOutput' ? result.errorOutput[0] : result.output[0];
			const text = JSON.stringify(item.json);
			expect(text.length).toBeLessThan(5_000);
			expect(text).toContain('[redacted] mmm'); // redacted first, then cut
			expect(text).toContain('(3000015 characters)');
			expect(text).not.toContain(KEY);
		}
	});

	it('a failed task whose message is 3 MB: the error holds its start', async () => {
		useApi({
			info: (_request, response, taskId) =>
				sendJson(response, { code: 1000, data: { taskid: taskId, image_status: 3, message: huge } }),
		});
		const result = await run(betav4({ failedStatusCodes: '3' }));
		expect(result.error?.message.length).toBeLessThan(1_000);
		expect(result.error?.message).toMatch(
			/^Task task-0 failed with status 3: m{500}… \(3000004 characters\) \[item 0\]$/,
		);
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
