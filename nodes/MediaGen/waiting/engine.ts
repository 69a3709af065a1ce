/**
 * The waiting engine: one loop, without rounds or timers of its own, for a run's creations (creationQueue.ts), status
 * checks (schedule.ts) and result downloads (resultDownloads.ts), as docs/waiting-and-output.md tells it; Task → Wait
 * and Task → Get run it on tasks that already exist. No item is lost: an exception that is not the node's own (hostile
 * data, a bug) ends its item with an error that names the task (output/itemFailure.ts), wherever it is raised.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { itemFailure, type FailureStep, type ItemError } from '../output/itemFailure';
import { INFO_PATH, infoRequestBody } from '../models/endpoints';
import { checkedOutcome, completedOutcome, createdOutcome, type ItemOutcome } from '../output/items';
import { failedCreationJson, failedJson, pendingJson } from '../output/items';
import { apiJsonRequest, ApiSession, factsOf } from '../transport';
import {
	cancelledOutcome,
	decideTaskState,
	alsoNamedOf,
	statusCheckFailed,
	statusOf,
	timedOutOutcome,
	type CreatedTask,
} from './taskState';
import { earliest, WakeableSleep } from './wakeableSleep';
import { creationRetryWindow, MAX_POLL_BACKOFF_MS, pollRetryDelay, repeatAt } from './backoff';
import { AdaptiveConcurrency } from './adaptiveConcurrency';
import { CreationQueue, type CreationJob, type QueuedJob, type RequestJob } from './creationQueue';
import { PaidTasks, type PaidTasksMemory } from './paidTasks';
import { requestTimeoutAt, waitEndsAt, type WaitingOptions } from './options';
import { learnedTimes, type RenderTimes } from '../learning/renderTimes';
import { ResultDownloads } from './resultDownloads';
import { PollSchedule, type PollTicket, type Waiting } from './schedule';
import { failuresContinue } from '../tool/call';

export type { CreationJob, RequestJob } from './creationQueue';

/** What an item's error says the node was doing (output/itemFailure.ts). */
const CREATING: FailureStep = { step: 'creating its task', mayHaveCreated: true };
const SENDING: FailureStep = { step: 'sending its request' };
function checking(task: CreatedTask): FailureStep {
	return { step: 'checking its task', taskId: task.taskId, advised: true };
}

/** Polls of one task in flight at once: the next one goes out on time while a slow answer is still out. */
const MAX_POLLS_PER_TASK = 2;

export interface EngineInput {
	creations: CreationJob[];
	/** Requests that are safe to repeat (Task → Delete), in the creations' lane. */
	requests?: RequestJob[];
	/** Tasks that already exist (Task → Wait). */
	existing: CreatedTask[];
	options: WaitingOptions;
	/** Without Continue On Fail, the first failure ends the run. */
	continueOnFail: boolean;
	/** Task → Get: one answer per task (retried when it fails), then the task is reported as it is. */
	checkOnly?: boolean;
	/** Retry On Fail's memory of the tasks that may be paid for (paidTasks.ts). */
	memory?: PaidTasksMemory;
}

class Engine {
	private readonly options: WaitingOptions;

	private readonly cancel: AbortSignal | undefined;

	private readonly outcomes: ItemOutcome[] = [];

	private readonly creations = new CreationQueue();

	private readonly schedule: PollSchedule;

	private readonly results: ResultDownloads;

	private readonly inFlight = { create: 0, poll: 0 };

	private readonly concurrency: AdaptiveConcurrency;

	/** Set, and `halted` aborted, when a failure ends the run (`halt`). */
	private stopped = false;

	private readonly halted = new AbortController();

	private readonly sleeper = new WakeableSleep();

