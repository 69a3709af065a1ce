/**
 * The learning suite's cases (scripts/learning.ts; the bench's queue-mode row runs the single-item ones): each
 * starts executions in a running deployment the way users start them and returns what the simulator saw of
 * their tasks (learning-measure.ts) and what n8n stored of the workflow's static data after them. The cases
 * only drive and measure; the suite states what must hold.
 */
import { AGENT_TOOL, MEDIAGEN, MANUAL_TRIGGER, type Workflow } from './learning-workflows';
import type { ModelScript } from './model-server';
import { figures, seeded, taskRecords, timedPrompt, type RunFigures, type TaskRecord } from './learning-measure';
import { callWebhook } from './n8n';
import {
	activateWorkflow,
	getExecution,
	listExecutions,
	restJson,
	restPost,
	restRequest,
	waitForExecution,
	type RestSession,
} from './rest';
import type { Deployment } from './deployment';
import { waitFor } from './wait';

/** Render time of every case, in seconds; each render is drawn from [SPREAD_LOW, SPREAD_HIGH] × this. */
export const RENDER_S = 2.5;

/** Renders "narrow" (0.9–1.1 × RENDER_S) or "wide" (0.6–1.4), drawn from a seeded generator. */
export function renderTimes(count: number, seed: number, spread: 'narrow' | 'wide'): number[] {
	const random = seeded(seed);
	const [low, high] = spread === 'narrow' ? [0.9, 1.1] : [0.6, 1.4];
	return Array.from({ length: count }, () => RENDER_S * (low + (high - low) * random()));
}

/** What n8n stored of the MediaGen node's render times: their size as JSON and how many it holds. */
export interface Stored {
	bytes: number;
	times: number;
	valid: boolean;
	/** Whether the static data of other nodes is still there. */
	others: boolean;
}

/** Render times stored: a [low, high] pair counts once, a loose number in a list once (either shape the node wrote). */
function countTimes(value: unknown): number {
	if (Array.isArray(value)) {
		if (value.length === 2 && value.every((entry) => typeof entry === 'number')) return 1;
		return value.reduce((sum: number, entry) => sum + (typeof entry === 'number' ? 1 : countTimes(entry)), 0);
	}
	if (value && typeof value === 'object')
		return Object.values(value).reduce((sum: number, v) => sum + countTimes(v), 0);
	return 0;
}

/** Where the node keeps its render times: the workflow's global static data (and, before, the node's own). */
const STORE_KEY = 'mediagenRenderTimes';

/**
 * What n8n stored of the MediaGen node's render times (the editor's REST API returns the workflow's static data),
 * and whether the static data of other nodes is there too.
 */
export async function storedData(session: RestSession, workflowId: string): Promise<Stored> {
	const workflow = await restJson<{ staticData?: unknown }>(session, `/workflows/${workflowId}`);
	let data = workflow.staticData;
	if (typeof data === 'string') data = JSON.parse(data) as unknown;
	const all = (data ?? {}) as Record<string, Record<string, unknown> | undefined>;
	const mine = [all.global?.[STORE_KEY], all[`node:${MEDIAGEN}`]?.[STORE_KEY]].filter((entry) => entry !== undefined);
	const others =
		Object.keys(all).some((key) => key !== 'global' && key !== `node:${MEDIAGEN}`) ||
		Object.keys(all.global ?? {}).some((key) => key !== STORE_KEY);
	return {
		bytes: mine.reduce<number>((sum, entry) => sum + JSON.stringify(entry).length, 0),
		times: countTimes(mine),
		valid: mine.every((entry) => typeof entry === 'object' && entry !== null && !Array.isArray(entry)),
		others,
	};
}

