/**
 * What one run knows of render times per render kind (history.ts's keys), from earlier runs (store.ts) and its own
 * finished tasks: the state policy.ts's rules read, and what the next runs should remember.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import * as rules from './policy';
import type { GridShape, Observation } from './policy';
import { KEPT_OBSERVATIONS, modelOfKey, readStaticHistory, type RenderKey } from './history';
import { LEARNED, LearnedStore, type KeptKind, type Learned } from './store';

/** How a task's checks are placed: one of a few tasks of its kind (the planner), a batch's scout, or a batch's. */
export type Role = 'planned' | 'scout' | 'batch';

/** A check placed by what was learned; `pastRange`: rule 4, `runEnd`: rule 6 (the grid's next check stays on time). */
export interface Placement {
	at: number;
	pastRange: boolean;
	runEnd?: boolean;
}

/** One render kind in this run. */
class Track {
	/** This run's observations, in the order the tasks finished. */
	readonly fresh: Observation[] = [];

	/** This run's renders by pointOf, sorted (rule 6). */
	readonly points: number[] = [];

	/** Creation times of the kind's tasks still waited on, sorted. */
	readonly active: number[] = [];

	started = 0;
	planned = 0;

	scoutEnded = false;

	/** Rule 5 found the server changed: what earlier runs saw counts no more, here and in what the run keeps. */
	forgot = false;

	/** A cache of `samples`. */
	private estimates?: { from: Observation[]; fresh: number; samples: number[] };

	constructor(
		/** What earlier runs of this node saw of the kind. */
		private own: Observation[],
		/** What earlier runs of every node saw of the kind on the same API (this node's among them). */
		private borrowed: Observation[],
		private readonly intervalMs: number,
	) {}

	/** Newest last. */
	get mine(): Observation[] {
		return [...this.own, ...this.fresh];
	}

	/** Rule 1: what earlier runs saw that placements trust, with this run's renders; undefined: the grid. */
	trusted(): { remembered: Observation[]; observations: Observation[] } | undefined {
		const remembered = !rules.backToGrid(this.own.length + this.fresh.length)
			? this.own
			: rules.confirms(this.mine, elsewhere(this.borrowed, this.own), this.intervalMs)
				? this.borrowed
				: undefined;
		return remembered && { remembered, observations: [...remembered, ...this.fresh] };
	}

	/** Early estimates (policy.ts) of every trusted observation, sorted: what a batch is placed by. */
	samples(remembered: Observation[]): number[] {
		const cached = this.estimates;
		if (cached?.from === remembered && cached.fresh === this.fresh.length) return cached.samples;
		const samples = [...remembered, ...this.fresh]
			.map((o) => rules.earlyEstimate(o, this.intervalMs))
			.sort(rules.byValue);
		this.estimates = { from: remembered, fresh: this.fresh.length, samples };
		return samples;
	}

	add(observation: Observation): void {
		this.fresh.push(observation);
		rules.insertSorted(this.points, rules.pointOf(observation));
	}

	forgetRemembered(): void {
		if (!this.own.length && !this.borrowed.length) return;
		this.own = [];
		this.borrowed = [];
		this.forgot = true;
	}

	/** This run's observations, at most KEPT_OBSERVATIONS spread over its range. */
	keep(): KeptKind {
		let fresh = this.fresh;
		if (fresh.length > KEPT_OBSERVATIONS) {
			const sorted = [...fresh].sort((a, b) => rules.pointOf(a) - rules.pointOf(b));
			const step = (sorted.length - 1) / (KEPT_OBSERVATIONS - 1);
			fresh = Array.from({ length: KEPT_OBSERVATIONS }, (_, index) => sorted[Math.round(index * step)]);
		}
		return { observations: fresh, replaces: this.forgot };
	}
}

