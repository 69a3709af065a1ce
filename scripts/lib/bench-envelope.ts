/**
 * The benchmark's `envelope` case (docs/performance.md#the-envelope-against-fixed-interval): Poll Schedule "Learned"
 * beside Fixed Interval on the same renders at the same time, idle and beside a CPU hog.
 */
import { spawn } from 'node:child_process';

import { runNode } from '../../test/harness';
import { taskRecords, timedPrompt, mean } from './learning-measure';
import { renderTimes } from './learning-rows';
import { atMost, inTurn, RTT_MS, type Figure } from './bench-common';
import { FIXED } from './bench-polling';
import { nodeParameters } from './bench-results';
import { startSimulator, type SimulatorProcess } from './simulator';

const INTERVAL_S = 0.5;
const I = INTERVAL_S * 1000;

/** What one run's tasks met: time after each render's end (ms), checks, and the grid's checks for the render. */
interface Measured {
	after: number[];
	checks: number[];
	grid: number[];
	/** The run's last answer that said done, after its last render's end (ms). */
	lastAfter: number;
}

type Pair = { learned: Measured; fixed: Measured };

class Bench {
	private serial = 0;

	constructor(private readonly sim: SimulatorProcess) {}

	/** One run of `workflowId` on `times`; Fixed Interval when `fixed`. */
	async run(workflowId: string, times: number[], fixed = false): Promise<Measured> {
		const tag = `e${this.serial++}`;
		const { output, error } = await runNode({
			parameters: nodeParameters(INTERVAL_S, false, fixed ? FIXED.options : {}),
			items: times.map((seconds, i) => ({ json: { idea: timedPrompt(seconds, `${tag} ${i}`) } })),
			credentials: this.sim.credentials,
			learned: 'kept',
			mode: 'webhook',
			workflowId,
		});
		if (error) throw new Error(`run ${workflowId} failed: ${error.message}`);
		const ids = new Set(output.map((item) => String(item.json.taskid)));
		const tasks = (await taskRecords(this.sim.url)).filter((task) => ids.has(task.taskid));
		return {
			after: tasks.map((task) => Math.max(0, (task.seenAt ?? Infinity) - task.doneAt)),
			checks: tasks.map((task) => task.checks.length),
			grid: tasks.map((task) => Math.max(1, Math.ceil((task.doneAt - task.createdAt) / I))),
			lastAfter:
				Math.max(...tasks.map((task) => task.seenAt ?? Infinity)) - Math.max(...tasks.map((task) => task.doneAt)),
		};
	}

	/** The learned run and Fixed Interval's on the same renders, at once. */
	async pair(workflowId: string, times: number[]): Promise<Pair> {
		const [learned, fixed] = await Promise.all([
			this.run(workflowId, times),
			this.run(`${workflowId}-fixed`, times, true),
		]);
		return { learned, fixed };
	}

	/** One item per execution: a pair per render, one after another. */
	async executions(workflowId: string, times: number[]): Promise<Pair[]> {
		return await inTurn(times, async (seconds) => [await this.pair(workflowId, [seconds])]);
	}
}

const inI = (ms: number) => (ms / I).toFixed(2);
const perTask = (runs: Measured[], key: 'after' | 'checks' | 'grid') => mean(runs.flatMap((run) => run[key]));
/** Tasks checked more than the grid's count for their render and one. */
const over = (runs: Measured[]) =>
	runs.flatMap((run) => run.checks.filter((checks, index) => checks > run.grid[index] + 1)).length;

/** Checks per task against Fixed Interval's (`factor` × it at most, or it and 0.1), none over the grid's and one. */
function checksFigure(title: string, learned: Measured[], fixed: Measured[], factor = 1): Figure {
	const [a, b] = [perTask(learned, 'checks'), perTask(fixed, 'checks')];
	return {
		name: `${title}checks per task, learned / Fixed Interval (none over the grid’s and one)`,
		value: `${a.toFixed(2)} / ${b.toFixed(2)} (${over(learned)} over)`,
		target: factor === 1 ? '≤ Fixed Interval + 0.1' : `≤ ${factor} × Fixed Interval`,
		pass: a <= (factor === 1 ? b + 0.1 : factor * b) && over(learned) === 0,
	};
}

