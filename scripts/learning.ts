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
 * - schedule (regular mode): a Schedule Trigger workflow, three runs;
 * - manual (regular mode): two manual runs from the editor, which n8n does not let keep anything;
 * - fixed (queue mode): the single case with Poll Schedule "Fixed Interval", beside it;
 * - sub-workflow (queue mode): the single case through Execute Workflow, the sub-workflow holding MediaGen.
 * Every figure comes from the simulator's record (learning-measure.ts): checks per task, the time after the
 * floor, whether each check fell on the Poll Interval grid; and from n8n's REST API, the static data it stored.
 * The expectations below say what must hold per version and mode; every table is printed before they are checked.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

import { ensureN8n, packPackage } from './lib/installer';
import { installedPackage, startDeployment, type Deployment, type QueueServices } from './lib/deployment';
import {
	batchCase,
	manualCase,
	scheduleCase,
	singleItemCase,
	RENDER_S,
	renderTimes,
	type Row,
} from './lib/learning-cases';
import { timedPrompt } from './lib/learning-measure';
import {
	batchWorkflow,
	manualWorkflow,
	scheduleWorkflow,
	singleItemWorkflow,
	subWorkflow,
	subWorkflowCaller,
	type Workflow,
} from './lib/learning-workflows';
import { logFolder } from './lib/paths';
import { runMain, stopProcess } from './lib/process';
import { log, stepTimer } from './lib/report';
import { ensureDebianPackages, POSTGRES_PACKAGE, REDIS_PACKAGE, startPostgres, startRedis } from './lib/services';
import { startSimulator } from './lib/simulator';

const SCOPE = 'learning';
const VERSIONS = (process.env.MEDIAGEN_LEARNING_VERSIONS ?? '2.41.1,1.123.81').split(',').filter(Boolean);
/** Added by the simulator to every answer: a remote API's round trip. */
const RTT_MS = 100;
const SINGLE_RUNS = 10;
const SINGLE_WARM_UP = 5;
const BATCH_ITEMS = 20;
const SCHEDULE_SECONDS = 12;
const SCHEDULE_RUNS = 3;

/** A case's rows, named by deployment and case. */
interface CaseResult {
	version: string;
	mode: 'regular' | 'queue';
	name: string;
	rows: Row[];
}

interface Plan {
	workflows: Workflow[];
	/** Workflow ids to publish (production triggers). */
	publish: string[];
	run: (deployment: Deployment, simulatorUrl: string) => Array<Promise<CaseResult>>;
}

/** Workflow ids of a version's deployments (the simulator serves both versions: prompts carry the ids). */
const ids = (version: string, name: string) => `${name}-v${version.split('.')[0]}`;

function regularPlan(version: string): Plan {
	const single = singleItemWorkflow(ids(version, 'single'), 'learned');
	const batch = batchWorkflow(ids(version, 'batch'));
	const scheduleId = ids(version, 'schedule');
	const schedulePrompts = renderTimes(10, 3, 'wide').map((seconds, item) =>
		timedPrompt(seconds, `${scheduleId} i${item}`),
	);
	const schedule = scheduleWorkflow(scheduleId, SCHEDULE_SECONDS, schedulePrompts);
	const manualId = ids(version, 'manual');
	const manual = manualWorkflow(manualId, timedPrompt(RENDER_S, manualId));
	const result = (name: string, rows: Promise<Row[]>) =>
		rows.then((list): CaseResult => ({ version, mode: 'regular', name, rows: list }));
	return {
		workflows: [single, batch, schedule, manual],
		publish: [single.id, batch.id, schedule.id],
		run: (deployment, url) => [
			result('single', singleItemCase(deployment, url, single, SINGLE_RUNS, SINGLE_WARM_UP, 1)),
			result('batch', batchCase(deployment, url, batch, BATCH_ITEMS, 2)),
			result('schedule', scheduleCase(deployment, url, schedule, SCHEDULE_RUNS)),
			result('manual', manualCase(deployment, url, manual, 2)),
		],
	};
}

