/**
 * The waiting engine, asserted on the simulator's record: per-task fixed-period polls that start during
 * creation, no head-of-line blocking, the user's status codes and the last poll at Max Wait.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../harness';
import type { RecordedRequest } from '../simulator/server';
import { betav4Parameters, ideaItems, useSimulator } from '../support';

const context = useSimulator();

const CREATE = '/v1/tlimages/betav4';
const INFO = '/v1/tlimages/infobytaskid';

const items = ideaItems;

// Downloads off unless a test needs them: the in-process simulator renders PNGs on the test's event loop.
const betav4 = (options: INodeParameters = {}, wait = true): INodeParameters =>
	betav4Parameters({ pollInterval: 0.2, maxWait: 20, downloadResults: false }, options, wait);

const taskIdOf = (request: RecordedRequest) => (request.json as { taskid: string }).taskid;

/** Tasks the simulator created during this test, in creation order. */
function createdSince(since: number) {
	return [...context.sim.tasks.values()]
		.filter((task) => task.createdAt >= since)
		.sort((a, b) => a.createdAt - b.createdAt);
}

function pollsOf(taskId: string): RecordedRequest[] {
	return context.sim.requests(INFO).filter((request) => taskIdOf(request) === taskId);
}

describe('per-task schedule', () => {
	it('with slow creations, item 0 is polled before the last creation of a 50-item run', async () => {
		context.sim.taskDurationMs = 300;
		context.sim.inject({ path: CREATE, times: 50, action: { type: 'delay', ms: 150 } });
		const { output, error } = await runNode({
			parameters: betav4({ maxConcurrency: 4 }),
			items: items(50),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(output.map((item) => item.json.status)).toEqual(Array(50).fill('completed'));
		const creations = context.sim.requests(CREATE);
		expect(creations).toHaveLength(50);
		const firstTask = [...context.sim.tasks.values()].find((task) => task.fields.prompt?.[0] === 'idea 0')!;
		const firstPollOfItem0 = pollsOf(firstTask.taskid)[0];
		expect(firstPollOfItem0.seq).toBeLessThan(creations[creations.length - 1].seq);
	});

	it('a stalled info answer delays only its own task; the others keep a fixed period from their creation', async () => {
		const since = Date.now();
		context.sim.taskDurationMs = 2500;
		context.sim.inject({ path: INFO, times: 1, action: { type: 'delay', ms: 2000 } });
		const interval = 300;
		const { output, error } = await runNode({
			parameters: betav4({ pollInterval: interval / 1000 }),
			items: items(6),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(output.map((item) => item.json.status)).toEqual(Array(6).fill('completed'));
		const stalled = context.sim.requests(INFO).find((request) => request.fault === 'delay')!;
		const others = createdSince(since).filter((task) => task.taskid !== taskIdOf(stalled));
		expect(others).toHaveLength(5);
		for (const task of others) {
			const polls = pollsOf(task.taskid);
			// Polled all through the stall window, not held behind it.
			expect(
				polls.filter((poll) => poll.at > stalled.at + 200 && poll.at < stalled.at + 1800).length,
			).toBeGreaterThanOrEqual(4);
			// Poll k arrives at creation + k × interval (fixed period): no drift beyond a request's own time.
			polls.forEach((poll, index) => {
				const offset = poll.at - task.createdAt - (index + 1) * interval;
				expect(offset).toBeGreaterThanOrEqual(-20);
				expect(offset).toBeLessThan(150);
			});
		}
	});
});

describe('waiting ends on the user’s status codes, and the last poll is kept', () => {
	it('with Succeeded Status Codes set, a partial url list while processing does not end the wait', async () => {
		context.sim.taskOutcome = () => 'partialUrls';
		context.sim.taskDurationMs = 1200;
		const { output, error } = await runNode({
			parameters: { ...betav4({ succeededStatusCodes: '2' }), additionalFields: { batchsize: 2 } },
			items: items(1),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ status: 'completed', image_status: 2 });
		expect(output[0].json.urls).toHaveLength(2);
	});

	it('a backed-off poll still gets its last poll at Max Wait while another task downloads', async () => {
		let created = 0;
		context.sim.taskOutcome = () => (created++ === 0 ? 'never' : 'succeed');
		context.sim.inject({ path: INFO, skip: 1, times: 2, action: { type: 'status', status: 503 } });
		context.sim.inject({ path: /^\/files\//, action: { type: 'delay', ms: 2500 } });
		const { output } = await runNode({
			parameters: betav4({ maxWait: 1, pollInterval: 0.2, downloadResults: true, maxConcurrency: 1 }),
			items: items(2),
			credentials: context.credentials(),
			continueOnFail: true,
		});
		const stuck = [...context.sim.tasks.values()].find(
			(task) => task.outcome === 'never' && task.fields.prompt[0] === 'idea 0',
		)!;
		expect(output[0].json.error).toBe(`Task ${stuck.taskid} did not finish within 1 s [item 0]`);
		const polls = pollsOf(stuck.taskid);
		expect(polls[polls.length - 1].at).toBeGreaterThanOrEqual(stuck.createdAt + 1000 - 50);
		expect(output[1].json.status).toBe('completed');
	});
});
