/**
 * What one run knows of render times, per render kind (history.ts's keys): what earlier runs in this process saw
 * (store.ts), and what this run's finished tasks show. The rules that turn it into check times are policy.ts's; this class keeps
 * the run's state they read (observations, the tasks still waited on, each kind's scouts and planned tasks, the
 * shortest round trip) and hands back what the next runs should remember.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import {
	backToGrid,
	batchPlacement,
	earlyEstimate,
	isStale,
	judgedLateBy,
	minGap,
	pastRange,
	planChecks,
	probeAfterHit,
	reach,
	renderDistribution,
	runEnd,
	SCOUTS,
	unlikeHistory,
	upperBound,
	pointOf,
	waitsForScouts,
	type GridShape,
	type Observation,
} from './policy';
import { KEPT_OBSERVATIONS, modelOfKey, readStaticHistory, type RenderKey } from './history';
import { LEARNED, LearnedStore, type KeptKind, type Learned } from './store';

/** How a task's checks are placed: one of a few tasks of its kind (the planner), a batch's scout, or a batch's. */
export type Role = 'planned' | 'scout' | 'batch';

/**
 * A check placed by what was learned: its time, whether the task had outlived every known render, and whether it
 * comes before the task's next grid slot by this run's renders (rule 6: the grid's next check is not delayed for it).
 */
export interface Placement {
	at: number;
	pastRange: boolean;
	runEnd?: boolean;
}

function insertSorted(sorted: number[], value: number): void {
	sorted.splice(upperBound(sorted, value), 0, value);
}

/** One render kind in this run. */
class Track {
	/** This run's observations, in the order the tasks finished. */
	readonly fresh: Observation[] = [];

	/** Early estimates (policy.ts) of every observation, sorted: what a batch is placed by. */
	samples: number[];

	/** This run's renders as points (policy.ts's pointOf), sorted: where its batch likely ends (rule 6). */
	readonly points: number[] = [];

	/** Creation times of the kind's tasks still waited on, sorted. */
	readonly active: number[] = [];

	/** Tasks of the kind that started waiting in this run, and how many the run creates. */
	started = 0;
	planned = 0;

	/** One of the kind's scouts has ended (policy.ts, rule 1: the batch's other tasks stop waiting for them). */
	scoutEnded = false;

	constructor(
		readonly model: string,
		public remembered: Observation[],
		public used: number,
		private readonly intervalMs: number,
	) {
		this.samples = remembered.map((o) => earlyEstimate(o, intervalMs)).sort((a, b) => a - b);
	}

	get observations(): Observation[] {
		return [...this.remembered, ...this.fresh];
	}

	add(observation: Observation): void {
		this.fresh.push(observation);
		insertSorted(this.samples, earlyEstimate(observation, this.intervalMs));
		insertSorted(this.points, pointOf(observation));
	}

	/** Rule 5 found the server changed: what earlier runs saw counts no more, here and in what the run keeps. */
	forgot = false;

	forgetRemembered(): void {
		if (!this.remembered.length) return;
		this.remembered = [];
		this.forgot = true;
		this.samples = this.fresh.map((o) => earlyEstimate(o, this.intervalMs)).sort((a, b) => a - b);
	}

	/** What the next runs add to what they remember: this run's (at most KEPT, spread over its range). */
	keep(): KeptKind {
		let fresh = this.fresh;
		if (fresh.length > KEPT_OBSERVATIONS) {
			const sorted = [...fresh].sort((a, b) => pointOf(a) - pointOf(b));
			const step = (sorted.length - 1) / (KEPT_OBSERVATIONS - 1);
			fresh = Array.from({ length: KEPT_OBSERVATIONS }, (_, index) => sorted[Math.round(index * step)]);
		}
		return { observations: fresh, replaces: this.forgot };
	}
}

/** The history a task is placed by: its kind's, or its model's when its kind has too little (rule 1). */
interface View {
	tracks: Track[];
	observations: Observation[];
}

export class RenderTimes {
	private readonly tracks = new Map<string, Track>();

	private rttMs = 0;

