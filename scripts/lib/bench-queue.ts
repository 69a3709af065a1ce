/**
 * The bench's queue-mode case (scripts/bench.ts, `queueMode`): one item per execution in real n8n in queue mode
 * (a main and a worker, Postgres and Redis), n8n 2.41.1 and 1.123.81 one after the other, through the learning
 * suite's deployments and cases (learning-run.ts). Three one-item webhook workflows side by side on the same
 * seeded renders: Poll Schedule "Learned", "Fixed Interval", and "Learned" in a sub-workflow called by Execute
 * Workflow. Measured on the executions after the first WARM_UP, from the simulator's record.
 *
 * The targets follow what n8n lets a node do there (docs/waiting-and-output.md#where-what-is-learned-is-kept):
 * where the worker hands each execution the saved static data (1.x; sub-workflows on 2.x), the learned schedule
 * meets issue 30's one-item target for narrow renders (≤ 0.15 Poll Interval after the floor, ≤ 2.2 checks per
 * task); where it hands none (2.x), it must be exactly the grid: every check on it, as many as Fixed Interval's.
 */
import type { Figure } from './bench-common';
import { RENDER_S, singleItemCase, type Row } from './learning-cases';
import { runPlans, startWorld, type Plan } from './learning-run';
import { singleItemWorkflow, subWorkflowPair, workflowId } from './learning-workflows';

const SCOPE = 'bench-queue';
const VERSIONS = ['2.41.1', '1.123.81'];
const RUNS = 20;
const WARM_UP = 5;
const TARGET = { afterFloor: 0.15, checks: 2.2 };
const SINGLE = { runs: RUNS, warmUp: WARM_UP, seed: 7 };

function plan(version: string): Plan {
	const learned = singleItemWorkflow(workflowId(version, 'bsingle'), 'learned');
	const fixed = singleItemWorkflow(workflowId(version, 'bfixed'), 'fixed');
	const { sub, caller, publish } = subWorkflowPair(version, 'b');
	return {
		mode: 'queue',
		workflows: [learned, fixed, sub, caller],
		publish: [learned.id, fixed.id, ...publish],
		cases: (deployment, url) => [
			['learned', singleItemCase(deployment, url, learned, SINGLE)],
			['fixed', singleItemCase(deployment, url, fixed, SINGLE)],
			['sub-workflow', singleItemCase(deployment, url, caller, { ...SINGLE, keptIn: sub.id })],
		],
	};
}

const measured = (rows: Row[]) => rows[rows.length - 1].figures;
const describe = (rows: Row[]) => {
	const { checks, afterFloor, offGrid } = measured(rows);
	return `${afterFloor.toFixed(2)} I, ${checks.toFixed(2)} checks, ${offGrid} off the grid`;
};
const meetsTarget = (rows: Row[]) =>
	measured(rows).afterFloor <= TARGET.afterFloor && measured(rows).checks <= TARGET.checks;

export async function queueModeCase(): Promise<Figure[]> {
	const world = await startWorld(SCOPE, VERSIONS, RENDER_S * 1000);
	const figures: Figure[] = [];
	try {
		for (const version of VERSIONS) {
			const results = await runPlans(SCOPE, version, [plan(version)], world);
			const rows = (name: string) => results.find((result) => result.name === name)!.rows;
			const [learned, fixed, sub] = [rows('learned'), rows('fixed'), rows('sub-workflow')];
			const noStaticData = !version.startsWith('1.');
			const grid = measured(fixed);
			figures.push(
				{
					name: `Queue mode, n8n ${version}, one item per execution (runs ${WARM_UP + 1}–${RUNS}, D ${RENDER_S} s ± 10 %, I 1 s, RTT 100 ms): learned (Fixed Interval: ${describe(fixed)})`,
					value: describe(learned),
					target: noStaticData
						? 'exactly the grid (no static data)'
						: `≤ ${TARGET.afterFloor} I, ≤ ${TARGET.checks} checks`,
					pass: noStaticData
						? measured(learned).offGrid <= grid.offGrid + 1 && Math.abs(measured(learned).checks - grid.checks) <= 0.1
						: meetsTarget(learned),
				},
				{
					name: '   … the MediaGen node in a sub-workflow (Execute Workflow)',
					value: describe(sub),
					target: `≤ ${TARGET.afterFloor} I, ≤ ${TARGET.checks} checks`,
					pass: meetsTarget(sub),
				},
			);
		}
	} finally {
		await world.stop();
	}
	return figures;
}
