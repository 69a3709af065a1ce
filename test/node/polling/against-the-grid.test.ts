/**
 * Never later than the grid: the three cases issue 30 found where Poll Schedule "Learned" came after Fixed Interval
 * on the same renders. Each runs the learned node and a Fixed Interval node side by side on the same renders (at
 * the same time, so that a busy machine slows both alike) and compares when each saw its last task done, on the
 * simulator's clock, from its own start: learned ≤ fixed + 5 % + a fifth of a Poll Interval for timers + the time
 * the process measurably lost to a blocked event loop meanwhile (a loaded machine delays one run's timers more than
 * the other's).
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode } from '../../harness';
import { useSimulator } from '../../support';

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

	/** When the run's last task was first answered done, in ms from the run's start (simulator's clock). */
	async function resultTime(
		operation: 'betav4' | 'proimage',
		pollSchedule: 'learned' | 'fixed',
		items: INodeExecutionData[],
		staticData: IDataObject,
	): Promise<number> {
		const startedAt = Date.now();
		const { output, error } = await runNode({
			parameters: parameters(operation, pollSchedule),
			items,
			credentials: context.credentials(),
			staticData,
		});
		expect(error).toBeUndefined();
		const done = output.map((item) => context.sim.tasks.get(String(item.json.taskid))?.firstReportedDoneAt ?? Infinity);
		return Math.max(...done) - startedAt;
	}

	/** Teaches `staticData` with `before`, then runs `after` learned and fixed side by side. */
	async function sideBySide(
		operation: 'betav4' | 'proimage',
		before: INodeExecutionData[],
		after: INodeExecutionData[],
	) {
		const staticData: IDataObject = {};
		await resultTime(operation, 'learned', before, staticData);
		const [learned, fixed] = await Promise.all([
			resultTime(operation, 'learned', after, staticData),
			resultTime(operation, 'fixed', after, {}),
		]);
		return { learned, fixed, allowed: fixed * 1.05 + 100 * INTERVAL_S };
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
