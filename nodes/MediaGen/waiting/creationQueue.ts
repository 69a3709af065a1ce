/**
 * The creations' lane of the waiting engine (engine.ts), in order: creations, repeated only when they provably created
 * nothing, and requests that are safe to repeat (Task → Delete's), repeated after any failure that may pass.
 */
import type { ItemError } from '../output/itemFailure';
import type { TaskType } from '../models/endpoints';
import type { RequestSummary } from '../output/items';
import type { ApiSession } from '../transport';
import type { CreatedTask } from './taskState';
import type { RenderKey } from '../learning/history';
import { MinHeap } from './heap';

/** One item to create: `send` makes one attempt; the engine decides about repeating it. */
export interface CreationJob {
	itemIndex: number;
	taskType: TaskType;
	summary: RequestSummary;
	send: (session: ApiSession, timeoutMs: number) => Promise<CreatedTask>;
	/** Its render kind, for Poll Schedule "Learned" (learning/history.ts). */
	renderKey?: RenderKey;
}

/**
 * A request that creates nothing and is safe to repeat (Task → Delete: an id deleted twice is deleted once), until Max
 * Wait from its first attempt. `send` makes one attempt and returns the requests it leaves to make.
 */
export interface RequestJob {
	itemIndex: number;
	send: (session: ApiSession, timeoutMs: number) => Promise<RequestJob[]>;
	/** Its last attempt failed and is not repeated; without Continue On Fail the run then stops. */
	failed: (error: ItemError) => void;
}

export interface QueuedJob {
	job: CreationJob | RequestJob;
	attempts: number;
	firstAttemptAt: number;
	/** Not started before this time (a repeat's pause). */
	notBefore: number;
}

/** The lane's jobs in the order they go out: a repeat that is due first, else the next new job in input order. */
export class CreationQueue {
	private readonly fresh: QueuedJob[] = [];

	private nextFresh = 0;

	private readonly repeats = new MinHeap<QueuedJob>((entry) => entry.notBefore);

	add(job: CreationJob | RequestJob, now: number): void {
		this.fresh.push({ job, attempts: 0, firstAttemptAt: 0, notBefore: now });
	}

	repeat(entry: QueuedJob, at: number): void {
		entry.notBefore = at;
		this.repeats.push(entry);
	}

	/** The job that may start now, if any (`take` it to start it). */
	ready(now: number): QueuedJob | undefined {
		const repeat = this.repeats.peek();
		if (repeat && repeat.notBefore <= now) return repeat;
		return this.nextFresh < this.fresh.length ? this.fresh[this.nextFresh] : undefined;
	}

	take(entry: QueuedJob): void {
		if (this.repeats.peek() === entry) this.repeats.pop();
		else this.nextFresh++;
	}

	get nextRepeatAt(): number | undefined {
		return this.repeats.peek()?.notBefore;
	}

	get empty(): boolean {
		return this.nextFresh >= this.fresh.length && !this.repeats.size;
	}
}
