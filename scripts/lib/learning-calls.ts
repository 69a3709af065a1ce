/**
 * How the learning cases start executions and follow them: webhook calls that survive a loaded n8n, batch runs, and
 * runs with another node's state written again while under way (learning-static.ts).
 */
import type { Deployment } from './deployment';
import { timedPrompt } from './learning-measure';
import type { OtherNodeState, StateAfter } from './learning-static';
import type { Workflow } from './learning-workflows';
import { callWebhook as callN8nWebhook } from './n8n';
import { listExecutions } from './rest';
import { log } from './report';
import { simulatorTasks } from './simulator';
import { waitFor } from './wait';

/** The connection closed before n8n's answer came (the request may have arrived). */
const LOST = /UND_ERR_SOCKET|ECONNRESET|other side closed|socket hang up/;

/** How long an execution a lost call may have started takes at most to show in n8n's executions list. */
const SHOWS_WITHIN_MS = 30_000;

/**
 * Calls a workflow's production webhook; resolves when n8n answered (the execution ended). Again while nothing was
 * started: "503 Database is not ready!" (n8n refuses every request for a while after a database ping over 5 s, on a
 * loaded machine) or a refused connection (a main at load 8). A connection closed before the answer (`LOST`: beside
 * a CPU hog, nothing in n8n's log) may have started an execution, and calling again might run the case twice: the
 * executions list tells (followLost). Any other failure ends the case.
 */
export async function callWebhook(
	deployment: Deployment,
	workflow: Workflow,
	body: object,
	until = Date.now() + 120_000,
): Promise<void> {
	const path = workflow.webhookPath!;
	// Taking the call ends at n8n's answer or a lost connection (by `until`); following an execution is not held to it.
	const lost = await waitFor(
		async (see) => {
			const since = Date.now();
			try {
				await callN8nWebhook(deployment.server.url, path, body);
				return { answered: true } as const;
			} catch (error) {
				const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
				const message = `${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
				if (LOST.test(message)) return { since, message };
				if (!/HTTP 503\b.*Database is not ready/.test(message) && cause?.code !== 'ECONNREFUSED')
					throw new Error(`webhook ${path}: ${message}`);
				see(message.slice(0, 200));
				return false;
			}
		},
		{ deadline: Math.max(1000, until - Date.now()), describe: `n8n to take the call of ${path}`, interval: 1000 },
	);
	if ('answered' in lost) return;
	if (!(await followLost(deployment, workflow, lost.since, lost.message)))
		await callWebhook(deployment, workflow, body, until);
}

/** A call lost at `since`: true once the execution it started ended well, false if none showed; throws if it failed. */
async function followLost(
	deployment: Deployment,
	workflow: Workflow,
	since: number,
	message: string,
): Promise<boolean> {
	const workflowId = deployment.idOf(workflow.id);
	// The executions list's times are n8n's clock, this machine's: a second before the call allows for rounding.
	const ours = async () =>
		(await listExecutions(deployment.session, workflowId)).filter(
			(execution) => Date.parse(execution.startedAt ?? '') >= since - 1000,
		);
	const started = await waitFor(
		async (seen) => {
			const executions = await ours();
			if (executions.length) return executions;
			seen('none yet');
			return Date.now() - since > SHOWS_WITHIN_MS ? ('none' as const) : undefined;
		},
		{ deadline: SHOWS_WITHIN_MS + 60_000, describe: `an execution of ${workflow.id} after a lost call`, interval: 500 },
	);
	log(
		'learning',
		`webhook ${workflow.webhookPath}: ${message.slice(0, 120)}; ${started === 'none' ? 'it started no execution: called again' : `following execution ${started.map((e) => e.id).join(', ')}`}`,
	);
	if (started === 'none') return false;
	const ended = await waitFor(
		async (seen) => {
			const executions = await ours();
			seen(executions.map((execution) => `${execution.id} ${execution.status}`).join(', '));
			return executions.some((execution) => ['new', 'running'].includes(execution.status)) ? undefined : executions;
		},
		{ deadline: 600_000, describe: `the executions of ${workflow.id} after a lost call to end`, interval: 500 },
	);
	const failed = ended.filter((execution) => !['success', 'waiting'].includes(execution.status));
	if (failed.length)
		throw new Error(
			`webhook ${workflow.webhookPath}: ${message}; its execution ended ${failed.map((e) => `${e.id} ${e.status}`).join(', ')}`,
		);
	return true;
}

/**
 * Runs `start`, writes `guard` again once a task tagged ` <tag> ` exists (its execution loaded the static data
 * before) or the run ended, and reads it back once the run ended.
 */
export async function guarded(
	simulatorUrl: string,
	tag: string,
	guard: OtherNodeState | undefined,
	start: () => Promise<unknown>,
): Promise<StateAfter | undefined> {
	const run = start();
	let ended = false;
	void run.catch(() => undefined).then(() => (ended = true));
	if (guard) {
		await waitFor(
			async (see) => {
				if (ended) return true;
				const tasks = await simulatorTasks(simulatorUrl);
				see(`${tasks.length} tasks, none tagged ${tag}`);
				return tasks.some((task) => task.prompt?.includes(` ${tag} `));
			},
			{ deadline: 120_000, describe: `a task tagged ${tag}`, interval: 100 },
		);
		guard.advance();
	}
	await run;
	return guard?.check();
}

/** One batch run: `renders` as prompts in one webhook call (`calls` such calls at once). */
export async function batchRun(
	deployment: Deployment,
	workflow: Workflow,
	renders: number[],
	label: string,
	calls = 1,
): Promise<void> {
	const prompts = (call: number) =>
		renders.map((seconds, item) => timedPrompt(seconds, `${workflow.id} ${label}c${call} i${item}`));
	const run = async (_: unknown, call: number) => await callWebhook(deployment, workflow, { prompts: prompts(call) });
	await Promise.all(Array.from({ length: calls }, run));
}
