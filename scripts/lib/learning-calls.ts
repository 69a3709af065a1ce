/**
 * How the learning cases start executions and follow them: a production webhook call (again while n8n's database
 * is not ready), a batch run of seeded renders in one call, and a run with another node's state written again
 * while it is under way (learning-static.ts), read back once it ended.
 */
import type { Deployment } from './deployment';
import { timedPrompt } from './learning-measure';
import type { OtherNodeState, StateAfter } from './learning-static';
import type { Workflow } from './learning-workflows';
import { callWebhook as callN8nWebhook } from './n8n';
import { simulatorTasks } from './simulator';
import { waitFor } from './wait';

/**
 * Calls a production webhook; again while nothing was started: n8n answers "503 Database is not ready!" (it refuses
 * every request, before handling it, for a while after one of its database pings took over 5 s: a machine loaded by
 * other work), or refused the connection (a main at load 8 that had not yet accepted it). Any other failure may have
 * started an execution, and a second call would run the case twice: it ends the case, its cause named.
 */
export async function callWebhook(baseUrl: string, webhookPath: string, body: object): Promise<void> {
	await waitFor(
		async (see) => {
			try {
				await callN8nWebhook(baseUrl, webhookPath, body);
				return true;
			} catch (error) {
				const cause = (error as Error & { cause?: { code?: string } }).cause?.code;
				const message = `${(error as Error).message}${cause ? ` (${cause})` : ''}`;
				if (!/HTTP 503\b.*Database is not ready/.test(message) && cause !== 'ECONNREFUSED')
					throw new Error(`webhook ${webhookPath}: ${message}`);
				see(message.slice(0, 200));
				return false;
			}
		},
		{ deadline: 120_000, describe: `n8n to take the call of ${webhookPath}`, interval: 1000 },
	);
}

/**
 * Resolves once the simulator has a task whose prompt holds ` <tag> ` (the run is under way: its execution loaded
 * the static data before), or when `run` ended first.
 */
async function underway(simulatorUrl: string, tag: string, run: Promise<unknown>): Promise<void> {
	let ended = false;
	const settled = run.then(
		() => (ended = true),
		() => (ended = true),
	);
	await Promise.race([
		settled,
		waitFor(
			async (see) => {
				if (ended) return true;
				const tasks = await simulatorTasks(simulatorUrl);
				see(`${tasks.length} tasks, none tagged ${tag}`);
				return tasks.some((task) => task.prompt?.includes(` ${tag} `));
			},
			{ deadline: 120_000, describe: `a task tagged ${tag}`, interval: 100 },
		),
	]);
}

/**
 * Runs `start` with another node's state written again while it is under way (`guard`), and reads the database
 * once it ended: the state after the run.
 */
export async function guarded(
	simulatorUrl: string,
	tag: string,
	guard: OtherNodeState | undefined,
	start: () => Promise<unknown>,
): Promise<StateAfter | undefined> {
	const run = start();
	if (guard) {
		await underway(simulatorUrl, tag, run);
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
	await Promise.all(
		Array.from(
			{ length: calls },
			async (_, call) =>
				await callWebhook(deployment.baseUrl, workflow.webhookPath!, {
					prompts: renders.map((seconds, item) => timedPrompt(seconds, `${workflow.id} ${label}c${call} i${item}`)),
				}),
		),
	);
}
