/**
 * Poll Schedule "Learned": the rules that place a task's checks, numbered as docs/waiting-and-output.md#poll-schedule
 * tells them (each rule's test: test/node/polling/rules.test.ts): 1 `backToGrid`, `confirms`, `waitsForScouts`;
 * 2 `planChecks`, `batchPlacement`; 3 `reach`, `guarded`; 4 `pastRange`; 5 `isStale`, `unlikeHistory`; 6 `runEnd`.
 * The grid's envelope on the count of checks is waiting/schedule.ts's (`queue`); rule 2's plan keeps to it.
 */

/**
 * What the checks of one finished task saw, in ms since the creation's answer: the last "not yet" check started at
 * `lo` (0: the first check already found the task done), the check that found it done at `hi`.
 */
export interface Observation {
	lo: number;
	hi: number;
}

/** The grid a task's checks are held to, and what a check costs. */
export interface GridShape {
	intervalMs: number;
	/** The shortest round trip a check took in this run (0 before the first answer). */
	rttMs: number;
	/** Rule 3 without its allowance: no check later than the grid's next slot itself (a task guarded after a hit). */
	strict?: boolean;
}

/** Rule 1: observations of a kind of render before checks leave the grid. */
export const GRID_UNTIL = 5;

/** Rule 1: a run with more tasks of one kind than this is a batch; its first this many tasks scout on the grid. */
export const SCOUTS = 3;

/** Rule 2: a check is worth this share of a Poll Interval of waiting. */
const CHECK_COST = 1 / 8;

/** Rule 2: a batch task's next check goes where this share of the longer renders had ended. */
const BATCH_SHARE = 0.8;

/** Rule 2: the planner looks this many grid slots ahead at most (a render history puts a day away is planned later). */
const HORIZON_SLOTS = 64;

/** Rule 3: how late after a grid slot a check may still stand for it, as a share of the slot's age. */
const LATE_SHARE = 0.05;

/** Rule 4: the shortest gap between two checks, as a share of the Poll Interval (and at least 50 ms). */
const MIN_GAP_SHARE = 0.1;

/** Rule 5: how far outside history a render must fall for history to be stale. */
const STALE_FASTER = 0.9;
const STALE_SLOWER = 1.1;

/** Batch: stragglers (tasks older than every known render) are probed only while at most this share of them. */
const STRAGGLER_SHARE = 0.2;

export function minGap(intervalMs: number): number {
	return Math.max(50, intervalMs * MIN_GAP_SHARE);
}

/** Rules 4 and 6: the shortest gap, doubled for each of a task's `probes` checks before. */
function probeGap(probes: number, grid: GridShape): number {
	return minGap(grid.intervalMs) * 2 ** Math.min(probes, 16);
}

/** Rule 1: the grid, while too little is known to trust (`confirms`); a batch's scouts keep it too (renderTimes.ts). */
export function backToGrid(observations: number): boolean {
	return observations < GRID_UNTIL;
}

/**
 * Rule 1: whether the node's own renders (`mine`) all agree with what the process learned elsewhere (`borrowed`).
 * Middles are read against grid slots: rule 5's low end knows too few renders of a batch (found at first checks), a
 * slow answer may stretch a render (judgedLateBy), and a busy machine is off by a fraction of an interval.
 */
export function confirms(mine: readonly Observation[], borrowed: readonly Observation[], intervalMs: number): boolean {
	if (backToGrid(borrowed.length) || !mine.length) return false;
	const shortest = quantile(borrowed.map(pointOf).sort(byValue), 0.05);
	const bySlot = (seen: Observation) => Math.ceil(pointOf(seen) / intervalMs - 1e-9) * intervalMs >= shortest;
	return mine.every((seen) => !isStale(borrowed, seen) && !unlikeHistory(borrowed, seen) && bySlot(seen));
}

/** Rule 3 from the creation on, after a render found done at its first check: history may be behind faster renders. */
export function guarded(mine: readonly Observation[]): boolean {
	return mine.length > 0 && mine[mine.length - 1].lo <= 0;
}

/** Rule 1: whether a batch's task waits, unchecked, for its scouts: its output cannot leave before theirs anyway. */
export function waitsForScouts(batch: boolean, known: boolean, scoutEnded: boolean): boolean {
	return batch && !known && !scoutEnded;
}

/** The `p` quantile of sorted values (the smallest value with at least that share at or below it). */
export function quantile(sorted: readonly number[], p: number): number {
	const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
	return sorted[index];
}

export const byValue = (a: number, b: number) => a - b;

