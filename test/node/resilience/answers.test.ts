/**
 * API answers of any size and depth (issue 31, point 2): a task id in the first bytes of an answer past the 4 MiB
 * cap, or of an answer that broke off, is kept; an answer nested 50,000 levels deep keeps its shallow fields and
 * never reaches code that recurses; errors say that the API answered and what was wrong with the answer, in a
 * bounded length. Each scenario runs the node in n8n's engine against a purpose-built server on 127.0.0.1.
 */
import type http from 'node:http';

import { loggedLines, runNode } from '../../harness';
import { encodeText } from '../../fixtures/texts';
import { sendJson } from '../../hostile-server';
import { errorText, HOSTILE_KEY as KEY, useHostileApi } from '../../support';

const { server, useApi, run, betav4 } = useHostileApi();

const CREATE = '/v1/tlimages/betav4';
const MiB = 1024 * 1024;

/** An answer sent as is, with a Content-Length. */
const answer =
	(text: string | Buffer, status = 200) =>
	(_request: unknown, response: http.ServerResponse) => {
		const body = typeof text === 'string' ? Buffer.from(text) : text;
		response.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
		response.end(body);
	};

/** A JSON envelope whose data holds `taskid` and then `depth` levels of nested objects. */
function nestedAfterId(taskId: string, depth: number): string {
	return `{"code":1000,"msg":"ok","data":{"taskid":"${taskId}","meta":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}`;
}

/** Runs one item with Retry On Fail (3 tries), stopping on error as n8n does by default. */
async function withRetries(tries = 3) {
	return await runNode({
		parameters: betav4(),
		items: [{ json: { idea: 'one' } }],
		credentials: { apiKey: KEY, baseUrl: server.url },
		retryOnFail: { maxTries: tries, waitBetweenTries: 0 },
	});
}

describe('issue 31: an answer past the 4 MiB cap', () => {
	const huge = (head: string) => `${head}"pad":"${'x'.repeat(5 * MiB)}"}}`;

	it('a creation answered with 5 MiB whose first bytes name the task: the id is kept, and Retry On Fail follows it instead of paying again', async () => {
		useApi({ create: answer(huge('{"code":1000,"msg":"ok","data":{"taskid":"task-7",')) });
		const result = await withRetries();
		expect(result.error).toBeUndefined();
		expect(result.output[0].json).toMatchObject({ taskid: 'task-7', status: 'completed' });
		expect(server.requestsTo(CREATE)).toHaveLength(1);
	});

	it('the same with Continue On Fail: the error item keeps the id and says the API answered, too large', async () => {
		useApi({ create: answer(huge('{"code":1000,"msg":"ok","data":{"taskid":"task-7",')) });
		const { output } = await run(betav4(), 1, true);
		expect(output[0].json).toMatchObject({
			taskid: 'task-7',
			error:
				'The MediaGen API answered HTTP 200 with a body larger than 4 MiB, which no answer of the API is (task task-7) [item 0]',
		});
		const description = String(output[0].json.errorDescription);
		expect(description).toMatch(/names task task-7: it was created and may be charged/);
		expect(description).not.toMatch(/could not reach|did not get an answer/i);
		expect(description.length).toBeLessThan(1_000);
	});

	it('an over-cap answer that names no task: the API answered (not "could not reach"), and a task may have been created', async () => {
		useApi({ create: answer(huge('{"code":1000,"msg":"ok","data":{')) });
		const { output } = await run(betav4(), 1, true);
		expect(output[0].json.taskid).toBeNull();
		expect(String(output[0].json.error)).toBe(
			'The MediaGen API answered HTTP 200 with a body larger than 4 MiB, which no answer of the API is [item 0]',
		);
		expect(String(output[0].json.errorDescription)).toMatch(/a task may have been created \(and charged\) anyway/);
		expect(server.requestsTo(CREATE)).toHaveLength(1);
	});

	it('a status check answered over the cap is checked again: the API answered, and the task is kept', async () => {
		useApi({
			info: (request, response, taskId) =>
				server.requestsTo(/infobytaskid/).length === 1
					? answer(huge(`{"code":1000,"data":{"taskid":"${taskId}",`))(request, response)
					: sendJson(response, {
							code: 1000,
							data: { taskid: taskId, image_status: 2, url: [`${server.url}/files/${taskId}.png`] },
						}),
		});
		const { output, error } = await run(betav4());
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ taskid: 'task-0', status: 'completed' });
		expect(server.requestsTo(/infobytaskid/)).toHaveLength(2);
	});
});

