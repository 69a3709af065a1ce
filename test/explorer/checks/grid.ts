/**
 * Invariant 14, never later than the grid: with Poll Schedule "Learned", a task the run created is seen done no
 * later than Fixed Interval would have seen the same render (its first check at or after the render's end, k ×
 * Poll Interval from the creation), plus 5 % of that time from the run's start, the time the creation's answer took
 * to come whole (the node cannot check a task before it has its id), TIMING_SLACK_MS (a round trip and
 * the node's handling of a creation's answer while seven other schedules run in the same process) and twice the
 * time the process measurably lost to a blocked event loop (the 50 ms sampler sees only part of what a starved
 * process loses: runs on a machine at load 10–20 were late by up to 1.5 × what it measured) — once the task has
 * been checked at all: only a first check may come after the grid's, and it comes no later than the grid's slot at
 * or after the longest render the node could know of (any time in the static data the run started with, or a render
 * of the run that had been seen done before the task was created), or the grid's first slot when it knows none. A
 * batch's task beyond its first SCOUTS may also wait, unchecked, until the first of those scouts ended
 * (learning/policy.ts, rule 1: the batch's output leaves after theirs anyway; the scouts are the first tasks the
 * node's log says it created): seed 780's scouts met answers past the cap, and their checks were repeated late.
 *
 * Checked where only the schedule decides when checks go: no Retry On Fail try after a failure, no HTTP 429 (it
 * holds every check and halves the requests in flight), room for every task's checks in flight (Max Concurrent
 * Requests at least twice the items); for each task whose creation and status checks all met a plain answer (not
 * one past the 4 MiB cap: the node cannot read it, and repeats the check after its backoff, on the grid too), that
 * was seen done before Stop and before the run ended (a check in flight when On Error stopped the run reached the
 * server up to 0.85 s later on a loaded machine: seed 1767), and that the grid would have seen before Max Wait.
 */
import type { IDataObject } from 'n8n-workflow';

import { memoryFor } from '../generators/memory';
import type { Observation } from '../invariants';
import type { WorldRequest, WorldTask } from '../world';
import { SCOUTS } from '../../../nodes/MediaGen/learning/policy';
import { type WaitingOptions, waitEndsAt } from '../../../nodes/MediaGen/waiting/options';

/** A round trip and the node's own handling of an answer, measured up to about 150 ms on a loaded 2-core machine. */
const TIMING_SLACK_MS = 150;

/** The longest render history may hold (the node ignores longer ones). */
const LONGEST_MS = 30 * 24 * 3600 * 1000;

const PLAIN = new Set(['ok', 'odd-json', 'echo-key']);

/** An answer the node reads as the API meant it: a plain one, not one past the 4 MiB it reads. */
const readable = (request: WorldRequest) => PLAIN.has(request.fault.answer) && !request.shape?.startsWith('over-cap');

/** Every finite number up to LONGEST_MS anywhere in `value`: a bound on any render time the node can read there. */
function longestTime(value: unknown, depth = 0): number {
	if (typeof value === 'number') return Number.isFinite(value) && value <= LONGEST_MS ? value : 0;
	if (typeof value !== 'object' || value === null || depth > 300) return 0;
	let longest = 0;
	for (const entry of Object.values(value)) longest = Math.max(longest, longestTime(entry, depth + 1));
	return longest;
}

function applies(observation: Observation): boolean {
	const { schedule, world } = observation;
	if (schedule.pollSchedule !== 'learned') return false;
	if (schedule.maxConcurrency < 2 * schedule.items) return false;
	if (world.requests.some((request) => request.host === 'api' && request.fault.answer === '429')) return false;
	return oneTry(observation);
}

/**
 * The run created tasks and waited on them in one try: a later try of Retry On Fail resumes its tasks as Task → Wait
 * does (checked at once, after n8n's pause), also after a failure that no fault drew (a shaped answer the node could
 * not read).
 */
