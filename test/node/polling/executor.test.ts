/**
 * Poll Schedule through n8n's executor against the simulator, what was learned kept from run to run in the
 * process (nodes/MediaGen/learning/store.ts), as a long-running n8n process keeps it: batches and one item per
 * execution learn, in every mode, manual runs too; Fixed Interval keeps the grid; renaming the node keeps what was
 * learned; the AI Agent's tool calls learn; a new workflow starts from what another taught of the same kind on the
 * same API; the workflow's static data is never written. The rules one by one are in rules.test.ts; figures in
 * `npm run bench`.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runNode, WORKFLOW_ID, type NodeRunOptions } from '../../harness';
import type { RecordedRequest } from '../../simulator/server';
import {
	BETAV4_PATH,
	betav4Parameters,
	expectStaticDataAsItWas,
	INFO_PATH,
	loopStalls,
	useSimulator,
} from '../../support';
import { LEARNED, LearnedStore } from '../../../nodes/MediaGen/learning/store';
import { PollSchedule } from '../../../nodes/MediaGen/waiting/schedule';

const KEY = 'betav4|batchsize=|resolution=';
const NODE_ID = 'mediagen-node';

/** The observations the process keeps for the node's `key`, as [lo, hi] pairs. */
export function remembered(key = KEY, workflowId = WORKFLOW_ID, nodeId = NODE_ID): number[][] {
	const { own } = LEARNED.read(LearnedStore.nodeSlot(workflowId, nodeId), undefined, () => new Map());
	return (own.get(key)?.observations ?? []).map(({ lo, hi }) => [lo, hi]);
}

