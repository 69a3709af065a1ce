/**
 * The learning suite's cases (scripts/learning.ts; the bench's queue-mode row runs the single-item ones): each
 * starts executions in a running deployment the way users start them and returns what the simulator saw of
 * their tasks (learning-measure.ts) and what the deployment's database held of the workflow's static data after
 * each run (learning-static.ts: another node's state, written there while n8n runs). The cases only drive and
 * measure; the suite states what must hold.
 */
import type { Deployment } from './deployment';
import type { FeedServer } from './feed-server';
import { figures, seeded, taskRecords, timedPrompt, type RunFigures, type TaskRecord } from './learning-measure';
import type { OtherNodeState, StateAfter, StaticDataDb } from './learning-static';
import { AGENT_TOOL, MANUAL_TRIGGER, MEDIAGEN, RSS_TRIGGER, type Workflow } from './learning-workflows';
import type { ModelScript } from './model-server';
import { callWebhook as callN8nWebhook } from './n8n';
import {
	activateWorkflow,
	getExecution,
	listExecutions,
	restJson,
	restPost,
	restRequest,
	waitForExecution,
	type ExecutionRecord,
} from './rest';
import { simulatorTasks } from './simulator';
import { waitFor } from './wait';

/**
 * Calls a production webhook; while n8n answers "503 Database is not ready!" (it refuses every request, before
 * handling it, for a while after one of its database pings took over 5 s: a machine loaded by other work), again.
 */
async function callWebhook(baseUrl: string, webhookPath: string, body: object): Promise<void> {
	await waitFor(
		async (see) => {
			try {
				await callN8nWebhook(baseUrl, webhookPath, body);
				return true;
			} catch (error) {
				const message = (error as Error).message;
				if (!/HTTP 503\b.*Database is not ready/.test(message)) throw error;
				see(message.slice(0, 200));
				return false;
			}
		},
		{ deadline: 120_000, describe: `n8n to take the call of ${webhookPath}`, interval: 1000 },
	);
}

/** Render time of every case, in seconds; each render is drawn from [SPREAD_LOW, SPREAD_HIGH] × this. */
export const RENDER_S = 2.5;

/** Renders "narrow" (0.9–1.1 × `around`) or "wide" (0.6–1.4), drawn from a seeded generator. */
export function renderTimes(count: number, seed: number, spread: 'narrow' | 'wide', around = RENDER_S): number[] {
	const random = seeded(seed);
	const [low, high] = spread === 'narrow' ? [0.9, 1.1] : [0.6, 1.4];
	return Array.from({ length: count }, () => around * (low + (high - low) * random()));
}

/** One row of a case: a run (or runs taken together), its figures and what the static data held after each run. */
export interface Row {
	label: string;
	figures: RunFigures;
	/** After each run of the row, what the workflow's saved static data held (learning-static.ts). */
	states?: StateAfter[];
	/** Execution hints the node gave in the editor's output panel (manual runs). */
	hints?: string[];
	/** What else the row found (an execution's status, items rendered), for the table. */
	note?: string;
	/** How many times each item was rendered (the simulator's creations), by name (rssCase). */
	items?: Record<string, number>;
	/** Per task, its render time and when each check reached the API, in ms from its creation (results.json). */
	detail?: Array<{ render: number; checks: number[] }>;
	/** The Poll Interval of the row's runs, when not the suite's (INTERVAL_S). */
	intervalS?: number;
}

const detail = (tasks: TaskRecord[]) =>
	tasks.map((task) => ({
		render: task.doneAt - task.createdAt,
		checks: task.checks.map((at) => at - task.createdAt),
	}));

/** The tasks of one execution of a workflow whose prompts end with its execution id. */
const ofExecution = (tasks: TaskRecord[], workflow: Workflow, id: string) =>
	tasks.filter((task) => task.prompt.includes(` ${workflow.id} `) && task.prompt.endsWith(`(execution ${id})`));