/** A render time as one number: the middle of what the checks saw; a task found at its first check, that check. */
export function pointOf(observation: Observation): number {
	return observation.lo > 0 ? (observation.lo + observation.hi) / 2 : observation.hi;
}

/**
 * How late a "done" answered slowly may have been judged after its check started (docs/waiting-and-output.md, what
 * is learned): taken as done at the start it teaches too short a render; as nothing, a loaded run stays on the grid.
 */
export function judgedLateBy(roundTripMs: number, grid: GridShape): number {
	const extra = roundTripMs - grid.rttMs;
	return extra <= Math.max(minGap(grid.intervalMs), grid.rttMs) ? 0 : extra;
}

/** Rule 3: the latest age of a check that still stands for the task's next grid slot after age `age`. */
export function reach(age: number, grid: GridShape): number {
	return slotReach(nextSlot(age, grid), grid);
}

export function nextSlot(age: number, grid: GridShape): number {
	return (Math.floor(age / grid.intervalMs) + 1) * grid.intervalMs;
}

/** Rule 3: the latest age of a check that still stands for the grid slot at age `slot`. */
function slotReach(slot: number, grid: GridShape): number {
	return grid.strict ? slot : slot + LATE_SHARE * slot + grid.rttMs;
}

/** Rule 4: the gap doubling with each of the `probes` before, up to `longest`; rule 3 still holds. */
export function pastRange(age: number, probes: number, grid: GridShape, longest = grid.intervalMs): number {
	const gap = Math.min(probeGap(probes, grid), Math.max(minGap(grid.intervalMs), longest));
	return Math.min(age + gap, reach(age, grid));
}

export interface WeightedPoint {
	at: number;
	weight: number;
}

/** Spread of the middles of what the checks saw: Silverman's rule of thumb for a kernel's width. */
function bandwidth(middles: number[]): number {
	if (middles.length < 2) return 0;
	const sorted = [...middles].sort(byValue);
	const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
	const sd = Math.sqrt(sorted.reduce((sum, value) => sum + (value - mean) ** 2, 0) / sorted.length);
	const iqr = quantile(sorted, 0.75) - quantile(sorted, 0.25);
	const spread = iqr > 0 ? Math.min(sd, iqr / 1.34) : sd;
	return 0.9 * spread * sorted.length ** -0.2;
}

/** Four points evenly over [from, to] (within [1, latest]), a quarter of the weight each. */
function spreadOver(from: number, to: number, latest: number): WeightedPoint[] {
	return [0, 1, 2, 3].map((k) => ({
		at: Math.min(latest, Math.max(1, from + ((k + 0.5) / 4) * (to - from))),
		weight: 0.25,
	}));
}

/**
 * Rule 2's picture of render times: each observation spread over what its checks left open, at least a kernel's width
 * (a few observations are not a few exact times); one found at its first check over the four widths before it.
 */
export function renderDistribution(observations: readonly Observation[]): WeightedPoint[] {
	const middles = observations.filter((o) => o.lo > 0).map(pointOf);
	const width = bandwidth(middles);
	const latest = Math.max(...observations.map((o) => o.hi));
	return observations.flatMap((o) => {
		if (o.lo > 0) {
			const middle = pointOf(o);
			const half = Math.max((o.hi - o.lo) / 2, width);
			return spreadOver(middle - half, middle + half, latest);
		}
		return width > 0 ? spreadOver(o.hi - 4 * width, o.hi, latest) : [{ at: o.hi, weight: 1 }];
	});
}

/**
 * Rule 2 for a task on its own: the next check of the plan that minimises the expected wait plus CHECK_COST per
 * check, or undefined past every known render (rule 4). `spent`: the grid slots used when the count is held to the
 * grid's: the plan spends its checks where they are allowed, rather than meet a check the envelope holds back.
 */
