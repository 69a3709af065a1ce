/**
 * `npm run test:learning`: does Poll Schedule "Learned" learn across executions in real n8n in every mode, and does
 * no execution of it ever change another node's saved static data? (docs/waiting-and-output.md#poll-schedule says
 * where learning persists: the memory of the n8n process that runs the node, never the workflow's static data;
 * docs/scaling-and-durable-waits.md says what queue mode does.)
 *
 * For each n8n version (MEDIAGEN_LEARNING_VERSIONS, default "2.41.1,1.123.81"), two deployments at once against
 * one API simulator (learning-run.ts): regular mode (SQLite) and queue mode (a main and a worker, Postgres and
 * Redis). Both run single, warm, fixed, batch, schedule, wait and the envelope's newcomer and mixed; regular mode
 * also drop, drop-one, slower, manual and agent; queue mode also sub-workflow and, on n8n 2.x, rss. The constants
 * below and the cases' own files (learning-one-item.ts, learning-batches.ts, learning-triggers.ts) say what each
 * runs; each renders a kind of its own (learning-workflows.ts, KINDS), so that its first runs are cold. Another
 * node's state is written into the saved static data of the single, warm, batch, sub-workflow, agent, manual and
 * wait workflows before their first run and again while each run is under way (learning-static.ts), and read back
 * after each run. Every figure comes from the simulator's record (learning-measure.ts); what must hold per version
 * and mode is in lib/learning-expect.ts; the table is printed before it is checked.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

import { BatchCase, dropCase, taughtCase } from './lib/learning-batches';
import { agentCase, agentModel, dropOneCase, singleItemCase, warmUpAgent, warmUpWorker } from './lib/learning-one-item';
import { RENDER_S, renderTimes, type Row } from './lib/learning-rows';
import { manualCase, rssCase, scheduleCase, waitCase } from './lib/learning-triggers';
import { timedPrompt } from './lib/learning-measure';
import { evaluate, printTable } from './lib/learning-expect';
import { runPlans, startWorld, type CaseResult, type DeploymentWorld, type Plan } from './lib/learning-run';
import { OtherNodeState } from './lib/learning-static';
import {
	agentModelCredential,
	agentWorkflow,
	batchWorkflow,
	copyOf,
	KINDS,
	manualWorkflow,
	rssWorkflow,
	scheduleWorkflow,
	singleItemWorkflow,
	subWorkflowPair,
	waitWorkflow,
	workflowId,
	type Workflow,
} from './lib/learning-workflows';
import type { Deployment } from './lib/deployment';
import { logFolder } from './lib/paths';
import { runMain } from './lib/process';
import { log, stepTimer } from './lib/report';

const SCOPE = 'learning';
const VERSIONS = (process.env.MEDIAGEN_LEARNING_VERSIONS ?? '2.41.1,1.123.81').split(',').filter(Boolean);
/** One item per execution: ten executions, the first five reported apart (fixed: the same on Fixed Interval). */
const SINGLE = { runs: 10, warmUp: 5, seed: 1 };
/** A new workflow of a kind the process knows: five executions (other renders of the same kind). */
// Run 1 apart: a new workflow keeps the grid until its own first render agrees with what the process learned.
const WARM = { runs: 5, warmUp: 1, seed: 11 };
const BATCH_ITEMS = 20;
/** Renders that drop: 15 s taught, then 6 s (Poll Interval 1 s, as everywhere here). */
const DROP = { count: 10, fromS: 15, toS: 6, taught: 1, seed: 21 };
/**
 * The same drop, one item per execution: five executions teach the kind (Learned places checks from the fifth
 * observation on), seven drop: a task on its own is checked first where the taught renders end, so the first one
 * after the drop is found late (`searching`); the next keeps every grid slot (it follows one found done at its first
 * check), sees the drop and shows history stale (rule 5). Times and the Poll Interval scaled by 0.4 (6 s → 2.4 s at
 * 0.4 s), to keep the case within the others' time.
 */
const DROP_ONE = { taught: 5, drops: 7, searching: 1, fromS: 6, toS: 2.4, intervalS: 0.4, seed: 31 };
/**
 * A new workflow after another workflow's renders of the same kind that took twice as long: the other workflow's
 * batch once, then five executions of one item each, beside Fixed Interval on the same renders.
 */
const NEWCOMER = { taught: 8, runs: 5, seed: 41 };
/**
 * A new workflow's batch after other workflows of the kind rendered about 1, 2.5 and 6 s (a mixed history): its
 * first run (40 items) beside Fixed Interval, then its second alone.
 */
