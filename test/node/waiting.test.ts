/**
 * The waiting engine, asserted on the simulator's record: per-task fixed-period polls that start during
 * creation, no head-of-line blocking, many tasks waited on together, the user's Succeeded/Failed Status Codes,
 * the last poll at Max Wait, On Timeout, Stop (during creation and while waiting), Task → Wait on existing task
 * ids, creations that ramp past 64 in flight while the API keeps up, and the engine's queues at 300,000 pending
 * tasks, and the credential read once per run. What is retried after a fault is in
 * resilience/faults.test.ts; Request Timeout in resilience/timeouts.test.ts.
 */
import type { INodeParameters } from 'n8n-workflow';

import { credentialReadCount, runNode } from '../harness';
import type { RecordedRequest } from '../simulator/server';
import { sendJson } from '../hostile-server';
import {
	allText,
	BETAV4_PATH,
	betav4Parameters,
	createTaskDirect,
	ideaItems,
	INFO_PATH,
	loopStalls,
	useHostileApi,
	useSimulator,
} from '../support';
import { AdaptiveConcurrency } from '../../nodes/MediaGen/waiting/adaptiveConcurrency';
import { MinHeap } from '../../nodes/MediaGen/waiting/heap';

const context = useSimulator();

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
	return context.sim.requests(INFO_PATH).filter((request) => taskIdOf(request) === taskId);
}

function infoCallsPerTask(): Map<string, number> {
	const counts = new Map<string, number>();
	for (const request of context.sim.requests(INFO_PATH)) {
		const id = (request.json as { taskid: string }).taskid;
		counts.set(id, (counts.get(id) ?? 0) + 1);
	}
	return counts;
}

