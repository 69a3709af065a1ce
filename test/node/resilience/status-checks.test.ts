/**
 * A status check that fails is not a task that failed (found by the fault explorer, class a): an HTTP 408 is
 * retried like a 5xx; a proxy's 4xx or a "not found" ends the item with the task pending and still remembered, so
 * that Retry On Fail checks it again instead of paying for it again; and nothing advises creating it again.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../../harness';
import { HOSTILE_KEY, ideaItems, useHostileApi } from '../../support';
import { sendJson } from '../../hostile-server';

const { server, useApi, betav4 } = useHostileApi();
const creations = () => server.requests.filter((request) => request.path === '/v1/tlimages/betav4');

async function runWithRetry(parameters: INodeParameters) {
	return await runNode({
		parameters,
		items: ideaItems(1),
		credentials: { apiKey: HOSTILE_KEY, baseUrl: server.url },
		retryOnFail: { maxTries: 2, waitBetweenTries: 0 },
	});
}

describe('a failed status check is not a failed task', () => {
	it('an HTTP 408 on a status check is retried like a 5xx: the task completes', async () => {
		let answered = 0;
		useApi({
			info: (_request, response, taskId) =>
				answered++ === 0
					? sendJson(response, { code: 9999, msg: 'request timeout' }, 408)
					: sendJson(response, {
							code: 1000,
							msg: 'ok',
							data: { taskid: taskId, image_status: 2, url: [`${server.url}/files/${taskId}.png`] },
						}),
		});
		const { output, error } = await runNode({
			parameters: betav4({ downloadResults: false }),
			items: ideaItems(1),
			credentials: { apiKey: HOSTILE_KEY, baseUrl: server.url },
		});
		expect(error).toBeUndefined();
		expect(output[0].json.status).toBe('completed');
		expect(answered).toBe(2);
	});

	it.each([
		['a proxy 404 page', 404, '<html><body>404 Not Found</body></html>'],
		['a proxy 403', 403, '{"message":"Forbidden"}'],
		['"not found" from the API', 200, '{"code":9999,"msg":"task not found"}'],
	])(
		'%s on a status check: Retry On Fail checks the same task again instead of creating it again',
		async (_name, status, body) => {
			let checks = 0;
			useApi({
				info: (_request, response, taskId) => {
					if (checks++ === 0) {
						response.writeHead(status, { 'content-type': body.startsWith('<') ? 'text/html' : 'application/json' });
						return response.end(body);
					}
					return sendJson(response, {
						code: 1000,
						msg: 'ok',
						data: { taskid: taskId, image_status: 2, url: [`${server.url}/files/${taskId}.png`] },
					});
				},
			});
			const { output, error } = await runWithRetry(betav4({ downloadResults: false }));
			expect(error).toBeUndefined();
			expect(creations()).toHaveLength(1);
			expect(output[0].json).toMatchObject({ taskid: 'task-0', status: 'completed' });
		},
	);

	it('a status check that fails for good leaves the task pending and says it was a status check', async () => {
		useApi({ info: (_request, response) => sendJson(response, { code: 9999, msg: 'task not found' }) });
		const { output } = await runNode({
			parameters: betav4({ downloadResults: false }),
			items: ideaItems(1),
			credentials: { apiKey: HOSTILE_KEY, baseUrl: server.url },
			continueOnFail: true,
		});
		expect(output[0].json).toMatchObject({ taskid: 'task-0', status: 'pending' });
		const text = `${String(output[0].json.error)} ${String(output[0].json.errorDescription)}`;
		expect(text).toMatch(/not a verdict on the task/);
		expect(text).toMatch(/Retry On Fail checks it again rather than creating it again/);
	});

	it('as a tool, Task → Wait on an id of the other type: the model is told to use the other wait tool, not that the task failed', async () => {
		useApi({ info: (_request, response) => sendJson(response, { code: 9999, msg: 'task not found' }) });
		const { output } = await runNode({
			parameters: {
				resource: 'task',
				operation: 'wait',
				taskType: 'image',
				taskId: 'vid-123',
				options: { maxWait: 2 },
			},
			credentials: { apiKey: HOSTILE_KEY, baseUrl: server.url },
			asTool: true,
		});
		const hint = String(output[0].json.hint);
		expect(hint).not.toMatch(/failed on the server|will not produce a result/);
		expect(hint).toMatch(/call the MediaGen tool that waits for video tasks instead/);
		expect(hint).toMatch(/Do not create it again/);
	});
});