describe('issue 31: answers nested 50,000 levels deep', () => {
	it('a creation answer nested 50,000 levels after the task id: the task is followed, created once, its deep part marked', async () => {
		useApi({ create: answer(nestedAfterId('task-0', 50_000)) });
		const result = await withRetries();
		expect(result.error).toBeUndefined();
		expect(result.output[0].json).toMatchObject({ taskid: 'task-0', status: 'completed' });
		expect(server.requestsTo(CREATE)).toHaveLength(1);
	});

	it('Wait off: the output keeps the answer down to the depth limit and says where it left the rest out', async () => {
		useApi({ create: answer(nestedAfterId('task-0', 50_000)) });
		const { output, error } = await run(betav4({}, false));
		expect(error).toBeUndefined();
		expect(output[0].json.taskid).toBe('task-0');
		const text = JSON.stringify(output[0].json);
		expect(text).toMatch(/"\[nested deeper than \d+ levels: left out\]"/);
		expect(text.length).toBeLessThan(2_000);
	});
});

describe('issue 31: answers that are JSON in other clothes, or cut off', () => {
	it('a JSON answer that starts with a UTF-8 byte order mark is still JSON', async () => {
		useApi({
			create: answer(
				Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"code":1000,"data":{"taskid":"task-0"}}')]),
			),
		});
		const { output, error } = await run(betav4());
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ taskid: 'task-0', status: 'completed' });
	});

	it('a creation answer that breaks off after the task id: the id is kept, and the error says the answer broke off', async () => {
		useApi({
			create: (_request, response) => {
				const text = '{"code":1000,"msg":"ok","data":{"taskid":"task-5","url":"';
				response.writeHead(200, { 'content-type': 'application/json', 'content-length': text.length + 500 });
				response.write(text);
				setTimeout(() => response.socket?.destroy(), 50);
			},
		});
		const result = await run(betav4(), 1);
		expect(result.error?.message).toBe(
			'The MediaGen API answered HTTP 200, but its answer broke off: the connection was closed before the whole answer arrived (task task-5) [item 0]',
		);
		expect(errorText(result)).toMatch(/names task task-5: it was created and may be charged/);
		expect(errorText(result)).not.toMatch(/could not reach/i);
	});

	it('a status check whose answer trickles past Request Timeout: the API answered, too slowly, and the task is kept', async () => {
		useApi({
			info: (_request, response) => {
				response.writeHead(200, { 'content-type': 'application/json' });
				response.write('{"code":1000,');
				const timer = setInterval(() => (response.destroyed ? clearInterval(timer) : response.write(' ')), 50);
			},
		});
		const { output } = await run(betav4({ requestTimeout: 0.5, maxWait: 1.5 }), 1, true);
		expect(output[0].json).toMatchObject({ taskid: 'task-0', status: 'pending' });
		expect(String(output[0].json.errorDescription)).toMatch(
			/answered HTTP 200, but its answer broke off: the request timed out/,
		);
	});
});

/**
 * Answers in any Unicode encoding, and every task an answer names: a creation answer is read as
 * text in UTF-8, UTF-16 or UTF-32, with or without a byte order mark; every id it names (a `taskid` given twice
 * included) reaches the output or the error, and the Retry On Fail memory.
 */
describe('answers in any Unicode encoding', () => {
	const encodings: Array<[string, (text: string) => Buffer]> = (
		['UTF-16 LE with BOM', 'UTF-16 LE', 'UTF-16 BE with BOM', 'UTF-16 BE', 'UTF-32 LE with BOM', 'UTF-32 BE'] as const
	).map((encoding) => [encoding.replace('with BOM', 'with a byte order mark'), (text) => encodeText(text, encoding)]);
	const anyTask = (_request: unknown, response: http.ServerResponse, taskId: string) =>
		sendJson(response, {
			code: 1000,
			data: { taskid: taskId, image_status: 2, url: [`${server.url}/files/${taskId}.png`] },
		});

	it.each(encodings)(
		'a creation answered in %s naming task t-507: the task is followed, created once',
		async (_name, encode) => {
			useApi({ create: answer(encode('{"code":1000,"msg":"ok","data":{"taskid":"t-507"}}')), info: anyTask });
			const { output, error } = await run(betav4());
			expect(error).toBeUndefined();
			expect(output[0].json).toMatchObject({ taskid: 't-507', status: 'completed' });
			expect(server.requestsTo(CREATE)).toHaveLength(1);
		},
	);

	it.each(encodings)(
		'an HTTP 502 in %s naming task t-507: the error names it, and Retry On Fail follows it instead of paying again',
		async (_name, encode) => {
			const text = '{"code":9999,"msg":"Bad Gateway","data":{"taskid":"t-507"}}';
			useApi({ create: answer(encode(text), 502), info: anyTask });
			const once = await run(betav4(), 1, true);
			expect(once.output[0].json).toMatchObject({ taskid: 't-507' });
			expect(String(once.output[0].json.errorDescription)).toMatch(/names task t-507: it was created/);
			expect(String(once.output[0].json.errorDescription)).not.toMatch(/may have been created/);
			useApi({ create: answer(encode(text), 502), info: anyTask });
			const retried = await withRetries();
			expect(retried.error).toBeUndefined();
			expect(retried.output[0].json).toMatchObject({ taskid: 't-507', status: 'completed' });
			expect(server.requestsTo(CREATE)).toHaveLength(1);
		},
	);
});