describe('per-task schedule', () => {
	it('with slow creations, item 0 is polled before the last creation of a 50-item run', async () => {
		context.sim.taskDurationMs = 300;
		context.sim.inject({ path: BETAV4_PATH, times: 50, action: { type: 'delay', ms: 150 } });
		const { output, error } = await runNode({
			parameters: betav4({ maxConcurrency: 4 }),
			items: items(50),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(output.map((item) => item.json.status)).toEqual(Array(50).fill('completed'));
		const creations = context.sim.requests(BETAV4_PATH);
		expect(creations).toHaveLength(50);
		const firstTask = [...context.sim.tasks.values()].find((task) => task.fields.prompt?.[0] === 'idea 0')!;
		const firstPollOfItem0 = pollsOf(firstTask.taskid)[0];
		expect(firstPollOfItem0.seq).toBeLessThan(creations[creations.length - 1].seq);
	});

	it('a stalled info answer delays only its own task; the others keep a fixed period from their creation', async () => {
		const since = Date.now();
		context.sim.taskDurationMs = 2500;
		context.sim.inject({ path: INFO_PATH, times: 1, action: { type: 'delay', ms: 2000 } });
		const interval = 300;
		// Fixed Interval: the period under test is the grid's (with Learned, a batch's tasks beyond its three scouts
		// are first checked once a scout has ended: policy.ts, rule 1).
		const stalls = loopStalls();
		const { output, error } = await runNode({
			parameters: betav4({ pollInterval: interval / 1000, pollSchedule: 'fixed' }),
			items: items(6),
			credentials: context.credentials(),
		});
		const stall = stalls.stop();
		expect(error).toBeUndefined();
		expect(output.map((item) => item.json.status)).toEqual(Array(6).fill('completed'));
		const stalled = context.sim.requests(INFO_PATH).find((request) => request.fault === 'delay')!;
		const others = createdSince(since).filter((task) => task.taskid !== taskIdOf(stalled));
		expect(others).toHaveLength(5);
		for (const task of others) {
			const polls = pollsOf(task.taskid);
			// Polled all through the stall window, not held behind it.
			expect(
				polls.filter((poll) => poll.at > stalled.at + 200 && poll.at < stalled.at + 1800).length,
			).toBeGreaterThanOrEqual(4);
			// Poll k arrives at creation + k × interval (fixed period): late by a request's own time and the test
			// process's scheduling on a loaded machine, never by a period; the median poll is on time.
			const offsets = polls.map((poll, index) => poll.at - task.createdAt - (index + 1) * interval);
			for (const offset of offsets) {
				expect(offset).toBeGreaterThanOrEqual(-20);
				expect(offset).toBeLessThan(interval * 0.8 + stall);
			}
			const sorted = [...offsets].sort((a, b) => a - b);
			expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(150 + stall);
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
		context.sim.inject({ path: INFO_PATH, skip: 1, times: 2, action: { type: 'status', status: 503 } });
		context.sim.inject({ path: /^\/files\//, action: { type: 'delay', ms: 2500 } });
		// Max Wait counts from the item's first attempt, which comes after this (the server's createdAt comes later
		// still, by as long as a loaded machine takes to build and send the creation).
		const since = Date.now();
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
		expect(polls[polls.length - 1].at).toBeGreaterThanOrEqual(since + 1000);
		expect(output[1].json.status).toBe('completed');
	});
});

describe('Stop during creation', () => {
	it('creations in flight finish and their task ids are reported; nothing new starts', async () => {
		const since = Date.now();
		context.sim.taskDurationMs = 60_000;
		context.sim.inject({ path: BETAV4_PATH, times: 10, action: { type: 'delay', ms: 1200 } });
		const result = await runNode({
			parameters: betav4({ maxConcurrency: 2 }),
			items: items(6),
			credentials: context.credentials(),
			cancelAfterMs: 400,
		});
		await new Promise((resolve) => setTimeout(resolve, 1500));
		const created = createdSince(since);
		expect(context.sim.requests(BETAV4_PATH)).toHaveLength(2); // only those in flight at Stop
		expect(created).toHaveLength(2);
		const text =
			allText(result.output) +
			(result.error ? `${result.error.message} ${(result.error as { description?: string }).description}` : '');
		for (const task of created) expect(text).toContain(task.taskid);
	});
});

describe('Wait for completion', () => {
	// Faster polls, and result downloads on (the default).
	const betav4 = (options: INodeParameters = {}): INodeParameters =>
		betav4Parameters({ pollInterval: 0.1, maxWait: 10 }, options);

	it('waits on 20 tasks together: lifetimes overlap, few polls per task, order and pairedItem kept', async () => {
		context.sim.taskDurationMs = 1000;
		const { output, error } = await runNode({
			parameters: betav4({ pollInterval: 0.5, maxConcurrency: 5 }),
			items: items(20),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(context.sim.requests(BETAV4_PATH)).toHaveLength(20);
		const tasks = [...context.sim.tasks.values()].filter(
			(task) => task.plan.model === 'betav4' && task.createdAt >= context.sim.record[0].at,
		);
		expect(tasks).toHaveLength(20);
		const lastCreated = Math.max(...tasks.map((task) => task.createdAt));
		const firstDone = Math.min(...tasks.map((task) => task.firstReportedDoneAt ?? Infinity));
		expect(lastCreated).toBeLessThan(firstDone); // all 20 alive at once
		const calls = infoCallsPerTask();
		expect(calls.size).toBe(20);
		expect(Math.max(...calls.values())).toBeLessThanOrEqual(Math.ceil(1 / 0.5) + 2);
		expect(output).toHaveLength(20);
		expect(output.map((item) => item.pairedItem)).toEqual(Array.from({ length: 20 }, (_, item) => ({ item })));
		output.forEach((item, index) => {
			expect(item.json).toMatchObject({ status: 'completed', image_status: 2, request: { prompt: `idea ${index}` } });
			expect(item.json.urls).toEqual([expect.stringContaining(`/files/${String(item.json.taskid)}/0.png`)]);
		});
	});

	it('with On Timeout "Return Pending Task" outputs the id and last status', async () => {
		let created = 0;
		context.sim.taskOutcome = () => (created++ === 0 ? 'never' : 'succeed');
		const { output, error } = await runNode({
			parameters: betav4({ maxWait: 0.4, onTimeout: 'returnPending' }),
			items: items(2),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({
			taskid: expect.stringMatching(/^img-/),
			status: 'pending',
			lastStatus: 1,
			model: 'betav4',
		});
		expect(output[1].json.status).toBe('completed');
		expect(context.sim.requests(BETAV4_PATH)).toHaveLength(2);
	});

	it('cancelling the execution stops polling: no new info or creation request afterwards', async () => {
		context.sim.taskDurationMs = 60_000;
		let cancelAt = Infinity;
		await runNode({
			parameters: betav4({ pollInterval: 0.2, maxConcurrency: 2 }),
			items: items(4),
			credentials: context.credentials(),
			cancelAfterMs: 700,
			onCancel: (at) => (cancelAt = at),
		});
		expect(cancelAt).toBeLessThan(Infinity);
		// A request already on its way at the cancel may arrive a little later on a loaded machine; polling that
		// went on would send one every 200 ms per task, well inside the window watched.
		await new Promise((resolve) => setTimeout(resolve, 1000));
		const late = context.sim.record.filter((request) => request.at > cancelAt + 150);
		expect(late).toEqual([]);
		expect(context.sim.requests(INFO_PATH).length).toBeGreaterThan(0);
		expect(context.sim.requests(BETAV4_PATH)).toHaveLength(4);
	});
});

describe('the credential is read once per run, not per request', () => {
	// In n8n each read is a database query and a decryption; a run sends a creation and several polls per item.
	it('a creation run with polls, Task → Get and Task → Delete each read it once', async () => {
		context.sim.taskDurationMs = 500;
		let before = credentialReadCount();
		const created = await runNode({
			parameters: betav4({ pollInterval: 0.1 }),
			items: items(5),
			credentials: context.credentials(),
		});
		expect(created.error).toBeUndefined();
		expect(context.sim.requests(INFO_PATH).length).toBeGreaterThanOrEqual(15);
		expect(credentialReadCount() - before).toBe(1);
		const taskItems = created.output.map((item) => ({ json: { taskid: item.json.taskid } }));
		for (const operation of ['get', 'delete']) {
			before = credentialReadCount();
			const { output, error } = await runNode({
				parameters: {
					resource: 'task',
					operation,
					taskType: 'image',
					taskId: '={{ $json.taskid }}',
					taskIds: '={{ $json.taskid }}',
				},
				items: taskItems,
				credentials: context.credentials(),
			});
			expect(error).toBeUndefined();
			expect(output).toHaveLength(5);
			expect(credentialReadCount() - before).toBe(1);
		}
	});
});

describe('Task → Wait', () => {
	it('resumes waiting on existing image and video task ids', async () => {
		context.sim.taskDurationMs = 300;
		const image = await createTaskDirect(context.sim.url, 'image');
		const video = await createTaskDirect(context.sim.url, 'video');
		context.sim.resetRecord();
		const waitFor = (taskType: string, taskId: string) =>
			runNode({
				parameters: {
					resource: 'task',
					operation: 'wait',
					taskType,
					taskId,
					moreTaskInfo: true,
					options: { pollInterval: 0.1 },
				},
				credentials: context.credentials(),
			});
		const imageRun = await waitFor('image', image);
		const videoRun = await waitFor('video', video);
		expect(imageRun.output[0].json).toMatchObject({
			taskid: image,
			status: 'completed',
			taskType: 'image',
			width: 1024,
		});
		expect(videoRun.output[0].json).toMatchObject({
			taskid: video,
			status: 'completed',
			taskType: 'video',
			source: 'api',
		});
		expect(
			context.sim
				.requests(/tlvideo\/infobytaskid/)
				.every((r) => (r.json as { moreTaskInfo: boolean }).moreTaskInfo === true),
		).toBe(true);
		expect(context.sim.requests(/proimage|betav|gamma|alpha/)).toHaveLength(0);
	});
});

describe('queues at 300,000 pending tasks', () => {
	const count = 300_000;
	const dueTimes = Array.from({ length: count }, (_, index) => ((index * 7_919) % count) + 0.5);

	it('a spread over the list (the old way) overflows the stack at this size', () => {
		expect(() => Math.min(...dueTimes)).toThrow(RangeError);
	});

	it('the engine heap hands every task back, earliest due first', () => {
		const heap = new MinHeap<{ id: string; dueAt: number }>((entry) => entry.dueAt);
		dueTimes.forEach((dueAt, index) => heap.push({ id: `task-${index}`, dueAt }));
		expect(heap.size).toBe(count);
		expect(heap.peek()?.dueAt).toBe(0.5);
		let last = -Infinity;
		let outOfOrder = 0;
		const seen = new Set<string>();
		while (heap.size) {
			const entry = heap.pop()!;
			if (entry.dueAt < last) outOfOrder++;
			last = entry.dueAt;
			seen.add(entry.id);
		}
		expect(outOfOrder).toBe(0);
		expect(seen.size).toBe(count);
	});
});

describe('creations ramp as fast as the API answers (slow start up to Max Concurrent Requests)', () => {
	const hostile = useHostileApi();

	it('the bound starts at 256, grows by one per success up to the cap, and halves from the first HTTP 429 on', () => {
		const bound = new AdaptiveConcurrency(1024);
		expect(bound.slots).toBe(256);
		for (let i = 0; i < 256; i++) bound.onSuccess();
		expect(bound.slots).toBe(512); // doubled in one round trip of answers
		for (let i = 0; i < 2000; i++) bound.onSuccess();
		expect(bound.slots).toBe(1024);
		bound.onRateLimited(Date.now(), undefined);
		expect(bound.slots).toBe(512);
		for (let i = 0; i < 256; i++) bound.onSuccess();
		expect(bound.slots).toBeLessThan(514); // after a 429: about one per bound's worth of answers
		expect(new AdaptiveConcurrency(256).slots).toBe(256);
		expect(new AdaptiveConcurrency(10).slots).toBe(10);
	});

	/** Creations answered after 150 ms: the most that were in flight at once. */
	async function mostCreationsAtOnce(count: number, options: INodeParameters): Promise<number> {
		let open = 0;
		let most = 0;
		hostile.useApi({
			create: (_request, response, index) => {
				most = Math.max(most, ++open);
				setTimeout(() => {
					open--;
					sendJson(response, { code: 1000, msg: 'ok', data: { taskid: `task-${index}` } });
				}, 150);
			},
		});
		const { output, error } = await hostile.run(
			betav4Parameters({ pollInterval: 1, downloadResults: false }, options, false),
			count,
		);
		expect(error).toBeUndefined();
		expect(output).toHaveLength(count);
		return most;
	}

	it('400 creations at the defaults: more than 64 in flight once the first answers are back, never more than 256', async () => {
		const most = await mostCreationsAtOnce(400, {});
		expect(most).toBeGreaterThan(64);
		expect(most).toBeLessThanOrEqual(256);
	});

	it('Max Concurrent Requests stays a cap: 32 means 32', async () => {
		expect(await mostCreationsAtOnce(200, { maxConcurrency: 32 })).toBe(32);
	});
});
