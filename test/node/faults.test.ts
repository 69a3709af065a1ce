/**
 * Fault suite: every scenario is driven by the simulator's fault injection and asserts the outcome, that
 * no creation was sent twice, and that every task the server created is named in the node's output.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { FaultAction } from '../simulator/server';
import { runNode, type RunResult } from '../harness';
import { allText, betav4Parameters, DEFAULT_SIM_KEY, ideaItems, useSimulator } from '../support';

const context = useSimulator();

const CREATE = '/v1/tlimages/betav4';
const INFO = '/v1/tlimages/infobytaskid';

const items = ideaItems;

const betav4 = (options: INodeParameters = {}, wait = true): INodeParameters =>
	betav4Parameters({ pollInterval: 0.1, maxWait: 10, maxConcurrency: 1 }, options, wait);

/** Runs and checks the two invariants: one creation per item, and every server-side task in the output. */
async function runChecked(
	count: number,
	parameters: INodeParameters,
	extra: { continueOnFail?: boolean; apiKey?: string } = {},
): Promise<RunResult> {
	const since = Date.now();
	const result = await runNode({
		parameters,
		items: items(count),
		credentials: { apiKey: extra.apiKey ?? DEFAULT_SIM_KEY, baseUrl: context.sim.url },
		continueOnFail: extra.continueOnFail ?? true,
	});
	const creations = context.sim.requests(CREATE);
	expect(creations.length).toBeLessThanOrEqual(count);
	expect(new Set(creations.map((request) => request.fields.prompt[0])).size).toBe(creations.length); // no item sent twice
	const created = [...context.sim.tasks.values()].filter((task) => task.createdAt >= since).map((task) => task.taskid);
	const named =
		allText(result.output) +
		(result.error ? `${result.error.message} ${(result.error as { description?: string }).description}` : '');
	for (const taskId of created) expect(named).toContain(taskId);
	return result;
}

const CREATE_FAULTS: Array<[string, FaultAction, RegExp]> = [
	['HTTP 500', { type: 'status', status: 500 }, /^The MediaGen API answered HTTP 500: simulated HTTP 500 \[item 1\]$/],
	['HTTP 502', { type: 'status', status: 502 }, /^The MediaGen API answered HTTP 502/],
	['HTTP 503', { type: 'status', status: 503 }, /^The MediaGen API answered HTTP 503/],
	['a dropped connection', { type: 'drop' }, /^Could not reach the MediaGen API: the connection was closed/],
	[
		'malformed JSON',
		{ type: 'malformed' },
		/^The MediaGen API answered with a body that is not a JSON envelope \[item 1\]$/,
	],
	['an HTML error page', { type: 'html', status: 502 }, /^The MediaGen API answered HTTP 502 \[item 1\]$/],
	[
		'code 9999 with a message',
		{ type: 'status', status: 200, body: JSON.stringify({ code: 9999, msg: 'prompt rejected by policy' }) },
		/^The MediaGen API refused the request: prompt rejected by policy \[item 1\]$/,
	],
];

describe('faults on creation that may have created a task: one clear error, never retried, other items go on', () => {
	it.each(CREATE_FAULTS)('%s', async (_name, action, message) => {
		context.sim.inject({ path: CREATE, skip: 1, action });
		const { output, error } = await runChecked(3, betav4());
		expect(error).toBeUndefined();
		expect(context.sim.requests(CREATE)).toHaveLength(3);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[0].json.status).toBe('completed');
		expect(output[1].json.error).toMatch(message);
		expect(output[1].json.taskid).toBeUndefined();
		expect(output[2].json.status).toBe('completed');
	});

	it('a slow answer past the request timeout fails that item, is not retried, and warns that a task may exist', async () => {
		context.sim.inject({ path: CREATE, skip: 1, action: { type: 'delay', ms: 1500 } });
		const started = Date.now();
		const { output } = await runNode({
			parameters: betav4({ requestTimeout: 0.4 }),
			items: items(3),
			credentials: context.credentials(),
			continueOnFail: true,
		});
		expect(Date.now() - started).toBeLessThan(3000);
		expect(output[1].json.error).toMatch(/^Could not reach the MediaGen API: the request timed out \[item 1\]$/);
		expect(output[1].json.errorDescription).toMatch(/a task may have been created \(and charged\) anyway/);
		expect(output[0].json.status).toBe('completed');
		expect(output[2].json.status).toBe('completed');
		await new Promise((resolve) => setTimeout(resolve, 1200)); // let the delayed request land
		expect(context.sim.requests(CREATE)).toHaveLength(3);
	});
});

