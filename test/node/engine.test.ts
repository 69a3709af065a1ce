/**
 * The waiting engine, asserted on the simulator's record: per-task fixed-period polls that start during
 * creation, no head-of-line blocking, creation retries only when nothing was created, total deadlines,
 * and Stop during creation.
 */
import { createServer } from 'node:net';
import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../harness';
import { NODE_TYPE } from '../nodeType';
import { MediaGenSimulator, type RecordedRequest } from '../simulator/server';
import { allText, betav4Parameters, DEFAULT_SIM_KEY, ideaItems, useSimulator } from '../support';
import { readWaitingOptions, WAIT_DEFAULTS } from '../../nodes/MediaGen/waiting/options';
import { optionsProperty } from '../../nodes/MediaGen/actions/descriptions';

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

async function freePort(): Promise<number> {
	return await new Promise((resolve) => {
		const server = createServer().listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
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

describe('creation retries only when nothing was created', () => {
	it('HTTP 429 on creation is retried and then succeeds, with exactly one task per item', async () => {
		const since = Date.now();
		context.sim.inject({ path: CREATE, times: 3, action: { type: 'status', status: 429 } });
		const { output, error } = await runNode({
			parameters: betav4({}, false),
			items: items(3),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		const creations = context.sim.requests(CREATE);
		expect(creations.filter((request) => request.status === 429)).toHaveLength(3);
		expect(creations.filter((request) => request.code === 1000)).toHaveLength(3);
		const tasks = createdSince(since);
		expect(tasks.map((task) => task.fields.prompt[0]).sort()).toEqual(['idea 0', 'idea 1', 'idea 2']);
		expect(output.map((item) => item.json.taskid)).toEqual(
			['idea 0', 'idea 1', 'idea 2'].map((idea) => tasks.find((task) => task.fields.prompt[0] === idea)!.taskid),
		);
	});

	it('a rate-limited API (429 above 5 requests/s, Retry-After) still gets every item created and finished', async () => {
		const since = Date.now();
		context.sim.rateLimitPerSecond = 5;
		context.sim.taskDurationMs = 200;
		const { output, error } = await runNode({
			parameters: betav4({ pollInterval: 0.3 }),
			items: items(12),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(output.map((item) => item.json.status)).toEqual(Array(12).fill('completed'));
		expect(context.sim.requests().some((request) => request.fault === 'rateLimit')).toBe(true);
		expect(createdSince(since)).toHaveLength(12);
		expect(new Set(createdSince(since).map((task) => task.fields.prompt[0])).size).toBe(12);
	});

	it('a refused connection on creation is retried once the service listens', async () => {
		const port = await freePort(); // nothing listens there yet
		const run = runNode({
			parameters: betav4({}, false),
			items: items(2),
			credentials: { apiKey: DEFAULT_SIM_KEY, baseUrl: `http://127.0.0.1:${port}` },
		});
		const server = new MediaGenSimulator({ port });
		await new Promise((resolve) => setTimeout(resolve, 700));
		await server.start();
		try {
			const { output, error } = await run;
			expect(error).toBeUndefined();
			expect(server.requests(CREATE)).toHaveLength(2);
			expect(server.tasks.size).toBe(2);
			expect(output.map((item) => item.json.taskid).sort()).toEqual([...server.tasks.keys()].sort());
		} finally {
			await server.stop();
		}
	});

	it('a connection reset after the request was sent is not retried (a task may exist)', async () => {
		context.sim.inject({ path: CREATE, action: { type: 'drop' } });
		const { output } = await runNode({
			parameters: betav4({}, false),
			items: items(1),
			credentials: context.credentials(),
			continueOnFail: true,
		});
		expect(context.sim.requests(CREATE)).toHaveLength(1);
		expect(output[0].json.errorDescription).toMatch(/a task may have been created \(and charged\) anyway/);
	});
});

describe('every wait is bounded: Request Timeout is a total deadline', () => {
	const trickle = { type: 'trickle', intervalMs: 200 } as const;

	it('a creation answer that trickles one byte per 200 ms ends at Request Timeout', async () => {
		context.sim.inject({ path: CREATE, action: trickle });
		const { output } = await runNode({
			parameters: betav4({ requestTimeout: 1 }, false),
			items: items(2),
			credentials: context.credentials(),
			continueOnFail: true,
		});
		expect(output[0].json.error).toBe('Could not reach the MediaGen API: the request timed out [item 0]');
		expect(output[0].json.errorDescription).toMatch(/a task may have been created/);
		expect(output[1].json.taskid).toEqual(expect.stringMatching(/^img-/));
		expect(context.sim.requests(CREATE)).toHaveLength(2); // not retried
	}, 20_000);

	it('an info answer that trickles ends at Request Timeout and the poll is retried', async () => {
		context.sim.inject({ path: INFO, action: trickle });
		const { output, error } = await runNode({
			parameters: betav4({ requestTimeout: 1 }),
			items: items(1),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(output[0].json.status).toBe('completed');
		expect(context.sim.requests(INFO).filter((request) => request.fault === 'trickle')).toHaveLength(1);
	}, 20_000);

	it('a download that trickles ends at Request Timeout with an error item that keeps the task id', async () => {
		context.sim.inject({ path: /^\/files\//, action: trickle });
		const { output } = await runNode({
			parameters: betav4({ requestTimeout: 1, downloadResults: true }),
			items: items(1),
			credentials: context.credentials(),
			continueOnFail: true,
		});
		expect(output[0].json).toMatchObject({
			taskid: expect.stringMatching(/^img-/),
			error: expect.stringMatching(
				/^Could not download a result file: the request timed out \(task img-\S+\) \[item 0\]$/,
			),
		});
	}, 20_000);

	it('video operations default to a 300 s Request Timeout, images to 120 s, as the UI says', () => {
		const fake = { getNodeParameter: () => ({}), getNode: () => ({ type: NODE_TYPE }) } as never;
		expect(readWaitingOptions.call(fake, 'video', true).requestTimeoutMs).toBe(300_000);
		expect(readWaitingOptions.call(fake, 'image', true).requestTimeoutMs).toBe(120_000);
		for (const kind of ['image', 'video'] as const) {
			const option = optionsProperty([kind], true).options!.find(
				(entry) => 'name' in entry && entry.name === 'requestTimeout',
			) as { default: number };
			expect(option.default).toBe(WAIT_DEFAULTS[kind].requestTimeout);
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

describe('Stop during creation', () => {
	it('creations in flight finish and their task ids are reported; nothing new starts', async () => {
		const since = Date.now();
		context.sim.taskDurationMs = 60_000;
		context.sim.inject({ path: CREATE, times: 10, action: { type: 'delay', ms: 1200 } });
		const result = await runNode({
			parameters: betav4({ maxConcurrency: 2 }),
			items: items(6),
			credentials: context.credentials(),
			cancelAfterMs: 400,
		});
		await new Promise((resolve) => setTimeout(resolve, 1500));
		const created = createdSince(since);
		expect(context.sim.requests(CREATE)).toHaveLength(2); // only those in flight at Stop
		expect(created).toHaveLength(2);
		const text =
			allText(result.output) +
			(result.error ? `${result.error.message} ${(result.error as { description?: string }).description}` : '');
		for (const task of created) expect(text).toContain(task.taskid);
	});
});