const MIXED = { teachers: [0.4, 1, 2.4], count: 40, seed: 51 };
/** Renders three times slower than a batch's own run taught: 10 of RENDER_S / 3, then 10 of RENDER_S. */
const SLOWER = { count: 10, seed: 61 };
const SCHEDULE_SECONDS = 12;
const SCHEDULE_RUNS = 3;
/** Above n8n's 65 s: the execution is parked in the database and resumed by the wait tracker. */
const WAIT_SECONDS = 70;
/** Manual runs from the editor: the last five placed from the first five. */
const MANUAL = { runs: 10, warmUp: 5 };

/** The Schedule Trigger workflow: 10 seeded renders (wide), each prompt tagged with the workflow's id. */
function scheduleOf(id: string): Workflow {
	const prompts = renderTimes(10, 3, 'wide').map((seconds, item) => timedPrompt(seconds, `${id} i${item}`));
	return scheduleWorkflow(id, SCHEDULE_SECONDS, prompts, KINDS.schedule);
}

/** Another node's state in a workflow's static data, in the deployment's database. */
const guardOf = (deployment: Deployment, world: DeploymentWorld, workflow: Workflow) =>
	new OtherNodeState(world.db, deployment.idOf(workflow.id));

/** The workflows every deployment runs, whatever its mode. */
function commonWorkflows(version: string, prefix: string) {
	const id = (name: string) => workflowId(version, `${prefix}${name}`);
	const single = singleItemWorkflow(id('single'), 'learned', KINDS.single);
	return {
		single,
		warm: copyOf(single, id('warm')),
		fixed: singleItemWorkflow(id('fixed'), 'fixed', KINDS.single),
		batch: batchWorkflow(id('batch'), KINDS.batch),
		fixedBatch: batchWorkflow(id('fbatch'), KINDS.batch, 'fixed'),
		schedule: scheduleOf(id('schedule')),
		wait: waitWorkflow(id('wait'), WAIT_SECONDS, KINDS.wait),
		teacher: batchWorkflow(id('teacher'), KINDS.newcomer),
		newcomer: batchWorkflow(id('newcomer'), KINDS.newcomer),
		fixedNewcomer: batchWorkflow(id('fnewcomer'), KINDS.newcomer, 'fixed'),
		mixed0: batchWorkflow(id('mixed0'), KINDS.mixed),
		mixed1: batchWorkflow(id('mixed1'), KINDS.mixed),
		mixed2: batchWorkflow(id('mixed2'), KINDS.mixed),
		mixed: batchWorkflow(id('mixednew'), KINDS.mixed),
		fixedMixed: batchWorkflow(id('fmixednew'), KINDS.mixed, 'fixed'),
	};
}

/** The envelope's cases both modes run: a new workflow after longer renders, and after a mixed history. */
function envelopeCases(deployment: Deployment, url: string, common: Common) {
	const newcomer = async () =>
		await taughtCase(deployment, url, {
			teachers: [
				{ workflow: common.teacher, renders: renderTimes(NEWCOMER.taught, NEWCOMER.seed, 'narrow', 2 * RENDER_S) },
			],
			learned: common.newcomer,
			fixed: common.fixedNewcomer,
			runs: renderTimes(NEWCOMER.runs, NEWCOMER.seed + 1, 'narrow').map((seconds) => ({
				label: `executions 1–${NEWCOMER.runs}, one item each, after another workflow's renders of ${2 * RENDER_S} s`,
				renders: [seconds],
			})),
		});
	const mixed = async () =>
		await taughtCase(deployment, url, {
			teachers: [common.mixed0, common.mixed1, common.mixed2].map((workflow, index) => ({
				workflow,
				renders: renderTimes(10, MIXED.seed + index, 'narrow', MIXED.teachers[index] * RENDER_S),
			})),
			learned: common.mixed,
			fixed: common.fixedMixed,
			runs: [
				{ label: 'run 1 after a mixed history', renders: renderTimes(MIXED.count, MIXED.seed + 10, 'wide') },
				{ label: 'run 2', renders: renderTimes(MIXED.count, MIXED.seed + 11, 'wide'), alone: true },
			],
		});
	return { newcomer, mixed };
}

type Common = ReturnType<typeof commonWorkflows>;

/** Resolves when every case of `cases` has ended, whether it passed or not. */
const afterAll = async (cases: Array<[string, Promise<Row[]>]>): Promise<void> =>
	void (await Promise.allSettled(cases.map(([, rows]) => rows)));

/** The published ones among them (the Schedule Trigger workflow is published by its case). */
const published = (common: Common) =>
	Object.values(common)
		.filter((workflow) => workflow !== common.schedule)
		.map((workflow) => workflow.id);