/** One row of a case: a run (or runs taken together), its figures and the static data stored after it. */
export interface Row {
	label: string;
	figures: RunFigures;
	stored?: Stored;
	/** Execution hints the node gave in the editor's output panel (manual runs). */
	hints?: string[];
	/** Per task, its render time and when each check reached the API, in ms from its creation (results.json). */
	detail?: Array<{ render: number; checks: number[] }>;
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

/** How many executions of one item, which seed draws their renders, and how each is started. */
export interface SingleItemRuns {
	runs: number;
	/** The first runs, reported apart: history builds up in them. */
	warmUp: number;
	seed: number;
	/** The workflow whose static data the MediaGen node keeps (a sub-workflow's own); default the workflow. */
	keptIn?: string;
	/** Starts one execution with `prompt` and resolves when it ended (default: the workflow's webhook). */
	send?: (prompt: string, run: number) => Promise<void>;
}

/**
 * Starts a one-item workflow `runs` times, one execution after the other (each call answers when its execution
 * ends). Rows: the first `warmUp` runs, then the others together.
 */
export async function singleItemCase(
	deployment: Deployment,
	simulatorUrl: string,
	workflow: Workflow,
	{ runs, warmUp, seed, keptIn = workflow.id, send }: SingleItemRuns,
): Promise<Row[]> {
	const renders = renderTimes(runs, seed, 'narrow');
	const start =
		send ?? (async (prompt: string) => await callWebhook(deployment.baseUrl, workflow.webhookPath!, { prompt }));
	for (let run = 1; run <= runs; run++) await start(timedPrompt(renders[run - 1], `${workflow.id} r${run} `), run);
	const tasks = await taskRecords(simulatorUrl);
	const runTasks = (from: number, to: number) =>
		Array.from({ length: to - from + 1 }, (_, index) => tagged(tasks, `${workflow.id} r${from + index}`)).flat();
	return [
		{ label: `runs 1–${warmUp}`, figures: figures(runTasks(1, warmUp)), detail: detail(runTasks(1, warmUp)) },
		{
			label: `runs ${warmUp + 1}–${runs}`,
			figures: figures(runTasks(warmUp + 1, runs)),
			stored: await storedData(deployment.session, deployment.idOf(keptIn)),
			detail: detail(runTasks(warmUp + 1, runs)),
		},
	];
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

/** One batch run: `count` prompts in one webhook call (`calls` such calls at once). */
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

/**
 * A batch workflow's life: run 1 (nothing learned), an editor save, run 2, two runs at once, run 4. Every run
 * has the same seeded renders (wide: 0.6–1.4 × RENDER_S). `start` runs run 1 and the save; the case's other
 * runs wait for it (a deployment may start them before its other cases: publishing the saved version holds
 * n8n 2.x's main process for a moment, which would delay the checks of executions it runs meanwhile).
 */
export class BatchCase {
	private readonly renders: number[];

	private readonly rows: Array<{ label: string; tag: string; stored: Stored }> = [];

	private started?: Promise<void>;

	constructor(
		private readonly deployment: Deployment,
		private readonly simulatorUrl: string,
		private readonly workflow: Workflow,
		count: number,
		seed: number,
	) {
		this.renders = renderTimes(count, seed, 'wide');
	}

	private async step(label: string, tag: string, calls = 1): Promise<void> {
		await batchRun(this.deployment, this.workflow, this.renders, tag, calls);
		this.rows.push({ label, tag, stored: await storedData(this.deployment.session, this.id) });
	}

	private get id(): string {
		return this.deployment.idOf(this.workflow.id);
	}

	/** Run 1, then the editor save. */
	async start(): Promise<void> {
		this.started ??= (async () => {
			await this.step('run 1', 'r1');
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
		const tasks = await taskRecords(this.simulatorUrl);
		return this.rows.map(({ label, tag, stored }) => ({
			label,
			figures: figures(tasks.filter((task) => task.prompt.includes(` ${this.workflow.id} ${tag}c`))),
			stored,
		}));
	}
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
 * Its prompts carry the execution id; rows per run, oldest first.
 */
export async function scheduleCase(
	deployment: Deployment,
	simulatorUrl: string,
	workflow: Workflow,
	runs: number,
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
	const stored = await storedData(session, workflowId);
	return ids.slice(0, runs).map((id, index) => ({
		label: `run ${index + 1} (execution ${id})`,
		figures: figures(ofExecution(tasks, workflow, id)),
		...(index === runs - 1 ? { stored } : {}),
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

/** Runs a manual workflow `runs` times, one after the other: what each run did, stored and said. */
export async function manualCase(
	deployment: Deployment,
	simulatorUrl: string,
	workflow: Workflow,
	runs: number,
): Promise<Row[]> {
	const session = deployment.session;
	const rows: Row[] = [];
	const workflowId = deployment.idOf(workflow.id);
	for (let run = 1; run <= runs; run++) {
		const id = await runManually(deployment, workflowId);
		await waitForExecution(
			() => session,
			workflowId,
			id,
			(status) => status !== 'running' && status !== 'new',
			120_000,
			`manual run ${id} to end`,
		);
		const execution = await getExecution(deployment.install, session, id);
		const nodeRuns = execution.data.resultData.runData[MEDIAGEN] as Array<{ hints?: Array<{ message: string }> }>;
		const tasks = ofExecution(await taskRecords(simulatorUrl), workflow, id);
		rows.push({
			label: `manual run ${run} (execution ${id}, ${execution.status})`,
			figures: figures(tasks),
			stored: await storedData(session, workflowId),
			hints: (nodeRuns?.[0]?.hints ?? []).map((hint) => hint.message),
		});
	}
	return rows;
}