export function planChecks(
	points: readonly WeightedPoint[],
	age: number,
	grid: GridShape,
	first: boolean,
	spent?: number,
): number | undefined {
	const ahead = points.filter((point) => point.at > age).sort((a, b) => a.at - b.at);
	if (!ahead.length) return undefined;
	// The first check may go anywhere: the plan looks from the shortest render on; later ones from the task's age.
	const from = first ? Math.max(age, ahead[0].at - grid.intervalMs) : age;
	const horizon = from + HORIZON_SLOTS * grid.intervalMs;
	const near = ahead.filter((point) => point.at <= horizon);
	if (!near.length) return reach(age, grid);
	const total = ahead.reduce((sum, point) => sum + point.weight, 0);
	const last = near[near.length - 1].at;
	// Candidate check times: the points, and the latest time that still stands for each grid slot before the last.
	const slots: number[] = [];
	for (let slot = Math.floor(from / grid.intervalMs) + 1; slots.length < HORIZON_SLOTS; slot++) {
		const latest = slotReach(slot * grid.intervalMs, grid);
		if (latest >= last) break;
		slots.push(latest);
	}
	// With a count held to the grid's, a check may have to wait for a slot: the slots themselves are candidates too.
	if (spent !== undefined)
		for (let slot = Math.floor(from / grid.intervalMs) + 1; slot * grid.intervalMs <= last + grid.intervalMs; slot++)
			slots.push(slot * grid.intervalMs);
	const candidates = [...new Set([...near.map((point) => point.at), ...slots])].sort(byValue);
	const done: number[] = [];
	const moment: number[] = [];
	let index = 0;
	let weight = 0;
	let weighted = 0;
	for (const candidate of candidates) {
		for (; index < near.length && near[index].at <= candidate; index++) {
			weight += near[index].weight;
			weighted += near[index].weight * near[index].at;
		}
		done.push(weight);
		moment.push(weighted);
	}
	return bestFirstStep(candidates, done, moment, { age, total, grid, first, spent });
}

/** Rule 2's plan: the slots a count held to the grid's has in hand are followed up to this many (more: as many). */
const SLACK_KEPT = 4;

/**
 * Rule 2's dynamic programme, the best first step. State: the last check (s - 1; 0: at `age`) and, with a count held
 * to the grid's, the slots in hand (passed minus spent, at most SLACK_KEPT): a check spends one.
 */
function bestFirstStep(
	candidates: number[],
	done: number[],
	moment: number[],
	plan: { age: number; total: number; grid: GridShape; first: boolean; spent?: number },
): number | undefined {
	const { intervalMs } = plan.grid;
	const cost = CHECK_COST * intervalMs;
	const count = candidates.length;
	const everything = done[count - 1];
	const slotOf = (age: number) => Math.floor(age / intervalMs + 1e-9);
	const held = plan.spent !== undefined;
	const width = held ? SLACK_KEPT + 1 : 1;
	const toGo = Array.from({ length: count + 1 }, () => new Array<number>(width).fill(Infinity));
	const step = Array.from({ length: count + 1 }, () => new Array<number>(width).fill(-1));
	for (let state = count; state >= 0; state--) {
		const doneBefore = state ? done[state - 1] : 0;
		const at = state ? candidates[state - 1] : plan.age;
		const opening = !state && plan.first;
		const limit = opening ? Infinity : reach(at, plan.grid);
		const momentBefore = state ? moment[state - 1] : 0;
		// Nothing left to find after this check: nothing to wait on, whatever slots are in hand.
		if (doneBefore >= everything) {
			toGo[state].fill(0);
			continue;
		}
		for (let slack = 0; slack < width; slack++) {
			for (let next = state; next < count && candidates[next] <= limit; next++) {
				// Slots in hand after a check at candidates[next]: the first check's count starts there (one slot spent).
				const gained = slotOf(candidates[next]) - slotOf(at);
				const after = !held ? 0 : opening ? Math.max(0, slotOf(candidates[next]) - 1) : slack + gained - 1;
				if (after < 0) continue;
				const wait = candidates[next] * (done[next] - doneBefore) - (moment[next] - momentBefore);
				// A first check that finds the task done guards the next task: the grid's slots before its first check.
				const guard = opening ? done[next] * slotOf(candidates[next]) * cost : 0;
				const kept = Math.min(after, width - 1);
				const total = (cost * (plan.total - doneBefore) + wait + guard) / plan.total + toGo[next + 1][kept];
				if (total < toGo[state][slack]) {
					toGo[state][slack] = total;
					step[state][slack] = next;
				}
			}
		}
	}
	const start = held && !plan.first ? Math.min(width - 1, Math.max(0, slotOf(plan.age) - plan.spent!)) : 0;
	const best = step[0][start];
	return best >= 0 ? candidates[best] : undefined;
}

/** Rule 5, read by what the checks proved (`lo`, `hi`): a coarse grid must not make renders look shorter or longer. */
export function isStale(history: readonly Observation[], seen: Observation): boolean {
	if (history.length < GRID_UNTIL) return false;
	const done = history.map((o) => o.hi).sort(byValue);
	const running = history.flatMap((o) => (o.lo > 0 ? [o.lo] : [])).sort(byValue);
	const low = running.length >= GRID_UNTIL ? quantile(running, 0.05) : 0;
	return seen.lo > STALE_SLOWER * quantile(done, 0.95) || seen.hi < STALE_FASTER * low;
}

