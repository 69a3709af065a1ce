/**
 * The API key never leaves the Base URL's origin and never appears in output or errors. API requests and the
 * credential test follow no redirect (a 3xx is an error naming its target), result downloads are made without
 * the key, and bodies, task messages and info fields that echo the key are redacted. Most scenarios run against
 * purpose-built servers (test/hostile-server.ts); the wrong-key case runs against the simulator.
 *
 * Tests about something else check the same along the way: output.test.ts (a download request carries no
 * Authorization), resilience/faults.test.ts (no key in API errors), credential.test.ts (a refused key is not
 * echoed by the credential test).
 */
import type http from 'node:http';

import { loggedLines, runNode, testCredential } from '../harness';
import { sendJson, type HostileRequest } from '../hostile-server';
import { KEY_ENCODINGS, keyLeaks } from '../keyEncodings';
import { makePng } from '../simulator/png';
import {
	allText,
	BETAV4_PATH,
	createTaskDirect,
	errorText,
	HOSTILE_KEY as KEY,
	INFO_PATH,
	redirectTo,
	useHostileApi,
	useSimulator,
} from '../support';

const { server, other, useApi, run, betav4 } = useHostileApi();

/** An info answer for a finished task whose `source` field echoes the Authorization header the server received. */
const finishedEchoingKey = (request: HostileRequest, response: http.ServerResponse, taskId: string) =>
	sendJson(response, {
		code: 1000,
		data: {
			taskid: taskId,
			image_status: 2,
			url: [`${server.url}/files/${taskId}.png`],
			source: `header ${String(request.headers.authorization)}`,
		},
	});

describe('the key never leaves the Base URL origin', () => {
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
			useApi({ create: redirectTo(() => `${other.url}${BETAV4_PATH}`, status) });
			const { output, error } = await run(betav4(), 1, true);
			expect(error).toBeUndefined();
			expect(other.requests).toHaveLength(0);
			expect(output[0].json.error).toBe(
				`The MediaGen API answered HTTP ${status}, a redirect to ${other.url}${BETAV4_PATH}, which the node does not follow [item 0]`,
			);
			expect(output[0].json.errorDescription).toMatch(/never sent anywhere but the Base URL/);
			expect(allText(output)).not.toContain('stolen-task');
		},
	);

	it('a redirect on the same origin is refused too, with the same clear error', async () => {
		useApi({ create: redirectTo(() => `${server.url}/elsewhere${BETAV4_PATH}`) });
		const { output } = await run(betav4(), 1, true);
		expect(output[0].json.error).toMatch(
			/^The MediaGen API answered HTTP 307, a redirect to .*\/elsewhere\/v1\/tlimages\/betav4/,
		);
		expect(server.requestsTo(/elsewhere/)).toHaveLength(0);
	});

	it('an info poll answered 302 to another host ends that task with an error that keeps its id', async () => {
		useApi({ info: redirectTo(() => `${other.url}${INFO_PATH}`, 302) });
		const { output } = await run(betav4(), 1, true);
		expect(other.requests).toHaveLength(0);
		expect(output[0].json).toMatchObject({
			taskid: 'task-0',
			error: expect.stringMatching(/^The MediaGen API answered HTTP 302, a redirect to .* \(task task-0\) \[item 0\]$/),
		});
	});

	it('Task → Get answered 307 to another host: no key there', async () => {
		useApi({ info: redirectTo(() => `${other.url}${INFO_PATH}`) });
		const result = await runNode({
			parameters: { resource: 'task', operation: 'get', taskType: 'image', taskId: 'task-9' },
			credentials: { apiKey: KEY, baseUrl: server.url },
		});
		expect(other.requests).toHaveLength(0);
		expect(result.error?.message).toMatch(/answered HTTP 307, a redirect to/);
	});

	it('the credential test answered 307 to another host fails there, without sending the key', async () => {
		useApi({ info: redirectTo(() => `${other.url}${INFO_PATH}`) });
		const result = await testCredential({ apiKey: KEY, baseUrl: server.url });
		expect(result.status).toBe('Error');
		expect(server.requestsTo(INFO_PATH)).toHaveLength(1);
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
			info: finishedEchoingKey,
		});
		const { output, error } = await run(betav4());
		expect(error).toBeUndefined();
		expect(output[0].json.source).toBe('header [redacted]');
		expect(allText(output)).not.toContain(KEY);
	});
});