/**
 * The single case, and the warm one: a new workflow of the same kind, started once the single case's fifth run
 * taught the process the kind (enough to place checks by), beside the single case's later runs.
 */
function singleAndWarm(
	deployment: Deployment,
	world: DeploymentWorld,
	common: Common,
): { single: Promise<Row[]>; warm: Promise<Row[]> } {
	const guard = (workflow: Workflow) => guardOf(deployment, world, workflow);
	let taught: () => void = () => undefined;
	const kindKnown = new Promise<void>((resolve) => (taught = resolve));
	const single = singleItemCase(deployment, world.simulatorUrl, common.single, {
		...SINGLE,
		guard: guard(common.single),
		ran: (run) => run === SINGLE.warmUp && taught(),
	});
	const warm = Promise.race([kindKnown, single]).then(
		async () =>
			await singleItemCase(deployment, world.simulatorUrl, common.warm, { ...WARM, guard: guard(common.warm) }),
	);
	return { single, warm };
}

/**
 * The cases both modes run, in the order they must start: the Wait case at once (it waits 70 s before its render),
 * then `warmUp` (what holds n8n's process for seconds when nothing else runs), then the batch's first run and editor
 * save (publishing holds the process for a moment), then the timed cases: a check delayed that long would be
 * learned as a render that long, and a creation's answer handled that late as a render that much shorter.
 */
function sharedCases(deployment: Deployment, world: DeploymentWorld, common: Common, warmUp: () => Promise<void>) {
	const url = world.simulatorUrl;
	const guard = (workflow: Workflow) => guardOf(deployment, world, workflow);
	const wait = waitCase(deployment, url, common.wait, { waitS: WAIT_SECONDS, guard: guard(common.wait) });
	const batchCase = new BatchCase(deployment, url, common.batch, BATCH_ITEMS, 2, {
		guard: guard(common.batch),
		fixed: common.fixedBatch,
	});
	const warmedUp = warmUp();
	const ready = warmedUp.then(async () => await batchCase.start());
	const then = async (work: () => Promise<Row[]>) => await ready.then(work);
	const singles = ready.then(() => singleAndWarm(deployment, world, common));
	return {
		url,
		guard,
		then,
		warmedUp,
		batchCase,
		wait,
		single: singles.then(async ({ single }) => await single),
		warm: singles.then(async ({ warm }) => await warm),
		fixed: async () => await singleItemCase(deployment, url, common.fixed, SINGLE),
		schedule: async () => await scheduleCase(deployment, url, common.schedule, SCHEDULE_RUNS, world.db),
		envelope: envelopeCases(deployment, url, common),
	};
}

/** The regular-mode workflows of the drops (batch and one item per execution) and of renders slower than taught. */
function dropWorkflows(version: string) {
	return {
		drop: batchWorkflow(workflowId(version, 'drop'), KINDS.drop),
		fixedDrop: batchWorkflow(workflowId(version, 'fdrop'), KINDS.drop, 'fixed'),
		dropOne: singleItemWorkflow(workflowId(version, 'dropone'), 'learned', KINDS.dropOne, DROP_ONE.intervalS),
		fixedDropOne: singleItemWorkflow(workflowId(version, 'fdropone'), 'fixed', KINDS.dropOne, DROP_ONE.intervalS),
		slower: batchWorkflow(workflowId(version, 'slower'), KINDS.slower),
		fixedSlower: batchWorkflow(workflowId(version, 'fslower'), KINDS.slower, 'fixed'),
	};
}

/** A batch's renders three times slower than its own run before taught, beside Fixed Interval. */
async function slowerCase(
	deployment: Deployment,
	url: string,
	drops: ReturnType<typeof dropWorkflows>,
): Promise<Row[]> {
	return await taughtCase(deployment, url, {
		teachers: [{ workflow: drops.slower, renders: renderTimes(SLOWER.count, SLOWER.seed, 'narrow', RENDER_S / 3) }],
		learned: drops.slower,
		fixed: drops.fixedSlower,
		runs: [
			{
				label: 'renders three times slower than taught',
				renders: renderTimes(SLOWER.count, SLOWER.seed + 1, 'narrow'),
			},
		],
	});
}

/**
 * Regular mode: every case above, and those that need no queue: the drops (batch and one item per execution),
 * manual runs and the agent.
 */
