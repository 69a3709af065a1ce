/**
 * The bench's `queueMode` case (docs/performance.md#queue-mode): one item per execution in real n8n in queue mode,
 * through the learning suite's deployments and cases (learning-run.ts).
 */
import type { Figure } from './bench-common';
import { singleItemCase } from './learning-one-item';
import { RENDER_S, type Row } from './learning-rows';
import { runPlans, startWorld, type Plan } from './learning-run';
import { copyOf, singleItemWorkflow, subWorkflowPair, workflowId } from './learning-workflows';

const SCOPE = 'bench-queue';
const VERSIONS = (process.env.BENCH_QUEUE_VERSIONS ?? '2.41.1,1.123.81').split(',').filter(Boolean);
const RUNS = 20;
const WARM_UP = 5;
const TARGET = { afterFloor: 0.15, checks: 2.2 };
const SINGLE = { runs: RUNS, warmUp: WARM_UP, seed: 7 };
const COPY = { runs: WARM_UP, warmUp: WARM_UP, seed: 17 };
/** Render kinds (beta v4's Batch Size): the learned workflow and its copy share one, the sub-workflow has its own. */
const KIND = { learned: 2, subWorkflow: 3 };

function plan(version: string): Plan {
	const learned = singleItemWorkflow(workflowId(version, 'bsingle'), 'learned', KIND.learned);
	const copy = copyOf(learned, workflowId(version, 'bcopy'));
	const fixed = singleItemWorkflow(workflowId(version, 'bfixed'), 'fixed', KIND.learned);
	const { sub, caller, publish } = subWorkflowPair(version, 'b', KIND.subWorkflow);
	return {
		mode: 'queue',
		workflows: [learned, copy, fixed, sub, caller],
		publish: [learned.id, copy.id, fixed.id, ...publish],
		cases: (deployment, world) => {
			const url = world.simulatorUrl;
			const learnedRows = singleItemCase(deployment, url, learned, SINGLE);
			return [
				['learned', learnedRows],
				['copy', learnedRows.then(async () => await singleItemCase(deployment, url, copy, COPY))],
				['fixed', singleItemCase(deployment, url, fixed, SINGLE)],
				['sub-workflow', singleItemCase(deployment, url, caller, SINGLE)],
			];
		},
	};
}

/** The figures of a case's last row (its measured runs). */
const describe = (rows: Row[]) => {
	const { checks, afterFloor, offGrid } = rows[rows.length - 1].figures;
	return `${afterFloor.toFixed(2)} I, ${checks.toFixed(2)} checks, ${offGrid} off the grid`;
};
/** A case held to issue 30's one-item target. */
const figure = (name: string, rows: Row[]): Figure => {
	const { checks, afterFloor } = rows[rows.length - 1].figures;
	return {
		name,
		value: describe(rows),
		target: `≤ ${TARGET.afterFloor} I, ≤ ${TARGET.checks} checks`,
		pass: afterFloor <= TARGET.afterFloor && checks <= TARGET.checks,
	};
};

export async function queueModeCase(): Promise<Figure[]> {
	const world = await startWorld(SCOPE, VERSIONS, RENDER_S * 1000);
	const figures: Figure[] = [];
	try {
		for (const version of VERSIONS) {
			const results = await runPlans(SCOPE, version, [plan(version)], world);
			const rows = (name: string) => results.find((result) => result.name === name)!.rows;
			const [learned, fixed, sub, copy] = [rows('learned'), rows('fixed'), rows('sub-workflow'), rows('copy')];
			figures.push(
				figure(
					`Queue mode, n8n ${version}, one item per execution (runs ${WARM_UP + 1}–${RUNS}, D ${RENDER_S} s ± 10 %, I 1 s, RTT 100 ms): learned in the workflow itself (Fixed Interval: ${describe(fixed)}; its runs 1–${WARM_UP}: ${describe(learned.slice(0, 1))})`,
					learned,
				),
				figure('   … the MediaGen node in a sub-workflow (Execute Workflow)', sub),
				figure(
					`   … a copy of the workflow (new workflow and node ids), its runs 1–${WARM_UP}: warm from what the worker learned of the kind`,
					copy,
				),
			);
		}
	} finally {
		await world.stop();
	}
	return figures;
}
