/**
 * Where each task's status checks go: the engine's queue of checks by due time. "Fixed": check k at the creation + k ×
 * Poll Interval (slots already past are skipped, not bunched); "Learned" keeps that grid as its fallback and places
 * the first check, and the next after each "not yet", by learning/policy.ts's rules. Max Wait's check is the last.
 */
import type { CreatedTask, Waited } from './taskState';
import type { RenderKey } from '../learning/history';
import { MinHeap } from './heap';
import type { WaitingOptions } from './options';
import { judgedLateBy, minGap, reach } from '../learning/policy';
import type { RenderTimes, Role } from '../learning/renderTimes';

export interface Waiting extends Waited {
	/** When the task was created (its creation's answer): ages count from here. */
	anchor: number;
	/** The last grid slot handed out. */
	pollNumber: number;
	deadline: number;
	failures: number;
	inFlight: number;
	/** Bumped whenever the task's schedule changes: tickets of older generations are void. */
	generation: number;
	/** The check at the deadline has started: its answer is the last one awaited. */
	finalStarted: boolean;
	ended: boolean;
	/** Aborts the task's checks still in flight once it has ended. */
	done: AbortController;
	/** Unset when its checks stay on the grid (Task → Wait, "Fixed"). */
	kind?: RenderKey;
	role?: Role;
	/** When its last check started (its creation before the first). */
	lastCheckAt: number;
	/** Placed from history: a check may stand for a grid slot up to rule 3's allowance after it (policy.ts). */
	placed: boolean;
	/** Waits, unchecked, for its kind's scouts (policy.ts, rule 1). */
	held: boolean;
	/** Age at which the last check that said "not yet" started. */
	notYetAge?: number;
	/** When the first check was due. */
	firstCheckAt: number;
	/** The engine held the first check past its due time (every request slot taken, or the API's hold). */
	firstCheckHeld?: boolean;
	/** Checks placed past the learned range or by rule 6 (each doubles the next gap: policy.ts). */
	probes: number;
	checks: number;
	/** Guarded (policy.ts): no check later than the task's grid slots, from its creation on. */
	strict: boolean;
	/** A task on its own, not guarded, first checked at the grid's first slot or later: no more checks than the grid's. */
	gridCount?: boolean;
}

/** The grid slots the task's checks have used: its next check is due no sooner than one Poll Interval after them. */
const slotsSpent = (entry: Waiting) => entry.checks - 1 + (entry.gridCount ? 1 : 0);

/** No check of the task has started yet (`lastCheckAt` is its creation until the first does). */
const unchecked = (entry: Waiting) => entry.lastCheckAt === entry.anchor;

export interface PollTicket {
	entry: Waiting;
	dueAt: number;
	generation: number;
}

export class PollSchedule {
	private readonly tickets = new MinHeap<PollTicket>((ticket) => ticket.dueAt);

	readonly active = new Set<Waiting>();

	constructor(
		private readonly options: WaitingOptions,
		/** Set with Poll Schedule "Learned" on creations. */
		private readonly learned: RenderTimes | undefined,
	) {}

	/** A task to wait on, first checked at `firstDueAt` or where what is learned places it (`kind`: created in this run). */
	add(task: CreatedTask, anchor: number, firstDueAt: number, deadline: number, kind?: RenderKey): Waiting {
		if (!this.learned || !kind) return this.enqueue({ task, anchor, firstDueAt, deadline });
		const role = this.learned.start(kind, anchor);
		// A task that waits for its kind's scouts has only Max Wait's check until one of them ends (policy.ts).
		if (this.learned.holds(kind, role))
			return this.enqueue({ task, anchor, firstDueAt: deadline, deadline, kind, role, held: true });
		const strict = this.learned.guards(kind, role);
		const placed = this.learned.firstCheck(kind, role, anchor, strict);
		const first = { firstDueAt: placed ?? firstDueAt, placed: placed !== undefined && !strict, strict };
		return this.enqueue({ task, anchor, deadline, kind, role, ...first });
	}

