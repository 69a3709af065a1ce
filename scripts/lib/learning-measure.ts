/**
 * What the learning suite and the bench measure, from the simulator's own record (never from n8n's clock): per task
 * its creation, its render's end, every status check and the first answer "done"; from these RunFigures, in Poll
 * Intervals (the floor: done on the server; the grid, Fixed Interval's checks, finds a task about 0.5 I after it).
 */
import { minGap } from '../../nodes/MediaGen/learning/policy';
import { INTERVAL_S } from './learning-workflows';
import { simulatorRecord, simulatorTasks } from './simulator';

const INTERVAL_MS = INTERVAL_S * 1000;

/**
 * A check is on the grid when it reached the API between GRID_EARLY_MS before and GRID_LATE_MS after its slot: the
 * creation's answer comes back a few ms after the simulator stamps the task, and a busy machine wakes timers late.
 */
const GRID_EARLY_MS = 30;
const GRID_LATE_MS = 400;

/** How late a busy machine wakes a timer at most, in the suite's Poll Intervals: 0.4. */
export const LATE_TIMER = GRID_LATE_MS / INTERVAL_MS;

export const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
export const median = (values: number[]) => {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = sorted.length >> 1;
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

export interface TaskRecord {
	taskid: string;
	prompt: string;
	createdAt: number;
	doneAt: number;
	/** When an answer first said "done" (undefined: never). */
	seenAt?: number;
	/** When each status check of the task reached the API. */
	checks: number[];
}

/** Every task the simulator created, with the status checks it received. */
export async function taskRecords(simulatorUrl: string): Promise<TaskRecord[]> {
	const [tasks, record] = await Promise.all([simulatorTasks(simulatorUrl), simulatorRecord(simulatorUrl)]);
	const checks = new Map<string, number[]>();
	for (const request of record) {
		const taskid = (request.json as { taskid?: unknown } | undefined)?.taskid;
		if (!request.path.endsWith('/infobytaskid') || typeof taskid !== 'string') continue;
		checks.set(taskid, [...(checks.get(taskid) ?? []), request.at]);
	}
	return tasks.map((task) => ({
		taskid: task.taskid,
		prompt: task.prompt ?? '',
		createdAt: task.createdAt,
		doneAt: task.createdAt + task.durationMs,
		seenAt: task.firstReportedDoneAt,
		checks: checks.get(task.taskid) ?? [],
	}));
}

/** Whether a check at `at` of a task created at `createdAt` falls on its Poll Interval grid. */
export function onGrid(createdAt: number, at: number, intervalMs = INTERVAL_MS): boolean {
	const offset = at - createdAt;
	const slot = Math.max(1, Math.round((offset - (GRID_LATE_MS - GRID_EARLY_MS) / 2) / intervalMs));
	const late = offset - slot * intervalMs;
	return late >= -GRID_EARLY_MS && late <= GRID_LATE_MS;
}

/** The figures of one run (or of several runs' tasks taken together), in Poll Intervals. */
export interface RunFigures {
	tasks: number;
	checks: number;
	/** Mean time after the floor per task. */
	afterFloor: number;
	/** The run's last answer that said "done" after its last render's end (a batch's wait). */
	runAfterFloor: number;
	/** Status checks that did not fall on the grid. */
	offGrid: number;
	/** Tasks never answered as done. */
	unseen: number;
	/** The longest wait of a task for its next check: Fixed Interval's is 1 while the processes keep time. */
	longestWait: number;
	/** The latest a grid's check came after the slot it was due at (latestOf). */
	mostLate: number;
	/** Checks per task the grid needs for these renders: one at each whole Poll Interval up to the render's end. */
	gridChecks: number;
}

/**
 * Each check of a grid's `task` and the slot it was due at (ms from its creation): each is due at the slot after the
 * one before, or the first after a late one; one held to less than the shortest gap before the next slot stands for
 * it (waiting/schedule.ts `onGrid`).
 */
function slotsOf(task: TaskRecord, intervalMs: number): Array<{ due: number; at: number }> {
	let due = intervalMs;
	return task.checks.map((check) => {
		const slot = { due, at: check - task.createdAt };
		let next = Math.max(due + intervalMs, (Math.floor(slot.at / intervalMs) + 1) * intervalMs);
		if (next - due >= intervalMs - 1 && next - slot.at < minGap(intervalMs)) next += intervalMs;
		due = next;
		return slot;
	});
}

/** How late a grid's checks of `task` came after their slots, the latest (ms). */
const latestOf = (task: TaskRecord, intervalMs: number) =>
	Math.max(0, ...slotsOf(task, intervalMs).map(({ due, at }) => at - due));

/**
 * When a stall held the processes, as a grid saw it (`witness`: Fixed Interval's tasks): from the slot of a check that
 * came later than a late timer to when it came (absolute ms). A stall holds whatever runs in the process then.
 */
export function stallWindows(witness: TaskRecord[], intervalMs = INTERVAL_MS): Array<[from: number, to: number]> {
	return witness.flatMap((task) =>
		slotsOf(task, intervalMs)
			.filter(({ due, at }) => at - due > GRID_LATE_MS)
			.map(({ due, at }): [number, number] => [task.createdAt + due, task.createdAt + at]),
	);
}

/**
 * How long stall windows (sorted by their start) held the time between `from` and `to` (absolute ms), overlapping
 * windows counted once.
 */
export function heldBetween(windows: Array<[number, number]>, from: number, to: number): number {
	let held = 0;
	let reached = from;
	for (const [start, end] of windows) {
		held += Math.max(0, Math.min(end, to) - Math.max(start, reached));
		reached = Math.max(reached, Math.min(end, to));
	}
	return held;
}

/** The figures of `tasks`, in Poll Intervals of `intervalMs` (default the suite's, INTERVAL_S). */
export function figures(tasks: TaskRecord[], intervalMs = INTERVAL_MS): RunFigures {
	const seen = tasks.filter((task) => task.seenAt !== undefined);
	const delays = seen.map((task) => Math.max(0, task.seenAt! - task.doneAt));
	const lastDone = Math.max(...tasks.map((task) => task.doneAt));
	const lastSeen = Math.max(...seen.map((task) => task.seenAt!));
	const waits = tasks.flatMap((task) => task.checks.map((at, i) => at - (i ? task.checks[i - 1] : task.createdAt)));
	return {
		tasks: tasks.length,
		checks: mean(tasks.map((task) => task.checks.length)),
		afterFloor: mean(delays) / intervalMs,
		runAfterFloor: seen.length ? Math.max(0, lastSeen - lastDone) / intervalMs : NaN,
		offGrid: tasks.flatMap((task) => task.checks.filter((at) => !onGrid(task.createdAt, at, intervalMs))).length,
		unseen: tasks.length - seen.length,
		longestWait: Math.max(0, ...waits) / intervalMs,
		mostLate: Math.max(0, ...tasks.map((task) => latestOf(task, intervalMs))) / intervalMs,
		gridChecks: mean(tasks.map((task) => Math.ceil((task.doneAt - task.createdAt) / intervalMs))),
	};
}

/** A seeded random number generator (mulberry32): the same renders on every run of the suite. */
export function seeded(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** A prompt the simulator renders in `seconds`, tagged so that the suite finds its task again. */
export function timedPrompt(seconds: number, tag: string): string {
	return `[sim:seconds=${seconds.toFixed(3)}] ${tag}`;
}
