/**
 * Result downloads: finished tasks' files into n8n's binary storage, each file a job of its own, beside the API's
 * requests and outside their bound (file hosts are not the API). docs/waiting-and-output.md#downloads says why each
 * file is asked for once and files stream side by side: an answered GET waits unread for room (a waiting connection
 * costs the host nothing, a second GET would).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { itemFailure } from '../output/itemFailure';
import type { TaskType } from '../models/endpoints';
import { storeResultFile, storedBytes } from '../output/resultFiles';
import { completedOutcome, splitJson, taskJson, type ItemOutcome } from '../output/items';
import { downloadResultFile, factsOf } from '../transport';
import { cancelledOutcome, type CreatedTask } from './taskState';
import { retryDelay } from './backoff';
import { MinHeap } from './heap';
import { earliest } from './wakeableSleep';
import { insertSorted } from '../learning/policy';
import { requestTimeoutAt, type WaitingOptions } from './options';

/**
 * Files in flight at once when they are small (images): enough to hide a round trip behind the others. With Poll
 * Schedule "Learned" most of a batch is found done at about the same time, and 64 streams then took longer to fetch
 * 400 files than the render window they had (`npm run bench`, spread with downloads).
 */
const RESULT_STREAMS = 128;

/** Bytes of files in flight (by their announced sizes) beyond which only MIN_STREAMS files run at once. */
const BYTE_BUDGET = 64 * 1024 * 1024;

/** Files that may always run side by side, however large. */
const MIN_STREAMS = 2;

/** A file this small is read as soon as it is answered, beside huge ones. */
const SMALL_FILE = BYTE_BUDGET / 16;

/** The longest a file answered waits for room, as a share of its Request Timeout (it then keeps the rest to arrive). */
const HOLD_SHARE = 0.25;

/**
 * What a file weighs before any file of its task type was seen in the run (answered or, without a Content-Length,
 * stored): an image is rarely more than a few MB (64 are asked for at once), a video may be a GB (two).
 */
const FIRST_GUESS: Record<TaskType, number> = { image: BYTE_BUDGET / 64, video: BYTE_BUDGET / MIN_STREAMS };

/** Attempts of one file: the first and up to three retries, all inside its deadline. */
const MAX_ATTEMPTS = 4;

/** Pauses before a file's retries: 0.5 s, doubling per attempt, at most 8 s (or the host's Retry-After). */
const RETRY_BACKOFF = { firstMs: 500, maxMs: 8_000 };

/** A file answered and waiting, unread, for room (`room(false)`: the run halted). */
interface Parked {
	size: number;
	until: number;
	room: (read: boolean) => void;
}

interface TaskFiles {
	task: CreatedTask;
	info: IDataObject;
	urls: string[];
	binaries: Array<INodeExecutionData['binary']>;
	errors: unknown[];
	unsettled: number;
	reported: boolean;
}

interface FileJob {
	files: TaskFiles;
	index: number;
	/** Not started before this time (Date.now()); a new file's is the time it was queued. */
	notBefore: number;
	attempts: number;
	/** All attempts end by then: Request Timeout from the first. */
	deadline?: number;
	/** Announced by an earlier answer. */
	size?: number;
	/** How the last attempt's file was not whole (the same again is not retried). */
	fault?: string;
}

interface ResultDownloadsInput {
	options: WaitingOptions;
	continueOnFail: boolean;
	/** Aborted when the run stops (an item failed without Continue On Fail): downloads in flight end. */
	halted: AbortSignal;
	/** A task's outcome, when every file of it is in (or the first failure without Continue On Fail). */
	report: (outcome: ItemOutcome) => void;
	wake: () => void;
}

export class ResultDownloads {
	private readonly queue = new MinHeap<FileJob>((job) => job.notBefore);

	private readonly unreported = new Set<TaskFiles>();

	/** Files asked for and not answered yet. */
	private asked = 0;

	/** In the order they were answered. */
	private readonly parked: Parked[] = [];

	private reading = 0;
	private bytesReading = 0;

	/** Sizes of each task type's files seen in this run (announced, or stored when none was announced), sorted. */
	private readonly sizes = new Map<TaskType, number[]>();

