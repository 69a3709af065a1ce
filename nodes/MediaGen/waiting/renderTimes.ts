/**
 * Poll Schedule "Learned" (the default): where a task's next status check goes, from how long the same model's
 * renders took — in this run, and in the workflow's earlier production runs (kept in n8n's workflow static data).
 *
 * A fixed grid (creation + k × Poll Interval) sees a task that finished just after a check a whole interval
 * later, and spends most checks on tasks that cannot be done yet. Renders of one model take similar times, and
 * the node's output leaves only when every item is settled, so checks are worth most where renders finish:
 * - Until MIN_SAMPLES render times of the model are known, and always for the first SCOUTS tasks of a model in a
 *   run, checks follow the grid. The scouts keep what is learned honest: their times come from the grid, not from
 *   the learned placement, and a scout that finished before every remembered render, or was still running after
 *   all of them, makes the remembered times from earlier runs count no more (the server changed).
 * - Renders known that took longer than the task's age at its last "not yet" (`age`): the next check where
 *   PLACE_AT of those renders had finished, at least MIN_GAP and at most MAX_GAP_FACTOR Poll Intervals on. Where
 *   renders are still finishing the checks follow them closely: that is where the run's end is decided.
 * - The task is older than every known render (past the learned range): checks MIN_GAP after the last, the gap
 *   doubling with each check placed there up to the Poll Interval, and never later than the grid's next one. But
 *   while such stragglers are many (more than STRAGGLER_SHARE of the known renders and of the tasks waited on) and
 *   nothing is remembered from earlier runs, what is known is still behind most tasks (a batch created at once,
 *   its renders still finishing): they stay on the grid, so that a batch's first run costs no more checks.
 * - Max Wait's last check is the engine's: it stays where it is.
 * A render time is estimated on the early side of what the checks show: the midpoint between the start of the last
 * "not yet" check and the "done" answer, but at most MIN_GAP after that "not yet" (the grid's checks are far
 * apart); found done at its first check, MIN_GAP before that check was due (a busy API may start it later). An
 * estimate that errs early places a check too early, whose "not yet" makes the next estimate exact; estimates that
 * erred late would place every check late, find every task done, and never learn otherwise.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/** Render times needed before checks leave the grid. */
const MIN_SAMPLES = 5;

/** Tasks of a model per run that always follow the grid. */
const SCOUTS = 3;

/** The next check falls where this share of the known longer renders had finished. */
const PLACE_AT = 0.8;

/** Shortest gap between two checks of a task, as a share of the Poll Interval (and at least 50 ms). */
const MIN_GAP_SHARE = 0.1;

/** Longest gap between two checks of a task inside the learned range, in Poll Intervals. */
const MAX_GAP_FACTOR = 6;

/** Tasks past every known render (stragglers) probed only while at most this share of the known renders and tasks. */
const STRAGGLER_SHARE = 0.2;

/** Render times kept per model across runs (workflow static data stays small). */
const KEPT_SAMPLES = 100;

/** Where the remembered times live in the node's static data. */
const STATIC_KEY = 'mediagenRenderTimes';

/** Render times per model in milliseconds, as kept between runs. */
export type RememberedTimes = Record<string, number[]>;

function lowerBound(sorted: number[], value: number): number {
	let low = 0;
	let high = sorted.length;
	while (low < high) {
		const middle = (low + high) >> 1;
		if (sorted[middle] < value) low = middle + 1;
		else high = middle;
	}
	return low;
}

/** The first index whose value is above `value`. */
function upperBound(sorted: number[], value: number): number {
	let low = 0;
	let high = sorted.length;
	while (low < high) {
		const middle = (low + high) >> 1;
		if (sorted[middle] <= value) low = middle + 1;
		else high = middle;
	}
	return low;
}

/** `count` evenly spaced quantiles of `values` (all of them when they are no more). */
function quantiles(values: number[], count: number): number[] {
	if (values.length <= count) return [...values];
	if (count <= 0) return [];
	const sorted = [...values].sort((a, b) => a - b);
	return Array.from(
		{ length: count },
		(_, i) => sorted[Math.round((i * (sorted.length - 1)) / Math.max(1, count - 1))],
	);
}

function insertSorted(sorted: number[], value: number): void {
	sorted.splice(upperBound(sorted, value), 0, value);
}

class ModelTimes {
	/** Every known render time, sorted: remembered ones and this run's. */
	samples: number[];

	/** This run's render times, in the order they were seen. */
	readonly fresh: number[] = [];

	/** Creation times of the tasks still waited on, sorted. */
	readonly active: number[] = [];

	/** Tasks of this model that have started waiting in this run. */
	started = 0;

	constructor(private remembered: number[]) {
		this.samples = [...remembered].sort((a, b) => a - b);
	}

	/** Forgets the remembered times: a scout showed that the server's renders changed. */
	forgetRemembered(): void {
		if (!this.remembered.length) return;
		this.remembered = [];
		this.samples = [...this.fresh].sort((a, b) => a - b);
	}

	get hasRemembered(): boolean {
		return this.remembered.length > 0;
	}

	/** The shortest and the longest remembered render time. */
	get rememberedRange(): [number, number] {
		return [Math.min(...this.remembered), Math.max(...this.remembered)];
	}

	/**
	 * What to remember: this run's render times, topped up with remembered ones, each thinned to evenly spaced
	 * quantiles (the renders that finish last must not crowd out the rest).
	 */
	keep(): number[] {
		const fresh = quantiles(this.fresh, KEPT_SAMPLES);
		return [...fresh, ...quantiles(this.remembered, KEPT_SAMPLES - fresh.length)].map((ms) => Math.round(ms));
	}
}