	private readonly paidTasks: PaidTasks;

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly input: EngineInput,
		/** The credential, read once for the run's creations and polls. */
		private readonly session: ApiSession,
		private readonly learned: RenderTimes | undefined,
	) {
		this.options = input.options;
		this.cancel = context.getExecutionCancelSignal();
		this.paidTasks = new PaidTasks(context, input.memory);
		this.concurrency = new AdaptiveConcurrency(input.options.maxConcurrency);
		this.results = new ResultDownloads(context, {
			options: input.options,
			continueOnFail: input.continueOnFail,
			halted: this.halted.signal,
			report: (outcome) => ('items' in outcome ? void this.outcomes.push(outcome) : this.fail(outcome)),
			wake: () => this.sleeper.wake(),
		});
		this.schedule = new PollSchedule(input.options, learned);
		const now = Date.now();
		for (const job of [...input.creations, ...(input.requests ?? [])]) this.creations.add(job, now);
		// Existing tasks may be done already: their first poll is due at once.
		for (const task of input.existing) {
			if (input.options.wait) this.schedule.add(task, now, now, waitEndsAt(input.options, now));
			else this.outcomes.push(createdOutcome(task));
		}
	}

	async run(): Promise<ItemOutcome[]> {
		const onCancel = () => this.sleeper.wake();
		this.cancel?.addEventListener('abort', onCancel);
		try {
			for (;;) {
				const now = Date.now();
				this.dispatch(now);
				if (this.idle()) break;
				// Until the next due time, a request's end or a cancel; a timer only when something falls due at a time.
				const wakeAt = this.nextWakeAt(now);
				const nothingRunning = !this.apiInFlight && !this.results.inFlight;
				await this.sleeper.sleepUntil(wakeAt ?? (nothingRunning ? Date.now() + MAX_POLL_BACKOFF_MS : undefined));
			}
		} finally {
			this.cancel?.removeEventListener('abort', onCancel);
		}
		this.settleLeftovers();
		return this.outcomes;
	}

	private get cancelled(): boolean {
		return this.cancel?.aborted === true;
	}

	private get apiInFlight(): number {
		return this.inFlight.create + this.inFlight.poll;
	}

	private idle(): boolean {
		if (this.apiInFlight || this.results.inFlight) return false;
		if (this.cancelled || this.stopped) return true;
		return this.creations.empty && !this.schedule.active.size && !this.results.queued;
	}

	private dispatch(now: number): void {
		if (this.cancelled) return;
		if (!this.stopped) this.results.dispatch(now);
		const holding = now < this.concurrency.holdUntil;
		while (this.apiInFlight < this.concurrency.slots) {
			const creation = holding || this.stopped ? undefined : this.creations.ready(now);
			const ticket = this.stopped ? undefined : this.schedule.next();
			const poll = ticket && ticket.dueAt <= now ? ticket : undefined;
			if (poll && holding && poll.dueAt < poll.entry.deadline) {
				// A hold skips the task's slots until it ends; Max Wait wins over it: the last poll is never held.
				this.schedule.take();
				this.schedule.holdBack(poll.entry, this.concurrency.holdUntil);
				continue;
			}
			if (!creation && !poll) break;
			// Both lanes have work: the one with fewer requests in flight goes next, so each gets half the bound.
			if (creation && (!poll || this.inFlight.create <= this.inFlight.poll)) {
				this.creations.take(creation);
				this.start(creation);
			} else {
				this.schedule.take();
				this.startPoll(poll!, now);
			}
		}
		if (this.apiInFlight >= this.concurrency.slots) this.schedule.slotsFull(now);
	}

	/** When the loop must look again even if no request ends (`now`: the time `dispatch` decided by). */
	private nextWakeAt(now: number): number | undefined {
		if (this.stopped || this.cancelled) return undefined;
		const apiFull = this.apiInFlight >= this.concurrency.slots;
		return earliest(
			apiFull ? undefined : this.schedule.next()?.dueAt,
			apiFull ? undefined : this.creations.nextRepeatAt,
			// The hold dispatch saw, even if it ended since.
			this.concurrency.holdUntil > now ? this.concurrency.holdUntil : undefined,
			this.results.nextDueAt(),
		);
	}

	private start(entry: QueuedJob): void {
		this.inFlight.create++;
		const startedAt = Date.now();
		if (!entry.attempts) entry.firstAttemptAt = startedAt;
		entry.attempts++;
		const { job } = entry;
		const attempt =
			'summary' in job
				? this.create(entry, job, startedAt).catch((error: unknown) =>
						this.lost(job.itemIndex, error, { ...CREATING, job }),
					)
				: this.request(entry, job, startedAt).catch((error: unknown) =>
						job.failed(itemFailure(this.context.getNode(), error, job.itemIndex, SENDING)),
					);
		void attempt.finally(() => {
			this.inFlight.create--;
			this.sleeper.wake();
		});
	}

	private async create(entry: QueuedJob, job: CreationJob, startedAt: number): Promise<void> {
		try {
			const task = await job.send(this.session, requestTimeoutAt(this.options, startedAt));
			this.concurrency.onSuccess();
			this.paidTasks.created(task);
			if (this.options.wait && !this.stopped) {
				const now = Date.now();
				// The creation's round trip stands for a check's until one is answered (policy.ts, rule 3).
				this.learned?.sawRoundTrip(now - startedAt);
				// Max Wait counts from the item's first attempt: refused attempts before it do not extend the wait.
				const deadline = waitEndsAt(this.options, entry.firstAttemptAt);
				this.schedule.add(task, now, now + this.options.pollIntervalMs, deadline, job.renderKey);
			} else {
				this.outcomes.push(createdOutcome(task));
			}
		} catch (raw) {
			// Anything but the transport's own errors (hostile data, a bug) may follow a request that reached the server.
			const error = itemFailure(this.context.getNode(), raw, job.itemIndex, CREATING);
			const facts = factsOf(error);
			if (this.repeated(entry, error, startedAt, facts.nothingSent, creationRetryWindow(this.options))) return;
			const json = failedCreationJson(job, error);
			if (typeof json.taskid === 'string') this.paidTasks.named(job, json.taskid, alsoNamedOf(error));
			else if (facts.mayHaveCreated || error !== raw) this.paidTasks.uncertain(job, error);
			this.fail({ itemIndex: job.itemIndex, error, json });
		}
	}

	/** One attempt of a request that is safe to repeat; a failure that may pass is repeated within Max Wait. */
	private async request(entry: QueuedJob, job: RequestJob, startedAt: number): Promise<void> {
		try {
			const more = await job.send(this.session, requestTimeoutAt(this.options, startedAt));
			this.concurrency.onSuccess();
			for (const next of more) this.creations.add(next, Date.now());
		} catch (raw) {
			const error = itemFailure(this.context.getNode(), raw, job.itemIndex, SENDING);
			const passing = factsOf(error).retryable;
			if (this.repeated(entry, error, startedAt, passing, this.options.maxWaitMs)) return;
			// After a stop a request that could have passed did not fail on its own: it is left undone.
			if (this.cancelled || (this.stopped && passing)) return;
			job.failed(error);
			this.halt();
		}
	}

	/** Whether a failed job of the creations' lane goes again: the failure may pass, within `window` of its first. */
	private repeated(entry: QueuedJob, error: ItemError, startedAt: number, passing: boolean, window: number): boolean {
		const { rateLimited, retryAfterMs } = factsOf(error);
		if (rateLimited) this.concurrency.onRateLimited(startedAt, retryAfterMs);
		const at = repeatAt(this.options, entry, retryAfterMs, window);
		if (!passing || this.cancelled || this.stopped || at === undefined) return false;
		this.creations.repeat(entry, at);
		return true;
	}

	private startPoll(ticket: PollTicket, now: number): void {
		const { entry } = ticket;
		// The ticket at the deadline is the promised last poll: it always goes out, and nothing follows it.
		const final = ticket.dueAt >= entry.deadline;
		this.schedule.started(ticket, now);
		if (final) entry.finalStarted = true;
		else this.schedule.onGrid(entry, now, ticket.dueAt);
		if (!final && entry.inFlight >= MAX_POLLS_PER_TASK) return; // this slot is skipped
		void this.poll(entry, final);
	}

	/** The API said the task failed: a later try creates it anew. */
	private failed(entry: Waiting, outcome: ItemOutcome): void {
		this.schedule.end(entry);
		this.input.memory?.failed(entry.task);
		this.fail(outcome);
	}

	private timedOut(entry: Waiting): void {
		this.schedule.end(entry);
		this.fail(timedOutOutcome.call(this.context, entry, this.options));
	}

	private async poll(entry: Waiting, final: boolean): Promise<void> {
		this.inFlight.poll++;
		entry.inFlight++;
		const { task } = entry;
		const startedAt = Date.now();
		try {
			let info: IDataObject;
			try {
				const { itemIndex, taskId, notFoundHint } = task;
				const body = infoRequestBody(task.taskType, taskId, task.moreTaskInfo);
				const timeout = requestTimeoutAt(this.options, startedAt);
				const request = { itemIndex, taskId, timeout, signal: entry.done.signal, notFoundHint, session: this.session };
				info = (await apiJsonRequest.call(this.context, INFO_PATH[task.taskType], body, request)) ?? {};
			} catch (error) {
				this.pollFailed(entry, final, error, startedAt);
				return;
			}
			this.concurrency.onSuccess();
			if (entry.ended || this.stopped) return; // another answer settled the task already, or the run stopped
			this.answered(entry, final, info, startedAt);
		} catch (error) {
			this.lost(task.itemIndex, error, { ...checking(task), entry });
		} finally {
			this.inFlight.poll--;
			entry.inFlight--;
			this.sleeper.wake();
		}
	}

	/** What a status answer means for the task: it ends (done, failed, timed out, checked) or waits on. */
	private answered(entry: Waiting, final: boolean, info: IDataObject, startedAt: number): void {
		const { task } = entry;
		entry.lastStatus = statusOf(task.taskType, info);
		entry.lastError = undefined;
		const state = decideTaskState.call(this.context, task, info, entry.lastStatus, this.options);
		if (state.state === 'ended') {
			this.failed(entry, state.outcome);
		} else if (state.state === 'done') {
			this.schedule.finished(entry, startedAt, Date.now());
			this.schedule.end(entry);
			if (this.options.download) this.results.add(task, info, state.urls);
			else this.outcomes.push(completedOutcome(task, info, state.urls, this.options));
		} else if (this.input.checkOnly) {
			this.schedule.end(entry);
			this.outcomes.push(checkedOutcome(task, info));
		} else if (final) {
			this.timedOut(entry);
		} else {
			if (entry.failures) {
				entry.failures = 0;
				entry.generation++;
				if (!entry.finalStarted) this.schedule.onGrid(entry, Date.now());
			}
			this.schedule.notYet(entry, startedAt, Date.now());
		}
	}

	/** A status check that got no usable answer: repeated when that may pass, else the item ends with it. */
	private pollFailed(entry: Waiting, final: boolean, raw: unknown, startedAt: number): void {
		const { task } = entry;
		if (entry.ended || this.cancelled || this.stopped) return; // settled by another answer, or a leftover
		const error = itemFailure(this.context.getNode(), raw, task.itemIndex, checking(task));
		const facts = factsOf(error);
		if (facts.retryable) {
			entry.failures++;
			entry.lastError = error;
			if (facts.rateLimited) this.concurrency.onRateLimited(startedAt, facts.retryAfterMs);
			if (final && this.input.checkOnly) {
				this.schedule.end(entry);
				this.fail({ itemIndex: task.itemIndex, error, json: pendingJson(task, entry.lastStatus) });
			} else if (final) {
				this.timedOut(entry);
			} else if (!entry.finalStarted) {
				this.schedule.moveTo(
					entry,
					Date.now() + pollRetryDelay(this.options, entry.failures, facts.retryAfterMs),
					true,
				);
			}
		} else if (facts.refused) {
			// The API refused the task (a 9999 answer about it, e.g. a moderation): it has failed, it is not pending.
			this.failed(entry, { itemIndex: task.itemIndex, error, json: failedJson(task, entry.lastStatus) });
		} else {
			// Not found, a proxy's 4xx, a redirect, an unreadable answer: not a verdict on the task, which stays
			// remembered, so that Retry On Fail checks it again instead of paying for it again.
			this.schedule.end(entry);
			this.fail(statusCheckFailed(entry, error, this.paidTasks.remembers));
		}
	}

	/** An exception that escaped a job's own handling: its item comes out with it, unless it came out already. */
	private lost(itemIndex: number, error: unknown, about: FailureStep & { entry?: Waiting; job?: CreationJob }): void {
		const { entry, job } = about;
		if (entry && !entry.ended) this.schedule.end(entry);
		if (this.cancelled || this.outcomes.some((outcome) => outcome.itemIndex === itemIndex)) return;
		const failure = itemFailure(this.context.getNode(), error, itemIndex, about);
		if (entry) return this.fail(statusCheckFailed(entry, failure, this.paidTasks.remembers));
		if (job) this.paidTasks.uncertain(job, failure);
		this.fail({ itemIndex, error: failure, json: job ? failedCreationJson(job, failure) : undefined });
	}

	private fail(outcome: ItemOutcome): void {
		this.outcomes.push(outcome);
		if (!('items' in outcome)) this.halt();
	}

	/**
	 * Without Continue On Fail a failure ends the run now: polls and downloads in flight are abandoned (their tasks are
	 * leftovers); creations in flight may answer, so that their paid ids are listed in the stopping error.
	 */
	private halt(): void {
		if (this.input.continueOnFail || this.stopped) return;
		this.stopped = true;
		this.halted.abort();
		for (const entry of this.schedule.active) entry.done.abort();
	}

	/** After Stop or a stopping error: every task still waited on is reported with its id. */
	private settleLeftovers(): void {
		for (const entry of this.schedule.active)
			this.outcomes.push(this.cancelled ? cancelledOutcome.call(this.context, entry) : createdOutcome(entry.task));
		this.schedule.active.clear();
		for (const outcome of this.results.leftovers()) this.outcomes.push(outcome);
	}
}