describe('the key as the server received it is redacted too (issue 18, point 8)', () => {
	// The HTTP client drops control characters from a header value and trims spaces and tabs around it: a key pasted
	// with a trailing newline, CRLF or spaces reaches the server, and comes back in its answers, trimmed.
	const pasted: Array<[string, string]> = [
		['a trailing newline', `${KEY}\n`],
		['a trailing CRLF', `${KEY}\r\n`],
		['spaces around it', `  ${KEY}  `],
		['a tab and a newline', `\t${KEY}\n`],
		['a newline inside', `${KEY.slice(0, 10)}\n${KEY.slice(10)}`],
	];

	it.each(pasted)('a key pasted with %s: echoes in errors and output are redacted', async (_name, apiKey) => {
		useApi({
			create: (request, response, index) => {
				if (index === 0) {
					response.writeHead(400, { 'content-type': 'application/json' });
					response.end(JSON.stringify({ code: 9999, msg: `bad key ${String(request.headers.authorization)}` }));
					return;
				}
				sendJson(response, { code: 1000, msg: 'ok', data: { taskid: `task-${index}` } });
			},
			info: finishedEchoingKey,
		});
		const result = await runNode({
			parameters: betav4(),
			items: [{ json: { idea: 'one' } }, { json: { idea: 'two' } }],
			credentials: { apiKey, baseUrl: server.url },
			continueOnFail: true,
		});
		expect(server.requests[0].headers.authorization).toBe(KEY); // what the server got: the key, trimmed
		expect(result.output[0].json.error).toBe('The MediaGen API answered HTTP 400: bad key [redacted] [item 0]');
		expect(result.output[1].json.source).toBe('header [redacted]');
		expect(allText(result)).not.toContain(KEY.slice(10));
	});
});