	/**
	 * `learned`: what earlier runs saw (store.ts): a kind the node knows too little of starts from what the process
	 * learned of it on the same API; `planned`: how many tasks of each kind this run creates (a kind with more than
	 * SCOUTS of them is a batch).
	 */
	constructor(
		private readonly intervalMs: number,
		private readonly learned: Learned,
		planned: ReadonlyMap<string, number> = new Map(),
	) {
		for (const key of new Set([...learned.own.keys(), ...planned.keys()])) {
			const model = modelOfKey(key);
			const own = learned.own.get(key);
			const shared = learned.api.get(key);
			const start = own && !backToGrid(own.observations.length, false) ? own : (shared ?? own);
			if (model && start) this.tracks.set(key, new Track(model, [...start.observations], own?.used ?? 0, intervalMs));
		}
		for (const [key, count] of planned) this.track({ key, model: key.split('|')[0] }).planned = count;
	}

	private get grid(): GridShape {
		return { intervalMs: this.intervalMs, rttMs: this.rttMs };
	}

	private track(kind: RenderKey): Track {
		let track = this.tracks.get(kind.key);
		if (!track) {
			track = new Track(kind.model, [], 0, this.intervalMs);
			this.tracks.set(kind.key, track);
		}
		return track;
	}

	/** Rule 1's fallback: the kind's history, else its model's (every kind of it pooled), else none. */
	private view(kind: RenderKey): View | undefined {
		const own = this.track(kind);
		if (!backToGrid(own.remembered.length + own.fresh.length, false))
			return { tracks: [own], observations: own.observations };
		const tracks = [...this.tracks.values()].filter((track) => track.model === kind.model);
		const observations = tracks.sort((a, b) => a.used - b.used).flatMap((track) => track.observations);
		return backToGrid(observations.length, false) ? undefined : { tracks, observations };
	}

	/** Rule 3: the latest age of a check that still stands for the grid slot at age `slot`. */
	latestFor(slot: number): number {
		return reach(slot - 1, this.grid);
	}

	/** How late the server may have judged a "done" answered `roundTripMs` after its check started (policy.ts). */
	judgedLateBy(roundTripMs: number): number {
		return judgedLateBy(roundTripMs, this.grid);
	}

	/** The shortest round trip of a check: rule 3 allows a check one round trip late. */
	sawRoundTrip(ms: number): void {
		if (ms > 0 && (!this.rttMs || ms < this.rttMs)) this.rttMs = ms;
	}

	/** A task of `kind` starts waiting: how its checks are placed. */
	start(kind: RenderKey, anchor: number): Role {
		const track = this.track(kind);
		insertSorted(track.active, anchor);
		track.used = this.learned.clock;
		if (track.planned <= SCOUTS) return 'planned';
		return ++track.started <= SCOUTS ? 'scout' : 'batch';
	}

	/** Rule 1: whether a batch's task waits, unchecked, for one of its kind's scouts to end. */
	holds(kind: RenderKey, role: Role): boolean {
		return waitsForScouts(role === 'batch', this.view(kind) !== undefined, this.track(kind).scoutEnded);
	}

	/** A task of `kind` is no longer waited on. Returns true when it was the first scout to end: tasks held stop waiting. */
	ended(kind: RenderKey, anchor: number, role: Role | undefined): boolean {
		const track = this.track(kind);
		const index = upperBound(track.active, anchor) - 1;
		if (track.active[index] === anchor) track.active.splice(index, 1);
		if (role !== 'scout' || track.scoutEnded) return false;
		track.scoutEnded = true;
		return true;
	}

	/** The time of a task's first check, or undefined for the grid's. */
	firstCheck(kind: RenderKey, role: Role, anchor: number): number | undefined {
		if (role === 'scout') return undefined;
		const view = this.view(kind);
		if (!view) return undefined;
		if (role === 'batch') {
			const placed = batchPlacement(this.batchView(view, anchor), 0, 0, this.grid);
			return placed && anchor + placed.age;
		}
		const planned = planChecks(renderDistribution(view.observations), 0, this.grid, true);
		if (planned === undefined) return undefined;
		return anchor + Math.max(minGap(this.intervalMs), probeAfterHit(view.observations, planned));
	}

	/**
	 * The next check of a task whose last "not yet" check started at age `age`, or undefined for the grid.
	 * `probes`: checks of the task placed past every known render so far.
	 */
	nextCheck(
		kind: RenderKey,
		role: Role,
		anchor: number,
		age: number,
		probes: number,
		now: number,
	): Placement | undefined {
		const ending = role === 'planned' ? undefined : this.runEnd(kind, anchor, age, probes);
		if (role === 'scout') return ending;
		const view = this.view(kind);
		if (!view) return ending;
		if (role === 'batch') {
			const batch = this.batchView(view, now);
			const placed = batchPlacement(batch, age, probes, this.grid);
			const fromHistory = placed && { at: anchor + placed.age, pastRange: placed.pastRange };
			// Rule 6 where what is remembered does not place the task: nothing is, or it was forgotten (rule 5).
			if (batch.remembered || !ending) return fromHistory;
			return fromHistory && fromHistory.at <= ending.at ? fromHistory : ending;
		}
		const planned = planChecks(renderDistribution(view.observations), age, this.grid, false);
		if (planned !== undefined)
			return { at: anchor + Math.max(planned, age + minGap(this.intervalMs)), pastRange: false };
		return { at: anchor + pastRange(age, probes, this.grid), pastRange: true };
	}

