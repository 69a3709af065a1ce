/**
 * The benchmark's case for one item per execution (scripts/bench.ts; docs/performance.md explains the method): a
 * form, a webhook or a chat message runs the workflow once per item, so every execution creates one task and learns
 * only from the executions before it (what the n8n process keeps of the workflow's node, learning/store.ts).
 *
 * Four shapes of renders, each as 25 executions one after another, ONE item each, Poll Interval 1 s, D 3 s, 100 ms
 * added to every answer by the simulator (a remote API's round trip), no downloads. Learned and Fixed Interval run
 * the same seeded render times side by side (two chains of executions at once, in one process: the learned one
 * keeps what it learned); the figures are executions 11–25: the time after the floor (from the render's end plus one
 * round trip, on the simulator's clock, to the moment the node's execution returned) in Poll Intervals, and info
 * calls per task. Every shape's chains run at once: each execution mostly waits. Each chain renders a kind of its own
 * (Batch Size and Resolution, render-time fields): the process pools what its nodes learned per API and kind, and
 * chains of different shapes must not teach each other. Then a copy of the first narrow chain's workflow (a new
 * workflow id, the same kind) runs five executions: a kind the process knows starts warm.
 */

import { runNode } from '../../test/harness';
import { Random } from '../../test/explorer/random';
import { type Figure } from './bench-common';
import { taskRecords, mean } from './learning-measure';
import { startSimulator, type SimulatorProcess } from './simulator';

/** The round trip the simulator adds to every answer in this case. */
const RTT = 100;
const INTERVAL = 1000;
const D = 3000;
const EXECUTIONS = Number(process.env.BENCH_SINGLE_EXECUTIONS ?? 25);
/** Workflows per shape, each its own chain of executions with its own renders: one workflow's 15 figures are noisy. */
const WORKFLOWS = Number(process.env.BENCH_SINGLE_WORKFLOWS ?? 3);
/** Executions before this one are the workflow's past: the figures are the later ones. */
const MEASURED_FROM = 11;
/**
 * Executions of the copy, all measured: its first keeps the grid until its own render agrees with what the process
 * learned of the kind elsewhere (issue 44: another workflow's renders are a hint, not a reason to wait past the
 * grid), the others start warm.
 */
const COPY_EXECUTIONS = 6;

/** The render kind of chain `index`: beta v4's Batch Size and Resolution (both render-time fields). */
function kindOf(index: number): { batchsize: number; resolution: string } {
	const ratios = ['1:1', '16:9', '9:16', '4:3', '3:4'];
	return { batchsize: 1 + (index % 15), resolution: ratios[Math.floor(index / 15) % ratios.length] };
}

/** Mean time after the floor in Poll Intervals, and info calls per task. */
interface Measured {
	after: number;
	calls: number;
}

type Verdict = (learned: Measured, fixed: Measured) => { target: string; pass: boolean };

/** Issue 30's targets: narrow renders placed from history, wide ones, and renders that changed from what was learned. */
const NARROW: Verdict = (learned) => ({
	target: '≤ 0.15 I and ≤ 2.2 calls',
	pass: learned.after <= 0.15 && learned.calls <= 2.2,
});
const WIDE: Verdict = (learned, fixed) => ({
	target: '≤ 0.6 × fixed, calls ≤ fixed',
	pass: learned.after <= 0.6 * fixed.after && learned.calls <= fixed.calls,
});
const CHANGED: Verdict = (learned, fixed) => ({ target: '≤ fixed + 0.1 I', pass: learned.after <= fixed.after + 0.1 });
/** Issue 44's envelope over consecutive executions, the first included: no later than Fixed Interval but 0.25 I. */
const ENVELOPE: Verdict = (learned, fixed) => ({
	target: '≤ fixed + 0.25 I, calls ≤ fixed',
	pass: learned.after <= fixed.after + 0.25 && learned.calls <= fixed.calls,
});

interface SingleShape {
	name: string;
	/** The render time of execution `execution` (1-based), in ms, drawn from `random`. */
	render: (execution: number, random: Random) => number;
	verdict: Verdict;
	/** Whether a copy of its first workflow runs once that workflow is done (narrow renders only). */
	copy?: boolean;
}

const spread = (random: Random, from: number, to: number) => D * (from + (to - from) * random.next());

const SINGLE_SHAPES: SingleShape[] = [
	{ name: 'renders spread 0.6–1.4 D', render: (_, random) => spread(random, 0.6, 1.4), verdict: WIDE },
	{
		name: 'renders spread 0.9–1.1 D (one model, one size)',
		render: (_, random) => spread(random, 0.9, 1.1),
		verdict: NARROW,
		copy: true,
	},
	{
		name: 'renders 0.6–1.4 D, 2x faster after execution 10',
		render: (execution, random) => spread(random, 0.6, 1.4) * (execution > 10 ? 0.5 : 1),
		verdict: CHANGED,
	},
	{
		name: 'renders 0.6–1.4 D, 2x slower after execution 10',
		render: (execution, random) => spread(random, 0.6, 1.4) * (execution > 10 ? 2 : 1),
		verdict: CHANGED,
	},
];

interface Execution {
	taskId: string;
	renderMs: number;
	endedAt: number;
}

/**
 * One chain: `executions` executions one after another, each with one item of render kind `kind`, what was learned
 * kept; those from `measuredFrom` on are returned. `workflowId` names the chain's workflow (default one of its own).
 */