	private enqueue(
		start: Pick<Waiting, 'task' | 'anchor' | 'deadline'> &
			Partial<Pick<Waiting, 'kind' | 'role' | 'held' | 'placed' | 'strict'>> & { firstDueAt: number },
	) {
		const { firstDueAt, ...given } = start;
		const entry: Waiting = {
			placed: false,
			held: false,
			strict: false,
			...given,
			// The grid slot at or before the first check: the grid resumes after it.
			pollNumber: Math.floor((firstDueAt - given.anchor) / this.options.pollIntervalMs + 1e-9),
			failures: 0,
			inFlight: 0,
			generation: 0,
			finalStarted: false,
			ended: false,
			done: new AbortController(),
			lastCheckAt: given.anchor,
			probes: 0,
			checks: 0,
			firstCheckAt: Math.min(firstDueAt, given.deadline),
		};
		this.active.add(entry);
		this.push(entry, entry.firstCheckAt);
		return entry;
	}

	/**
	 * Queues the task's next check at `dueAt`, within the grid's envelope on the count of checks
	 * (docs/waiting-and-output.md#the-envelope-what-learning-may-cost), and never after its deadline (Max Wait's check).
	 */
	private queue(entry: Waiting, dueAt: number): void {
		this.push(entry, Math.max(dueAt, entry.anchor + (slotsSpent(entry) + 1) * this.options.pollIntervalMs));
	}

	private push(entry: Waiting, dueAt: number): void {
		this.tickets.push({ entry, dueAt: Math.min(dueAt, entry.deadline), generation: entry.generation });
	}

	/** The last time a check was due while every request slot was taken (`firstCheckHeld`). */
	private fullAt = -Infinity;

	/** The engine found every request slot taken at `now`: the checks due by then wait for one. */
	slotsFull(now: number): void {
		if ((this.next()?.dueAt ?? Infinity) <= now) this.fullAt = now;
	}

	/** The API's hold skips the task's slots until `until` (engine.ts). */
	holdBack(entry: Waiting, until: number): void {
		entry.firstCheckHeld ??= unchecked(entry);
		this.onGrid(entry, until);
	}

	/** The check of `ticket` starts at `now`; a first check was held when every slot was taken while it was due. */
	started(ticket: PollTicket, now: number): void {
		const { entry } = ticket;
		if (unchecked(entry)) {
			entry.firstCheckHeld ??= this.fullAt >= ticket.dueAt;
			entry.gridCount = entry.role === 'planned' && !entry.strict && now - entry.anchor >= this.options.pollIntervalMs;
		}
		entry.lastCheckAt = now;
		entry.checks++;
	}

	/** The earliest ticket that still counts (void ones are dropped on the way). */
	next(): PollTicket | undefined {
		for (;;) {
			const ticket = this.tickets.peek();
			if (!ticket || (ticket.generation === ticket.entry.generation && !ticket.entry.ended)) return ticket;
			this.tickets.pop();
		}
	}

	take(): void {
		this.tickets.pop();
	}

	/**
	 * The task's next slot after `now`; a task placed from history is checked as late as rule 3 allows, for a check
	 * placed just before the slot to be answered first. A check a stalled process held (`dueAt`, an interval or more
	 * before the slot) to less than the shortest gap before the slot stands for it.
	 */
	onGrid(entry: Waiting, now: number, dueAt = Infinity): void {
		const interval = this.options.pollIntervalMs;
		entry.pollNumber = Math.max(entry.pollNumber + 1, Math.floor((now - entry.anchor) / interval) + 1);
		const slotAt = entry.anchor + entry.pollNumber * interval;
		if (slotAt - dueAt >= interval - 1 && slotAt - now < minGap(interval)) entry.pollNumber++;
		const slot = entry.pollNumber * interval;
		const late = entry.placed && this.learned;
		this.queue(entry, entry.anchor + (late ? reach(slot - 1, this.learned!.grid) : slot));
	}

	/** Replaces the task's next check by one at `dueAt`; a `retry` of a failed check goes when the backoff says. */
	moveTo(entry: Waiting, dueAt: number, retry = false): void {
		entry.generation++;
		entry.pollNumber = Math.floor((dueAt - entry.anchor) / this.options.pollIntervalMs);
		if (retry) this.push(entry, dueAt);
		else this.queue(entry, dueAt);
	}