/** What the API's pool holds beyond the node's own renders (the pool has each of them too, as kept). */
function elsewhere(pool: Observation[], own: Observation[]): Observation[] {
	const mine = new Map<string, number>();
	for (const { lo, hi } of own) mine.set(`${lo}:${hi}`, (mine.get(`${lo}:${hi}`) ?? 0) + 1);
	return pool.filter(({ lo, hi }) => {
		const left = mine.get(`${lo}:${hi}`) ?? 0;
		if (left) mine.set(`${lo}:${hi}`, left - 1);
		return !left;
	});
}

export class RenderTimes {
	private readonly tracks = new Map<string, Track>();

	private rttMs = 0;

	/** `planned`: how many tasks of each kind this run creates (more than SCOUTS: a batch). */
	constructor(
		private readonly intervalMs: number,
		learned: Learned,
		planned: ReadonlyMap<string, number> = new Map(),
	) {
		for (const key of new Set([...learned.own.keys(), ...learned.api.keys(), ...planned.keys()])) {
			if (!modelOfKey(key)) continue;
			const own = learned.own.get(key)?.observations ?? [];
			const borrowed = learned.api.get(key)?.observations ?? [];
			this.tracks.set(key, new Track([...own], [...borrowed], intervalMs));
		}
		for (const [key, count] of planned) this.track(key).planned = count;
	}

	get grid(): GridShape {
		return { intervalMs: this.intervalMs, rttMs: this.rttMs };
	}

	private track(key: string): Track {
		const track = this.tracks.get(key) ?? new Track([], [], this.intervalMs);
		this.tracks.set(key, track);
		return track;
	}

	/** Rule 3 allows a check one round trip late: the shortest seen. */
	sawRoundTrip(ms: number): void {
		if (ms > 0 && (!this.rttMs || ms < this.rttMs)) this.rttMs = ms;
	}

	start(kind: RenderKey, anchor: number): Role {
		const track = this.track(kind.key);
		rules.insertSorted(track.active, anchor);
		if (track.planned <= rules.SCOUTS) return 'planned';
		return ++track.started <= rules.SCOUTS ? 'scout' : 'batch';
	}

	/** Rule 1: whether a batch's task waits, unchecked, for one of its kind's scouts to end. */
	holds(kind: RenderKey, role: Role): boolean {
		const track = this.track(kind.key);
		return rules.waitsForScouts(role === 'batch', track.trusted() !== undefined, track.scoutEnded);
	}

	guards(kind: RenderKey, role: Role): boolean {
		const track = this.track(kind.key);
		return role === 'planned' && track.trusted() !== undefined && rules.guarded(track.mine);
	}

	/** A task is no longer waited on: true when it was the kind's first scout to end (tasks held stop waiting). */
	ended(kind: RenderKey, anchor: number, role: Role | undefined): boolean {
		const track = this.track(kind.key);
		const index = rules.upperBound(track.active, anchor) - 1;
		if (track.active[index] === anchor) track.active.splice(index, 1);
		if (role !== 'scout' || track.scoutEnded) return false;
		track.scoutEnded = true;
		return true;
	}

	/** The time of a task's first check, or undefined for the grid's. `strict`: a guarded task (rule 3 from 0). */
	firstCheck(kind: RenderKey, role: Role, anchor: number, strict = false): number | undefined {
		if (role === 'scout') return undefined;
		const track = this.track(kind.key);
		const trusted = track.trusted();
		if (!trusted) return undefined;
		if (role === 'batch') {
			const placed = rules.batchPlacement(this.batchView(track, trusted.remembered, anchor), 0, 0, this.grid);
			return placed && anchor + placed.age;
		}
		// No check yet: -1 slots spent, as waiting/schedule.ts counts them (the first may go before the first slot).
		return this.planned(trusted.observations, { anchor, age: 0, spent: -1 }, { ...this.grid, strict }, !strict);
	}

	/** Rule 2 for a task on its own: its next check, at least the shortest gap after age `age`. */
	private planned(
		observations: Observation[],
		task: { anchor: number; age: number; spent: number },
		grid: GridShape,
		first: boolean,
	) {
		const at = rules.planChecks(rules.renderDistribution(observations), task.age, grid, first, task.spent);
		return at === undefined ? undefined : task.anchor + Math.max(at, task.age + rules.minGap(this.intervalMs));
	}