/** Creates (optionally) and waits on tasks; one outcome per item that was started, in any order. */
export async function runEngine(this: IExecuteFunctions, input: EngineInput): Promise<ItemOutcome[]> {
	const session = new ApiSession(this);
	const api = input.creations.length ? await session.apiId() : undefined;
	const learning = learnedTimes(this, input.options, input.creations, api);
	const outcomes = await new Engine(this, input, session, learning?.times).run();
	learning?.keep();
	return outcomes;
}

/** Task → Get retries a failed status check until this long after the first try, then reports the last error. */
const CHECK_RETRY_WINDOW_MS = 60_000;

/** Task → Get's first pause before a retry (doubling per failure); it has no Poll Interval of its own. */
const CHECK_RETRY_PAUSE_MS = 500;

/** Task → Wait: polls every task until it finishes, fails or runs out of time; one outcome per task, in any order. */
export async function waitForTasks(
	this: IExecuteFunctions,
	tasks: CreatedTask[],
	options: WaitingOptions,
	checkOnly = false,
): Promise<ItemOutcome[]> {
	const continueOnFail = failuresContinue(this);
	return await runEngine.call(this, { creations: [], existing: tasks, options, continueOnFail, checkOnly });
}

/** Task → Get: one status check per task, with the engine's bound on requests in flight and its retries. */
export async function checkTasks(
	this: IExecuteFunctions,
	tasks: CreatedTask[],
	options: WaitingOptions,
): Promise<ItemOutcome[]> {
	// Without declared status codes only result URLs tell that a task is done (Task → Wait can use codes).
	const checkOptions: WaitingOptions = {
		...options,
		wait: true,
		download: false,
		split: false,
		succeededCodes: [],
		failedCodes: [],
		maxWaitMs: CHECK_RETRY_WINDOW_MS,
		pollIntervalMs: CHECK_RETRY_PAUSE_MS,
	};
	return await waitForTasks.call(this, tasks, checkOptions, true);
}