	/**
	 * The task's grid resumes where it would be after its last check: at once if a slot passed since, unless its next
	 * slot is less than policy.ts's shortest gap away (a check now would be followed by the slot's at once).
	 */
	private backOnGrid(entry: Waiting, now: number): void {
		const interval = this.options.pollIntervalMs;
		entry.generation++;
		entry.placed = false;
		entry.held = false;
		entry.pollNumber = Math.floor((entry.lastCheckAt - entry.anchor) / interval + 1e-9) + 1;
		let dueAt = Math.max(now, entry.anchor + entry.pollNumber * interval);
		const upcoming = Math.floor((now - entry.anchor) / interval) + 1;
		if (dueAt === now && entry.anchor + upcoming * interval - now < minGap(interval)) {
			entry.pollNumber = upcoming;
			dueAt = entry.anchor + upcoming * interval;
		}
		this.queue(entry, dueAt);
	}

	/** An answer said "not yet" for the check that started at `startedAt`: the next check goes where it is likely done. */
	notYet(entry: Waiting, startedAt: number, now: number): void {
		if (!entry.kind || !entry.role || !this.learned) return;
		this.learned.sawRoundTrip(now - startedAt);
		entry.notYetAge = Math.max(entry.notYetAge ?? 0, startedAt - entry.anchor);
		// A later check is out already (this answer was slow): its answer places the next one.
		if (entry.finalStarted || entry.lastCheckAt > startedAt) return;
		const { anchor, notYetAge: age, probes, strict } = entry;
		const task = { anchor, age, probes, strict, spent: slotsSpent(entry) };
		const placed = this.learned.nextCheck(entry.kind, entry.role, task, now);
		const gridDue = entry.anchor + entry.pollNumber * this.options.pollIntervalMs;
		// Past the learned range a check never comes later than the grid's next one.
		if (!placed || (placed.pastRange && placed.at >= gridDue)) {
			// The grid's next check was put as late as rule 3 allows behind a placed check, so as not to go out before
			// that check's answer: the answer is in, the grid's check goes at its slot.
			if (!entry.placed) return;
			entry.placed = false;
			entry.generation++;
			return this.queue(entry, gridDue);
		}
		if (placed.pastRange || placed.runEnd) entry.probes++;
		// A check placed by the run's own renders (rule 6) comes a round trip before the slot: the slot's check stays on time.
		entry.placed = !placed.runEnd && !strict;
		this.moveTo(entry, Math.max(placed.at, now));
	}

	/** The check that started at `startedAt` found the task done: its render time is learned (rule 5 may end it). */
	finished(entry: Waiting, startedAt: number, now: number): void {
		const { kind, role } = entry;
		if (!kind || !role || !this.learned) return;
		const roundTrip = now - startedAt;
		this.learned.sawRoundTrip(roundTrip);
		// Where a check counts, and judgedLateBy only for a task alone: docs/waiting-and-output.md, what is learned (a
		// batch's answers vary with its own requests in flight, and its placements err early by design: earlyEstimate).
		const held = entry.notYetAge === undefined && entry.firstCheckHeld === true;
		const checked = held ? Math.min(startedAt, entry.firstCheckAt) : startedAt;
		const lo = entry.notYetAge ?? 0;
		const late = this.active.size === 1 && lo > 0 ? judgedLateBy(roundTrip, this.learned.grid) : 0;
		const seen = { lo, hi: Math.max(checked + late - entry.anchor, lo + 1) };
		if (!this.learned.finished(kind, role, seen)) return;
		for (const other of this.active)
			if (other.kind?.key === kind.key && other !== entry && other.role !== 'scout' && !other.finalStarted)
				this.backOnGrid(other, now);
	}

	end(entry: Waiting): void {
		entry.ended = true;
		entry.generation++;
		entry.done.abort();
		this.active.delete(entry);
		if (!entry.kind || !this.learned?.ended(entry.kind, entry.anchor, entry.role)) return;
		// The first of the kind's scouts ended: the tasks that waited for it join the grid, at once if a slot passed.
		const now = Date.now();
		for (const other of this.active)
			if (other.held && other.kind?.key === entry.kind.key && !other.finalStarted) this.backOnGrid(other, now);
	}
}
