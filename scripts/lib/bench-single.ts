/**
 * The benchmark's `singleItem` case (issue 30; docs/performance.md#the-envelope-against-fixed-interval): chains of
 * one-item executions (a form, a webhook, a chat message), learned and Fixed Interval side by side on the same
 * seeded renders, in four shapes; then a copy of one narrow chain's workflow that must start warm.
 */
import { runNode } from '../../test/harness';
import { Random } from '../../test/explorer/random';
import { type Figure } from './bench-common';
import { taskRecords, timedPrompt, mean } from './learning-measure';
import { nodeParameters } from './bench-results';
import { startSimulator, type SimulatorProcess } from './simulator';

const RTT = 100;
const INTERVAL = 1000;
const D = 3000;
const EXECUTIONS = Number(process.env.BENCH_SINGLE_EXECUTIONS ?? 25);
/** Workflows per shape, each a chain with its own renders: one workflow's 15 figures are noisy. */
const WORKFLOWS = Number(process.env.BENCH_SINGLE_WORKFLOWS ?? 3);
/** Executions before this one are the workflow's past: the figures are the later ones. */
const MEASURED_FROM = 11;
/** Executions of the copy, all measured: its first keeps the grid until its render agrees (issue 44). */
const COPY_EXECUTIONS = 6;

/**
 * The render kind of chain `index` (beta v4's Batch Size and Resolution, render-time fields): the process pools
 * what it learned per API and kind, and chains of different shapes must not teach each other.
 */
function kindOf(index: number): { batchsize: number; resolution: string } {
	const ratios = ['1:1', '16:9', '9:16', '4:3', '3:4'];
	return { batchsize: 1 + (index % 15), resolution: ratios[Math.floor(index / 15) % ratios.length] };
}

/** Mean time after the floor in Poll Intervals, and info calls per task. */
type Measured = { after: number; calls: number };

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

type Execution = { taskId: string; endedAt: number };

/** One chain: executions one after another, what was learned kept; those from `measuredFrom` on are returned. */
async function chain(
	sim: SimulatorProcess,
	shape: SingleShape,
	seed: number,
	pollSchedule: 'learned' | 'fixed',
	kind: { batchsize: number; resolution: string },
	{ executions: count = EXECUTIONS, measuredFrom = MEASURED_FROM, workflowId = '' } = {},
): Promise<Execution[]> {
	const workflow = workflowId || `single-${shape.name}-${seed}-${pollSchedule}`.replace(/[^\w-]/g, '-');
	const executions: Execution[] = [];
	for (let execution = 1; execution <= count; execution++) {
		const renderMs = Math.round(shape.render(execution, Random.stream(seed, shape.name, execution)));
		const result = await runNode({
			parameters: {
				...nodeParameters(INTERVAL / 1000, false, { pollSchedule }),
				prompt: timedPrompt(renderMs / 1000, `idea ${execution}`),
				additionalFields: kind,
			},
			credentials: sim.credentials,
			workflowId: workflow,
			learned: 'kept',
		});
		const endedAt = Date.now();
		const taskId = String(result.output[0]?.json.taskid ?? '');
		if (result.error || result.output[0]?.json.status !== 'completed')
			throw new Error(`${shape.name}, ${pollSchedule}, execution ${execution}: ${result.error?.message}`);
		if (execution >= measuredFrom) executions.push({ taskId, endedAt });
	}
	return executions;
}

/**
 * Every shape's chains at once (each execution mostly waits), measured against the simulator's record: time after the
 * floor (the render's end plus one round trip) to the execution's return, and info calls per task.
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
				// A new workflow of the first chain's kind, once that chain is done.
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
	return (await measureSingle()).flatMap(({ shape, learned, fixed, copy }) => {
		const figure = (name: string, measured: Measured, verdict: Verdict): Figure => ({
			name,
			value: `${shown(measured)} (${shown(fixed)})`,
			...verdict(measured, fixed),
		});
		const title = `One item per execution (25 runs, D 3 s, I 1 s, RTT 100 ms, runs 11–25), ${shape.name}: after the floor / calls, learned (fixed)`;
		const copied = `   … a new workflow of the same kind, after another taught it: its runs 1–${COPY_EXECUTIONS} (fixed's 11–25)`;
		const warm = `   … its runs 2–${COPY_EXECUTIONS}`;
		return [
			figure(title, learned, shape.verdict),
			...(copy ? [figure(copied, copy.all, ENVELOPE), figure(warm, copy.warm, NARROW)] : []),
		];
	});
}