async function chain(
	sim: SimulatorProcess,
	shape: SingleShape,
	seed: number,
	pollSchedule: 'learned' | 'fixed',
	kind: { batchsize: number; resolution: string },
	{ executions: count = EXECUTIONS, measuredFrom = MEASURED_FROM, workflowId = '' } = {},
): Promise<Execution[]> {
	// Each chain is a workflow of its own; what the process learned is kept from execution to execution.
	const workflow = workflowId || `single-${shape.name}-${seed}-${pollSchedule}`.replace(/[^\w-]/g, '-');
	const executions: Execution[] = [];
	for (let execution = 1; execution <= count; execution++) {
		const renderMs = Math.round(shape.render(execution, Random.stream(seed, shape.name, execution)));
		// Executions before `measuredFrom` are the workflow's past (1 to 10): only the later ones are measured.
		const result = await runNode({
			parameters: {
				resource: 'image',
				operation: 'betav4',
				prompt: `[sim:seconds=${(renderMs / 1000).toFixed(3)}] idea ${execution}`,
				waitForCompletion: true,
				additionalFields: kind,
				options: { pollInterval: INTERVAL / 1000, downloadResults: false, pollSchedule },
			},
			credentials: sim.credentials,
			workflowId: workflow,
			learned: 'kept',
		});
		const endedAt = Date.now();
		const taskId = String(result.output[0]?.json.taskid ?? '');
		if (result.error || result.output[0]?.json.status !== 'completed')
			throw new Error(`${shape.name}, ${pollSchedule}, execution ${execution}: ${result.error?.message}`);
		if (execution >= measuredFrom) executions.push({ taskId, renderMs, endedAt });
	}
	return executions;
}

/**
 * Runs every shape, learned and fixed side by side, and measures executions 11–25 against the simulator's record
 * (and the copy's executions 1–5).
 */
async function measureSingle(shapes = SINGLE_SHAPES, seed = 30) {
	const sim = await startSimulator({ taskDurationMs: D, latencyMs: RTT });
	try {
		// A warm-up, so that lazily loaded code is not timed.
		await runNode({
			parameters: { resource: 'image', operation: 'betav4', prompt: 'warm', options: { pollInterval: 0.2 } },
			credentials: sim.credentials,
		});
		const workflows = Array.from({ length: WORKFLOWS }, (_, index) => seed + index);
		const both = async (shape: SingleShape, from: number, kind: ReturnType<typeof kindOf>) =>
			await Promise.all([chain(sim, shape, from, 'learned', kind), chain(sim, shape, from, 'fixed', kind)]);
		const runs = await Promise.all(
			shapes.map(async (shape, shapeIndex) => {
				const kinds = workflows.map((_, index) => kindOf(shapeIndex * WORKFLOWS + index));
				const pairs = await Promise.all(workflows.map(async (from, index) => await both(shape, from, kinds[index])));
				// A new workflow of the first chain's kind, once that chain is done: it starts from what the process
				// learned of the kind (a render kind the process already knows starts warm).
				const copy = shape.copy
					? await chain(sim, shape, seed + 100, 'learned', kinds[0], {
							executions: COPY_EXECUTIONS,
							measuredFrom: 1,
							workflowId: `copy-${seed}`,
						})
					: undefined;
				return {
					shape,
					learned: pairs.flatMap(([learned]) => learned),
					fixed: pairs.flatMap(([, fixed]) => fixed),
					copy,
				};
			}),
		);
		const tasks = new Map((await taskRecords(sim.url)).map((task) => [task.taskid, task]));
		const figures = (measured: Execution[]): Measured => ({
			after: mean(measured.map(({ taskId, endedAt }) => (endedAt - (tasks.get(taskId)!.doneAt + RTT)) / INTERVAL)),
			calls: mean(measured.map(({ taskId }) => tasks.get(taskId)?.checks.length ?? 0)),
		});
		return runs.map(({ shape, learned, fixed, copy }) => ({
			shape,
			learned: figures(learned),
			fixed: figures(fixed),
			copy: copy && { all: figures(copy), warm: figures(copy.slice(1)) },
		}));
	} finally {
		sim.child.kill();
	}
}

const shown = (measured: Measured) => `${measured.after.toFixed(2)} I / ${measured.calls.toFixed(2)}`;

export async function singleItemBenchCase(): Promise<Figure[]> {
	return (await measureSingle()).flatMap(({ shape, learned, fixed, copy }) => [
		{
			name: `One item per execution (25 runs, D 3 s, I 1 s, RTT 100 ms, runs 11–25), ${shape.name}: after the floor / calls, learned (fixed)`,
			value: `${shown(learned)} (${shown(fixed)})`,
			...shape.verdict(learned, fixed),
		},
		...(copy
			? [
					{
						name: `   … a new workflow of the same kind, after another taught it: its runs 1–${COPY_EXECUTIONS} (fixed's 11–25)`,
						value: `${shown(copy.all)} (${shown(fixed)})`,
						...ENVELOPE(copy.all, fixed),
					},
					{
						name: `   … its runs 2–${COPY_EXECUTIONS}`,
						value: `${shown(copy.warm)} (${shown(fixed)})`,
						...NARROW(copy.warm, fixed),
					},
				]
			: []),
	]);
}
