/**
 * `npm run test:learning`: does Poll Schedule "Learned" learn across executions in real n8n (regular and queue mode,
 * two versions), and leave every other node's saved static data as it was? CONTRIBUTING.md ("The learning suite")
 * says what runs; the constants below and the cases' files say how; learning-expect.ts says what must hold.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

import { batchCase, taughtCase, type Taught } from './lib/learning-batches';
import {
	agentModel,
	chatSender,
	dropOneCase,
	singleItemCase,
	type SingleItemRuns,
	warmUpAgent,
	warmUpWorker,
} from './lib/learning-one-item';
import { RENDER_S, renderTimes, type Row } from './lib/learning-rows';
import { manualCase, rssCase, scheduleCase, waitCase } from './lib/learning-triggers';
import { timedPrompt } from './lib/learning-measure';
import { evaluate, printTable } from './lib/learning-expect';
import { runPlans, startWorld, type CaseResult, type DeploymentWorld, type Plan } from './lib/learning-run';
import { otherNodeState } from './lib/learning-static';
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
/** A new workflow of a kind the process knows; run 1 apart: it keeps the grid until its render agrees with history. */
const WARM = { runs: 5, warmUp: 1, seed: 11 };
const BATCH_ITEMS = 20;
/**
 * The drop one item per execution: five teach the kind (Learned places checks from the fifth observation on). A task
 * on its own is first checked where the taught renders end: the first after the drop is found late (`searching`),
 * the next sees the drop (rule 5). Scaled by 0.4 (6 s → 2.4 s at 0.4 s) to keep within the others' time.
 */
const DROP_ONE = { taught: 5, drops: 7, searching: 1, fromS: 6, toS: 2.4, intervalS: 0.4, seed: 31 };
const SCHEDULE_SECONDS = 12;
const SCHEDULE_RUNS = 3;
/** Above n8n's 65 s: the execution is parked in the database and resumed by the wait tracker. */
const WAIT_SECONDS = 70;
const MANUAL = { runs: 10, warmUp: 5 };

