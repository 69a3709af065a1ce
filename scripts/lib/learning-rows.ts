/**
 * What a learning case returns (Row), the renders every case draws, and how it picks a run's tasks from the
 * simulator's record by the tag its prompts carry.
 */
import { figures, heldBetween, mean, seeded, stallWindows, type RunFigures, type TaskRecord } from './learning-measure';
import type { StateAfter } from './learning-static';
import { INTERVAL_S, type Workflow } from './learning-workflows';

/** Render time of every case, in seconds: renderTimes draws each render around it. */
export const RENDER_S = 2.5;

/** Renders "narrow" (0.9–1.1 × `around`) or "wide" (0.6–1.4), drawn from a seeded generator. */
export function renderTimes(count: number, seed: number, spread: 'narrow' | 'wide', around = RENDER_S): number[] {
	const random = seeded(seed);
	const [low, high] = spread === 'narrow' ? [0.9, 1.1] : [0.6, 1.4];
	return Array.from({ length: count }, () => around * (low + (high - low) * random()));
}

/** One row of a case: a run, or runs taken together. */
export interface Row {
	label: string;
	figures: RunFigures;
	/** After each run of the row, what the workflow's saved static data held (learning-static.ts). */
	states?: StateAfter[];
	/** Execution hints the node gave in the editor's output panel (manual runs). */
	hints?: string[];
	/** For the table: an execution's status, items rendered. */
	note?: string;
	/** How many times each item was rendered (the simulator's creations), by name (rssCase). */
	items?: Record<string, number>;
	/**
	 * Per task, when it was created (ms, the simulator's clock), then in ms from its creation its render time, when
	 * each check reached the API and when an answer first said "done" (results.json).
	 */
	detail?: Array<{ created: number; render: number; checks: number[]; seen?: number }>;
	/**
	 * How long stalls held the row's tasks from creation to being seen done (withStalls), in Poll Intervals: `task`,
	 * the mean per task; `run`, of the run from its first creation to its last result.
	 */
	stall?: { task: number; run: number };
	/** The Poll Interval of the row's runs, when not the suite's (INTERVAL_S). */
	intervalS?: number;
}

/** A row's figures and per-task detail. */
export const measured = (tasks: TaskRecord[], intervalMs?: number): Pick<Row, 'figures' | 'detail'> => ({
	figures: figures(tasks, intervalMs),
	detail: tasks.map((task) => ({
		created: task.createdAt,
		render: task.doneAt - task.createdAt,
		checks: task.checks.map((at) => at - task.createdAt),
		seen: task.seenAt === undefined ? undefined : task.seenAt - task.createdAt,
	})),
});

/**
 * Each row's `stall`, as a grid saw stalls (`witness`: Fixed Interval's tasks that ran in the same processes, each
 * with its Poll Interval): a stall before a render's end delays its checks too (a creation's answer handled late).
 */
export function withStalls(rows: Row[], witness: Array<{ tasks: TaskRecord[]; intervalMs: number }>): Row[] {
	const windows = witness
		.flatMap(({ tasks, intervalMs }) => stallWindows(tasks, intervalMs))
		.sort((a, b) => a[0] - b[0]);
	return rows.map((row) => {
		const lives = (row.detail ?? []).flatMap((task) =>
			task.seen === undefined ? [] : [[task.created, task.created + task.seen]],
		);
		const held = (from: number, to: number) => heldBetween(windows, from, to) / ((row.intervalS ?? INTERVAL_S) * 1000);
		const first = Math.min(...lives.map(([from]) => from));
		const last = Math.max(...lives.map(([, to]) => to));
		return {
			...row,
			stall: { task: mean(lives.map(([from, to]) => held(from, to))), run: lives.length ? held(first, last) : 0 },
		};
	});
}

/** The tasks of one execution of a workflow whose prompts end with its execution id. */
export const ofExecution = (tasks: TaskRecord[], workflow: Workflow, id: string) =>
	tasks.filter((task) => task.prompt.includes(` ${workflow.id} `) && task.prompt.endsWith(`(execution ${id})`));

export const tagged = (tasks: TaskRecord[], tag: string) => tasks.filter((task) => task.prompt.includes(` ${tag} `));

/** The tasks of runs `from`–`to` of a chain of executions whose prompts are tagged `<prefix><run>`. */
export const ofRuns = (tasks: TaskRecord[], prefix: string, from: number, to: number) =>
	Array.from({ length: to - from + 1 }, (_, index) => tagged(tasks, `${prefix}${from + index}`)).flat();

/** The tasks of a batch run (`batchRun`'s label) of a workflow. */
export const ofBatch = (tasks: TaskRecord[], workflow: Workflow, label: string) =>
	tasks.filter((task) => task.prompt.includes(` ${workflow.id} ${label}c`));
