/**
 * Generator "renders": how long each task the run creates takes on the server (a task is done at its creation plus
 * its render time), and what earlier runs of the workflow saw of the same renders before they shifted: steady,
 * faster or slower than remembered, bimodal, a kind remembered only under another tier, one short outlier among a
 * hundred long renders, or many tasks much slower than remembered (the scouts then put the others back on the grid
 * while they wait). Drawn from the schedule's own "renders" stream; each task's time from the task's own.
 */
import { Random } from '../random';
import type { Schedule } from '../schedule';

export type RenderShift =
	| 'steady'
	| 'faster'
	| 'slower'
	| 'bimodal'
	| 'other tier'
	| 'short outlier'
	| 'scouts re-grid';

export interface RenderPlan {
	shift: RenderShift;
	/** A typical render now, in ms. */
	baseMs: number;
	/** What earlier runs saw (ms), and whether they saw it as this kind of render or another tier of the model. */
	past: number[];
	pastTier: 'same' | 'other';
}

const SHIFTS: ReadonlyArray<readonly [number, RenderShift]> = [
	[3, 'steady'],
	[2, 'faster'],
	[2, 'slower'],
	[2, 'bimodal'],
	[1, 'other tier'],
	[1, 'short outlier'],
	[1, 'scouts re-grid'],
];

export function rendersFor(schedule: Schedule): RenderPlan {
	const random = Random.stream(schedule.seed, 'renders');
	const shift = random.weighted(SHIFTS);
	// Renders span as many Poll Intervals on a coarser grid (schedule.ts) as on the usual 50 ms one.
	const scale = schedule.pollIntervalS / 0.05;
	const baseMs = Math.round(random.int(20, 250) * scale);
	const around = (ms: number, count: number) =>
		Array.from({ length: count }, () => Math.round(ms * (0.8 + 0.4 * random.next())));
	const count = random.int(5, 40);
	switch (shift) {
		case 'faster':
			return { shift, baseMs, past: around(2 * baseMs, count), pastTier: 'same' };
		case 'slower':
		case 'scouts re-grid':
			return { shift, baseMs, past: around(baseMs / 3, count), pastTier: 'same' };
		case 'other tier':
			return { shift, baseMs, past: around(4 * baseMs, count), pastTier: 'other' };
		case 'short outlier':
			return { shift, baseMs, past: [Math.round(baseMs / 4), ...around(3 * baseMs, 99)], pastTier: 'same' };
		default:
			return { shift, baseMs, past: around(baseMs, count), pastTier: 'same' };
	}
}

/** The render time of the run's task `serial` (for item `item`), in ms. */
export function renderMs(schedule: Schedule, plan: RenderPlan, item: number, serial: number): number {
	const random = Random.stream(schedule.seed, 'renders', item, serial);
	const jitter = 0.8 + 0.4 * random.next();
	const long = plan.shift === 'bimodal' && random.chance(0.5);
	return Math.round(plan.baseMs * jitter * (long ? 4 : 1));
}

/** The plan in words, for a failing schedule's report. */
export function describeRenders(plan: RenderPlan): string {
	const past = plan.past.length ? `${Math.min(...plan.past)}–${Math.max(...plan.past)} ms` : 'nothing';
	return `renders ${plan.shift}: now about ${plan.baseMs} ms${plan.shift === 'bimodal' ? ' or 4×' : ''}; earlier runs saw ${plan.past.length} of ${past}${plan.pastTier === 'other' ? ' under another tier' : ''}`;
}
