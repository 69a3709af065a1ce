/**
 * Poll Schedule: where a task's checks go. "Learned" (the default) places them by the model's known render times
 * (waiting/renderTimes.ts); "Fixed Interval" keeps the grid. The placement rules first, on their own; then the node
 * through n8n's executor against the simulator, with the workflow's static data kept from run to run as n8n keeps it
 * after production executions. Figures against the HTTP Request loop are in `npm run bench`.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runNode } from '../harness';
import type { RecordedRequest } from '../simulator/server';
import { betav4Parameters, INFO_PATH, useSimulator } from '../support';
import { RenderTimes } from '../../nodes/MediaGen/waiting/renderTimes';

const KEY = 'image/betav4';

describe('where a check goes (renderTimes.ts)', () => {
	const interval = 1000; // the shortest gap is 100 ms

	/** Learned times from finished tasks: each checked "not yet" at `ms - 50` and found done 50 ms later. */
	function learned(times: number[], remembered: number[] = []): RenderTimes {
		const renderTimes = new RenderTimes(interval, remembered.length ? { [KEY]: remembered } : {});
		for (const ms of times) renderTimes.finished(KEY, { notYet: ms - 50, checked: ms, answered: ms + 50 }, false);
		return renderTimes;
	}

	it('keeps the grid until five render times are known', () => {
		expect(learned([3000, 3100, 3200, 3300]).place(KEY, 0, 0, 0, 0)).toBeUndefined();
		expect(learned([3000, 3100, 3200, 3300, 3400]).place(KEY, 0, 0, 0, 0)).toEqual({ at: 3300, pastRange: false });
	});

	it('places the next check where 80 % of the longer known renders had finished, 0.1 to 6 intervals on', () => {
		const renderTimes = learned(Array.from({ length: 10 }, (_, i) => 3000 + 100 * i));
		expect(renderTimes.place(KEY, 10_000, 0, 0, 10_000)?.at).toBe(10_000 + 3700);
		// Longer than 3400: 3500 … 3900, 80 % of them by 3800.
		expect(renderTimes.place(KEY, 10_000, 3400, 0, 13_500)?.at).toBe(10_000 + 3800);
		// Never closer than a tenth of the interval to the last check.
		expect(renderTimes.place(KEY, 10_000, 3850, 0, 13_900)?.at).toBe(10_000 + 3950);
		const slow = learned([60_000, 61_000, 62_000, 63_000, 64_000]);
		expect(slow.place(KEY, 0, 1000, 0, 1000)?.at).toBe(1000 + 6 * interval);
	});

	it('past every known render, with few stragglers: checks 0.1, 0.2, 0.4 … intervals apart, at most one', () => {
		const renderTimes = learned([1000, 1100, 1200, 1300, 1400, 1500]);
		const gaps = [0, 1, 2, 3, 4, 5].map((probes) => renderTimes.place(KEY, 0, 2000, probes, 2100)!.at - 2000);
		expect(gaps).toEqual([100, 200, 400, 800, 1000, 1000]);
		expect(renderTimes.place(KEY, 0, 2000, 0, 2100)?.pastRange).toBe(true);
	});

	it('while many tasks are older than every known render (a batch still finishing), the grid', () => {
		const renderTimes = learned([1000, 1100, 1200, 1300, 1400]);
		for (let i = 0; i < 10; i++) renderTimes.started(KEY, i); // created at 0–9 ms
		expect(renderTimes.place(KEY, 0, 2000, 0, 2100)).toBeUndefined();
		// Times remembered from earlier runs cover whole runs: stragglers are probed.
		const remembering = learned([], [1000, 1100, 1200, 1300, 1400]);
		for (let i = 0; i < 10; i++) remembering.started(KEY, i);
		expect(remembering.place(KEY, 0, 2000, 0, 2100)?.pastRange).toBe(true);
	});

	it('estimates err early: midpoint, at most 0.1 interval after the "not yet"; without one, 0.1 before the check', () => {
		const renderTimes = new RenderTimes(interval);
		renderTimes.finished(KEY, { notYet: 2000, checked: 4000, answered: 4150 }, false);
		renderTimes.finished(KEY, { notYet: 3000, checked: 3100, answered: 3160 }, false);
		renderTimes.finished(KEY, { notYet: undefined, checked: 5000, answered: 5150 }, false);
		expect(renderTimes.keep()[KEY]).toEqual([2100, 3080, 4900]);
	});

	it('a scout that finished before every remembered render makes the remembered times count no more', () => {
		const renderTimes = new RenderTimes(interval, { [KEY]: [5000, 5100, 5200, 5300, 5400] });
		expect(renderTimes.place(KEY, 0, 0, 0, 0)?.at).toBe(5300);
		expect(renderTimes.finished(KEY, { notYet: 900, checked: 1000, answered: 1050 }, false)).toBe(false);
		expect(renderTimes.finished(KEY, { notYet: 1000, checked: 1200, answered: 1250 }, true)).toBe(true);
		expect(renderTimes.keep()[KEY]).toEqual([975, 1100]);
	});

	it('remembers at most 100 times per model, spread over the whole range, not the last to finish', () => {
		const renderTimes = learned(Array.from({ length: 500 }, (_, i) => 3000 + 8 * i));
		const kept = renderTimes.keep()[KEY];
		expect(kept).toHaveLength(100);
		expect(Math.min(...kept)).toBeLessThan(3100);
		expect(Math.max(...kept)).toBeGreaterThan(6900);
	});
});