function queuePlan(version: string): Plan {
	const single = singleItemWorkflow(ids(version, 'qsingle'), 'learned');
	const fixed = singleItemWorkflow(ids(version, 'qfixed'), 'fixed');
	const sub = subWorkflow(ids(version, 'qsub'));
	const caller = subWorkflowCaller(ids(version, 'qcaller'), sub.id);
	const batch = batchWorkflow(ids(version, 'qbatch'));
	const result = (name: string, rows: Promise<Row[]>) =>
		rows.then((list): CaseResult => ({ version, mode: 'queue', name, rows: list }));
	// n8n 2.x calls only published sub-workflows from production executions; 1.x cannot publish one without a trigger.
	const publishSub = version.startsWith('1.') ? [] : [sub.id];
	return {
		workflows: [single, fixed, sub, caller, batch],
		publish: [single.id, fixed.id, ...publishSub, caller.id, batch.id],
		run: (deployment, url) => [
			result('single', singleItemCase(deployment, url, single, SINGLE_RUNS, SINGLE_WARM_UP, 1)),
			result('fixed', singleItemCase(deployment, url, fixed, SINGLE_RUNS, SINGLE_WARM_UP, 1)),
			result('sub-workflow', singleItemCase(deployment, url, caller, SINGLE_RUNS, SINGLE_WARM_UP, 1, sub.id)),
			result('batch', batchCase(deployment, url, batch, BATCH_ITEMS, 2)),
		],
	};
}

const webhookPaths = (plan: Plan) =>
	plan.workflows
		.filter((workflow) => workflow.webhookPath && plan.publish.includes(workflow.id))
		.map((w) => w.webhookPath!);

async function runVersion(
	version: string,
	packageFolder: string,
	simulatorUrl: string,
	services: Omit<QueueServices, 'name'>,
): Promise<CaseResult[]> {
	const install = ensureN8n(version, SCOPE);
	const plans = { regular: regularPlan(version), queue: queuePlan(version) };
	const deployments = await Promise.all(
		(['regular', 'queue'] as const).map(
			async (mode) =>
				await startDeployment({
					install,
					packageFolder,
					simulatorUrl,
					workflows: plans[mode].workflows,
					publish: plans[mode].publish,
					webhookPaths: webhookPaths(plans[mode]),
					logDir: logFolder(`${SCOPE}-${version}-${mode}`),
					queue:
						mode === 'queue' ? { services: { ...services, name: version.replace(/\W/g, '') }, workers: 1 } : undefined,
				}),
		),
	);
	try {
		log(SCOPE, `n8n ${version}: regular mode at ${deployments[0].baseUrl}, queue mode at ${deployments[1].baseUrl}`);
		return await Promise.all([
			...plans.regular.run(deployments[0], simulatorUrl),
			...plans.queue.run(deployments[1], simulatorUrl),
		]);
	} finally {
		await Promise.all(deployments.map(async (deployment) => await deployment.stop()));
	}
}

const fixed2 = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '-');

function printTable(results: CaseResult[]): void {
	console.log(
		"\n| n8n | mode | case | runs | tasks | checks per task | after floor (I, per task) | last result after floor (I) | checks off the grid | stored times (bytes) | other nodes' data | node hints |",
	);
	console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
	for (const result of results)
		for (const row of result.rows) {
			const f = row.figures;
			const stored = row.stored ? `${row.stored.times} (${row.stored.bytes})${row.stored.valid ? '' : ' INVALID'}` : '';
			console.log(
				`| ${result.version} | ${result.mode} | ${result.name} | ${row.label} | ${f.tasks}${f.unseen ? ` (${f.unseen} unseen)` : ''} | ${fixed2(f.checks)} | ${fixed2(f.afterFloor)} | ${fixed2(f.runAfterFloor)} | ${f.offGrid} | ${stored} | ${row.stored ? (row.stored.others ? 'kept' : 'gone') : ''} | ${(row.hints ?? []).join(' / ')} |`,
			);
		}
}

/** What must hold of a case: [statement, holds] pairs. */
type Statement = [string, boolean];

