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
 * - fixed (queue mode): the single case with Poll Schedule "Fixed Interval", beside it;
 * - sub-workflow (queue mode): the single case through Execute Workflow, the sub-workflow holding MediaGen.
 * Every figure comes from the simulator's record (learning-measure.ts): checks per task, the time after the
 * floor, whether each check fell on the Poll Interval grid; and from n8n's REST API, the static data it stored
 * (the MediaGen node's, and whether the Schedule Trigger's own survived).
 * The expectations below say what must hold per version and mode; every table is printed before they are checked.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

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
import { runPlans, startWorld, type CaseResult, type Plan } from './lib/learning-run';
import {
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
const SINGLE_RUNS = 10;
const SINGLE_WARM_UP = 5;
const BATCH_ITEMS = 20;
const SCHEDULE_SECONDS = 12;
const SCHEDULE_RUNS = 3;

/** The Schedule Trigger workflow: 10 seeded renders (wide), each prompt tagged with the workflow's id. */
function scheduleOf(id: string): Workflow {
	const prompts = renderTimes(10, 3, 'wide').map((seconds, item) => timedPrompt(seconds, `${id} i${item}`));
	return scheduleWorkflow(id, SCHEDULE_SECONDS, prompts);
}

function regularPlan(version: string): Plan {
	const single = singleItemWorkflow(workflowId(version, 'single'), 'learned');
	const batch = batchWorkflow(workflowId(version, 'batch'));
	const schedule = scheduleOf(workflowId(version, 'schedule'));
	const manualId = workflowId(version, 'manual');
	const manual = manualWorkflow(manualId, timedPrompt(RENDER_S, manualId));
	return {
		mode: 'regular',
		workflows: [single, batch, schedule, manual],
		publish: [single.id, batch.id, schedule.id],
		cases: (deployment, url) => [
			['single', singleItemCase(deployment, url, single, SINGLE_RUNS, SINGLE_WARM_UP, 1)],
			['batch', batchCase(deployment, url, batch, BATCH_ITEMS, 2)],
			['schedule', scheduleCase(deployment, url, schedule, SCHEDULE_RUNS)],
			['manual', manualCase(deployment, url, manual, 2)],
		],
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
		publish: [single.id, fixed.id, ...publish, batch.id, schedule.id],
		cases: (deployment, url) => [
			['single', singleItemCase(deployment, url, single, SINGLE_RUNS, SINGLE_WARM_UP, 1)],
			['fixed', singleItemCase(deployment, url, fixed, SINGLE_RUNS, SINGLE_WARM_UP, 1)],
			['sub-workflow', singleItemCase(deployment, url, caller, SINGLE_RUNS, SINGLE_WARM_UP, 1, sub.id)],
			['batch', batchCase(deployment, url, batch, BATCH_ITEMS, 2)],
			['schedule', scheduleCase(deployment, url, schedule, SCHEDULE_RUNS)],
		],
	};
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

/** Whether the Schedule Trigger's own static data survived the workflow's executions (learning-workflows.ts). */
function othersKept(rows: Row[], kept: boolean): Statement {
	const stored = rows[rows.length - 1].stored;
	return [
		`the Schedule Trigger's static data is ${kept ? 'kept' : "gone, replaced by the worker's save"} (${stored?.others ? 'kept' : 'gone'})`,
		stored?.others === kept,
	];
}

/**
 * The Schedule Trigger case: each run learns from the ones before, and the trigger's own static data survives
 * them; on n8n 2.x queue-mode workers neither holds (each run starts with no static data, and its save replaces
 * the trigger's).
 */
function scheduleStatements(rows: Row[], learns: boolean): Statement[] {
	const last = rows[rows.length - 1];
	const statements: Statement[] = [
		[`every run's tasks finished`, rows.every((row) => row.figures.unseen === 0 && row.figures.tasks > 0)],
		othersKept(rows, learns),
	];
	if (!learns)
		return [
			...statements,
			[
				`the static data holds the last run's render times only (${last.stored?.times} after ${rows.length} runs of ${last.figures.tasks})`,
				(last.stored?.times ?? 0) <= last.figures.tasks,
			],
		];
	return [
		...statements,
		[
			`${last.label}: ${last.figures.checks.toFixed(2)} checks per task ≤ ${BATCH_LEARNED.checks}`,
			last.figures.checks <= BATCH_LEARNED.checks,
		],
		[
			`the static data kept every run's render times (${last.stored?.times} after ${rows.length} runs of ${last.figures.tasks})`,
			(last.stored?.times ?? 0) > last.figures.tasks,
		],
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
				? behavesLikeTheGrid(result.rows, find(all, result, 'fixed')?.rows)
				: learnsAcrossExecutions(result.rows);
		case 'sub-workflow':
			return learnsAcrossExecutions(result.rows);
		case 'batch':
			return batchStatements(result.rows, !queue2);
		case 'schedule':
			return scheduleStatements(result.rows, !queue2);
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
	const world = await startWorld(SCOPE, VERSIONS, RENDER_S * 1000);
	step('system packages, n8n installs, the package, simulator, postgres, redis');
	let results: CaseResult[];
	try {
		// The versions run side by side: most of a case is waiting for renders, and the deployments' start-up (the
		// CPU-bound part) overlaps what the other version waits for.
		const perVersion = await Promise.all(
			VERSIONS.map(
				async (version) => await runPlans(SCOPE, version, [regularPlan(version), queuePlan(version)], world),
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
	const failures = evaluate(results);
	if (failures.length) throw new Error(`${failures.length} expectation(s) failed:\n${failures.join('\n')}`);
	log(SCOPE, `PASS: ${results.length} cases on n8n ${VERSIONS.join(' and ')}`);
}

runMain(SCOPE, main);
