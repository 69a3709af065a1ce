/**
 * The benchmark's spread cases (docs/performance.md#poll-schedule): 500 renders spread over 3–7 s, shifted across one
 * Poll Interval, beside the HTTP Request loop; `spread` learns from run to run, `coldBatch` is a first batch.
 */
import { atMost, repeatsOr, report, RTT_MS, s, type Figure } from './bench-common';
import { mean } from './learning-measure';
import { inDownloadModes, FIXED, list, measure, type Measured } from './bench-polling';
import { clearBinaryStorage, loopRun, nodeRun, spreadPrompts, type NodeRunExtras } from './bench-results';
import { startSimulator, type SimulatorProcess } from './simulator';

/** The simulator, after warm-ups of both paths, downloads included, so that lazily loaded code is not timed. */
async function warmSimulator(): Promise<SimulatorProcess> {
	const sim = await startSimulator({ taskDurationMs: 5000, latencyMs: RTT_MS });
	const warm = spreadPrompts(8, 0.2, 0.4);
	await nodeRun(sim, warm, 500, true);
	await loopRun(sim, warm, 500, true);
	clearBinaryStorage();
	return sim;
}

/** Poll Interval (ms), and the shifts of the renders (s) across it. */
const INTERVAL = 2000;
const SHIFTS = [0, 0.5, 1, 1.5];
const spreadRenders = (shift: number) => spreadPrompts(500, 3 + shift, 7 + shift);

export async function spreadCase(): Promise<Figure[]> {
	const sim = await warmSimulator();
	return await inDownloadModes(sim, async ({ download, mode, trips }) => {
		const run = async (work: () => Promise<number>) => await measure(sim, trips, work, download);
		const nodeAt = async (shift: number, extras: NodeRunExtras) =>
			await run(async () => await nodeRun(sim, spreadRenders(shift), INTERVAL, download, extras));
		const fixed = await nodeAt(0, FIXED);
		const first = await nodeAt(0, { learned: 'fresh' });
		const runs: Array<{ node: Measured; loop: Measured }> = [];
		for (const shift of SHIFTS) {
			const loop = await run(async () => await loopRun(sim, spreadRenders(shift), INTERVAL, download));
			runs.push({ node: await nodeAt(shift, { learned: 'kept' }), loop });
		}
		const toFloor = runs.map(({ node }) => node.wallMs / node.floorMs);
		const toLoop = runs.map(({ node, loop }) => node.wallMs / loop.wallMs);
		return [
			{
				name: `500 items, D 3–7 s shifted by 0/0.5/1/1.5 s, interval 2 s, RTT 150 ms, ${mode}: node ÷ its floor`,
				value: `${list(toFloor)} (walls ${runs.map(({ node }) => s(node.wallMs)).join(', ')})`,
				target: '≤ 1.1 on each',
				pass: toFloor.every((ratio) => ratio <= 1.1),
			},
			atMost('   … node ÷ HTTP Request loop, mean over the shifts', mean(toLoop), 0.9, ` (${list(toLoop)})`),
			{
				name: '   … info calls per task, node / loop, per shift',
				value: runs.map(({ node, loop }) => `${node.calls.toFixed(2)}/${loop.calls.toFixed(2)}`).join(', '),
				target: 'node ≤ loop on each',
				pass: runs.every(({ node, loop }) => node.calls <= loop.calls),
			},
			report(
				'   … last task created, node / loop, per shift',
				runs.map(({ node, loop }) => `${s(node.lastCreatedMs)}/${s(loop.lastCreatedMs)}`).join(', '),
			),
			report(
				'   … its first run (nothing learned yet) beside the fixed grid: node ÷ floor, calls per task',
				`learned ${(first.wallMs / first.floorMs).toFixed(2)}, ${first.calls.toFixed(2)}; fixed ${(fixed.wallMs / fixed.floorMs).toFixed(2)}, ${fixed.calls.toFixed(2)}`,
			),
		];
	});
}

export async function coldBatchCase(): Promise<Figure[]> {
	const repeats = repeatsOr(2);
	const sim = await warmSimulator();
	return await inDownloadModes(sim, async ({ download, mode, trips }) => {
		const runs: Array<{ loop: Measured; cold: Measured; fixed: Measured }> = [];
		for (let repeat = 0; repeat < repeats; repeat++)
			for (const [index, shift] of SHIFTS.entries()) {
				const prompts = spreadRenders(shift);
				const work = {
					loop: async () => await loopRun(sim, prompts, INTERVAL, download),
					// A workflow's first batch: the process knows nothing of the kind (a new workflow on a new API).
					cold: async () => await nodeRun(sim, prompts, INTERVAL, download, { learned: 'fresh' }),
					fixed: async () => await nodeRun(sim, prompts, INTERVAL, download, FIXED),
				};
				// The order turns from pair to pair: whatever the machine does meanwhile, no design always runs first.
				const order = (['loop', 'cold', 'fixed'] as const).map((_, k, all) => all[(k + index + repeat) % 3]);
				const measured: Partial<Record<keyof typeof work, Measured>> = {};
				for (const name of order) measured[name] = await measure(sim, trips, work[name], download);
				runs.push(measured as { loop: Measured; cold: Measured; fixed: Measured });
			}
		const coldToLoop = runs.map(({ cold, loop }) => cold.wallMs / loop.wallMs);
		const fixedToLoop = runs.map(({ fixed, loop }) => fixed.wallMs / loop.wallMs);
		const calls = (pick: (run: (typeof runs)[number]) => Measured) => mean(runs.map((run) => pick(run).calls));
		return [
			{
				name: `A workflow's first batch (nothing known), 500 items, D 3–7 s shifted by 0/0.5/1/1.5 s × ${repeats}, interval 2 s, ${mode}: node ÷ HTTP Request loop, mean`,
				value: `${mean(coldToLoop).toFixed(3)} (${list(coldToLoop)})`,
				target: '≤ 1.00',
				pass: mean(coldToLoop) <= 1,
			},
			report(
				'   … Fixed Interval ÷ the loop on the same renders, mean',
				`${mean(fixedToLoop).toFixed(3)} (${list(fixedToLoop)})`,
			),
			{
				name: '   … info calls per task: first batch / loop / Fixed Interval',
				value: `${calls((run) => run.cold).toFixed(2)} / ${calls((run) => run.loop).toFixed(2)} / ${calls((run) => run.fixed).toFixed(2)}`,
				target: 'node ≤ loop',
				pass: calls((run) => run.cold) <= calls((run) => run.loop),
			},
			report(
				'   … last render seen done after it ended: first batch / loop / Fixed Interval, mean',
				(['cold', 'loop', 'fixed'] as const)
					.map((name) => s(mean(runs.map((run) => lastSeenAfter(run[name])))))
					.join(' / '),
			),
		];
	});
}

/** How long after the run's last render ended the node first saw it done (ms). */
function lastSeenAfter(run: Measured): number {
	const last = run.tasks.reduce((latest, task) => (task.doneAt > latest.doneAt ? task : latest));
	return Math.max(...run.tasks.map((task) => task.doneAt + task.delay)) - last.doneAt;
}