function oneTry(observation: Observation): boolean {
	const { schedule, world } = observation;
	if (!schedule.wait || (schedule.operation !== 'betav4' && schedule.operation !== 'alphav15pro')) return false;
	const failed = schedule.failingTasks || world.requests.some((request) => !PLAIN.has(request.fault.answer));
	const resumed = observation.logLines.some((line) => line.includes('instead of creating it again'));
	return !(schedule.maxTries && (failed || resumed));
}

export function checkNeverLaterThanGrid(observation: Observation, fail: (text: string) => void): void {
	if (!applies(observation)) return;
	const { schedule, world, startedAt, lagMs, stoppedAt, endedAt } = observation;
	const interval = schedule.pollIntervalS * 1000;
	const created = [...world.tasks.values()].filter((task) => !task.preexisting && task.renderMs !== undefined);
	const remembered = longestTime(memoryFor(schedule, world.renders).staticData as IDataObject | undefined);
	const scouts = scoutsOf(observation);
	for (const task of created) {
		if (task.doneAt === undefined || !PLAIN.has(task.answer)) continue;
		const checks = statusChecks(world.requests, task.taskId);
		if (!checks.length || !checks.every(readable)) continue;
		if (task.doneAt > Math.min(stoppedAt ?? Infinity, endedAt)) continue;
		const slot = (age: number) => task.createdAt + Math.max(1, Math.ceil(age / interval - 1e-9)) * interval;
		const grid = slot(task.renderMs!);
		if (grid > task.createdAt + schedule.maxWaitS * 1000) continue;
		// The node learns of a task when its creation's answer has come whole: a shaped answer of some MiB takes a
		// while to send and to read, on a grid as well as on a learned schedule.
		const delivered = Math.max(0, creationAnswered(world.requests, task) - task.createdAt);
		const allowance = 0.05 * (grid - startedAt) + TIMING_SLACK_MS + 2 * lagMs + delivered;
		const firstCheck = checks[0].arrivedAt;
		// Seen done by its first check: the server marks it done while handling that check, a moment after it arrived
		// (1 ms once, which read as later than the first check); only the bound on the first check below applies.
		const firstAnswered = checks[0].endedAt ?? firstCheck;
		if (task.doneAt > Math.max(firstAnswered, grid + allowance))
			fail(
				`task ${task.taskId} (render ${task.renderMs} ms) was seen done ${task.doneAt - task.createdAt} ms after its creation, first checked at ${firstCheck - task.createdAt} ms; the grid would have seen it at ${grid - task.createdAt} ms (allowance ${Math.round(allowance)} ms)`,
			);
		const longest = Math.max(remembered, ...known(created, task));
		const held = scouts && !scouts.ids.includes(task.taskId) ? scouts.firstEnded : -Infinity;
		const latestFirst = Math.max(longest > 0 ? slot(longest) : task.createdAt + interval, held) + allowance;
		if (firstCheck > latestFirst)
			fail(
				`task ${task.taskId} was first checked ${firstCheck - task.createdAt} ms after its creation, later than the grid's slot after the longest render the node could know (${Math.round(longest)} ms)${held > task.createdAt ? ` and the first scout's end (${held - task.createdAt} ms)` : ''}`,
			);
	}
}

/**
 * Invariant 16, never more checks than the grid and one: whatever what was learned says, a task's n-th status check
 * reaches the API no sooner than n − 1 Poll Intervals after the task's creation (schedule.ts), so no task gets more
 * checks than the grid's count for its render and one; Max Wait's last check comes on top, wherever the others went.
 * A task on its own (a run of at most SCOUTS items, Poll Schedule "Learned") whose first check came after the grid's
 * first slot gets its n-th check no sooner than n Poll Intervals: no more checks than the grid's count at all.
 * Checked, with either Poll Schedule, for every task of a run that waited in one try, whose checks all met a plain
 * answer (a failed check is repeated after its backoff, not on the schedule); a busy API, HTTP 429 and few request
 * slots only make checks later.
 */