describe('faults on polls: retried within Max Wait, then success', () => {
	const INFO_FAULTS: Array<[string, FaultAction]> = [
		['HTTP 500', { type: 'status', status: 500 }],
		['HTTP 502', { type: 'status', status: 502 }],
		['HTTP 503', { type: 'status', status: 503 }],
		['HTTP 429', { type: 'status', status: 429 }],
		['a dropped connection', { type: 'drop' }],
		['malformed JSON', { type: 'malformed' }],
		['an HTML error page', { type: 'html', status: 200 }],
		['a slow answer past the request timeout', { type: 'delay', ms: 1200 }],
	];
	it.each(INFO_FAULTS)('%s', async (_name, action) => {
		context.sim.inject({ path: INFO, times: 2, action });
		const { output, error } = await runChecked(2, betav4({ requestTimeout: 0.5 }));
		expect(error).toBeUndefined();
		expect(context.sim.requests(CREATE)).toHaveLength(2);
		expect(context.sim.requests(INFO).filter((request) => request.fault)).toHaveLength(2);
		expect(output.map((item) => item.json.status)).toEqual(['completed', 'completed']);
	});
});

describe('code 9000 mid-batch', () => {
	beforeEach(() => context.sim.credits.set('two-credits', 2));

	it('earlier tasks keep their ids, later items get the credits error (Continue On Fail)', async () => {
		const { output } = await runChecked(4, betav4(), { apiKey: 'two-credits' });
		expect(context.sim.requests(CREATE)).toHaveLength(4);
		expect(output.map((item) => item.json.status ?? 'error')).toEqual(['completed', 'completed', 'error', 'error']);
		expect(output[2].json.error).toBe('Insufficient credits [item 2]');
		expect(output[2].json.errorDescription).toMatch(/no credits left.*Top up the account/);
	});

	it('without Continue On Fail stops creating and names the tasks already created', async () => {
		const { error } = await runChecked(4, betav4({}, false), { apiKey: 'two-credits', continueOnFail: false });
		expect(error?.message).toBe('Insufficient credits [item 2]');
		expect((error as { description?: string }).description).toMatch(
			/Tasks created by this run keep running on the server: img-\S+ \(item 0\), img-\S+ \(item 1\)/,
		);
		expect(context.sim.requests(CREATE)).toHaveLength(3); // item 3 was never sent
	});
});

describe('tasks that go wrong', () => {
	it('a task that fails (Failed Status Codes) or whose info fails gives an error item with its task id', async () => {
		let created = 0;
		context.sim.taskOutcome = () => (['succeed', 'fail', 'infoError', 'succeed'] as const)[created++];
		const { output, error } = await runChecked(4, betav4({ failedStatusCodes: '3, 4' }));
		expect(error).toBeUndefined();
		expect(context.sim.requests(CREATE)).toHaveLength(4);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		expect(output[1].json).toMatchObject({
			taskid: expect.any(String),
			status: 'failed',
			lastStatus: 3,
			error: expect.stringMatching(/^Task img-\S+ failed with status 3 \[item 1\]$/),
		});
		expect(output[2].json).toMatchObject({
			taskid: expect.any(String),
			error: expect.stringMatching(/refused the request: task img-\S+ failed: content moderation/),
		});
		expect([output[0].json.status, output[3].json.status]).toEqual(['completed', 'completed']);
	});

	it('a task that never finishes ends at Max Wait with an error naming its id and how to resume', async () => {
		let created = 0;
		context.sim.taskOutcome = () => (created++ === 1 ? 'never' : 'succeed');
		const { error } = await runChecked(3, betav4({ maxWait: 0.5 }), { continueOnFail: false });
		const stuck = [...context.sim.tasks.values()].find(
			(task) => task.outcome === 'never' && task.createdAt >= context.sim.record[0].at,
		)!;
		expect(error?.message).toBe(`Task ${stuck.taskid} did not finish within 0.5 s [item 1]`);
		expect((error as { description?: string }).description).toMatch(
			new RegExp(`keeps running on the server. Resume with Task → Wait .*"${stuck.taskid}"`),
		);
		expect(context.sim.requests(CREATE)).toHaveLength(3);
	});

	it('an empty url list on a "succeeded" status is an error that keeps the task id', async () => {
		context.sim.taskOutcome = () => 'emptyUrls';
		const { output } = await runChecked(1, betav4({ succeededStatusCodes: '2' }));
		expect(output[0].json).toMatchObject({
			taskid: expect.any(String),
			error: expect.stringMatching(/finished with status 2 but returned no result URLs/),
		});
	});

	it('a 404 on a result download is an error item that keeps the task id and URLs', async () => {
		context.sim.inject({ path: /^\/files\//, action: { type: 'status', status: 404 } });
		const { output } = await runChecked(2, betav4({ downloadResults: true }));
		const failed = output.filter((item) => item.json.error);
		expect(failed).toHaveLength(1);
		expect(failed[0].json).toMatchObject({
			taskid: expect.any(String),
			urls: [expect.any(String)],
			error: expect.stringMatching(/Could not download a result file: HTTP 404 \(task img-/),
		});
		expect(output.filter((item) => item.binary?.data)).toHaveLength(1);
	});
});