/** One item per execution: per execution, time after the render (I) and checks, learned against Fixed Interval. */
function oneItemFigures(title: string, pairs: Pair[]): Figure[] {
	const learned = pairs.map((pair) => pair.learned);
	const fixed = pairs.map((pair) => pair.fixed);
	const list = (runs: Measured[]) => runs.map((run) => `${inI(run.after[0])}/${run.checks[0]}`).join(' ');
	return [
		{
			name: `${title}: after the render (I) per execution, learned ≤ Fixed Interval + 0.25 I`,
			value: `${inI(perTask(learned, 'after'))} / ${inI(perTask(fixed, 'after'))} (after/checks, learned: ${list(learned)}; fixed: ${list(fixed)})`,
			target: `≤ ${inI(perTask(fixed, 'after') + 0.25 * I)}`,
			pass: perTask(learned, 'after') <= perTask(fixed, 'after') + 0.25 * I,
		},
		checksFigure('   … ', learned, fixed),
	];
}

/** A batch: checks per task against Fixed Interval's (`factor` × it at most), and the last result. */
function batchFigures(title: string, { learned, fixed }: Pair, factor = 1): Figure[] {
	return [
		checksFigure(`${title}: `, [learned], [fixed], factor),
		{
			name: '   … last result after the last render (I), learned / Fixed Interval',
			value: `${inI(learned.lastAfter)} / ${inI(fixed.lastAfter)}`,
			target: `≤ max(1 I, Fixed Interval) + 0.25 I + RTT`,
			pass: learned.lastAfter <= Math.max(I, fixed.lastAfter) + 0.25 * I + RTT_MS,
		},
	];
}

/** Every shape once, in workflows named after `run` (idle or hog): nothing one taught reaches another. */
async function shapes(bench: Bench, run: string): Promise<Figure[]> {
	const wf = (name: string) => `${run}-${name}`;
	// A new workflow after another workflow's renders of the same kind twice as long.
	await bench.run(wf('teacher'), renderTimes(8, 1, 'narrow', 3));
	const newcomer = await bench.executions(wf('newcomer'), renderTimes(5, 2, 'narrow', 1.5));
	// A workflow's own renders get twice as fast: the first one may be late.
	for (const seconds of renderTimes(5, 3, 'narrow', 3)) await bench.run(wf('faster'), [seconds]);
	const faster = await bench.executions(wf('faster'), renderTimes(6, 4, 'narrow', 1.5));
	// One item per execution, as an AI Agent's tool is called: executions 6–10 placed from 1–5.
	const agent = await bench.executions(wf('agent'), renderTimes(10, 5, 'narrow', 1.25));
	// A batch's renders three times slower than taught, and twice as fast.
	await bench.run(wf('slower'), renderTimes(10, 6, 'narrow', 0.5));
	const slower = await bench.pair(wf('slower'), renderTimes(10, 7, 'narrow', 1.5));
	await bench.run(wf('twice'), renderTimes(20, 8, 'narrow', 3));
	const twice = await bench.pair(wf('twice'), renderTimes(20, 9, 'narrow', 1.5));
	// A new workflow's batch after other workflows' renders of about 0.6, 1.5 and 3.6 s.
	await Promise.all(
		[0.6, 1.5, 3.6].map(
			async (seconds, index) => await bench.run(wf(`mixed${index}`), renderTimes(10, 10 + index, 'narrow', seconds)),
		),
	);
	const mixed = await bench.pair(wf('mixed'), renderTimes(40, 13, 'wide', 1.5));
	const second = await bench.run(wf('mixed'), renderTimes(40, 14, 'wide', 1.5));
	return [
		...oneItemFigures(`${run}: a new workflow after another's 3 s renders, its 1.5 s executions 1–5`, newcomer),
		...oneItemFigures(`${run}: own renders from 3 s to 1.5 s, executions 2–6`, faster.slice(1)),
		...oneItemFigures(`${run}: one item per execution, 1.25 s, executions 6–10`, agent.slice(5)),
		...batchFigures(`${run}: 10 renders 3× slower than taught`, slower, 1.25),
		...batchFigures(`${run}: 20 renders 2× faster than taught`, twice),
		...batchFigures(`${run}: a new workflow's 40 renders after a mixed history, run 1`, mixed),
		atMost('   … its run 2: checks per task', perTask([second], 'checks'), 2.5),
	];
}

export async function envelopeCase(): Promise<Figure[]> {
	const sim = await startSimulator({ taskDurationMs: 1000, latencyMs: RTT_MS });
	const bench = new Bench(sim);
	await bench.run('warm-up', [0.2]);
	const figures = await shapes(bench, 'idle');
	// A process that keeps one core busy until it is killed.
	const hog = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
	try {
		figures.push(...(await shapes(bench, 'beside a CPU hog')));
	} finally {
		hog.kill();
		sim.child.kill();
	}
	return figures;
}