it('an HTTP 400 in UTF-16 with a byte order mark: its message and body are quoted as text, not as its bytes read as UTF-8', async () => {
	const text = '{"code":9999,"msg":"bad prompt ✗","data":{"taskid":"t-9"}}';
	useApi({ create: answer(Buffer.from(`\ufeff${text}`, 'utf16le'), 400) });
	const { output } = await run(betav4(), 1, true);
	expect(output[0].json).toMatchObject({
		taskid: 't-9',
		error: 'The MediaGen API answered HTTP 400: bad prompt ✗ (task t-9) [item 0]',
	});
	expect(String(output[0].json.errorDescription)).toContain(`Response: ${text}`);
});

describe('an answer that names more than one task', () => {
	const anyTask = (_request: unknown, response: http.ServerResponse, taskId: string) =>
		sendJson(response, {
			code: 1000,
			data: { taskid: taskId, image_status: 2, url: [`${server.url}/files/${taskId}.png`] },
		});
	const twice = '{"code":1000,"msg":"ok","data":{"taskid":"t-1","taskid":"t-2"}}';

	it('a success with taskid given twice: the last is followed (as JSON readers do), the first named in a warning and the log', async () => {
		const logged = loggedLines().length;
		useApi({ create: answer(twice), info: anyTask });
		const { output, error } = await run(betav4());
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ taskid: 't-2', status: 'completed' });
		expect(String(output[0].json.warning)).toMatch(/also named task t-1: it may exist and be charged/);
		expect(loggedLines(logged).join('\n')).toMatch(
			/created image task t-2 \(its answer also named task t-1\) for item 0/,
		);
	});

	it('Stop Workflow after another item fails: the stopping error names both tasks', async () => {
		useApi({
			create: (request, response, index) =>
				index === 0 ? answer(twice)(request, response) : sendJson(response, { code: 9999, msg: 'prompt refused' }),
			info: anyTask,
		});
		const result = await run(betav4(), 2);
		expect(result.error?.message).toMatch(/refused the request: prompt refused/);
		expect(errorText(result)).toMatch(/t-2 \(item 0\)/);
		expect(errorText(result)).toMatch(/t-1 \(item 0\)/);
	});

	it('Retry On Fail after another item failed: the later try resumes t-2 and still names t-1, creating nothing again', async () => {
		let refused = 0;
		useApi({
			create: (request, response, index) => {
				if (index === 0) return answer(twice)(request, response);
				if (refused++ === 0) return sendJson(response, { code: 9999, msg: 'prompt refused' });
				return sendJson(response, { code: 1000, data: { taskid: `t-${index + 10}` } });
			},
			info: anyTask,
		});
		const result = await runNode({
			parameters: betav4(),
			items: [{ json: { idea: 'one' } }, { json: { idea: 'two' } }],
			credentials: { apiKey: KEY, baseUrl: server.url },
			retryOnFail: { maxTries: 2, waitBetweenTries: 0 },
		});
		expect(result.error).toBeUndefined();
		expect(result.output[0].json).toMatchObject({ taskid: 't-2', status: 'completed' });
		expect(String(result.output[0].json.warning)).toMatch(/also named task t-1/);
		// Item 0 once, item 1 twice (refused, then created).
		expect(server.requestsTo(CREATE)).toHaveLength(3);
	});

	it('an HTTP 502 that names two tasks: the error names both, and Retry On Fail follows them without paying again', async () => {
		const body = '{"code":9999,"msg":"Bad Gateway","data":{"taskid":"t-5","taskid":"t-6"}}';
		useApi({ create: answer(body, 502), info: anyTask });
		const once = await run(betav4(), 1, true);
		expect(once.output[0].json.error).toBe('The MediaGen API answered HTTP 502: Bad Gateway (tasks t-6, t-5) [item 0]');
		expect(String(once.output[0].json.errorDescription)).toMatch(/names 2 tasks, t-6, t-5: each was created/);
		useApi({ create: answer(body, 502), info: anyTask });
		const retried = await withRetries();
		expect(retried.error).toBeUndefined();
		expect(retried.output[0].json).toMatchObject({ taskid: 't-6', status: 'completed' });
		expect(String(retried.output[0].json.warning)).toMatch(/also named task t-5/);
		expect(server.requestsTo(CREATE)).toHaveLength(1);
	});
});
