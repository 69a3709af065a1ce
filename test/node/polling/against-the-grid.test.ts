/**
 * Never later than the grid: the cases where Poll Schedule "Learned" came after Fixed Interval on the same renders
 * (issue 30's three). Each runs the learned node and a Fixed Interval node
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

	it('one 0.3 s render among 99 of 4 s, then renders of 1.2 s', async () => {
		const { learned, allowed } = await sideBySide(
			'betav4',
			renders([{ seconds: 0.3 }, ...Array(99).fill({ seconds: 4 })]),
			renders(Array(20).fill({ seconds: 1.2 })),
		);
		expect(learned).toBeLessThanOrEqual(allowed);
	});
});
