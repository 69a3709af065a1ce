/**
 * Never later than the grid: the cases where Poll Schedule "Learned" came after Fixed Interval on the same renders
 * (issue 30's three; renders between the two kinds a history holds), and a workflow's first batch, which must see
 * its last render near its end (learning never costs time). Each runs the learned node and a Fixed Interval node
 * side by side on the same renders (at the same time, so that a busy machine slows both alike) and compares when
 * each saw its last task done, on the simulator's clock, from its own start: learned ≤ fixed + 5 % + a tenth of a
 * Poll Interval for timers + the time the process measurably lost to a blocked event loop meanwhile (a loaded
 * machine delays one run's timers more than the other's). What the learned node knows comes from the runs before
 * in the process (learning/store.ts), as in a long-running n8n.
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode } from '../../harness';
import { loopStalls, useSimulator } from '../../support';

const INTERVAL_S = 1;

describe('never later than the grid, on the same renders', () => {
	const context = useSimulator();

	/** Items whose renders take `seconds` each (and, for proimage, whose tier is `tier`). */
	const renders = (list: Array<{ seconds: number; tier?: string }>): INodeExecutionData[] =>
		list.map(({ seconds, tier }, i) => ({ json: { idea: `[sim:seconds=${seconds}] idea ${i}`, tier } }));

	const parameters = (operation: 'betav4' | 'proimage', pollSchedule: 'learned' | 'fixed'): INodeParameters => ({
		resource: 'image',
		operation,
		prompt: '={{ $json.idea }}',
		...(operation === 'proimage' ? { model: '={{ $json.tier }}' } : {}),
		waitForCompletion: true,
		options: { pollInterval: INTERVAL_S, downloadResults: false, pollSchedule },
	});

	/**
	 * When the run's last task was first answered done, in ms from the run's start (simulator's clock), how long
	 * after its render ended, and its info calls per task.
	 */
	async function resultTime(
		operation: 'betav4' | 'proimage',
		pollSchedule: 'learned' | 'fixed',
		items: INodeExecutionData[],
		learned: 'fresh' | 'kept',
	): Promise<{ at: number; afterEnd: number; calls: number }> {
		const startedAt = Date.now();
		const { output, error } = await runNode({
			parameters: parameters(operation, pollSchedule),
			items,
			credentials: context.credentials(),
			learned,
		});
		expect(error).toBeUndefined();
		const tasks = output.map((item) => context.sim.tasks.get(String(item.json.taskid))!);
		const done = tasks.map((task) => task.firstReportedDoneAt ?? Infinity);
		const ids = new Set(tasks.map((task) => task.taskid));
		const calls = context.sim.record.filter(
			(request) =>
				request.path.endsWith('/infobytaskid') &&
				ids.has(String((request.json as { taskid?: string } | undefined)?.taskid)),
		).length;
		const lastEnd = Math.max(...tasks.map((task) => task.createdAt + task.durationMs));
		return { at: Math.max(...done) - startedAt, afterEnd: Math.max(...done) - lastEnd, calls: calls / tasks.length };
	}

	/** Teaches the process with `before` (from nothing), then runs `after` learned and fixed side by side. */
	async function sideBySide(
		operation: 'betav4' | 'proimage',
		before: INodeExecutionData[],
		after: INodeExecutionData[],
	) {
		await resultTime(operation, 'learned', before, 'fresh');
		const stalls = loopStalls();
		const [learned, fixed] = await Promise.all([
			resultTime(operation, 'learned', after, 'kept'),
			resultTime(operation, 'fixed', after, 'kept'),
		]);
		const stall = stalls.stop();
		return { learned: learned.at, fixed: fixed.at, allowed: fixed.at * 1.05 + 100 * INTERVAL_S + stall };
	}

	it('renders slower than remembered, while the scouts put the other tasks back on the grid', async () => {
		const { learned, allowed } = await sideBySide(
			'betav4',
			renders(Array(12).fill({ seconds: 0.9 })),
			renders(Array(12).fill({ seconds: 2.9 })),
		);
		expect(learned).toBeLessThanOrEqual(allowed);
	});

	it('1K images after a run of mixed 1K and 4K images', async () => {
		const mixed = renders(
			Array.from({ length: 20 }, (_, i) =>
				i % 2 ? { seconds: 2.8, tier: 'proimg-2-4k' } : { seconds: 0.7, tier: 'proimg-2' },
			),
		);
		const { learned, allowed } = await sideBySide(
			'proimage',
			mixed,
			renders(Array(20).fill({ seconds: 0.7, tier: 'proimg-2' })),
		);
		expect(learned).toBeLessThanOrEqual(allowed);
	});

	it('renders between the two kinds of renders history holds: the scouts put the batch back on the grid', async () => {
		// Taught 1.5 s and 6 s renders at once (a pooled history, or a model serving two kinds), then 3.5 s renders:
		// history's range holds them, but no remembered render comes near. The batch's tasks were placed at 5 s.
		const { learned, allowed } = await sideBySide(
			'betav4',
			renders(Array.from({ length: 20 }, (_, i) => ({ seconds: i % 2 ? 6 : 1.5 }))),
			renders(Array(8).fill({ seconds: 3.5 })),
		);
		expect(learned).toBeLessThanOrEqual(allowed);
	});

	it('one 0.3 s render among 99 of 4 s, then renders of 1.2 s', async () => {
		const { learned, allowed } = await sideBySide(
			'betav4',
			renders([{ seconds: 0.3 }, ...Array(99).fill({ seconds: 4 })]),
			renders(Array(20).fill({ seconds: 1.2 })),
		);
		expect(learned).toBeLessThanOrEqual(allowed);
	});

	it('a workflow’s first batch (nothing known) sees its last render no later than the grid, with no more checks', async () => {
		// 40 renders spread over 1.5–3.3 s, in a mixed order: the grid sees the last one at 4 s, 0.7 s after its end.
		// Half of them still run at 3 s, so rule 6 expects the rest to end past the next slot: the slot's check stands.
		const items = renders(Array.from({ length: 40 }, (_, i) => ({ seconds: 1.5 + (1.8 * ((i * 7) % 40)) / 39 })));
		const stalls = loopStalls();
		const [learned, fixed] = await Promise.all([
			resultTime('betav4', 'learned', items, 'fresh'),
			resultTime('betav4', 'fixed', items, 'kept'),
		]);
		const stall = stalls.stop();
		expect(learned.afterEnd).toBeLessThanOrEqual(fixed.afterEnd + 100 + 2 * stall);
		expect(learned.at).toBeLessThanOrEqual(fixed.at + 100 + 2 * stall);
		expect(learned.calls).toBeLessThanOrEqual(fixed.calls);
	});
});