	/** Rule 6: the next check of a scout's or a batch's task still running at age `age`, by this run's renders. */
	private runEnd(kind: RenderKey, anchor: number, age: number, probes: number): Placement | undefined {
		const track = this.track(kind);
		const at = runEnd(track.points, track.active.length, age, this.grid, probes);
		return at === undefined ? undefined : { at: anchor + at, pastRange: false, runEnd: true };
	}

	private batchView(view: View, now: number) {
		const samples =
			view.tracks.length === 1 ? view.tracks[0].samples : view.tracks.flatMap((t) => t.samples).sort((a, b) => a - b);
		const active =
			view.tracks.length === 1 ? view.tracks[0].active : view.tracks.flatMap((t) => t.active).sort((a, b) => a - b);
		const remembered = view.tracks.some((track) => track.remembered.length > 0);
		const planned = view.tracks.reduce((sum, track) => sum + track.planned, 0);
		return { samples, active, remembered, now, planned };
	}

	/**
	 * A task of `kind` finished, as `seen`. Returns true when a scout showed that history is stale (rule 5): the
	 * engine then puts the kind's other tasks back on the grid.
	 */
	finished(kind: RenderKey, role: Role, seen: Observation): boolean {
		const view = role === 'batch' ? undefined : this.view(kind);
		// Against what earlier runs saw alone too: this run's tasks that ended first (a batch's, not scouts) must not
		// make a scout's slower render look like history.
		const remembered = view?.tracks.flatMap((track) => track.remembered) ?? [];
		const stale =
			view !== undefined &&
			(isStale(view.observations, seen) ||
				(remembered.length < view.observations.length && isStale(remembered, seen)) ||
				(role === 'scout' && unlikeHistory(remembered, seen)));
		if (stale) for (const track of view.tracks) track.forgetRemembered();
		this.track(kind).add(seen);
		return stale && role === 'scout';
	}

	/** What the next runs should add to what they remember, per kind this run saw end. */
	keep(): Map<string, KeptKind> {
		const kept = new Map<string, KeptKind>();
		for (const [key, track] of this.tracks) {
			const kind = track.keep();
			if (kind.observations.length) kept.set(key, kind);
		}
		return kept;
	}
}

/** What a run learns with: where it keeps it (store.ts) and its placements. */
export interface Learning {
	times: RenderTimes;
	node: string;
	api: string | undefined;
}

/**
 * What Poll Schedule "Learned" places a run's tasks by: what this process learned of the node's render kinds (and,
 * for a kind the node knows too little of, of the same kind on the API `api`: a fingerprint of the Base URL), and
 * how many tasks of each kind the run creates. Undefined, for the grid, unless the run creates tasks and learns.
 */
export function learnedTimes(
	context: IExecuteFunctions,
	run: {
		options: { pollSchedule: 'learned' | 'fixed'; pollIntervalMs: number };
		creations: ReadonlyArray<{ renderKey?: RenderKey }>;
		checkOnly?: boolean;
	},
	api: string | undefined,
): Learning | undefined {
	const { options, creations } = run;
	if (options.pollSchedule !== 'learned' || !creations.length || run.checkOnly) return undefined;
	const planned = new Map<string, number>();
	for (const { renderKey } of creations)
		if (renderKey) planned.set(renderKey.key, (planned.get(renderKey.key) ?? 0) + 1);
	const node = LearnedStore.nodeSlot(context.getWorkflow().id ?? '', context.getNode().id);
	const learned = LEARNED.read(node, api, () => readStaticHistory(context), planned.keys());
	return { times: new RenderTimes(options.pollIntervalMs, learned, planned), node, api };
}

/** Adds what the run saw to what the process keeps (store.ts): every mode, manual runs too. */
export function keepLearned(learning: Learning): void {
	LEARNED.keep(learning.node, learning.api, learning.times.keep());
}
