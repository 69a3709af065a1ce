/**
 * The learning cases whose executions n8n starts or resumes itself (scripts/learning.ts), each reading what the
 * workflow's static data held after its runs (learning-static.ts): the trigger's own state, or another node's.
 */
import type { Deployment } from './deployment';
import type { FeedServer } from './feed-server';
import { callWebhook } from './learning-calls';
import { figures, taskRecords, timedPrompt } from './learning-measure';
import { measured, ofExecution, RENDER_S, tagged, type Row } from './learning-rows';
import { stateOf, type OtherNodeState, type StateAfter, type StaticDataDb } from './learning-static';
import { MANUAL_TRIGGER, MEDIAGEN, RSS_TRIGGER, type Workflow } from './learning-workflows';
import {
	activateWorkflow,
	getExecution,
	listExecutions,
	restJson,
	waitForExecution,
	type ExecutionRecord,
} from './rest';
import { simulatorTasks } from './simulator';
import { waitFor } from './wait';

type Listed = Array<Omit<ExecutionRecord, 'data'>>;

/** Lists a workflow's executions (newest first) until `enough` returns what to wait for (a failed list: again). */
async function executionsUntil<T>(
	deployment: Deployment,
	workflowId: string,
	what: string,
	deadline: number,
	enough: (listed: Listed) => T | undefined,
): Promise<T> {
	return await waitFor(
		async (see) => {
			const listed = await listExecutions(deployment.session, workflowId).catch((error: Error) => {
				see(`the executions list did not answer (${error.message.slice(0, 200)})`);
				return undefined;
			});
			if (!listed) return undefined;
			see(listed.map((execution) => `${execution.id} ${execution.status}`).join(', ') || 'no execution');
			return enough(listed);
		},
		{ deadline, describe: what, interval: 500 },
	);
}

/**
 * A Schedule Trigger workflow published until `runs` executions ended; a row per run (its prompts carry the
 * execution id). The trigger saves its own state in the static data whenever it fires: the last row reads it.
 */
export async function scheduleCase(
	deployment: Deployment,
	simulatorUrl: string,
	workflow: Workflow,
	runs: number,
	db: StaticDataDb,
): Promise<Row[]> {
	const workflowId = deployment.idOf(workflow.id);
	await activateWorkflow(deployment.session, workflowId);
	const what = `${runs} Schedule Trigger executions to end`;
	const ended = await executionsUntil(deployment, workflowId, what, 60_000 * runs, (listed) => {
		const done = listed.filter((execution) => execution.stoppedAt);
		return done.length >= runs ? done : undefined;
	});
	await restJson(deployment.session, `/workflows/${workflowId}/deactivate`, {});
	const ids = ended.map((execution) => execution.id).sort((a, b) => Number(a) - Number(b));
	const tasks = await taskRecords(simulatorUrl);
	const data = db.read(workflowId);
	const trigger = data['node:Schedule Trigger'];
	const state = stateOf(data, trigger && typeof trigger === 'object' && Object.keys(trigger).length ? 'kept' : 'wiped');
	return ids.slice(0, runs).map((id, index) => ({
		label: `run ${index + 1} (execution ${id})`,
		...measured(ofExecution(tasks, workflow, id)),
		...(index === runs - 1 ? { states: [state] } : {}),
	}));
}

/** Starts a manual run as the editor's "Execute workflow" does (n8n 1.x sends the workflow, 2.x names the trigger). */
async function runManually(deployment: Deployment, workflowId: string): Promise<string> {
	const trigger = { triggerToStartFrom: { name: MANUAL_TRIGGER } };
	let body: object = trigger;
	if (deployment.install.recipe.n8n.startsWith('1.')) {
		const { staticData: _omitted, ...workflowData } = await restJson<Record<string, unknown>>(
			deployment.session,
			`/workflows/${workflowId}`,
		);
		body = { ...trigger, workflowData };
	}
	const started = await restJson<{ executionId?: string }>(deployment.session, `/workflows/${workflowId}/run`, body);
	if (!started.executionId) throw new Error(`the manual run did not start: ${JSON.stringify(started)}`);
	return started.executionId;
}

/** A manual workflow run `runs` times; rows: the first `warmUp` runs, the others, with the node's editor hints. */
export async function manualCase(
	deployment: Deployment,
	simulatorUrl: string,
	workflow: Workflow,
	{ runs, warmUp, guard }: { runs: number; warmUp: number; guard: OtherNodeState },
): Promise<Row[]> {
	const workflowId = deployment.idOf(workflow.id);
	const done: Array<{ id: string; status: string; hints: string[]; state: StateAfter }> = [];
	guard.advance();
	for (let run = 1; run <= runs; run++) {
		const id = await runManually(deployment, workflowId);
		const ended = await waitForExecution(() => deployment.session, workflowId, {
			which: id,
			wanted: (status) => status !== 'running' && status !== 'new',
			what: `manual run ${id} to end`,
		});
		const execution = await getExecution(deployment.install, deployment.session, id);
		const nodeRuns = execution.data.resultData.runData[MEDIAGEN] as Array<{ hints?: Array<{ message: string }> }>;
		done.push({
			id,
			status: ended.status,
			hints: (nodeRuns?.[0]?.hints ?? []).map((hint) => hint.message),
			state: guard.check(),
		});
	}
	const tasks = await taskRecords(simulatorUrl);
	const row = (from: number, to: number): Row => {
		const chosen = done.slice(from - 1, to);
		return {
			label: `manual runs ${from}–${to} (executions ${chosen.map((run) => `${run.id} ${run.status}`).join(', ')})`,
			...measured(chosen.flatMap((run) => ofExecution(tasks, workflow, run.id))),
			states: chosen.map((run) => run.state),
			hints: [...new Set(chosen.flatMap((run) => run.hints))],
		};
	};
	return [row(1, warmUp), row(warmUp + 1, runs)];
}