const tagged = (tasks: TaskRecord[], tag: string) => tasks.filter((task) => task.prompt.includes(` ${tag} `));

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
async function guarded(
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

/** How many executions of one item, which seed draws their renders, and how each is started. */
export interface SingleItemRuns {
	runs: number;
	/** The first runs, reported apart: history builds up in them. */
	warmUp: number;
	seed: number;
	/** Another node's state in the static data of the workflow that holds the MediaGen node (a sub-workflow's). */
	guard?: OtherNodeState;
	/** Starts one execution with `prompt` and resolves when it ended (default: the workflow's webhook). */
	send?: (prompt: string, run: number) => Promise<void>;
	/** Told after each run ended (its number). */
	ran?: (run: number) => void;
}

/**
 * Starts a one-item workflow `runs` times, one execution after the other (each call answers when its execution
 * ends). Rows: the first `warmUp` runs, then the others together.
 */
export async function singleItemCase(
	deployment: Deployment,
	simulatorUrl: string,
	workflow: Workflow,
	{ runs, warmUp, seed, guard, send, ran }: SingleItemRuns,
): Promise<Row[]> {
	const renders = renderTimes(runs, seed, 'narrow');
	const start =
		send ?? (async (prompt: string) => await callWebhook(deployment.baseUrl, workflow.webhookPath!, { prompt }));
	guard?.advance();
	const states: StateAfter[] = [];
	for (let run = 1; run <= runs; run++) {
		const tag = `${workflow.id} r${run}`;
		const state = await guarded(
			simulatorUrl,
			tag,
			guard,
			async () => await start(timedPrompt(renders[run - 1], `${tag} `), run),
		);
		if (state) states.push(state);
		ran?.(run);
	}
	const tasks = await taskRecords(simulatorUrl);
	const runTasks = (from: number, to: number) =>
		Array.from({ length: to - from + 1 }, (_, index) => tagged(tasks, `${workflow.id} r${from + index}`)).flat();
	const row = (from: number, to: number): Row => ({
		label: `runs ${from}–${to}`,
		figures: figures(runTasks(from, to)),
		...(guard ? { states: states.slice(from - 1, to) } : {}),
		detail: detail(runTasks(from, to)),
	});
	return runs > warmUp ? [row(1, warmUp), row(warmUp + 1, runs)] : [row(1, runs)];
}

/**
 * The agent example asked for a picture again and again, each chat message in a session of its own: the model
 * (the model server, agentModel) calls the MediaGen tool once with the message as its prompt, so each execution
 * is one tool call of one item.
 */
export async function agentCase(
	deployment: Deployment,
	simulatorUrl: string,
	workflow: Workflow,
	runs: Omit<SingleItemRuns, 'send'>,
): Promise<Row[]> {
	return await singleItemCase(deployment, simulatorUrl, workflow, { ...runs, send: chatSender(deployment, workflow) });
}

/** Sends one chat message to the agent workflow in a session of its own; resolves with the answer. */
function chatSender(deployment: Deployment, workflow: Workflow) {
	const chatUrl = `${deployment.baseUrl}/webhook/${workflow.chatId}/chat`;
	return async (chatInput: string, run: number | string) => {
		const response = await fetch(chatUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ action: 'sendMessage', sessionId: `${workflow.id}-${run}`, chatInput }),
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`chat ${workflow.id} answered HTTP ${response.status}: ${text.slice(0, 300)}`);
	};
}

/**
 * Waits until the agent workflow's chat answers, then chats once (a prompt no case counts): n8n loads the AI
 * Agent's modules at the first execution, which holds its process for seconds.
 */
export async function warmUpAgent(deployment: Deployment, workflow: Workflow): Promise<void> {
	const chatUrl = `${deployment.baseUrl}/webhook/${workflow.chatId}/chat`;
	await waitFor(
		async (see) => {
			const status = await fetch(chatUrl)
				.then((response) => response.status)
				.catch(() => 0);
			see(`HTTP ${status}`);
			return status === 200;
		},
		{ deadline: 120_000, describe: `the chat of ${workflow.id} to be registered`, interval: 500 },
	);
	// A render of the case's kind and time: the warm-up is a production execution, and what it learns is history.
	await chatSender(deployment, workflow)(timedPrompt(RENDER_S, `${workflow.id} warm-up `), 'warm-up');
}

/**
 * One untimed execution of a Fixed Interval one-item workflow (which learns nothing), so that what n8n loads at a
 * process's first execution does not hold the timed ones.
 */
