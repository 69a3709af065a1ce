/**
 * The benchmark's `renderDrop` case (docs/performance.md#poll-schedule): a workflow learned 15 s renders, then renders
 * 6 s, beside Fixed Interval and the loop: how long after the last render each one's output came.
 */
import { repeatsOr, report, RTT_MS, s, type Figure } from './bench-common';
import { inDownloadModes, FIXED } from './bench-polling';
import { clearBinaryStorage, loopRun, nodeRun } from './bench-results';
import { taskRecords, timedPrompt, mean } from './learning-measure';
import { resetSimulator, startSimulator, type SimulatorProcess } from './simulator';

/** Seeded render times of `seconds` ± `spread` (a share). */
function seededRenders(count: number, seconds: number, seed: number, spread = 0.4): number[] {
	let state = seed >>> 0 || 1;
	const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
	return Array.from({ length: count }, () => seconds * (1 - spread + 2 * spread * next()));
}

const timedPrompts = (times: number[], tag: string) => times.map((seconds, i) => timedPrompt(seconds, `${tag} ${i}`));

type Design = 'learned' | 'fixed' | 'loop';

/** The three at once on the same renders (a busy machine slows them alike): output after the last render (ms). */
async function dropRun(
	sim: SimulatorProcess,
	times: number[],
	interval: number,
	download: boolean,
	workflowId: string,
): Promise<Record<Design, { after: number; calls: number }>> {
	await resetSimulator(sim.url);
	const since = Date.now();
	const ended: Partial<Record<Design, number>> = {};
	const timed = (name: Design, work: Promise<number>) => work.then(() => void (ended[name] = Date.now()));
	await Promise.all([
		timed('learned', nodeRun(sim, timedPrompts(times, 'learned'), interval, download, { learned: 'kept', workflowId })),
		timed('fixed', nodeRun(sim, timedPrompts(times, 'fixed'), interval, download, { ...FIXED, learned: 'kept' })),
		timed('loop', loopRun(sim, timedPrompts(times, 'loop'), interval, download)),
	]);
	const tasks = await taskRecords(sim.url);
	clearBinaryStorage(download);
	const figure = (name: Design) => {
		const mine = tasks.filter((task) => task.createdAt >= since && task.prompt.includes(`] ${name} `));
		const lastEnd = Math.max(...mine.map((task) => task.doneAt));
		return { after: ended[name]! - lastEnd, calls: mean(mine.map((task) => task.checks.length)) };
	};
	return { learned: figure('learned'), fixed: figure('fixed'), loop: figure('loop') };
}

export async function renderDropCase(): Promise<Figure[]> {
	const count = 20;
	const interval = 1000;
	const repeats = repeatsOr(3);
	const sim = await startSimulator({ taskDurationMs: 5000, latencyMs: RTT_MS });
	await nodeRun(sim, ['idea warm'], 500, true);
	clearBinaryStorage();
	return await inDownloadModes(sim, async ({ download, mode }) => {
		const workflow = (repeat: number) => `drop-${download ? 'on' : 'off'}-${repeat}`;
		// Production workflows (one per repeat) that learned 15 s renders, taught at once: one batch each, then another.
		for (let batch = 0; batch < 2; batch++)
			await Promise.all(
				Array.from({ length: repeats }, async (_, repeat) => {
					const prompts = timedPrompts(seededRenders(count, 15, 1000 + 10 * repeat + batch), `teach ${repeat}`);
					await nodeRun(sim, prompts, interval, download, { learned: 'kept', workflowId: workflow(repeat) });
				}),
			);
		clearBinaryStorage(download);
		const runs: Array<Record<Design, { after: number; calls: number }>> = [];
		for (let repeat = 0; repeat < repeats; repeat++)
			runs.push(await dropRun(sim, seededRenders(count, 6, 2000 + repeat), interval, download, workflow(repeat)));
		const meanOf = (name: Design, figure: 'after' | 'calls') => mean(runs.map((run) => run[name][figure]));
		const allowance = 100;
		return [
			{
				name: `Renders drop from a learned 15 s ± 40 % to 6 s ± 40 %, 20 items, interval 1 s, ${mode}: output after the last render, learned / Fixed Interval / loop, mean of ${repeats}`,
				value: `${s(meanOf('learned', 'after'))} / ${s(meanOf('fixed', 'after'))} / ${s(meanOf('loop', 'after'))} (learned ${runs.map((run) => s(run.learned.after)).join(', ')}; fixed ${runs.map((run) => s(run.fixed.after)).join(', ')})`,
				target: `learned ≤ fixed + ${allowance / 1000} s`,
				pass: meanOf('learned', 'after') <= meanOf('fixed', 'after') + allowance,
			},
			report(
				'   … info calls per task, learned / Fixed Interval / loop',
				`${meanOf('learned', 'calls').toFixed(2)} / ${meanOf('fixed', 'calls').toFixed(2)} / ${meanOf('loop', 'calls').toFixed(2)}`,
			),
		];
	});
}