/** Every execution of a workflow has ended; at least `count` of them (newest first). */
const allEnded = (count: number) => (listed: Listed) =>
	listed.length >= count && listed.every((execution) => execution.stoppedAt && execution.status !== 'waiting')
		? listed
		: undefined;

/**
 * Webhook → Wait (parked in the database) → MediaGen: the other node's state is written again while the execution
 * waits (its snapshot was taken before); once the resumed execution ended, the database must hold the last value.
 */
export async function waitCase(
	deployment: Deployment,
	simulatorUrl: string,
	workflow: Workflow,
	{ waitS, guard }: { waitS: number; guard: OtherNodeState },
): Promise<Row[]> {
	const workflowId = deployment.idOf(workflow.id);
	const tag = `${workflow.id} w1`;
	guard.advance();
	await callWebhook(deployment, workflow, { prompt: timedPrompt(RENDER_S, `${tag} `) });
	const parked = await waitForExecution(() => deployment.session, workflowId, {
		wanted: (status) => status === 'waiting',
		what: `the execution of ${workflow.id} to wait`,
	});
	guard.advance();
	const ended = await waitForExecution(() => deployment.session, workflowId, {
		which: parked.id,
		deadline: (waitS + 300) * 1000,
		what: `execution ${parked.id} of ${workflow.id} to resume and end`,
	});
	const state = guard.check();
	return [
		{
			label: `resumed after a ${waitS} s Wait (execution ${ended.id}, ${ended.status})`,
			figures: figures(tagged(await taskRecords(simulatorUrl), tag)),
			states: [state],
			note: ended.status,
		},
	];
}

/**
 * RSS Feed Trigger → MediaGen in queue mode, across a restart of the main process, which keeps the trigger's cursor
 * (the newest item's date) in its copy of the static data, saved when it emits, read back from the database on start.
 * 1. An old item's date is written as the cursor, then the workflow published: its first poll emits A1 and A2.
 * 2. Once `othersDone`, the main stops; while it is down B1, B2 and a sentinel dated an hour ahead (S: any first poll
 *    emits it) are published; the restarted main's first poll emits what is newer than the cursor it reads.
 * Rows: each phase, with the cursor after it; the note says how often each item was rendered: once, the old one never.
 */
export async function rssCase(
	deployment: Deployment,
	simulatorUrl: string,
	workflow: Workflow,
	{ feed, db, othersDone }: { feed: FeedServer; db: StaticDataDb; othersDone: Promise<unknown> },
): Promise<Row[]> {
	const workflowId = deployment.idOf(workflow.id);
	const title = (name: string) => timedPrompt(RENDER_S, `${workflow.id} ${name} `);
	const old = feed.publish(title('X0'), new Date(Date.now() - 3_600_000));
	feed.publish(title('A1'));
	const a2 = feed.publish(title('A2'));
	const key = `node:${RSS_TRIGGER}`;
	db.write(workflowId, { ...db.read(workflowId), [key]: { lastItemDate: old.date.toISOString() } });
	const cursor = (expected: Date): StateAfter => {
		const data = db.read(workflowId);
		const stored = (data[key] as { lastItemDate?: string } | undefined)?.lastItemDate;
		return stateOf(
			data,
			stored === undefined ? 'wiped' : Date.parse(stored) === expected.getTime() ? 'kept' : 'put back',
		);
	};
	const creations = async (name: string) =>
		(await simulatorTasks(simulatorUrl)).filter((task) => task.prompt?.includes(` ${workflow.id} ${name} `)).length;
	const emitted = async (names: string[], deadline: number, describe: string) =>
		await waitFor(
			async (see) => {
				const seen = await Promise.all(names.map(creations));
				see(`${names.join(', ')} created ${seen.join(', ')} times`);
				return seen.every((count) => count > 0);
			},
			{ deadline, describe, interval: 250 },
		);

	await activateWorkflow(deployment.session, workflowId);
	await emitted(['A1', 'A2'], 180_000, `the trigger of ${workflow.id} to emit A1 and A2`);
	await executionsUntil(deployment, workflowId, `the execution of A1 and A2 to end`, 180_000, allEnded(1));
	const afterA = cursor(a2.date);

	await othersDone.catch(() => undefined);
	let sentinel = a2;
	await deployment.restart('SIGTERM', deployment.logFile, () => {
		feed.publish(title('B1'));
		feed.publish(title('B2'));
		sentinel = feed.publish(title('S'), new Date(Date.now() + 3_600_000));
	});
	await emitted(['S'], 240_000, `the first poll after the restart to emit S`);
	const what = `the executions after the restart to end`;
	const executions = await executionsUntil(deployment, workflowId, what, 240_000, allEnded(2));
	const afterRestart = cursor(sentinel.date);

	const names = ['X0', 'A1', 'A2', 'B1', 'B2', 'S'];
	const counts = await Promise.all(names.map(async (name) => [name, await creations(name)] as const));
	const tasks = await taskRecords(simulatorUrl);
	const phase = (list: string[]) => list.flatMap((name) => tagged(tasks, `${workflow.id} ${name}`));
	const note = `rendered ${counts.map(([name, count]) => `${name} ×${count}`).join(', ')}; ${executions.length} executions`;
	return [
		{ label: 'A1, A2 before the restart', figures: figures(phase(['A1', 'A2'])), states: [afterA] },
		{
			label: 'B1, B2 (published while the main was down) and S after it',
			figures: figures(phase(['B1', 'B2', 'S'])),
			states: [afterRestart],
			note,
			items: Object.fromEntries(counts),
		},
	];
}