	private readonly maxStreams: number;

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly input: ResultDownloadsInput,
	) {
		this.maxStreams = Math.max(1, Math.min(RESULT_STREAMS, input.options.maxConcurrency));
	}

	/** Files being downloaded now (asked for, waiting for room, or being read). */
	get inFlight(): number {
		return this.asked + this.parked.length + this.reading;
	}

	/** Files waiting to start (now or after a retry pause). */
	get queued(): number {
		return this.queue.size;
	}

	private get halted(): boolean {
		return this.input.halted.aborted || this.context.getExecutionCancelSignal()?.aborted === true;
	}

	add(task: CreatedTask, info: IDataObject, urls: string[]): void {
		const files: TaskFiles = { task, info, urls, binaries: [], errors: [], unsettled: urls.length, reported: false };
		this.unreported.add(files);
		if (!urls.length) return this.settle(files);
		const now = Date.now();
		urls.forEach((_, index) => this.queue.push({ files, index, notBefore: now, attempts: 0 }));
	}

	dispatch(now: number): void {
		if (this.halted) return;
		this.makeRoom(now);
		for (;;) {
			const job = this.queue.peek();
			if (!job || job.notBefore > now || !this.mayAsk(job)) return;
			this.queue.pop();
			this.attempt(job).catch((error: unknown) => {
				// Escaped the attempt's own handling: the task's file fails with it rather than never settling.
				job.files.errors[job.index] = error;
				this.settleFile(job.files);
			});
		}
	}

	/** When the loop must look again for a file (a retry that may not start yet waits for a download's end instead). */
	nextDueAt(): number | undefined {
		if (this.halted) return undefined;
		const job = this.queue.peek();
		const next = job && (job.notBefore > Date.now() || this.mayAsk(job)) ? job.notBefore : undefined;
		// A file waiting for room is read at its hold's end whatever is in flight.
		return earliest(next, ...this.parked.map((file) => file.until));
	}

	/** Tasks not reported because the run stopped (completed, their files not all stored) or was cancelled. */
	leftovers(): ItemOutcome[] {
		const cancelled = this.context.getExecutionCancelSignal()?.aborted === true;
		const outcomes = [...this.unreported].map(({ task, info, urls }) =>
			cancelled
				? cancelledOutcome.call(this.context, { task })
				: { itemIndex: task.itemIndex, items: [{ json: taskJson(task, 'completed', { urls, info }) }] },
		);
		this.unreported.clear();
		return outcomes;
	}

	/** A file's size, else the middle size of its type's seen so far: one large file does not hold up small ones. */
	private weight(job: FileJob): number {
		const type = job.files.task.taskType;
		const seen = this.sizes.get(type);
		return job.size ?? (seen?.length ? seen[seen.length >> 1] : FIRST_GUESS[type]);
	}

	private sawSize(job: FileJob, size: number | undefined): void {
		const type = job.files.task.taskType;
		if (size !== undefined) this.sizes.set(type, insertSorted(this.sizes.get(type) ?? [], size));
	}

	/** Whether a file may be asked for now: a retry of a known size only when it may be read at once. */
	private mayAsk(job: FileJob): boolean {
		if (this.inFlight >= this.maxStreams) return false;
		if (job.size !== undefined) return this.mayRead(job.size);
		if (this.asked + this.parked.length < MIN_STREAMS) return true;
		const typical = this.weight(job);
		const waitingBytes = this.parked.reduce((sum, file) => sum + file.size, 0);
		return (this.asked + 1) * typical + waitingBytes <= BYTE_BUDGET;
	}

	private mayRead(size: number): boolean {
		return size <= SMALL_FILE || this.reading < MIN_STREAMS || this.bytesReading + size <= BYTE_BUDGET;
	}

	/** Answered files that now have room, or whose wait is over, are read in the order they were answered. */
	private makeRoom(now: number): void {
		for (let index = 0; index < this.parked.length; ) {
			const file = this.parked[index];
			if (!this.mayRead(file.size) && now < file.until) {
				index++;
				continue;
			}
			this.parked.splice(index, 1);
			this.startReading(file.size);
			file.room(true);
		}
	}

	private startReading(size: number): void {
		this.reading++;
		this.bytesReading += size;
	}

	/** Waits, unread, for room (true: it counts as being read), at most HOLD_SHARE of its time, or a stop (false). */
	private async roomFor(size: number, job: FileJob, startedAt: number): Promise<boolean> {
		if (this.mayRead(size)) {
			this.startReading(size);
			return true;
		}
		const until = startedAt + HOLD_SHARE * (job.deadline! - startedAt);
		const signals = [this.input.halted, this.context.getExecutionCancelSignal()].filter((s) => s !== undefined);
		return await new Promise<boolean>((resolve) => {
			const file: Parked = { size, until, room: (read) => done(read) };
			const onAbort = () => {
				const index = this.parked.indexOf(file);
				if (index >= 0) this.parked.splice(index, 1);
				done(false);
			};
			const done = (read: boolean) => {
				for (const signal of signals) signal.removeEventListener('abort', onAbort);
				resolve(read);
			};
			for (const signal of signals) signal.addEventListener('abort', onAbort);
			this.parked.push(file);
			this.input.wake();
		});
	}

	private async attempt(job: FileJob): Promise<void> {
		const { files, index } = job;
		const url = files.urls[index];
		this.asked++;
		let phase: 'asked' | 'reading' | 'over' = 'asked';
		let size = 0;
		const startedAt = Date.now();
		job.deadline ??= startedAt + requestTimeoutAt(this.input.options, startedAt);
		job.attempts++;
		const { itemIndex, taskId } = files.task;
		const context = { itemIndex, taskId, timeout: Math.max(1, job.deadline - startedAt), signal: this.input.halted };
		try {
			const file = await downloadResultFile.call(this.context, url, context);
			this.asked--;
			phase = 'over';
			if (file.size !== undefined) this.sawSize(job, (job.size = file.size));
			size = file.size ?? this.weight(job);
			// A body left unread may break meanwhile (the host closes it, the deadline passes): its reader finds it broken.
			const broken = () => undefined;
			file.body.on('error', broken);
			const read = await this.roomFor(size, job, startedAt);
			file.body.removeListener('error', broken);
			if (!read) return file.release();
			phase = 'reading';
			const binary = await storeResultFile.call(this.context, file, url, index, this.input.options, context);
			if (file.size === undefined) this.sawSize(job, storedBytes(Object.values(binary)[0]));
			files.binaries[index] = binary;
			this.settleFile(files);
		} catch (error) {
			if (!this.retry(job, error)) {
				files.errors[index] = error;
				this.settleFile(files);
			}
		} finally {
			if (phase === 'asked') this.asked--;
			if (phase === 'reading') {
				this.reading--;
				this.bytesReading -= size;
			}
			this.input.wake();
		}
	}

	/** Queues a transient failure again after a backoff, in time; not a file broken as before (the host has no other). */
	private retry(job: FileJob, error: unknown): boolean {
		const { transient, fault, retryAfterMs } = factsOf(error);
		if (this.halted || !transient || job.attempts >= MAX_ATTEMPTS) return false;
		if (fault !== undefined && fault === job.fault) return false;
		job.fault = fault;
		const at = Date.now() + retryDelay(job.attempts, retryAfterMs, RETRY_BACKOFF);
		if (job.deadline === undefined || at >= job.deadline) return false;
		job.notBefore = at;
		this.queue.push(job);
		return true;
	}

	private settleFile(files: TaskFiles): void {
		files.unsettled--;
		// Stopped or cancelled: the engine lists the task with its leftovers.
		if (files.reported || this.halted) return;
		// Without Continue On Fail the first failure ends the run at once: the other files are not awaited.
		const failed = files.errors.some((error) => error !== undefined);
		if (!files.unsettled || (failed && !this.input.continueOnFail)) this.settle(files);
	}

	/** Reports a task's outcome: its items, or an error per failed file (split) or for the item. */
	private settle(files: TaskFiles): void {
		files.reported = true;
		this.unreported.delete(files);
		const { task, urls } = files;
		try {
			this.report(files);
		} catch (error) {
			const about = { step: 'writing its output', taskId: task.taskId };
			this.input.report({
				itemIndex: task.itemIndex,
				error: itemFailure(this.context.getNode(), error, task.itemIndex, about),
				json: { taskid: task.taskId, taskType: task.taskType, status: 'completed', urls },
			});
		}
	}

	private report(files: TaskFiles): void {
		const { task, info, urls, binaries, errors } = files;
		const { options } = this.input;
		const failed = errors.findIndex((error) => error !== undefined);
		if (failed < 0) return this.input.report(completedOutcome(task, info, urls, options, binaries));
		const json = taskJson(task, 'completed', { urls, info });
		const errorOutcome = (index: number): ItemOutcome => ({
			itemIndex: task.itemIndex,
			error: errors[index] as never,
			json: options.split ? splitJson(json, urls, index) : json,
		});
		// One item per task: one error. Split with Continue On Fail: the files that arrived are kept, each failed file
		// is an error item of its own, in `urls` order.
		if (!options.split || !this.input.continueOnFail) return this.input.report(errorOutcome(failed));
		const items = completedOutcome(task, info, urls, options, binaries);
		urls.forEach((_, index) => {
			if (errors[index] !== undefined) this.input.report(errorOutcome(index));
			else if ('items' in items) this.input.report({ itemIndex: task.itemIndex, items: [items.items[index]] });
		});
	}
}