/** Targets (Poll Interval 1 s, renders 2.5 s ± 10 %): the grid needs 3 checks per task, about 0.6 I after the floor. */
const LEARNED = { checks: 2.4, afterFloor: 0.25 };
const BATCH_LEARNED = { checks: 2.4, runAfterFloor: 0.35 };
/** The most the node keeps in a workflow's static data (about 16 KB per node, whatever the workflow does). */
const STORED_BYTES = 16 * 1024;

const find = (all: CaseResult[], like: CaseResult, name: string) =>
	all.find((other) => other.version === like.version && other.mode === like.mode && other.name === name);

/** Whether the static data of the workflow's other node survived its executions (learning-workflows.ts). */
function othersKept(rows: Row[], kept: boolean): Statement {
	const stored = rows[rows.length - 1].stored;
	return [
		`the other node's static data is ${kept ? 'kept' : "gone, replaced by the worker's save"} (${stored?.others ? 'kept' : 'gone'})`,
		stored?.others === kept,
	];
}

/** One item per execution, after the first runs: placed from what earlier executions learned. */
function learnsAcrossExecutions(rows: Row[]): Statement[] {
	const measured = rows[rows.length - 1];
	const { checks, afterFloor, unseen } = measured.figures;
	return [
		[`${measured.label}: every task finished (${unseen} not)`, unseen === 0],
		[`${measured.label}: ${checks.toFixed(2)} checks per task ≤ ${LEARNED.checks}`, checks <= LEARNED.checks],
		[
			`${measured.label}: ${afterFloor.toFixed(2)} I after the floor ≤ ${LEARNED.afterFloor} I`,
			afterFloor <= LEARNED.afterFloor,
		],
		[`the static data holds render times (${measured.stored?.times ?? 0})`, (measured.stored?.times ?? 0) > 0],
	];
}

/** One item per execution where n8n hands each execution no static data: exactly what Fixed Interval does. */
function behavesLikeTheGrid(rows: Row[], fixed: Row[] | undefined): Statement[] {
	if (!fixed) return [['the Fixed Interval case ran beside it', false]];
	return rows.map((row, index) => {
		const grid = fixed[index].figures;
		const { checks, offGrid } = row.figures;
		return [
			`${row.label}: every check on the grid like Fixed Interval (${offGrid} off it, Fixed Interval ${grid.offGrid}), ${checks.toFixed(2)} checks per task (Fixed Interval ${grid.checks.toFixed(2)})`,
			offGrid <= grid.offGrid + 1 && Math.abs(checks - grid.checks) <= 0.21,
		];
	});
}

/** The batch case: what an editor save, two runs at once and the next run do to what was learned. */
function batchStatements(rows: Row[], learns: boolean): Statement[] {
	const [first, afterSave, together, last] = rows;
	const statements: Statement[] = [
		[`every task of every run finished`, rows.every((row) => row.figures.unseen === 0)],
		[
			`the static data stays an object of at most ${STORED_BYTES} bytes (${rows.map((row) => row.stored?.bytes).join(', ')})`,
			rows.every((row) => row.stored?.valid && row.stored.bytes <= STORED_BYTES),
		],
	];
	if (!learns) return statements;
	for (const row of [afterSave, last])
		statements.push(
			[
				`${row.label}: ${row.figures.checks.toFixed(2)} checks per task ≤ ${BATCH_LEARNED.checks}`,
				row.figures.checks <= BATCH_LEARNED.checks,
			],
			[
				`${row.label}: its last result ${row.figures.runAfterFloor.toFixed(2)} I after its last render's end ≤ ${BATCH_LEARNED.runAfterFloor} I`,
				row.figures.runAfterFloor <= BATCH_LEARNED.runAfterFloor,
			],
		);
	statements.push(
		[
			`the editor save kept what run 1 learned (${first.stored?.times} times before, ${afterSave.stored?.times} after run 2)`,
			(afterSave.stored?.times ?? 0) > (first.stored?.times ?? 0),
		],
		[
			`after two runs at once the static data still holds render times (${together.stored?.times})`,
			(together.stored?.times ?? 0) > 0,
		],
	);
	return statements;
}

/**
 * Where learning persists (docs/waiting-and-output.md#poll-schedule): production executions in regular mode; in
 * queue mode on n8n 1.x, whose workers load the stored static data, but not on 2.x, whose workers start each new
 * execution with none; sub-workflows everywhere (the sub-workflow's static data is loaded with it). Manual runs
 * keep nothing, and the node says so.
 */