/**
 * Rule 5, a scout's render: whether none of `history` comes near `seen`. One found at its first check counts where it
 * was found, not from 0 on: a batch's tasks that waited for its scouts would otherwise come near every faster render.
 */
export function unlikeHistory(history: readonly Observation[], seen: Observation): boolean {
	if (history.length < GRID_UNTIL) return false;
	return !history.some((o) => (o.lo || o.hi) <= STALE_SLOWER * seen.hi && o.hi >= STALE_FASTER * seen.lo);
}

/** Rule 6, from this run's renders (`points`, sorted) and the kind's tasks still waited on (this one included). */
export function runEnd(
	points: readonly number[],
	waiting: number,
	age: number,
	grid: GridShape,
	probes = 0,
): number | undefined {
	// The renders ranked just before the ones still waited on: from `points[rank]` to the task's age.
	const rank = points.length - waiting - 1;
	// The task must have outlived those renders: a younger one (tasks still being created) is not the batch's end.
	if (waiting < 1 || rank < 0 || points.length < GRID_UNTIL || age < points[rank]) return undefined;
	// Each such check of the task at least doubles the shortest gap (as rule 4's): a few between two grid slots.
	const at = age + Math.max(probeGap(probes, grid), age - points[rank]);
	return at <= nextSlot(age, grid) - grid.rttMs ? at : undefined;
}

/**
 * A batch's render time estimate, on the early side: a placement that errs early meets a "not yet" that makes the
 * next estimate exact, while estimates that err late would put every check late and never learn otherwise.
 */
export function earlyEstimate(observation: Observation, intervalMs: number): number {
	const gap = minGap(intervalMs);
	if (observation.lo <= 0) return Math.max(0, observation.hi - gap);
	return Math.min((observation.lo + observation.hi) / 2, observation.lo + gap);
}

/** Puts `value` into sorted `values`, after its equals; returns `values`. */
export function insertSorted(values: number[], value: number): number[] {
	values.splice(upperBound(values, value), 0, value);
	return values;
}

/** The first index whose value is above `value`. */
export function upperBound(sorted: readonly number[], value: number): number {
	let low = 0;
	let high = sorted.length;
	while (low < high) {
		const middle = (low + high) >> 1;
		if (sorted[middle] <= value) low = middle + 1;
		else high = middle;
	}
	return low;
}

/** What a batch's placement needs to know beyond the task's age. */
export interface BatchView {
	/** Early estimates of the known renders of the kind, sorted. */
	samples: readonly number[];
	/** Creation times of the kind's tasks still waited on, sorted. */
	active: readonly number[];
	/** Whether the samples include times remembered from earlier runs. */
	remembered: boolean;
	now: number;
	/** Tasks of the kind the run creates. */
	planned: number;
}

/**
 * Rule 2 for a batch, or undefined for the grid: many stragglers (older than every known render) keep it until the
 * renders catch up, unless remembered times, which cover whole runs, place them; without those, rules 3 and 6 hold.
 */
export function batchPlacement(
	view: BatchView,
	age: number,
	probes: number,
	grid: GridShape,
): { age: number; pastRange: boolean } | undefined {
	const { samples } = view;
	const longer = samples.length - upperBound(samples, age);
	if (longer > 0) {
		const share = age > 0 ? BATCH_SHARE : Math.max(BATCH_SHARE, 1 - 2 / Math.max(1, view.planned));
		const index = samples.length - longer + Math.max(0, Math.ceil(share * longer) - 1);
		const gap = minGap(grid.intervalMs);
		const next = Math.max(samples[index], age + gap);
		if (age <= 0) return { age: next, pastRange: false };
		if (view.remembered) return { age: Math.min(next, reach(age, grid)), pastRange: false };
		// Rule 6: nothing remembered, the check comes in time for the grid's slot, or the slot's check stands.
		return next <= nextSlot(age, grid) - grid.rttMs ? { age: next, pastRange: false } : undefined;
	}
	const stragglers = upperBound(view.active, view.now - samples[samples.length - 1]);
	if (!view.remembered && stragglers > STRAGGLER_SHARE * Math.max(samples.length, view.active.length)) return undefined;
	// The fewer a batch's tasks still waited on, the sooner its last ones are checked again: they end the run.
	const waiting = view.active.length / Math.max(1, view.planned);
	return { age: pastRange(age, probes, grid, grid.intervalMs * waiting), pastRange: true };
}