	/** The next check of a task whose last "not yet" check started at age `age`, or undefined for the grid. */
	nextCheck(
		kind: RenderKey,
		role: Role,
		task: { anchor: number; age: number; probes: number; strict: boolean; spent: number },
		now: number,
	): Placement | undefined {
		const { anchor, age, probes } = task;
		const grid = { ...this.grid, strict: task.strict };
		const track = this.track(kind.key);
		const end =
			role === 'planned' ? undefined : rules.runEnd(track.points, track.active.length, age, this.grid, probes);
		const ending = end === undefined ? undefined : { at: anchor + end, pastRange: false, runEnd: true };
		if (role === 'scout') return ending;
		const trusted = track.trusted();
		if (!trusted) return ending;
		if (role === 'batch') {
			const batch = this.batchView(track, trusted.remembered, now);
			const placed = rules.batchPlacement(batch, age, probes, grid);
			const fromHistory = placed && { at: anchor + placed.age, pastRange: placed.pastRange };
			// Rule 6 where what is remembered does not place the task: nothing is, or it was forgotten (rule 5).
			if (batch.remembered || !ending) return fromHistory;
			return fromHistory && fromHistory.at <= ending.at ? fromHistory : ending;
		}
		const planned = this.planned(trusted.observations, task, grid, false);
		if (planned !== undefined) return { at: planned, pastRange: false };
		return { at: anchor + rules.pastRange(age, probes, grid), pastRange: true };
	}

	private batchView(track: Track, remembered: Observation[], now: number) {
		return {
			samples: track.samples(remembered),
			active: track.active,
			remembered: remembered.length > 0,
			now,
			planned: track.planned,
		};
	}

	/** A task of `kind` finished, as `seen`: true when a scout showed history stale (rule 5), for the grid. */
	finished(kind: RenderKey, role: Role, seen: Observation): boolean {
		const track = this.track(kind.key);
		const trusted = role === 'batch' ? undefined : track.trusted();
		// Against earlier runs alone too: this run's first renders (a batch's) must not make a scout's look like history.
		const remembered = trusted?.remembered ?? [];
		const stale =
			trusted !== undefined &&
			(rules.isStale(trusted.observations, seen) ||
				(remembered.length < trusted.observations.length && rules.isStale(remembered, seen)) ||
				(role === 'scout' && rules.unlikeHistory(remembered, seen)));
		if (stale) track.forgetRemembered();
		track.add(seen);
		return stale && role === 'scout';
	}

	keep(): Map<string, KeptKind> {
		const kept = new Map<string, KeptKind>();
		for (const [key, track] of this.tracks) {
			const kind = track.keep();
			if (kind.observations.length) kept.set(key, kind);
		}
		return kept;
	}
}

/**
 * What Poll Schedule "Learned" places a run's tasks by (`api`: a fingerprint of the Base URL, whose pool a kind the
 * node knows too little of may borrow from); undefined, for the grid, unless the run creates tasks and learns.
 * `keep` adds what the run saw to what the process keeps (store.ts): every mode, manual runs too.
 */
export function learnedTimes(
	context: IExecuteFunctions,
	options: { pollSchedule: 'learned' | 'fixed'; pollIntervalMs: number },
	creations: ReadonlyArray<{ renderKey?: RenderKey }>,
	api: string | undefined,
): { times: RenderTimes; keep: () => void } | undefined {
	if (options.pollSchedule !== 'learned' || !creations.length) return undefined;
	const planned = new Map<string, number>();
	for (const { renderKey } of creations)
		if (renderKey) planned.set(renderKey.key, (planned.get(renderKey.key) ?? 0) + 1);
	const node = LearnedStore.nodeSlot(context.getWorkflow().id ?? '', context.getNode().id);
	const learned = LEARNED.read(node, api, () => readStaticHistory(context), planned.keys());
	const times = new RenderTimes(options.pollIntervalMs, learned, planned);
	return { times, keep: () => LEARNED.keep(node, api, times.keep()) };
}