function expectations(result: CaseResult, all: CaseResult[]): Statement[] {
	const queue2 = result.mode === 'queue' && !result.version.startsWith('1.');
	switch (result.name) {
		case 'single':
			return queue2
				? [...behavesLikeTheGrid(result.rows, find(all, result, 'fixed')?.rows), othersKept(result.rows, false)]
				: [...learnsAcrossExecutions(result.rows), othersKept(result.rows, true)];
		case 'fixed':
			return [othersKept(result.rows, true)];
		case 'sub-workflow':
			return learnsAcrossExecutions(result.rows);
		case 'batch':
			return batchStatements(result.rows, !queue2);
		case 'schedule': {
			const last = result.rows[result.rows.length - 1];
			return [
				[`every run's tasks finished`, result.rows.every((row) => row.figures.unseen === 0 && row.figures.tasks > 0)],
				[
					`${last.label}: ${last.figures.checks.toFixed(2)} checks per task ≤ ${BATCH_LEARNED.checks}`,
					last.figures.checks <= BATCH_LEARNED.checks,
				],
				[
					`the static data kept every run's render times (${last.stored?.times} after ${result.rows.length} runs of ${last.figures.tasks})`,
					(last.stored?.times ?? 0) > last.figures.tasks,
				],
			];
		}
		case 'manual':
			return result.rows.flatMap((row): Statement[] => [
				[`${row.label}: nothing kept (${row.stored?.times} times stored)`, row.stored?.times === 0],
				[
					`${row.label}: the node says that manual runs keep nothing (${row.hints?.join(' / ') || 'no hint'})`,
					(row.hints ?? []).some((hint) => /manual/i.test(hint)),
				],
			]);
		default:
			return [];
	}
}

function evaluate(results: CaseResult[]): string[] {
	const failures: string[] = [];
	for (const result of results) {
		for (const [statement, holds] of expectations(result, results)) {
			log(SCOPE, `${holds ? 'ok  ' : 'FAIL'} n8n ${result.version} ${result.mode} ${result.name}: ${statement}`);
			if (!holds) failures.push(`n8n ${result.version} ${result.mode} ${result.name}: ${statement}`);
		}
	}
	return failures;
}

async function main(): Promise<void> {
	const { step, summary } = stepTimer();
	ensureDebianPackages(SCOPE, [POSTGRES_PACKAGE, REDIS_PACKAGE]);
	for (const version of VERSIONS) ensureN8n(version, SCOPE);
	step('system packages and n8n installs');
	const packageFolder = installedPackage(packPackage());
	step('build, pack and install the package');
	const simulator = await startSimulator({ taskDurationMs: RENDER_S * 1000, latencyMs: RTT_MS });
	const postgres = await startPostgres(SCOPE, 'n8n');
	const redis = await startRedis(SCOPE);
	step('simulator, postgres, redis');
	const results: CaseResult[] = [];
	try {
		// The versions run side by side: most of a case is waiting for renders, and the deployments' start-up (the
		// CPU-bound part) overlaps what the other version waits for.
		const perVersion = await Promise.all(
			VERSIONS.map(async (version) => await runVersion(version, packageFolder, simulator.url, { postgres, redis })),
		);
		results.push(...perVersion.flat());
		step(`n8n ${VERSIONS.join(' and ')}: both deployments each, every case`);
	} finally {
		await redis.stop();
		await postgres.stop();
		await stopProcess(simulator.child);
		log(SCOPE, summary());
	}
	printTable(results);
	// Kept for comparing runs (before and after a change): the rows of every case, as measured.
	writeFileSync(path.join(logFolder(SCOPE), 'results.json'), JSON.stringify(results, null, 1));
	const failures = evaluate(results);
	if (failures.length) throw new Error(`${failures.length} expectation(s) failed:\n${failures.join('\n')}`);
	log(SCOPE, `PASS: ${results.length} cases on n8n ${VERSIONS.join(' and ')}`);
}

runMain(SCOPE, main);
