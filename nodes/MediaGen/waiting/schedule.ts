/**
 * Where each task's status checks go: the engine's queue of checks by due time, one entry per task waited on.
 *
 * Poll Schedule "Fixed": check k of a task falls due at its creation + k × Poll Interval (a fixed period, slots
 * already past are skipped, not bunched). "Learned" (the default) keeps that grid as the fallback and places checks
 * by the model's known render times once there are enough (renderTimes.ts): when a "not yet" answer comes back, the
 * next check moves to where the task is likely done. Max Wait's check is the last one, wherever the others went.
 */
import type { CreatedTask } from './answers';
import { MinHeap } from './heap';
import type { WaitingOptions } from './options';
import type { RenderTimes } from './renderTimes';

export interface Waiting {
	task: CreatedTask;
	/** When the task was created (its creation's answer): ages count from here. */
	anchor: number;
	/** The last grid slot handed out. */
	pollNumber: number;
	deadline: number;
	failures: number;
	/** Checks of this task in flight; a slow answer does not hold the next one back (up to the engine's cap). */
	inFlight: number;
	/** Bumped whenever the task's schedule changes: tickets of older generations are void. */
	generation: number;
	/** The check at the deadline has started: its answer is the last one awaited. */
	finalStarted: boolean;
	ended: boolean;
	/** Aborts the task's checks still in flight once it has ended. */
	done: AbortController;
	lastStatus?: number;
	lastError?: Error;
	/** The model's key in what is learned; unset when the task's checks stay on the grid (Task → Wait, "Fixed"). */
	model?: string;
	/** One of the model's first tasks in the run: its checks follow the grid (renderTimes.ts). */
	scout: boolean;
	/** Age at which the last check that said "not yet" started. */
	notYetAge?: number;
	/** When the first check was due: a busy or rate-limited API may let it start later. */
	firstCheckAt: number;
	/** Checks of this task placed past the learned range (each doubles the next gap there: renderTimes.ts). */
	probes: number;
}

export interface PollTicket {
	entry: Waiting;
	dueAt: number;
	generation: number;
}

export class PollSchedule {
	private readonly tickets = new MinHeap<PollTicket>((ticket) => ticket.dueAt);

	/** Tasks still waited on. */
	readonly active = new Set<Waiting>();

	constructor(
		private readonly options: WaitingOptions,
		/** Set with Poll Schedule "Learned" on creations. */
		private readonly learned: RenderTimes | undefined,
	) {}

	/**
	 * A task to wait on, first checked at `firstDueAt` (or where what is learned places it). `learn`: the task was
	 * created in this run, so its age is its render time so far.
	 */
	add(task: CreatedTask, anchor: number, firstDueAt: number, deadline: number, learn: boolean): Waiting {
		const entry: Waiting = {
			task,
			anchor,
			pollNumber: Math.round((firstDueAt - anchor) / this.options.pollIntervalMs),
			deadline,
			failures: 0,
			inFlight: 0,
			generation: 0,
			finalStarted: false,
			ended: false,
			done: new AbortController(),
			scout: false,
			probes: 0,
			firstCheckAt: firstDueAt,
		};
		if (this.learned && learn) {
			entry.model = `${task.taskType}/${task.summary.model ?? ''}`;
			entry.scout = this.learned.started(entry.model, anchor);
			if (!entry.scout) firstDueAt = this.learned.place(entry.model, anchor, 0, 0, anchor)?.at ?? firstDueAt;
		}
		entry.firstCheckAt = Math.min(firstDueAt, entry.deadline);
		this.active.add(entry);
		this.tickets.push({ entry, dueAt: entry.firstCheckAt, generation: 0 });
		return entry;
	}

	/** The earliest ticket that still counts (void ones are dropped on the way). */
	next(): PollTicket | undefined {
		for (;;) {
			const ticket = this.tickets.peek();
			if (!ticket || (ticket.generation === ticket.entry.generation && !ticket.entry.ended)) return ticket;
			this.tickets.pop();
		}
	}

	/** Takes the ticket `next()` returned. */
	take(): void {
		this.tickets.pop();
	}

	/** The task's next slot on its own grid after `now`, capped at the deadline. */
	onGrid(entry: Waiting, now: number): void {
		const interval = this.options.pollIntervalMs;
		entry.pollNumber = Math.max(entry.pollNumber + 1, Math.floor((now - entry.anchor) / interval) + 1);
		const dueAt = entry.anchor + entry.pollNumber * interval;
		this.tickets.push({ entry, dueAt: Math.min(dueAt, entry.deadline), generation: entry.generation });
	}

	/** Replaces the task's next check by one at `dueAt` (capped at the deadline); the grid resumes after it. */
	moveTo(entry: Waiting, dueAt: number): void {
		entry.generation++;
		entry.pollNumber = Math.floor((dueAt - entry.anchor) / this.options.pollIntervalMs);
		this.tickets.push({ entry, dueAt: Math.min(dueAt, entry.deadline), generation: entry.generation });
	}

	/** An answer said "not yet" for the check that started at `startedAt`: the next check goes where it is likely done. */
	notYet(entry: Waiting, startedAt: number, now: number): void {
		if (!entry.model || !this.learned) return;
		entry.notYetAge = Math.max(entry.notYetAge ?? 0, startedAt - entry.anchor);
		if (entry.scout || entry.finalStarted) return;
		const placed = this.learned.place(entry.model, entry.anchor, entry.notYetAge, entry.probes, now);
		if (!placed) return;
		if (placed.pastRange) {
			// Past the learned range a check never comes later than the grid's next one.
			if (placed.at >= entry.anchor + entry.pollNumber * this.options.pollIntervalMs) return;
			entry.probes++;
		}
		this.moveTo(entry, Math.max(placed.at, now));
	}

	/**
	 * The check that started at `startedAt` found the task done: its render time is learned. A scout that shows the
	 * server changed puts its model back on the grid.
	 */
	finished(entry: Waiting, startedAt: number, now: number): void {
		if (!entry.model || !this.learned) return;
		// Found done at its first check: the render ended before that check was due, whenever it could start.
		const checked = entry.notYetAge === undefined ? Math.min(startedAt, entry.firstCheckAt) : startedAt;
		const ages = { notYet: entry.notYetAge, checked: checked - entry.anchor, answered: now - entry.anchor };
		if (!this.learned.finished(entry.model, ages, entry.scout)) return;
		for (const other of this.active)
			if (other.model === entry.model && other !== entry && !other.ended && !other.scout && !other.finalStarted) {
				other.generation++;
				this.onGrid(other, now);
			}
	}

	/** The task is no longer waited on. */
	end(entry: Waiting): void {
		entry.ended = true;
		entry.generation++;
		entry.done.abort();
		this.active.delete(entry);
		if (entry.model) this.learned?.ended(entry.model, entry.anchor);
	}
}