export function checkNoMoreChecksThanGrid(observation: Observation, fail: (text: string) => void): void {
	const { schedule, world } = observation;
	if (!oneTry(observation)) return;
	const interval = schedule.pollIntervalS * 1000;
	// The soonest any wait of the run may end (the run's start stands for each item's first attempt and, as a tool,
	// for the call's start): its last check may come sooner than the grid's next slot (seed 1318: a tool call's last
	// check, a quarter of Max Wait before its answer was due, 40 ms after the check before it).
	const maxWaitMs = schedule.maxWaitS * 1000;
	const waitEnd = waitEndsAt(
		{
			maxWaitMs,
			requestTimeoutMs: schedule.requestTimeoutS * 1000,
			answerBy: schedule.asTool ? observation.startedAt + maxWaitMs : undefined,
		} as WaitingOptions,
		observation.startedAt,
	);
	for (const task of world.tasks.values()) {
		if (task.preexisting || task.renderMs === undefined) continue;
		const checks = statusChecks(world.requests, task.taskId);
		if (!checks.every(readable)) continue;
		// Max Wait's last check goes wherever the others went: a task still running at its last check got it there,
		// and so did one whose last check came when the wait could have ended, done or not.
		const last = checks[checks.length - 1];
		if (last && (task.doneAt === undefined || task.doneAt > last.arrivedAt || last.arrivedAt >= waitEnd)) checks.pop();
		// A task on its own first checked after the grid's first slot (surely so: later by more than a check's trip)
		// gets its n-th check no sooner than n Poll Intervals: no more checks than the grid's. (A guarded task, which
		// keeps the grid's count and one, is first checked at the first slot at the latest: not this.)
		const onItsOwn = schedule.items <= SCOUTS && schedule.pollSchedule === 'learned';
		const slack = TIMING_SLACK_MS + 2 * observation.lagMs;
		const gridCount = onItsOwn && checks.length > 0 && checks[0].arrivedAt >= task.createdAt + interval + slack;
		checks.forEach((check, index) => {
			const intervals = gridCount ? index + 1 : index;
			const earliest = task.createdAt + intervals * interval;
			if (check.arrivedAt < earliest - 1)
				fail(
					`task ${task.taskId} got its check ${index + 1} ${check.arrivedAt - task.createdAt} ms after its creation, before ${intervals} Poll Intervals (${intervals * interval} ms)`,
				);
		});
	}
}

function statusChecks(requests: readonly WorldRequest[], taskId: string): WorldRequest[] {
	return requests.filter((request) => request.kind === 'status' && request.taskId === taskId);
}

/**
 * A batch's scouts (the first SCOUTS tasks the node's log says it created) and when the first of them ended: the
 * answer of the check that found it done, or of its last check; undefined for a run of at most SCOUTS items.
 */
function scoutsOf(observation: Observation): { ids: string[]; firstEnded: number } | undefined {
	const { schedule, world, logLines } = observation;
	if (schedule.items <= SCOUTS) return undefined;
	const ids = logLines.flatMap((line) => /" created (?:image|video) task (\S+)/.exec(line)?.[1] ?? []).slice(0, SCOUTS);
	// No scout found (the log's words changed, or nothing was created): no task is allowed to wait for one.
	if (!ids.length) return undefined;
	const ends = ids.map((id) => {
		const checks = statusChecks(world.requests, id);
		const doneAt = world.tasks.get(id)?.doneAt ?? Infinity;
		const ending = checks.find((check) => check.arrivedAt <= doneAt && doneAt <= (check.endedAt ?? Infinity));
		const last = ending ?? checks[checks.length - 1];
		return last ? (last.endedAt ?? last.arrivedAt) : Infinity;
	});
	return { ids, firstEnded: Math.min(...ends) };
}

/** The renders of the run the node could have seen done before `task` was created (ms). */
function known(created: WorldTask[], task: WorldTask): number[] {
	return created
		.filter((other) => other.doneAt !== undefined && other.doneAt <= task.createdAt)
		.map((other) => other.doneAt! - other.createdAt);
}

/** When the answer of the creation that made `task` ended (its request is the item's last one before the task). */
function creationAnswered(requests: readonly WorldRequest[], task: WorldTask): number {
	let answered = task.createdAt;
	for (const request of requests)
		if (request.kind === 'create' && request.item === task.item && request.arrivedAt <= task.createdAt)
			answered = request.endedAt ?? answered;
	return answered;
}