/** A check placed by what was learned: when, and whether the task was past the learned range. */
export interface Placement {
	at: number;
	pastRange: boolean;
}

export class RenderTimes {
	private readonly models = new Map<string, ModelTimes>();

	private readonly minGap: number;

	constructor(
		private readonly intervalMs: number,
		private readonly remembered: RememberedTimes = {},
	) {
		this.minGap = Math.max(50, intervalMs * MIN_GAP_SHARE);
	}

	private model(key: string): ModelTimes {
		let times = this.models.get(key);
		if (!times) {
			const remembered = this.remembered[key];
			times = new ModelTimes(Array.isArray(remembered) ? remembered.filter((ms) => Number.isFinite(ms) && ms > 0) : []);
			this.models.set(key, times);
		}
		return times;
	}

	/** A task starts waiting; true when it is one of the model's scouts in this run (its checks follow the grid). */
	started(key: string, anchor: number): boolean {
		const times = this.model(key);
		insertSorted(times.active, anchor);
		return ++times.started <= SCOUTS;
	}

	ended(key: string, anchor: number): void {
		const active = this.model(key).active;
		const index = lowerBound(active, anchor);
		if (active[index] === anchor) active.splice(index, 1);
	}

	/**
	 * A task finished (ages in ms since its creation: the last "not yet" check's start, the start of the check that
	 * found it done and its answer). Returns true when a scout showed that the remembered times no longer hold: the
	 * engine then puts the model's tasks back on the grid.
	 */
	finished(
		key: string,
		ages: { notYet: number | undefined; checked: number; answered: number },
		scout: boolean,
	): boolean {
		const times = this.model(key);
		const { notYet, checked, answered } = ages;
		const estimate =
			notYet === undefined
				? Math.max(0, checked - this.minGap)
				: Math.min((notYet + answered) / 2, notYet + this.minGap);
		times.fresh.push(estimate);
		insertSorted(times.samples, estimate);
		if (!scout || !times.hasRemembered) return false;
		const [shortest, longest] = times.rememberedRange;
		const changed = answered < shortest || (notYet !== undefined && notYet > longest);
		if (changed) times.forgetRemembered();
		return changed;
	}

	/**
	 * The next check of a task created at `anchor` whose last "not yet" check started at age `age` (0 before any
	 * check), or undefined for the grid. `probes` counts the task's checks already placed past the learned range:
	 * each one doubles the gap there.
	 */
	place(key: string, anchor: number, age: number, probes: number, now: number): Placement | undefined {
		const times = this.model(key);
		const { samples } = times;
		if (samples.length < MIN_SAMPLES) return undefined;
		const longer = samples.length - upperBound(samples, age);
		if (longer > 0) {
			const index = samples.length - longer + Math.max(0, Math.ceil(PLACE_AT * longer) - 1);
			const target = Math.min(Math.max(samples[index], age + this.minGap), age + MAX_GAP_FACTOR * this.intervalMs);
			return { at: anchor + target, pastRange: false };
		}
		// Past every known render. Stragglers are the tasks of the model still waited on that are older than the
		// longest known render: many of them, against what is known and against the tasks waited on, mean that what is
		// known is still behind most tasks (a batch created at once, its renders still finishing), and probing them
		// all would cost more than it finds: the grid until the renders catch up. Times remembered from earlier runs
		// cover whole runs (the scouts check that they still hold): with them, stragglers are probed.
		const stragglers = upperBound(times.active, now - samples[samples.length - 1]);
		const share = STRAGGLER_SHARE * Math.max(samples.length, times.active.length);
		if (!times.hasRemembered && stragglers > share) return undefined;
		const gap = Math.min(this.minGap * 2 ** Math.min(probes, 16), this.intervalMs);
		return { at: anchor + age + gap, pastRange: true };
	}

	/** What to remember for the next runs. */
	keep(): RememberedTimes {
		const kept: RememberedTimes = { ...this.remembered };
		for (const [key, times] of this.models) if (times.fresh.length) kept[key] = times.keep();
		return kept;
	}
}

/**
 * The remembered render times of this node. n8n keeps workflow static data after production executions (trigger,
 * webhook, schedule), not after manual test runs: those learn within their own run only.
 */
export function rememberedTimes(context: IExecuteFunctions): RememberedTimes {
	try {
		const stored = context.getWorkflowStaticData('node')[STATIC_KEY];
		return stored && typeof stored === 'object' && !Array.isArray(stored) ? (stored as RememberedTimes) : {};
	} catch {
		return {};
	}
}

export function rememberTimes(context: IExecuteFunctions, times: RenderTimes): void {
	try {
		const data = context.getWorkflowStaticData('node');
		data[STATIC_KEY] = times.keep() as unknown as IDataObject;
	} catch {
		// A context without workflow static data (an AI Agent's sub-run, some test contexts) learns within the run.
	}
	if (context.getMode() === 'manual') context.addExecutionHints?.({ message: MANUAL_RUN_HINT, location: 'outputPane' });
}

/**
 * Shown in the editor's output panel after a manual run: n8n's execution lifecycle hooks save a workflow's static
 * data after every execution but a manual one, so what such a run learned is gone when it ends.
 */
export const MANUAL_RUN_HINT =
	"Poll Schedule learned this run's render times, but n8n keeps them only after production executions (webhook, form, chat, schedule and other triggers), not after manual runs";