describe('the key in any encoding is redacted (issue 31, point 5)', () => {
	// URL-special characters, a space and a Latin-1 letter: every encoding writes this key differently.
	const SPECIAL = 'Zq9k/Key+with spaces&=?#%é-0123456789';
	const percent = encodeURIComponent(SPECIAL);
	const forms: Array<[string, string]> = [
		['percent-encoded', percent],
		['percent-encoded in lower case', percent.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())],
		['form-encoded', new URLSearchParams({ k: SPECIAL }).toString().slice(2)],
		[
			'JSON with \\u escapes',
			JSON.stringify(SPECIAL)
				.slice(1, -1)
				.replace(/[a-z]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`),
		],
	];
	/** Base64 of a text in which the key stands at some offset, and the part of it only the key decides. */
	const base64Inside = (prefix: string, url = false) => {
		const encoded = Buffer.from(`${prefix}${SPECIAL}!`).toString(url ? 'base64url' : 'base64');
		return { encoded, keyPart: encoded.slice(Math.ceil((prefix.length * 8) / 6) + 1, -4) };
	};
	const basic = base64Inside('Basic user:');
	const token = base64Inside('t=', true);

	/** The server as it received the key (a Latin-1 header), as a string. */
	const received = (request: HostileRequest) =>
		Buffer.from(String(request.headers.authorization), 'latin1').toString('latin1');

	it('a key with URL-special characters echoed percent-encoded into a result URL, and in base64, form and JSON escapes', async () => {
		useApi({
			info: (request, response, taskId) => {
				const key = received(request);
				sendJson(response, {
					code: 1000,
					data: {
						taskid: taskId,
						image_status: 2,
						url: [`${server.url}/files/${taskId}.png?key=${encodeURIComponent(key)}&v=1`],
						authorization: Buffer.from(`Basic user:${key}!`).toString('base64'),
						token: Buffer.from(`t=${key}!`).toString('base64url'),
						form: `k=${new URLSearchParams({ k: key }).toString().slice(2)}`,
					},
				});
			},
		});
		const result = await runNode({
			parameters: betav4({ downloadResults: true }),
			items: [{ json: { idea: 'one' } }],
			credentials: { apiKey: SPECIAL, baseUrl: server.url },
		});
		expect(result.error).toBeUndefined();
		expect(String(received(server.requestsTo(INFO_PATH)[0]))).toBe(SPECIAL); // the server had it to echo
		const json = result.output[0].json;
		expect(json.urls).toEqual([`${server.url}/files/task-0.png?key=[redacted]&v=1`]);
		const text = allText(result.output);
		for (const [name, form] of [...forms, ['base64', basic.keyPart], ['base64url', token.keyPart]]) {
			expect({ name, leaked: text.includes(form) }).toEqual({ name, leaked: false });
		}
		expect(server.requestsTo(/^\/files\//).every((request) => !request.path.includes('Key'))).toBe(true);
	});

	it.each(forms)('an error page that echoes the key %s: the error quotes it redacted', async (_name, form) => {
		useApi({
			create: (_request, response) => {
				response.writeHead(400, { 'content-type': 'text/html' });
				response.end(`<script>var k = "${form}";</script>`);
			},
		});
		const result = await runNode({
			parameters: betav4(),
			items: [{ json: { idea: 'one' } }],
			credentials: { apiKey: SPECIAL, baseUrl: server.url },
			continueOnFail: true,
		});
		const description = String(result.output[0].json.errorDescription);
		expect(description).toContain('<script>var k = "[redacted]";</script>');
	});

	it('a task whose result URL carries the key percent-encoded: the download error and the log line show it redacted', async () => {
		const logged = loggedLines().length;
		useApi({
			create: (request, response, index) =>
				sendJson(response, {
					code: 1000,
					data: { taskid: `task-${index}`, url: `${server.url}/x?k=${encodeURIComponent(received(request))}` },
				}),
			info: (request, response, taskId) =>
				sendJson(response, {
					code: 1000,
					data: {
						taskid: taskId,
						image_status: 2,
						url: [`${server.url}/gone/${encodeURIComponent(received(request))}.png`],
					},
				}),
			file: (_request, response) => {
				response.writeHead(404);
				response.end();
			},
		});
		const result = await runNode({
			parameters: betav4({ downloadResults: true }),
			items: [{ json: { idea: 'one' } }],
			credentials: { apiKey: SPECIAL, baseUrl: server.url },
		});
		expect(result.error?.message).toBe(`Could not download a result file: HTTP 404 (task task-0) [item 0]`);
		const text = `${allText(result)}\n${loggedLines(logged).join('\n')}`;
		expect(text).toContain('/gone/[redacted].png');
		for (const [, form] of forms) expect(text).not.toContain(form);
	});
});

describe('the key in any encoding a server can echo', () => {
	// URL-special characters, a space and a Latin-1 letter: every encoding writes this key differently.
	const KEY_ = 'Zq9k/Key+with spaces&=?#%é-0123456789';
	const received = (request: HostileRequest) => String(request.headers.authorization);
	const encodings = KEY_ENCODINGS.map((encoding) => [encoding.name, encoding] as const);
	/** Everything a user or a client sees of a run: its output, run data, errors and the node's log lines. */
	const seen = (result: object, logged: number) => `${allText(result)}\n${loggedLines(logged).join('\n')}`;

	it.each(encodings)(
		'echoed %s in a result URL, an info field and the message: not in the output, the run data, the log or a file name',
		async (_name, encoding) => {
			const logged = loggedLines().length;
			useApi({
				info: (request, response, taskId) => {
					const echoed = encoding.encode(received(request));
					sendJson(response, {
						code: 1000,
						msg: `ok ${echoed}`,
						data: {
							taskid: taskId,
							image_status: 2,
							url: [`${server.url}/files/${taskId}.png?sig=${echoed}&v=1`],
							source: `header ${echoed} end`,
						},
					});
				},
			});
			const result = await runNode({
				parameters: betav4({ downloadResults: true }),
				items: [{ json: { idea: 'one' } }],
				credentials: { apiKey: KEY_, baseUrl: server.url },
			});
			expect(result.error).toBeUndefined();
			expect(keyLeaks(encoding.encode(KEY_), KEY_)).toContain(encoding.name); // what the server sent holds it
			// Base64 keeps what encodes the text around the key (and the characters that mix its bits with the key's).
			const around = encoding.name.startsWith('base64') ? '[^ ]*' : '';
			expect(result.output[0].json.source).toMatch(new RegExp(`^header ${around}\\[redacted\\]${around} end$`));
			expect(String((result.output[0].json.urls as string[])[0])).toMatch(
				new RegExp(`/files/task-0\\.png\\?sig=${around}\\[redacted\\]${around}&v=1$`),
			);
			expect(keyLeaks(seen(result, logged), KEY_)).toEqual([]);
		},
	);

	it.each(encodings)(
		'echoed %s in a 9999 refusal: not in what an AI Agent or an MCP client reads, nor in the error',
		async (_name, encoding) => {
			const logged = loggedLines().length;
			useApi({
				create: (request, response) =>
					sendJson(response, {
						code: 9999,
						msg: `bad key ${encoding.encode(received(request))} (percent: ${encodeURIComponent(received(request))})`,
					}),
			});
			const parameters = betav4();
			const tool = await runNode({
				parameters,
				items: [{ json: { idea: 'one' } }],
				credentials: { apiKey: KEY_, baseUrl: server.url },
				asTool: true,
			});
			// The model reads the item's message and hint; over MCP the same two make the isError text (tool/reply.ts).
			const around = encoding.name.startsWith('base64') ? '[^ ]*' : '';
			const refused = `The MediaGen API refused the request: bad key ${around}\\[redacted\\]${around} \\(percent: \\[redacted\\]\\)`;
			expect(tool.output[0].json.status).toBe('failed');
			expect(tool.output[0].json.message).toMatch(new RegExp(`^${refused}$`));
			const stopped = await runNode({
				parameters,
				items: [{ json: { idea: 'one' } }],
				credentials: { apiKey: KEY_, baseUrl: server.url },
			});
			expect(stopped.error?.message).toMatch(new RegExp(`^${refused} \\[item 0\\]$`));
			expect(keyLeaks(`${seen(tool, logged)}\n${seen(stopped, logged)}`, KEY_)).toEqual([]);
		},
	);

	it.each(encodings.filter(([name]) => !name.startsWith('base64')))(
		"a task id that echoes the key %s: the stored file's name does not carry it",
		async (_name, encoding) => {
			useApi({
				create: (request, response) =>
					sendJson(response, { code: 1000, data: { taskid: `t-${encoding.encode(received(request))}` } }),
				info: (_request, response, taskId) =>
					sendJson(response, {
						code: 1000,
						data: { taskid: taskId, image_status: 2, url: [`${server.url}/files/x.png`] },
					}),
			});
			const result = await runNode({
				parameters: betav4({ downloadResults: true }),
				items: [{ json: { idea: 'one' } }],
				credentials: { apiKey: KEY_, baseUrl: server.url },
			});
			expect(result.error).toBeUndefined();
			expect(result.output[0].json.taskid).toBe('t-[redacted]');
			expect(result.output[0].binary?.data.fileName).toMatch(/^t-.redacted.-0\.png$/);
			expect(keyLeaks(allText(result), KEY_)).toEqual([]);
		},
	);
});

describe('a refused key', () => {
	const context = useSimulator();

	it('a wrong key gets HTTP 401 with a message pointing at the credential, and the key is not echoed', async () => {
		const taskId = await createTaskDirect(context.sim.url, 'image');
		const { error } = await runNode({
			parameters: { resource: 'task', operation: 'get', taskType: 'image', taskId },
			credentials: { apiKey: 'wrong-key-123456', baseUrl: context.sim.url },
		});
		expect(error?.message).toMatch(/HTTP 401/);
		expect((error as { description?: string }).description).toMatch(/API Key of the MediaGen API credential/);
		expect(context.sim.requests()[1].headers.authorization).toBe('wrong-key-123456');
		expect(allText(error)).not.toContain('wrong-key-123456');
	});
});