function regularPlan(version: string, modelUrl: string): Plan {
	const common = commonWorkflows(version, '');
	const drops = dropWorkflows(version);
	const agent = agentWorkflow(workflowId(version, 'agent'));
	const manualId = workflowId(version, 'manual');
	const manual = manualWorkflow(manualId, timedPrompt(RENDER_S, manualId), KINDS.manual);
	return {
		mode: 'regular',
		workflows: [...Object.values(common), ...Object.values(drops), manual, agent],
		publish: [...published(common), ...Object.values(drops).map((workflow) => workflow.id), agent.id],
		credentials: [agentModelCredential(modelUrl)],
		cases: (deployment, world) => {
			// What holds n8n's process for seconds goes first, alone: the agent's first execution (n8n loads the AI
			// Agent's modules then).
			const shared = sharedCases(deployment, world, common, async () => await warmUpAgent(deployment, agent));
			const { url, guard, then } = shared;
			const drop = async () => await dropCase(deployment, url, drops.drop, drops.fixedDrop, DROP);
			const dropOne = async () => await dropOneCase(deployment, url, drops.dropOne, drops.fixedDropOne, DROP_ONE);
			const slower = async () => await slowerCase(deployment, url, drops);
			const timed: Array<[string, Promise<Row[]>]> = [
				['single', shared.single],
				['warm', shared.warm],
				['fixed', then(shared.fixed)],
				['batch', shared.warmedUp.then(async () => await shared.batchCase.rest())],
				['drop', then(drop)],
				['drop-one', then(dropOne)],
				['schedule', then(shared.schedule)],
				['manual', then(async () => await manualCase(deployment, url, manual, { ...MANUAL, guard: guard(manual) }))],
				['agent', then(async () => await agentCase(deployment, url, agent, { ...SINGLE, guard: guard(agent) }))],
			];
			// The envelope's cases once the timed cases above are done: their batches (about 150 tasks at once) would
			// hold the process while those one-item executions are timed.
			const newcomer = afterAll(timed).then(shared.envelope.newcomer);
			return [
				...timed,
				['wait', shared.wait],
				['newcomer', newcomer],
				['mixed', newcomer.then(shared.envelope.mixed, shared.envelope.mixed)],
				['slower', newcomer.then(slower, slower)],
			];
		},
	};
}

/** Queue mode: every case above, a sub-workflow, and on n8n 2.x the RSS Feed Trigger across a restart of the main. */
function queuePlan(version: string, feedUrl: string): Plan {
	const common = commonWorkflows(version, 'q');
	const { sub, caller, publish } = subWorkflowPair(version, 'q', KINDS.subWorkflow);
	// n8n 2.x: its workers run executions without the saved static data; its RSS case restarts the main process.
	const restart = !version.startsWith('1.');
	const rss = restart ? [rssWorkflow(workflowId(version, 'qrss'), feedUrl, KINDS.rss)] : [];
	return {
		mode: 'queue',
		workflows: [...Object.values(common), sub, caller, ...rss],
		publish: [...published(common), ...publish],
		cases: (deployment, world) => {
			// The worker's first execution holds it for a moment (n8n loads what it runs): an untimed one goes first
			// (Fixed Interval learns nothing).
			const shared = sharedCases(deployment, world, common, async () => await warmUpWorker(deployment, common.fixed));
			const { url, guard, then } = shared;
			const subCase = async () => await singleItemCase(deployment, url, caller, { ...SINGLE, guard: guard(sub) });
			const timed: Array<[string, Promise<Row[]>]> = [
				['single', shared.single],
				['warm', shared.warm],
				['fixed', then(shared.fixed)],
				['sub-workflow', then(subCase)],
				['batch', shared.batchCase.rest()],
				['schedule', then(shared.schedule)],
			];
			// The envelope's cases once the timed ones are done (their batches would hold the worker meanwhile).
			const newcomer = afterAll(timed).then(shared.envelope.newcomer);
			const cases: Array<[string, Promise<Row[]>]> = [
				...timed,
				['newcomer', newcomer],
				['mixed', newcomer.then(shared.envelope.mixed, shared.envelope.mixed)],
			];
			// The Wait case is not waited for before the restart: its execution, parked meanwhile, is resumed by
			// whichever main process runs when its time comes.
			const othersDone = Promise.allSettled(cases.map(([, rows]) => rows));
			const rssCases = rss.map((workflow): [string, Promise<Row[]>] => [
				'rss',
				then(async () => await rssCase(deployment, url, workflow, { feed: world.feed, db: world.db, othersDone })),
			]);
			return [...cases, ['wait', shared.wait], ...rssCases];
		},
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
					await runPlans(
						SCOPE,
						version,
						[regularPlan(version, world.modelUrl!), queuePlan(version, world.feed.url)],
						world,
					),
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
