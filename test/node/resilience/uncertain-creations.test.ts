/**
 * Never paid twice across n8n's Retry On Fail (found by the fault explorer, classes b, c and i): a creation whose
 * answer leaves open whether it created a task is not repeated unasked; the task memory costs nothing once the run
 * is over; and a later try after Stop, or with a changed request, still names the tasks earlier tries paid for.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode, type NodeRunOptions } from '../../harness';
import type { HostileRequest } from '../../hostile-server';
import { sendJson } from '../../hostile-server';
import { makePng } from '../../simulator/png';
import { HOSTILE_KEY, ideaItems, useHostileApi } from '../../support';

const { server, useApi, betav4 } = useHostileApi();
const creations = () => server.requests.filter((request) => request.path === '/v1/tlimages/betav4');

const retry = { maxTries: 2, waitBetweenTries: 0 };

async function run(parameters: INodeParameters, count = 1, extra: Partial<NodeRunOptions> = {}) {
	return await runNode({
		parameters,
		items: ideaItems(count),
		credentials: { apiKey: HOSTILE_KEY, baseUrl: server.url },
		retryOnFail: retry,
		...extra,
	});
}

/** The first creation of item 0 gets an answer that does not say whether a task was created; later ones succeed. */
const uncertainFirst: Array<
	[string, (request: HostileRequest, response: import('node:http').ServerResponse) => unknown]
> = [
	['HTTP 503 without a task id', (_request, response) => sendJson(response, { code: 9999, msg: 'busy' }, 503)],
	['a connection dropped after the request was sent', (_request, response) => response.socket?.destroy()],
	['no answer within Request Timeout', (_request, response) => setTimeout(() => response.destroy(), 3000)],
];

describe('an uncertain creation is never repeated silently', () => {
	it.each(uncertainFirst)(
		'%s: the next try ends the item with "may have created a task" instead of creating again',
		async (_name, answer) => {
			useApi({
				create: (request, response, index) =>
					index === 0
						? answer(request, response)
						: sendJson(response, { code: 1000, msg: 'ok', data: { taskid: `task-${index}` } }),
			});
			const { error } = await run(betav4({ requestTimeout: 1 }));
			expect(creations()).toHaveLength(1);
			expect(error?.message).toMatch(/may have created a task, so it was not created again \[item 0\]/);
			expect((error as { description?: string }).description).toMatch(/Repeat Uncertain Creations/);
		},
	);

	it('with Repeat Uncertain Creations on, the next try creates the item again', async () => {
		useApi({
			create: (request, response, index) =>
				index === 0
					? sendJson(response, { code: 9999, msg: 'busy' }, 503)
					: sendJson(response, { code: 1000, msg: 'ok', data: { taskid: `task-${index}` } }),
		});
		const { output, error } = await run(betav4({ repeatUncertainCreations: true, downloadResults: false }));
		expect(error).toBeUndefined();
		expect(creations()).toHaveLength(2);
		expect(output[0].json).toMatchObject({ taskid: 'task-1', status: 'completed' });
	});
});

describe('the task memory costs nothing once it is no longer needed', () => {
	const memoryOf = (contextData: unknown) => JSON.stringify(contextData ?? {});

	it('a run that ends well saves no memory with the execution, Retry On Fail on or off', async () => {
		useApi();
		for (const extra of [{}, { retryOnFail: undefined }]) {
			const { run: finished, error } = await run(betav4({ downloadResults: false }), 20, extra);
			expect(error).toBeUndefined();
			expect(memoryOf(finished.data.executionData?.contextData)).not.toContain('mediaGenCreatedTasks');
		}
	});

	it('a run that stops on an error keeps only what resuming needs: a few dozen bytes per item', async () => {
		useApi({ file: (_request, response) => void response.writeHead(404).end() });
		const { run: stopped, error } = await run(betav4(), 50, { retryOnFail: undefined });
		expect(error).toBeDefined();
		const saved = memoryOf(stopped.data.executionData?.contextData);
		expect(saved).toContain('mediaGenCreatedTasks');
		expect(saved.length / 50).toBeLessThan(40);
	});
});

describe('Stop and changed requests under Retry On Fail', () => {
	it("a try after Stop still names every task the run's earlier tries created", async () => {
		useApi({ file: (_request, response) => void response.writeHead(404).end() });
		// The first try fails on a download; n8n pauses a second before the next try, and Stop comes in that pause.
		const { error } = await run(betav4(), 2, { cancelAfterMs: 600, retryOnFail: { maxTries: 3, waitBetweenTries: 0 } });
		expect(creations()).toHaveLength(2);
		expect(error?.message).toContain('task-0 (item 0)');
		expect(error?.message).toContain('task-1 (item 1)');
	});

	it("an item whose request changed between tries keeps the earlier try's paid task in a warning", async () => {
		let files = 0;
		useApi({
			file: (_request, response) => {
				if (files++ === 0) return void response.writeHead(404).end();
				const png = makePng(8, 8);
				response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
				return response.end(png);
			},
		});
		const { output, error } = await run({ ...betav4(), prompt: '={{ $json.idea }} at {{ $now.toMillis() }}' });
		expect(error).toBeUndefined();
		expect(creations()).toHaveLength(2);
		expect(output[0].json.taskid).toBe('task-1');
		expect(String(output[0].json.warning)).toMatch(/earlier try of this item created task task-0/);
	});
});
