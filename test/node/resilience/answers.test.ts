/**
 * API answers of any size and depth (issue 31, point 2): a task id in the first bytes of an answer past the 4 MiB
 * cap, or of an answer that broke off, is kept; an answer nested 50,000 levels deep keeps its shallow fields and
 * never reaches code that recurses; errors say that the API answered and what was wrong with the answer, in a
 * bounded length. Each scenario runs the node in n8n's engine against a purpose-built server on 127.0.0.1.
 */
import type http from 'node:http';

import { runNode } from '../../harness';
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