describe('Poll Schedule through n8n’s executor', () => {
	const context = useSimulator();
	const interval = 0.2;

	const parameters = (options: IDataObject = {}): INodeParameters =>
		betav4Parameters({ pollInterval: interval, maxWait: 20, downloadResults: false }, options as INodeParameters);

	const rendersOf = (seconds: number, count: number) =>
		Array.from({ length: count }, (_, i) => ({ json: { idea: `[sim:seconds=${seconds}] idea ${i}` } }));

	/** Each task's info calls, in ms after its creation on the simulator's clock. */
	function checksPerTask(since: number): number[][] {
		const created = new Map(
			[...context.sim.tasks.values()].filter((task) => task.createdAt >= since).map((task) => [task.taskid, task]),
		);
		const checks = new Map<string, number[]>([...created.keys()].map((id) => [id, []]));
		for (const request of context.sim.record as RecordedRequest[]) {
			const id = (request.json as { taskid?: string } | undefined)?.taskid;
			if (request.path === INFO_PATH && id && created.has(id))
				checks.get(id)!.push(request.at - created.get(id)!.createdAt);
		}
		return [...checks.values()];
	}

	const remembered = (staticData: IDataObject) =>
		((staticData['node:MediaGen'] as IDataObject | undefined)?.mediagenRenderTimes as Record<string, number[]>)?.[KEY];

	async function run(items: ReturnType<typeof rendersOf>, options: IDataObject, staticData: IDataObject) {
		const since = Date.now();
		const result = await runNode({
			parameters: parameters(options),
			items,
			credentials: context.credentials(),
			staticData,
		});
		expect(result.error).toBeUndefined();
		return { result, checks: checksPerTask(since) };
	}

	it('a workflow’s later runs check each task fewer times, where its renders end; the first run learns them', async () => {
		const staticData: IDataObject = {};
		const meanCalls = (checks: number[][]) => checks.reduce((sum, list) => sum + list.length, 0) / checks.length;
		const first = await run(rendersOf(0.8, 30), {}, staticData);
		expect(first.result.output.every((item) => item.json.status === 'completed')).toBe(true);
		const times = remembered(staticData);
		expect(times.length).toBeGreaterThanOrEqual(5);
		expect(Math.max(...times)).toBeLessThan(1200);
		expect(Math.min(...times)).toBeGreaterThan(400);
		// The grid checks every task 4–5 times (0.2, 0.4, 0.6, 0.8 …); the scouts still do in every run.
		expect(meanCalls(first.checks)).toBeGreaterThanOrEqual(4);
		const second = await run(rendersOf(0.8, 30), {}, staticData);
		expect(second.result.output.every((item) => item.json.status === 'completed')).toBe(true);
		// The grid's times err early (the last "not yet" + 0.1 interval), so the second run checks a little early and
		// follows the renders to their end a tenth of an interval at a time, learning it to within that: the third run
		// checks most tasks once or twice (the three scouts' four checks each are 0.4 of the mean).
		expect(second.checks.filter((checks) => checks[0] > 500).length).toBeGreaterThanOrEqual(24);
		expect(meanCalls(second.checks)).toBeLessThan(meanCalls(first.checks));
		const third = await run(rendersOf(0.8, 30), {}, staticData);
		expect(third.result.output.every((item) => item.json.status === 'completed')).toBe(true);
		expect(meanCalls(third.checks)).toBeLessThan(2.5);
	});

	it('Fixed Interval keeps the grid whatever was learned, and remembers nothing', async () => {
		const staticData: IDataObject = {};
		await run(rendersOf(0.8, 10), {}, staticData);
		const before = JSON.stringify(staticData);
		const fixed = await run(rendersOf(0.8, 10), { pollSchedule: 'fixed' }, staticData);
		for (const checks of fixed.checks) {
			expect(checks.length).toBeGreaterThanOrEqual(4);
			expect(checks[0]).toBeLessThan(450); // the first slot, 0.2 s after the creation's answer
		}
		expect(JSON.stringify(staticData)).toBe(before);
	});

	it('renders much slower than remembered: the scouts forget the old times and no two checks are over an interval apart', async () => {
		const staticData: IDataObject = {
			'node:MediaGen': { mediagenRenderTimes: { [KEY]: [100, 120, 140, 160, 180, 200] } },
		};
		const slow = await run(rendersOf(1.5, 12), {}, staticData);
		expect(slow.result.output.every((item) => item.json.status === 'completed')).toBe(true);
		for (const checks of slow.checks)
			for (let i = 1; i < checks.length; i++) expect(checks[i] - checks[i - 1]).toBeLessThan(interval * 1000 + 250);
		expect(Math.min(...remembered(staticData))).toBeGreaterThan(1000);
	});

	it('Max Wait’s last check stays where it is when the learned times lie beyond it', async () => {
		const staticData: IDataObject = {
			'node:MediaGen': { mediagenRenderTimes: { [KEY]: [5000, 5100, 5200, 5300, 5400, 5500] } },
		};
		const since = Date.now();
		const { output, error } = await runNode({
			parameters: betav4Parameters(
				{ pollInterval: interval, maxWait: 1, downloadResults: false, onTimeout: 'returnPending' },
				{},
			),
			items: rendersOf(3, 8),
			credentials: context.credentials(),
			staticData,
		});
		expect(error).toBeUndefined();
		expect(output.map((item) => item.json.status)).toEqual(Array(8).fill('pending'));
		for (const checks of checksPerTask(since)) expect(checks[checks.length - 1]).toBeGreaterThan(900);
	});
});
