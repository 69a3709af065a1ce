/**
 * `npm run test:learning`: does Poll Schedule "Learned" learn across production executions in real n8n, and where
 * n8n does not let it, does it behave exactly like the grid? (docs/waiting-and-output.md#poll-schedule says
 * where learning persists; docs/scaling-and-durable-waits.md says what queue mode does.)
 *
 * For each n8n version (MEDIAGEN_LEARNING_VERSIONS, default "2.41.1,1.123.81"), two deployments at once against
 * one API simulator (100 ms added to every answer, renders seeded from the prompts): regular mode (`n8n start`,
 * SQLite) and queue mode (a main and a worker, Postgres and Redis). Cases, all at once in each deployment:
 * - single: a webhook workflow called again and again with one item;
 * - batch: a webhook workflow with 20 items: run 1, an editor save, run 2, two runs at once, run 4;
 * - schedule: a Schedule Trigger workflow (every 12 s, 10 items), three runs, then unpublished;
 * - manual (regular mode): two manual runs from the editor, which n8n does not let keep anything;
 * - agent (regular mode): examples/agent-images.json asked for a picture ten times (a scripted model calls the
 *   MediaGen tool once per chat message: one item per execution);
 * - fixed (queue mode): the single case with Poll Schedule "Fixed Interval", beside it;
 * - sub-workflow (queue mode): the single case through Execute Workflow, the sub-workflow holding MediaGen.
 * Every figure comes from the simulator's record (learning-measure.ts): checks per task, the time after the
 * floor, whether each check fell on the Poll Interval grid; and from n8n's REST API, the static data it stored
 * (the MediaGen node's, and whether the Schedule Trigger's own survived).
 * What must hold per version and mode is in lib/learning-expect.ts; the table is printed before it is checked.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

import {
	agentCase,
	agentModel,
	BatchCase,
	manualCase,
	scheduleCase,
	singleItemCase,
	warmUpAgent,
	RENDER_S,
	renderTimes,
	type Row,
} from './lib/learning-cases';
import { timedPrompt } from './lib/learning-measure';
import { evaluate, printTable } from './lib/learning-expect';
import { runPlans, startWorld, type CaseResult, type Plan } from './lib/learning-run';
import {
	agentModelCredential,
	agentWorkflow,
	batchWorkflow,
	manualWorkflow,
	scheduleWorkflow,
	singleItemWorkflow,
	subWorkflowPair,
	workflowId,
	type Workflow,
} from './lib/learning-workflows';
import { logFolder } from './lib/paths';
import { runMain } from './lib/process';
import { log, stepTimer } from './lib/report';

const SCOPE = 'learning';
const VERSIONS = (process.env.MEDIAGEN_LEARNING_VERSIONS ?? '2.41.1,1.123.81').split(',').filter(Boolean);
/** One item per execution: ten executions, the first five reported apart. */
const SINGLE = { runs: 10, warmUp: 5, seed: 1 };
const BATCH_ITEMS = 20;
const SCHEDULE_SECONDS = 12;
const SCHEDULE_RUNS = 3;

/** The Schedule Trigger workflow: 10 seeded renders (wide), each prompt tagged with the workflow's id. */
function scheduleOf(id: string): Workflow {
	const prompts = renderTimes(10, 3, 'wide').map((seconds, item) => timedPrompt(seconds, `${id} i${item}`));
	return scheduleWorkflow(id, SCHEDULE_SECONDS, prompts);
}

function regularPlan(version: string, modelUrl: string): Plan {
	const single = singleItemWorkflow(workflowId(version, 'single'), 'learned');
	const agent = agentWorkflow(workflowId(version, 'agent'));
	const batch = batchWorkflow(workflowId(version, 'batch'));
	const schedule = scheduleOf(workflowId(version, 'schedule'));
	const manualId = workflowId(version, 'manual');
	const manual = manualWorkflow(manualId, timedPrompt(RENDER_S, manualId));
	return {
		mode: 'regular',
		workflows: [single, batch, schedule, manual, agent],
		publish: [single.id, batch.id, agent.id],
		credentials: [agentModelCredential(modelUrl)],
		cases: (deployment, url) => {
			// What holds n8n's process for seconds goes first, alone: the agent's first execution (n8n loads the AI
			// Agent's modules then); then the batch's first run and editor save (publishing), before the one-item
			// executions are timed. A check delayed that long would be learned as a render that long.
			const batchCase = new BatchCase(deployment, url, batch, BATCH_ITEMS, 2);
			const warm = warmUpAgent(deployment, agent);
			const ready = warm.then(async () => await batchCase.start());
			const then = async (work: () => Promise<Row[]>) => await ready.then(work);
			return [
				['single', then(async () => await singleItemCase(deployment, url, single, SINGLE))],
				['batch', warm.then(async () => await batchCase.rest())],
				['schedule', warm.then(async () => await scheduleCase(deployment, url, schedule, SCHEDULE_RUNS))],
				['manual', then(async () => await manualCase(deployment, url, manual, 2))],
				['agent', then(async () => await agentCase(deployment, url, agent, SINGLE))],
			];
		},
	};
}

function queuePlan(version: string): Plan {
	const single = singleItemWorkflow(workflowId(version, 'qsingle'), 'learned');
	const fixed = singleItemWorkflow(workflowId(version, 'qfixed'), 'fixed');
	const { sub, caller, publish } = subWorkflowPair(version, 'q');
	const batch = batchWorkflow(workflowId(version, 'qbatch'));
	const schedule = scheduleOf(workflowId(version, 'qschedule'));
	return {
		mode: 'queue',
		workflows: [single, fixed, sub, caller, batch, schedule],
		publish: [single.id, fixed.id, ...publish, batch.id],
		cases: (deployment, url) => [
			['single', singleItemCase(deployment, url, single, SINGLE)],
			['fixed', singleItemCase(deployment, url, fixed, SINGLE)],
			['sub-workflow', singleItemCase(deployment, url, caller, { ...SINGLE, keptIn: sub.id })],
			['batch', new BatchCase(deployment, url, batch, BATCH_ITEMS, 2).rest()],
			['schedule', scheduleCase(deployment, url, schedule, SCHEDULE_RUNS)],
		],
	};
}

async function main(): Promise<void> {
	const { step, summary } = stepTimer();
	const world = await startWorld(SCOPE, VERSIONS, RENDER_S * 1000, agentModel);
	step('system packages, n8n installs, the package, simulator, postgres, redis');
	let results: CaseResult[];
	try {
		// The versions run side by side: most of a case is waiting for renders, and the deployments' start-up (the
		// CPU-bound part) overlaps what the other version waits for.
		const perVersion = await Promise.all(
			VERSIONS.map(
				async (version) =>
					await runPlans(SCOPE, version, [regularPlan(version, world.modelUrl!), queuePlan(version)], world),
			),
		);
		results = perVersion.flat();
		step(`n8n ${VERSIONS.join(' and ')}: both deployments each, every case`);
	} finally {
		await world.stop();
		log(SCOPE, summary());
	}
	printTable(results);
	// Kept for comparing runs (before and after a change): the rows of every case, as measured.
	writeFileSync(path.join(logFolder(SCOPE), 'results.json'), JSON.stringify(results, null, 1));
	const failures = evaluate(results, (line) => log(SCOPE, line));
	if (failures.length) throw new Error(`${failures.length} expectation(s) failed:\n${failures.join('\n')}`);
	log(SCOPE, `PASS: ${results.length} cases on n8n ${VERSIONS.join(' and ')}`);
}

runMain(SCOPE, main);