function commonWorkflows(version: string, prefix: string) {
	const id = (name: string) => workflowId(version, `${prefix}${name}`);
	const single = singleItemWorkflow(id('single'), 'learned', KINDS.single);
	const scheduled = renderTimes(10, 3, 'wide').map((seconds, item) =>
		timedPrompt(seconds, `${id('schedule')} i${item}`),
	);
	return {
		single,
		warm: copyOf(single, id('warm')),
		fixed: singleItemWorkflow(id('fixed'), 'fixed', KINDS.single),
		batch: batchWorkflow(id('batch'), KINDS.batch),
		fixedBatch: batchWorkflow(id('fbatch'), KINDS.batch, 'fixed'),
		schedule: scheduleWorkflow(id('schedule'), SCHEDULE_SECONDS, scheduled, KINDS.schedule),
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

type Common = ReturnType<typeof commonWorkflows>;
type Cases = Array<[string, Promise<Row[]>]>;

/** A taughtCase (learning-batches.ts) of a deployment, to run when called. */
type Teach = (...spec: Taught) => () => Promise<Row[]>;

/** The envelope's cases both modes run: a new workflow after longer renders, and after a mixed history. */
function envelopeCases(teach: Teach, common: Common) {
	// A new workflow, five one-item executions, after another workflow's batch of its kind twice as long.
	const newcomer = teach(
		common.newcomer,
		common.fixedNewcomer,
		[[common.teacher, 8, 41, 2 * RENDER_S]],
		renderTimes(5, 42, 'narrow').map((seconds) => ({
			label: `executions 1–5, one item each, after another workflow's renders of ${2 * RENDER_S} s`,
			renders: [seconds],
		})),
	);
	// A new workflow's batch of 40 after other workflows' renders of about 1, 2.5 and 6 s, and its second run.
	const mixed = teach(
		common.mixed,
		common.fixedMixed,
		[
			[common.mixed0, 10, 51, 0.4 * RENDER_S],
			[common.mixed1, 10, 52, RENDER_S],
			[common.mixed2, 10, 53, 2.4 * RENDER_S],
		],
		[
			{ label: 'run 1 after a mixed history', renders: renderTimes(40, 61, 'wide') },
			{ label: 'run 2', renders: renderTimes(40, 62, 'wide') },
		],
	);
	/**
	 * Once every case of `timed` ended (passed or not): the envelope's batches (about 150 tasks at once) would hold
	 * the process while one-item executions are timed. `after` runs after the newcomer case, as mixed does.
	 */
	return (timed: Cases, ...after: Array<[string, () => Promise<Row[]>]>): Cases => {
		const first = Promise.allSettled(timed.map(([, rows]) => rows)).then(newcomer);
		const later = [['mixed', mixed], ...after] as const;
		return [['newcomer', first], ...later.map(([name, run]): [string, Promise<Row[]>] => [name, first.then(run, run)])];
	};
}

/** The published ones among them (the Schedule Trigger workflow is published by its case). */
const published = (common: Common) =>
	Object.values(common)
		.filter((workflow) => workflow !== common.schedule)
		.map((workflow) => workflow.id);

/**
 * The cases both modes run, in the order they must start: the Wait case at once (it waits 70 s before its render),
 * then `warmUp` (what holds n8n's process for seconds when nothing else runs), then the batch's first run and editor
 * save (publishing holds the process for a moment), then the timed cases: a check delayed that long would be
 * learned as a render that long, and a creation's answer handled that late as a render that much shorter. The warm
 * case (a new workflow of single's kind) starts once single's fifth run taught the process the kind.
 */
function sharedCases(deployment: Deployment, world: DeploymentWorld, common: Common, warmUp: () => Promise<void>) {
	const url = world.simulatorUrl;
	const teach: Teach =
		(...spec) =>
		async () =>
			await taughtCase(deployment, url, ...spec);
	const guard = (workflow: Workflow) => otherNodeState(world.db, deployment.idOf(workflow.id));
	const wait = waitCase(deployment, url, common.wait, { waitS: WAIT_SECONDS, guard: guard(common.wait) });
	const batch = batchCase(deployment, url, common.batch, BATCH_ITEMS, 2, {
		guard: guard(common.batch),
		fixed: common.fixedBatch,
	});
	const warmedUp = warmUp();
	const ready = warmedUp.then(async () => await batch.start());
	const then = async (work: () => Promise<Row[]>) => await ready.then(work);
	let taught: () => void = () => undefined;
	const kindKnown = new Promise<void>((resolve) => (taught = resolve));
	const guardedCase = (workflow: Workflow, runs: SingleItemRuns) => async () =>
		await singleItemCase(deployment, url, workflow, { ...runs, guard: guard(workflow) });
	const single = then(guardedCase(common.single, { ...SINGLE, ran: (run) => run === SINGLE.warmUp && taught() }));
	const warm = Promise.race([kindKnown, single]).then(guardedCase(common.warm, WARM));
	return {
		url,
		guard,
		guardedCase,
		then,
		warmedUp,
		batch,
		wait,
		single,
		warm,
		fixed: async () => await singleItemCase(deployment, url, common.fixed, SINGLE),
		schedule: async () => await scheduleCase(deployment, url, common.schedule, SCHEDULE_RUNS, world.db),
		teach,
		envelope: envelopeCases(teach, common),
	};
}

/** Regular mode: the shared cases, and those that need no queue: the drops, renders slower, manual runs, the agent. */
function regularPlan(version: string, modelUrl: string): Plan {
	const common = commonWorkflows(version, '');
	const id = (name: string) => workflowId(version, name);
	// The drops (batch and one item per execution) and renders slower than taught.
	const drops = {
		drop: batchWorkflow(id('drop'), KINDS.drop),
		fixedDrop: batchWorkflow(id('fdrop'), KINDS.drop, 'fixed'),
		dropOne: singleItemWorkflow(id('dropone'), 'learned', KINDS.dropOne, DROP_ONE.intervalS),
		fixedDropOne: singleItemWorkflow(id('fdropone'), 'fixed', KINDS.dropOne, DROP_ONE.intervalS),
		slower: batchWorkflow(id('slower'), KINDS.slower),
		fixedSlower: batchWorkflow(id('fslower'), KINDS.slower, 'fixed'),
	};
	const agent = agentWorkflow(id('agent'));
	const manual = manualWorkflow(id('manual'), timedPrompt(RENDER_S, id('manual')), KINDS.manual);
	return {
		mode: 'regular',
		workflows: [...Object.values(common), ...Object.values(drops), manual, agent],
		publish: [...published(common), ...Object.values(drops).map((workflow) => workflow.id), agent.id],
		credentials: [agentModelCredential(modelUrl)],
		cases: (deployment, world) => {
			// What holds n8n's process for seconds goes first, alone: the agent's first execution (n8n loads the AI
			// Agent's modules then).
			const shared = sharedCases(deployment, world, common, async () => await warmUpAgent(deployment, agent));
			const { url, guard, then, teach } = shared;
			// Renders that drop: 15 s taught, then 6 s (Poll Interval 1 s, as everywhere here).
			const drop = teach(
				drops.drop,
				drops.fixedDrop,
				[],
				[
					{ label: 'run 1: renders of 15 s', renders: renderTimes(10, 22, 'narrow', 15) },
					{ label: 'run 2: renders drop to 6 s', renders: renderTimes(10, 23, 'narrow', 6) },
				],
			);
			// Renders three times slower than a batch's own run taught: 10 of RENDER_S / 3, then 10 of RENDER_S.
			const slower = teach(
				drops.slower,
				drops.fixedSlower,
				[[drops.slower, 10, 61, RENDER_S / 3]],
				[{ label: 'renders three times slower than taught', renders: renderTimes(10, 62, 'narrow') }],
			);
			const timed: Cases = [
				['single', shared.single],
				['warm', shared.warm],
				['fixed', then(shared.fixed)],
				['batch', shared.warmedUp.then(async () => await shared.batch.rest())],
				['drop', then(drop)],
				['drop-one', then(async () => await dropOneCase(deployment, url, drops.dropOne, drops.fixedDropOne, DROP_ONE))],
				['schedule', then(shared.schedule)],
				['manual', then(async () => await manualCase(deployment, url, manual, { ...MANUAL, guard: guard(manual) }))],
				['agent', then(shared.guardedCase(agent, { ...SINGLE, send: chatSender(deployment, agent) }))],
			];
			return [...timed, ['wait', shared.wait], ...shared.envelope(timed, ['slower', slower])];
		},
	};
}

/** Queue mode: the shared cases, a sub-workflow, and on n8n 2.x the RSS Feed Trigger across a restart of the main. */
function queuePlan(version: string, feedUrl: string): Plan {
	const common = commonWorkflows(version, 'q');
	const { sub, caller, publish } = subWorkflowPair(version, 'q', KINDS.subWorkflow);
	// n8n 2.x: its workers run executions without the saved static data; its RSS case restarts the main process.
	const rss = version.startsWith('1.') ? [] : [rssWorkflow(workflowId(version, 'qrss'), feedUrl, KINDS.rss)];
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
			const timed: Cases = [
				['single', shared.single],
				['warm', shared.warm],
				['fixed', then(shared.fixed)],
				['sub-workflow', then(subCase)],
				['batch', shared.batch.rest()],
				['schedule', then(shared.schedule)],
			];
			const cases = [...timed, ...shared.envelope(timed)];
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
		const plans = (version: string) => [regularPlan(version, world.modelUrl!), queuePlan(version, world.feed.url)];
		results = (await Promise.all(VERSIONS.map(async (v) => await runPlans(SCOPE, v, plans(v), world)))).flat();
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