describe('Poll Schedule through n8n’s executor', () => {
	const context = useSimulator();
	const interval = 0.2;

	const parameters = (options: IDataObject = {}): INodeParameters =>
		betav4Parameters({ pollInterval: interval, maxWait: 20, downloadResults: false }, options as INodeParameters);

	const rendersOf = (seconds: number, count: number) =>
		Array.from({ length: count }, (_, i) => ({ json: { idea: `[sim:seconds=${seconds}] idea ${i}` } }));

	/** Each task's info calls, in ms after its creation on the simulator's clock (`absolute`: after `since`). */
	function checksPerTask(since: number, absolute = false): number[][] {
		const created = new Map(
			[...context.sim.tasks.values()].filter((task) => task.createdAt >= since).map((task) => [task.taskid, task]),
		);
		const checks = new Map<string, number[]>([...created.keys()].map((id) => [id, []]));
		for (const request of context.sim.record as RecordedRequest[]) {
			const id = (request.json as { taskid?: string } | undefined)?.taskid;
			if (request.path === INFO_PATH && id && created.has(id))
				checks.get(id)!.push(request.at - (absolute ? since : created.get(id)!.createdAt));
		}
		return [...checks.values()];
	}

	async function run(
		items: ReturnType<typeof rendersOf>,
		options: IDataObject,
		staticData: IDataObject,
		more: Partial<NodeRunOptions> = {},
	) {
		const since = Date.now();
		// Guarded (policy.ts): the node's last render of the kind was found done at its first check, so this run's task
		// keeps every grid slot (its first check at the first slot) instead of being placed near the render's end.
		const guarded = remembered(KEY, more.workflowId ?? WORKFLOW_ID, more.nodeId ?? NODE_ID).at(-1)?.[0] === 0;
		const stalls = loopStalls();
		const before = JSON.stringify(staticData);
		const result = await runNode({
			parameters: parameters(options),
			items,
			credentials: context.credentials(),
			staticData,
			mode: 'webhook',
			learned: 'kept',
			...more,
		});
		// Whatever the node learned, the workflow's static data is as it was, and n8n is not told it changed.
		expectStaticDataAsItWas(staticData, before);
		const stall = stalls.stop();
		expect(result.error).toBeUndefined();
		expect(result.output.every((item) => item.json.status === 'completed')).toBe(true);
		return { result, checks: checksPerTask(since), atRun: checksPerTask(since, true), stall, guarded };
	}

	beforeEach(() => LEARNED.clear());

	const meanCalls = (checks: number[][]) => checks.reduce((sum, list) => sum + list.length, 0) / checks.length;

	/**
	 * A one-item run placed from what was learned: its first check near the end of a `renderMs` render and at most
	 * three checks (rule 2 may put the first just before the render's likely end: a hit would cost the next run the
	 * grid's slots), or, guarded, its first check at the grid's first slot and no more than the grid's checks and one.
	 * A render of under three Poll Intervals whose ends spread over a slot may get a check on each side of its likely
	 * end: there the bound is the envelope's, the grid's count and one (0.5 s: checks at 0.34, 0.42, 0.48, 0.60 s).
	 */
	function expectPlaced(
		placed: { checks: number[][]; guarded: boolean; stall: number },
		renderMs: number,
		nearEnd = 500,
	) {
		const [checks] = placed.checks;
		if (placed.guarded) {
			expect(checks[0]).toBeLessThan(interval * 1000 + 250 + placed.stall);
			expect(checks.length).toBeLessThanOrEqual(Math.ceil(renderMs / (interval * 1000)) + 1);
		} else {
			expect(checks[0]).toBeGreaterThan(nearEnd);
			const short = renderMs < 3 * interval * 1000;
			expect(checks.length).toBeLessThanOrEqual(short ? Math.ceil(renderMs / (interval * 1000)) + 1 : 3);
		}
	}

	/**
	 * Grid slots a stall of the test process may have swallowed: a check that goes out late skips the slots it
	 * missed (the grid is anchored at the creation), so a loaded machine makes grid checks fewer, never more.
	 */
	const slotsLost = (...stalls: number[]) => Math.ceil(Math.max(0, ...stalls) / (interval * 1000));

	it('a batch waits for its scouts while nothing is known, and its later runs check where its renders end', async () => {
		const staticData: IDataObject = {};
		const first = await run(rendersOf(0.8, 30), {}, staticData);
		expect(remembered().length).toBeGreaterThanOrEqual(5);
		// Nothing learned yet: three scouts on the grid (0.2, 0.4, 0.6 … s after their creation, later on a busy
		// machine); the other tasks wait for the first scout to end (0.8 s), then join the grid.
		// Scouts and held tasks told apart on the run's clock: a loaded machine spreads the creations out.
		const byFirstCheck = [...first.atRun].sort((a, b) => a[0] - b[0]);
		const scouts = byFirstCheck.slice(0, 3);
		for (const checks of scouts) expect(checks.length).toBeGreaterThanOrEqual(3 - slotsLost(first.stall));
		const scoutEnded = Math.min(...scouts.map((checks) => checks[checks.length - 1]));
		expect(byFirstCheck.slice(3).every((checks) => checks[0] >= scoutEnded)).toBe(true);
		// About 1.5 checks per task against the grid's 4-5; up to 2.2 on a starved machine, where the held tasks were
		// created over a longer while and joined the grid before their renders ended (a stall of 0.37 s, beside a CPU hog
		// and two other test files): each then takes its next slot too.
		expect(meanCalls(first.checks)).toBeLessThan(2.5);
		// Later runs place every task's first check from history (not at the grid's first slot, 0.2 s), near 0.8 s,
		// and check each task at least one time fewer than the grid does on the same renders (about 2 against 4 to 5:
		// on a loaded machine a first check placed from the earlier runs' times may come just before the render's end).
		const gridRun = await run(rendersOf(0.8, 30), { pollSchedule: 'fixed' }, staticData);
		const grid = meanCalls(gridRun.checks);
		expect(grid).toBeGreaterThanOrEqual(3.5 - slotsLost(gridRun.stall));
		for (let later = 0; later < 2; later++) {
			const { checks, stall } = await run(rendersOf(0.8, 30), {}, staticData);
			expect(checks.filter((list) => list[0] >= 500).length).toBeGreaterThanOrEqual(27);
			expect(meanCalls(checks)).toBeLessThan(grid - 1 + slotsLost(gridRun.stall, stall));
		}
	});

	it('one item per execution learns: later executions check where the render ends, not on the grid', async () => {
		const staticData: IDataObject = {};
		const calls: number[] = [];
		const stalls: number[] = [];
		for (let execution = 0; execution < 9; execution++) {
			const { checks, stall } = await run(rendersOf(0.9, 1), {}, staticData);
			calls.push(checks[0].length);
			stalls.push(stall);
		}
		// On the grid a 0.9 s render takes 5 checks (0.2 … 1.0 s); the first five executions learn it.
		expect(calls.slice(0, 5).every((count, index) => count >= 4 - slotsLost(stalls[index]))).toBe(true);
		// Then at least a check fewer than the grid on average (2-3; an execution after one found done at its first
		// check keeps the grid's slots), and never more than the grid's and one (the envelope: schedule.ts).
		const later = calls.slice(5);
		expect(later.reduce((sum, count) => sum + count, 0) / later.length).toBeLessThan(4);
		expect(Math.max(...later)).toBeLessThanOrEqual(6);
		expect(remembered().length).toBe(9);
	});

	it('Fixed Interval keeps the grid whatever was learned, and remembers nothing', async () => {
		const staticData: IDataObject = {};
		await run(rendersOf(0.8, 10), {}, staticData);
		const before = JSON.stringify(remembered());
		const fixed = await run(rendersOf(0.8, 10), { pollSchedule: 'fixed' }, staticData);
		for (const checks of fixed.checks) {
			// 0.2, 0.4, 0.6, 0.8 s after the creation's answer (a busy machine may send them late, and fewer).
			expect(checks.length).toBeGreaterThanOrEqual(3 - slotsLost(fixed.stall));
			expect(checks[0]).toBeLessThan(450 + fixed.stall);
		}
		expect(JSON.stringify(remembered())).toBe(before);
	});

	it('renaming the node keeps what was learned: it is kept by the node’s id, which a rename keeps', async () => {
		const staticData: IDataObject = {};
		for (let execution = 0; execution < 6; execution++)
			await run(rendersOf(0.9, 1), {}, staticData, { name: 'Render Images' });
		const renamed = await run(rendersOf(0.9, 1), {}, staticData, { name: 'Product Shots' });
		// Placed from history: the first check near the render's end, not the grid's first slot (0.2 s).
		expectPlaced(renamed, 900);
		expect(remembered().length).toBe(7);
	});

	it('the AI Agent’s tool calls learn too: each call is one item, placed from the calls before', async () => {
		const staticData: IDataObject = {};
		const runs: Array<Awaited<ReturnType<typeof run>>> = [];
		for (let execution = 0; execution < 8; execution++)
			runs.push(await run(rendersOf(0.9, 1), {}, staticData, { asTool: true }));
		expect(runs.slice(0, 5).every((call) => call.checks[0].length >= 4 - slotsLost(call.stall))).toBe(true);
		expectPlaced(runs[7], 900);
	});

	it('a manual run learns as a production run does, and says nothing about it', async () => {
		let last: Awaited<ReturnType<typeof run>> | undefined;
		for (let execution = 0; execution < 7; execution++) {
			last = await run(rendersOf(0.9, 1), {}, {}, { mode: 'manual' });
			expect(last.result.run.data.resultData.runData.MediaGen[0].hints ?? []).toEqual([]);
		}
		expect(remembered()).toHaveLength(7);
		expectPlaced(last!, 900);
	});

	it('a new workflow, or a copied node, starts on the grid and is placed from what the process learned of the kind once its own render agrees', async () => {
		const taught: number[] = [];
		for (let execution = 0; execution < 6; execution++) taught.push((await run(rendersOf(0.9, 1), {}, {})).stall);
		// Another workflow, and a copy of the node (a new id) in this one: the first execution on the grid (what another
		// workflow taught may not hold for this one), the second placed near the render's end (the grid checks 5
		// times). A stall of this process while a teaching execution's creation was answered made that render look
		// shorter (the node cannot tell when the server started it), and a check may be spent on it.
		for (const more of [{ workflowId: 'another-workflow' }, { nodeId: 'copied-node' }]) {
			const first = await run(rendersOf(0.9, 1), {}, {}, more);
			expect(first.checks[0][0]).toBeLessThan(450 + first.stall);
			expect(first.checks[0].length).toBeGreaterThanOrEqual(4 - slotsLost(first.stall));
			const { checks } = await run(rendersOf(0.9, 1), {}, {}, more);
			expect(checks[0][0]).toBeGreaterThan(500);
			expect(checks[0].length).toBeLessThanOrEqual(2 + slotsLost(...taught));
		}
		expect(remembered(KEY, 'another-workflow')).toHaveLength(2);
		// The same kind on another API (another Base URL, here another name of the same server) is not known: the grid (0.2 s … after the creation).
		const elsewhere = await run(
			rendersOf(0.9, 1),
			{},
			{},
			{
				workflowId: 'third-workflow',
				credentials: { ...context.credentials(), baseUrl: context.credentials().baseUrl.replace('127.0.0.1', '127.1') },
			},
		);
		expect(elsewhere.checks[0].length).toBeGreaterThanOrEqual(4 - slotsLost(elsewhere.stall));
	});

	it('renders much slower than remembered: the scouts forget the old times and no two checks are over an interval apart', async () => {
		const staticData: IDataObject = {};
		await run(rendersOf(0.1, 12), {}, staticData);
		// 30 times slower: a loaded machine's late checks cannot make the first run's times look like these.
		const slow = await run(rendersOf(3, 12), {}, staticData);
		for (const checks of slow.checks)
			for (let i = 1; i < checks.length; i++)
				// Twice the stall: the sampler sees part of what a starved process loses (as the explorer's invariant 14).
				expect(checks[i] - checks[i - 1]).toBeLessThan(interval * 1000 + 250 + 2 * slow.stall);
		// What the 0.1 s renders taught is forgotten: every render remembered was seen done after 1 s.
		expect(Math.min(...remembered().map(([, hi]) => hi))).toBeGreaterThan(1000);
	});

	it('a first check held up by a busy n8n process teaches the render it saw, never a shorter one', async () => {
		const staticData: IDataObject = {};
		// The process is busy (a module loading, another execution's work) from 50 ms after the task's creation
		// until 0.75 s, past its 0.5 s render: its first check, due at 0.2 s, goes out after that and finds it done.
		const add = PollSchedule.prototype.add;
		const spy = jest.spyOn(PollSchedule.prototype, 'add').mockImplementation(function (this: PollSchedule, ...args) {
			const anchor = args[1];
			setTimeout(() => {
				while (Date.now() < anchor + 750);
			}, 50);
			return add.apply(this, args);
		});
		try {
			await run(rendersOf(0.5, 1), {}, staticData);
		} finally {
			spy.mockRestore();
		}
		expect(remembered()).toHaveLength(1);
		expect(remembered()[0][1]).toBeGreaterThanOrEqual(500);
		// Five executions as usual, then: placed near the end of the 0.5 s renders, with no early check for a render
		// the stall made look 0.2 s long.
		for (let execution = 0; execution < 5; execution++) await run(rendersOf(0.5, 1), {}, staticData);
		const placed = await run(rendersOf(0.5, 1), {}, staticData);
		expectPlaced(placed, 500, 300);
	});

	it('creations answered late teach renders too short: the next run spends checks on them, never time, and the run after is placed near their end again', async () => {
		const staticData: IDataObject = {};
		// Every creation is answered 0.4 s after its task began (a server slow to answer, or a busy n8n process reading
		// the answers late): the node counts ages from the answer, so it learns 0.8 s renders as about 0.4 s. It cannot
		// tell this from a request that left late (n8n looks up the credentials first), which must not teach a longer
		// render: a history that errs short costs checks, one that errs long would cost time.
		context.sim.inject({ path: BETAV4_PATH, times: 10, action: { type: 'late', ms: 400 } });
		await run(rendersOf(0.8, 10), {}, staticData);
		expect(Math.max(...remembered().map(([, hi]) => hi))).toBeLessThan(600);
		const grid = await run(rendersOf(0.8, 10), { pollSchedule: 'fixed' }, staticData);
		const misled = await run(rendersOf(0.8, 10), {}, staticData);
		const after = await run(rendersOf(0.8, 10), {}, staticData);
		const lastFound = (checks: number[][]) => Math.max(...checks.map((list) => list[list.length - 1]));
		const slots = slotsLost(grid.stall, misled.stall, after.stall);
		// The misled run's batch tasks are first checked where the short renders would have ended (about 0.35 s), then
		// ever less often past them (rules 2 and 4): more checks than the grid's, a bounded number.
		expect(meanCalls(misled.checks)).toBeLessThanOrEqual(1.5 * meanCalls(grid.checks) + slots);
		// Never time: its last task is found no later than on the grid (a slot later for a stall).
		expect(lastFound(misled.checks)).toBeLessThanOrEqual(lastFound(grid.checks) + interval * 1000 * (1 + slots));
		// Its renders, seen whole, place the next run's first checks near their end again (the scouts stay on the grid).
		// Its history still holds the short renders beside them, so a task may get a check or two a short gap apart:
		// about 3.3-3.5 checks per task idle, up to the grid's 4 under load. The bound is one fewer than the grid's and a
		// check more for each slot a stall may have moved, and slotsLost counts the event loop's usual lags of some ms
		// as one slot: in effect no more than the grid's. Never later.
		// Placed again, unless a stall of the test process moved checks by more than a slot: then what the misled run
		// saw may read as stale history and put the kind back on the grid, which the two bounds below still hold.
		if (slots <= 1) expect(after.checks.filter((checks) => checks[0] >= 500).length).toBeGreaterThanOrEqual(7);
		expect(meanCalls(after.checks)).toBeLessThanOrEqual(meanCalls(grid.checks) - 1 + slots);
		expect(lastFound(after.checks)).toBeLessThanOrEqual(lastFound(grid.checks) + interval * 1000 * (1 + slots));
	});

	it('a "done" the server judged late (its answer slow) is kept as done by its answer, never as a shorter render', async () => {
		const staticData: IDataObject = {};
		// The second check (due 0.4 s after the creation, after a "not yet" at 0.2 s) is held by the server for 0.15 s
		// before it is judged: done, at 0.55 s, for a 0.5 s render. Taken as seen where the check started, the render
		// would be kept as done by 0.4 s.
		context.sim.inject({ path: INFO_PATH, skip: 1, times: 1, action: { type: 'delay', ms: 150 } });
		await run(rendersOf(0.5, 1), {}, staticData);
		const [[lo, hi]] = remembered();
		expect(lo).toBeGreaterThanOrEqual(200);
		expect(hi).toBeGreaterThanOrEqual(500);
		for (let execution = 0; execution < 4; execution++) await run(rendersOf(0.5, 1), {}, staticData);
		const placed = await run(rendersOf(0.5, 1), {}, staticData);
		expectPlaced(placed, 500, 300);
	});

	it('Max Wait’s last check stays where it is when the learned times lie beyond it', async () => {
		const staticData: IDataObject = {};
		for (let execution = 0; execution < 5; execution++) await run(rendersOf(2.5, 1), {}, staticData);
		const since = Date.now();
		const { output, error } = await runNode({
			parameters: betav4Parameters(
				{ pollInterval: interval, maxWait: 1, downloadResults: false, onTimeout: 'returnPending' },
				{},
			),
			items: rendersOf(3, 1),
			credentials: context.credentials(),
			staticData,
		});
		expect(error).toBeUndefined();
		expect(output.map((item) => item.json.status)).toEqual(['pending']);
		const [checks] = checksPerTask(since);
		expect(checks[checks.length - 1]).toBeGreaterThan(900);
		expect(checks[checks.length - 1]).toBeLessThan(1500);
	});
});