export async function warmUpWorker(deployment: Deployment, fixed: Workflow): Promise<void> {
	await callWebhook(deployment.baseUrl, fixed.webhookPath!, { prompt: timedPrompt(0.5, `${fixed.id} warm-up `) });
}

/** The model's script for agentCase: call the MediaGen tool with the user's message as the prompt, then answer. */
export const agentModel: ModelScript = (request) =>
	request.toolResults.length
		? { text: 'Here is your picture.' }
		: {
				call: {
					name: AGENT_TOOL,
					arguments: {
						prompt: request.userMessages[request.userMessages.length - 1] ?? '',
						count: 1,
						aspectRatio: '1:1',
						referenceImageUrl: '',
					},
				},
			};

/** One batch run: `renders` as prompts in one webhook call (`calls` such calls at once). */
async function batchRun(
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

/** The tasks of a batch run (`batchRun`'s label) of a workflow. */
const ofBatch = (tasks: TaskRecord[], workflow: Workflow, label: string) =>
	tasks.filter((task) => task.prompt.includes(` ${workflow.id} ${label}c`));

/**
 * A batch workflow's life: run 1 (nothing learned of its kind: cold), an editor save, run 2, two runs at once,
 * runs 4 and 5. Every run has the same seeded renders (wide: 0.6–1.4 × RENDER_S). With `fixed`, a Fixed Interval
 * batch workflow runs run 1's renders at the same time: the grid the cold run is compared with. `start` runs run 1
 * and the save; the case's other runs wait for it (a deployment may start them before its other cases: publishing
 * the saved version holds n8n 2.x's main process for a moment, which would delay the checks of executions it runs
 * meanwhile).
 */
export class BatchCase {
	private readonly renders: number[];

	private readonly rows: Array<{ label: string; tag: string; state?: StateAfter; workflow: Workflow }> = [];

	private started?: Promise<void>;

	constructor(
		private readonly deployment: Deployment,
		private readonly simulatorUrl: string,
		private readonly workflow: Workflow,
		count: number,
		seed: number,
		private readonly options: { guard?: OtherNodeState; fixed?: Workflow } = {},
	) {
		this.renders = renderTimes(count, seed, 'wide');
	}

	private async step(label: string, tag: string, calls = 1): Promise<void> {
		const { guard, fixed } = this.options;
		const state = await guarded(this.simulatorUrl, `${this.workflow.id} ${tag}c0`, guard, async () => {
			await Promise.all([
				batchRun(this.deployment, this.workflow, this.renders, tag, calls),
				...(fixed && tag === 'r1' ? [batchRun(this.deployment, fixed, this.renders, tag)] : []),
			]);
		});
		this.rows.push({ label, tag, state, workflow: this.workflow });
		if (fixed && tag === 'r1')
			this.rows.push({ label: 'run 1 of Fixed Interval, the same renders at once', tag, workflow: fixed });
	}

	private get id(): string {
		return this.deployment.idOf(this.workflow.id);
	}

	/** Run 1, then the editor save. */
	async start(): Promise<void> {
		this.started ??= (async () => {
			this.options.guard?.advance();
			await this.step('run 1 (cold)', 'r1');
			await editorSave(this.deployment, this.id);
		})();
		await this.started;
	}

	/** The runs after the save; the rows of all of them. */
	async rest(): Promise<Row[]> {
		await this.start();
		await this.step('run 2, after an editor save', 'r2');
		await this.step('runs 3a + 3b, at once', 'r3', 2);
		await this.step('run 4', 'r4');
		await this.step('run 5', 'r5');
		const tasks = await taskRecords(this.simulatorUrl);
		return this.rows.map(({ label, tag, state, workflow }) => ({
			label,
			figures: figures(ofBatch(tasks, workflow, tag)),
			...(state ? { states: [state] } : {}),
			detail: detail(ofBatch(tasks, workflow, tag)),
		}));
	}
}

/**
 * Renders that drop: a learned batch workflow and a Fixed Interval one run the same renders at the same time,
 * `taught` runs of renders around `fromS`, then one run of renders around `toS` (each ± 10 %). Rows: the taught
 * runs, then the drop run, each learned then fixed.
 */
export async function dropCase(
	deployment: Deployment,
	simulatorUrl: string,
	learned: Workflow,
	fixed: Workflow,
	{ count, fromS, toS, taught, seed }: { count: number; fromS: number; toS: number; taught: number; seed: number },
): Promise<Row[]> {
	const labels: Array<[label: string, tag: string]> = [];
	for (let run = 1; run <= taught + 1; run++) {
		const drop = run > taught;
		const renders = renderTimes(count, seed + run, 'narrow', drop ? toS : fromS);
		const tag = `d${run}`;
		await Promise.all([learned, fixed].map(async (workflow) => await batchRun(deployment, workflow, renders, tag)));
		labels.push([drop ? `run ${run}: renders drop to ${toS} s` : `run ${run}: renders of ${fromS} s`, tag]);
	}
	const tasks = await taskRecords(simulatorUrl);
	const row = (label: string, workflow: Workflow, tag: string): Row => ({
		label,
		figures: figures(ofBatch(tasks, workflow, tag)),
		detail: detail(ofBatch(tasks, workflow, tag)),
	});
	return labels.flatMap(([label, tag]) => [
		row(`${label}, learned`, learned, tag),
		row(`${label}, Fixed Interval`, fixed, tag),
	]);
}

/**
 * Renders that drop, one item per execution: a learned one-item workflow and a Fixed Interval one are called at
 * the same time with the same render, `taught` executions of renders around `fromS` (± 10 %), then `drops` of
 * `toS`; their Poll Interval is `intervalS` (the case's times are scaled down with it). Rows: the taught
 * executions, then the drop's, each learned then fixed; figures in the case's Poll Intervals.
 */
export async function dropOneCase(
	deployment: Deployment,
	simulatorUrl: string,
	learned: Workflow,
	fixed: Workflow,
	spec: {
		taught: number;
		drops: number;
		searching: number;
		fromS: number;
		toS: number;
		intervalS: number;
		seed: number;
	},
): Promise<Row[]> {
	const renders = [
		...renderTimes(spec.taught, spec.seed, 'narrow', spec.fromS),
		...Array.from({ length: spec.drops }, () => spec.toS),
	];
	for (let run = 1; run <= renders.length; run++)
		await Promise.all(
			[learned, fixed].map(
				async (workflow) =>
					await callWebhook(deployment.baseUrl, workflow.webhookPath!, {
						prompt: timedPrompt(renders[run - 1], `${workflow.id} o${run} `),
					}),
			),
		);
	const tasks = await taskRecords(simulatorUrl);
	const runs = (workflow: Workflow, from: number, to: number) =>
		Array.from({ length: to - from + 1 }, (_, index) => tagged(tasks, `${workflow.id} o${from + index}`)).flat();
	const all = renders.length;
	const row = (label: string, workflow: Workflow, from: number, to: number): Row => ({
		label,
		figures: figures(runs(workflow, from, to), spec.intervalS * 1000),
		detail: detail(runs(workflow, from, to)),
		intervalS: spec.intervalS,
	});
	const taught = `executions 1–${spec.taught}: renders of ${spec.fromS} s`;
	const searched = spec.taught + spec.searching;
	const drop = `executions ${spec.taught + 1}–${searched}: renders drop to ${spec.toS} s`;
	const after = `executions ${searched + 1}–${all}: renders of ${spec.toS} s`;
	const interval = `(Poll Interval ${spec.intervalS} s)`;
	return [
		row(`${taught}, learned ${interval}`, learned, 1, spec.taught),
		row(`${taught}, Fixed Interval`, fixed, 1, spec.taught),
		row(`${drop}, learned ${interval}`, learned, spec.taught + 1, searched),
		row(`${drop}, Fixed Interval`, fixed, spec.taught + 1, searched),
		row(`${after}, learned ${interval}`, learned, searched + 1, all),
		row(`${after}, Fixed Interval`, fixed, searched + 1, all),
	];
}

/** One run of `taughtCase`: its renders (one per item), and its label. */
export interface TaughtRun {
	label: string;
	renders: number[];
}

/**
 * The grid's envelope after what other runs taught: `teachers` (batch workflows of the kind, each run once, at once
 * with the others), then `runs` of the learned batch workflow, each beside the Fixed Interval one on the same
 * renders at the same time (`fixed: false`: the learned one alone). One item per call (a run of one render) is one
 * item per execution. Rows: each run, learned then Fixed Interval; runs of one item taken together per label.
 */
export async function taughtCase(
	deployment: Deployment,
	simulatorUrl: string,
	spec: {
		teachers: Array<{ workflow: Workflow; renders: number[] }>;
		learned: Workflow;
		fixed: Workflow;
		runs: Array<TaughtRun & { alone?: boolean }>;
	},
): Promise<Row[]> {
	await Promise.all(
		spec.teachers.map(async ({ workflow, renders }) => await batchRun(deployment, workflow, renders, 't')),
	);
	for (const [index, run] of spec.runs.entries()) {
		const both = run.alone ? [spec.learned] : [spec.learned, spec.fixed];
		await Promise.all(both.map(async (workflow) => await batchRun(deployment, workflow, run.renders, `t${index}`)));
	}
	const tasks = await taskRecords(simulatorUrl);
	const labels = [...new Set(spec.runs.map((run) => run.label))];
	const row = (label: string, workflow: Workflow, suffix: string): Row => {
		const mine = spec.runs.flatMap((run, index) => (run.label === label ? ofBatch(tasks, workflow, `t${index}`) : []));
		return { label: `${label}, ${suffix}`, figures: figures(mine), detail: detail(mine) };
	};
	return labels.flatMap((label) => {
		const alone = spec.runs.some((run) => run.label === label && run.alone);
		return [row(label, spec.learned, 'learned'), ...(alone ? [] : [row(label, spec.fixed, 'Fixed Interval')])];
	});
}

/**
 * Saves the workflow as the editor does (what the editor sends: no static data) with the MediaGen node moved,
 * then publishes the saved version in n8n 2.x (1.x re-activates an active workflow on save).
 */
export async function editorSave(deployment: Deployment, workflowId: string): Promise<void> {
	const session = deployment.session;
	const workflow = await restJson<Record<string, unknown> & { nodes: Array<{ name: string; position: number[] }> }>(
		session,
		`/workflows/${workflowId}`,
	);
	const nodes = workflow.nodes.map((node) =>
		node.name === MEDIAGEN ? { ...node, position: [node.position[0] + 20, node.position[1] + 20] } : node,
	);
	const body = {
		name: workflow.name,
		nodes,
		pinData: workflow.pinData ?? {},
		connections: workflow.connections,
		active: workflow.active,
		settings: workflow.settings,
		tags: [],
		versionId: workflow.versionId,
		meta: workflow.meta ?? {},
	};
	await restRequest(session, `/workflows/${workflowId}`, {
		method: 'PATCH',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	if (!deployment.install.recipe.n8n.startsWith('1.')) await activateWorkflow(session, workflowId);
}

/**
 * A Schedule Trigger workflow: publishes it, waits until `runs` of its executions have ended, then unpublishes it.
 * Its prompts carry the execution id; rows per run, oldest first. The Schedule Trigger keeps its own state in the
 * workflow's static data (and saves it from the main process's copy whenever it fires): the last row says whether
 * that state is still in the database and whether the MediaGen node wrote there.
 */
export async function scheduleCase(
	deployment: Deployment,
	simulatorUrl: string,
	workflow: Workflow,
	runs: number,
	db: StaticDataDb,
): Promise<Row[]> {
	const session = deployment.session;
	const workflowId = deployment.idOf(workflow.id);
	await activateWorkflow(session, workflowId);
	const ended = await waitFor(
		async (see) => {
			const listed = await listExecutions(session, workflowId).catch((error: Error) => {
				see(`the executions list did not answer (${error.message.slice(0, 200)})`);
				return undefined;
			});
			if (!listed) return undefined;
			const done = listed.filter((execution) => execution.stoppedAt);
			see(`${done.length} ended: ${done.map((execution) => `${execution.id} ${execution.status}`).join(', ')}`);
			return done.length >= runs ? done : undefined;
		},
		{ deadline: 60_000 * runs, describe: `${runs} Schedule Trigger executions to end`, interval: 500 },
	);
	await restPost(session, `/workflows/${workflowId}/deactivate`, {});
	const ids = ended.map((execution) => execution.id).sort((a, b) => Number(a) - Number(b));
	const tasks = await taskRecords(simulatorUrl);
	const data = db.read(workflowId);
	const trigger = data['node:Schedule Trigger'];
	const state: StateAfter = {
		other: trigger && typeof trigger === 'object' && Object.keys(trigger).length ? 'kept' : 'wiped',
		mediagenWrote: JSON.stringify(data).includes('"mediagenRenderTimes"') || data[`node:${MEDIAGEN}`] !== undefined,
	};
	return ids.slice(0, runs).map((id, index) => ({
		label: `run ${index + 1} (execution ${id})`,
		figures: figures(ofExecution(tasks, workflow, id)),
		detail: detail(ofExecution(tasks, workflow, id)),
		...(index === runs - 1 ? { states: [state] } : {}),
	}));
}

/** Starts a manual run as the editor's "Execute workflow" does (n8n 1.x sends the workflow, 2.x names the trigger). */
async function runManually(deployment: Deployment, workflowId: string): Promise<string> {
	const session = deployment.session;
	const trigger = { triggerToStartFrom: { name: MANUAL_TRIGGER } };
	let body: object = trigger;
	if (deployment.install.recipe.n8n.startsWith('1.')) {
		const { staticData: _omitted, ...workflowData } = await restJson<Record<string, unknown>>(
			session,
			`/workflows/${workflowId}`,
		);
		body = { ...trigger, workflowData };
	}
	const started = await restPost<{ executionId?: string }>(session, `/workflows/${workflowId}/run`, body);
	if (!started.executionId) throw new Error(`the manual run did not start: ${JSON.stringify(started)}`);
	return started.executionId;
}

/**
 * Runs a manual workflow `runs` times, one after the other. Rows: the first `warmUp` runs, then the others, with
 * what the node said in the editor and what the static data held after each run.
 */
export async function manualCase(
	deployment: Deployment,
	simulatorUrl: string,
	workflow: Workflow,
	{ runs, warmUp, guard }: { runs: number; warmUp: number; guard: OtherNodeState },
): Promise<Row[]> {
	const session = deployment.session;
	const workflowId = deployment.idOf(workflow.id);
	const done: Array<{ id: string; status: string; hints: string[]; state: StateAfter }> = [];
	guard.advance();
	for (let run = 1; run <= runs; run++) {
		const id = await runManually(deployment, workflowId);
		const ended = await waitForExecution(
			() => session,
			workflowId,
			id,
			(status) => status !== 'running' && status !== 'new',
			120_000,
			`manual run ${id} to end`,
		);
		const execution = await getExecution(deployment.install, session, id);
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
			figures: figures(chosen.flatMap((run) => ofExecution(tasks, workflow, run.id))),
			detail: detail(chosen.flatMap((run) => ofExecution(tasks, workflow, run.id))),
			states: chosen.map((run) => run.state),
			hints: [...new Set(chosen.flatMap((run) => run.hints))],
		};
	};
	return [row(1, warmUp), row(warmUp + 1, runs)];
}

/** Every execution of a workflow has ended; at least `count` of them (newest first). */
async function executionsEnded(
	deployment: Deployment,
	workflowId: string,
	count: number,
	what: string,
	deadline: number,
): Promise<Array<Omit<ExecutionRecord, 'data'>>> {
	return await waitFor(
		async (see) => {
			const listed = await listExecutions(deployment.session, workflowId).catch((error: Error) => {
				see(`the executions list did not answer (${error.message.slice(0, 200)})`);
				return undefined;
			});
			if (!listed) return undefined;
			see(listed.map((execution) => `${execution.id} ${execution.status}`).join(', ') || 'no execution');
			const ended = listed.every((execution) => execution.stoppedAt && execution.status !== 'waiting');
			return listed.length >= count && ended ? listed : undefined;
		},
		{ deadline, describe: what, interval: 500 },
	);
}

/**
 * Webhook → Wait (above 65 s: n8n parks the execution and resumes it later) → MediaGen. The other node's state
 * is written before the call and again while the execution waits (its snapshot was taken before); once the
 * resumed execution ended, the database must hold the value written last.
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
	await callWebhook(deployment.baseUrl, workflow.webhookPath!, { prompt: timedPrompt(RENDER_S, `${tag} `) });
	const parked = await waitForExecution(
		() => deployment.session,
		workflowId,
		undefined,
		(status) => status === 'waiting',
		120_000,
		`the execution of ${workflow.id} to wait`,
	);
	guard.advance();
	const ended = await waitForExecution(
		() => deployment.session,
		workflowId,
		parked.id,
		(status) => !['waiting', 'running', 'new'].includes(status),
		(waitS + 300) * 1000,
		`execution ${parked.id} of ${workflow.id} to resume and end`,
	);
	const state = guard.check();
	const tasks = tagged(await taskRecords(simulatorUrl), tag);
	return [
		{
			label: `resumed after a ${waitS} s Wait (execution ${ended.id}, ${ended.status})`,
			figures: figures(tasks),
			states: [state],
			note: ended.status,
		},
	];
}

/**
 * RSS Feed Trigger → MediaGen in a queue-mode deployment, across a restart of its main process. The trigger keeps
 * its cursor (the newest item's date) in the workflow's static data, in the main process's copy, saved when it
 * emits items; on a restart the main reads it back from the database.
 *
 * 1. The feed holds an old item; its date is written as the trigger's cursor into the database, then the workflow
 *    is published: the trigger's first poll emits the two items published after it (A1, A2), one execution.
 * 2. Once `othersDone` (the deployment's other cases ended), the main process is stopped; while it is down, B1 and
 *    B2 are published, and a sentinel item dated an hour ahead (S: any first poll emits it, whatever the cursor);
 *    the main is started again and its first poll emits what is newer than the cursor it reads from the database.
 * Rows: each phase, with what the database held of the cursor after it; the note says how often each item was
 * rendered (the simulator's creations): once each, the old item never.
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
		return {
			other: stored === undefined ? 'wiped' : Date.parse(stored) === expected.getTime() ? 'kept' : 'put back',
			mediagenWrote: JSON.stringify(data).includes('"mediagenRenderTimes"') || data[`node:${MEDIAGEN}`] !== undefined,
		};
	};
	const creations = async (name: string) =>
		(await simulatorTasks(simulatorUrl)).filter((task) => task.prompt?.includes(` ${workflow.id} ${name} `)).length;

	await activateWorkflow(deployment.session, workflowId);
	await waitFor(
		async (see) => {
			const seen = [await creations('A1'), await creations('A2')];
			see(`A1, A2 created ${seen.join(', ')} times`);
			return seen.every((count) => count > 0);
		},
		{ deadline: 180_000, describe: `the trigger of ${workflow.id} to emit A1 and A2`, interval: 250 },
	);
	await executionsEnded(deployment, workflowId, 1, `the execution of A1 and A2 to end`, 180_000);
	const afterA = cursor(a2.date);

	await othersDone.catch(() => undefined);
	let sentinel = a2;
	await deployment.restartMain(() => {
		feed.publish(title('B1'));
		feed.publish(title('B2'));
		sentinel = feed.publish(title('S'), new Date(Date.now() + 3_600_000));
	});
	await waitFor(
		async (see) => {
			const count = await creations('S');
			see(`S created ${count} times`);
			return count > 0;
		},
		{ deadline: 240_000, describe: `the first poll after the restart to emit S`, interval: 250 },
	);
	const executions = await executionsEnded(
		deployment,
		workflowId,
		2,
		`the executions after the restart to end`,
		240_000,
	);
	const afterRestart = cursor(sentinel.date);

	const names = ['X0', 'A1', 'A2', 'B1', 'B2', 'S'];
	const counts = await Promise.all(names.map(async (name) => [name, await creations(name)] as const));
	const tasks = await taskRecords(simulatorUrl);
	const phase = (list: string[]) => list.flatMap((name) => tagged(tasks, `${workflow.id} ${name}`));
	const items = Object.fromEntries(counts);
	const note = `rendered ${counts.map(([name, count]) => `${name} ×${count}`).join(', ')}; ${executions.length} executions`;
	return [
		{ label: 'A1, A2 before the restart', figures: figures(phase(['A1', 'A2'])), states: [afterA] },
		{
			label: 'B1, B2 (published while the main was down) and S after it',
			figures: figures(phase(['B1', 'B2', 'S'])),
			states: [afterRestart],
			note,
			items,
		},
	];
}
