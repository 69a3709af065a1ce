/**
 * Runs an installed n8n (from installer.ts): the environment every suite gives it, long-running processes ready on
 * a free port (`startListening`: a worker; `startN8nServer`: `n8n start`), waiting for and calling a published
 * webhook or chat, the simulator credential to import, and workflows as n8n imports them.
 */
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';

import { npmEnv, type N8nInstall } from './installer';
import { ROOT } from './paths';
import { freePort, logSince, logSize, spawnLogged, stopProcess, waitForHttp, waitForLog } from './process';
import { check } from './report';
import { jsonPost } from './rest';
import { SIM_KEY } from './simulator';
import { waitFor } from './wait';

/** The environment every suite runs n8n with: isolated user folder, quiet, its own task-broker port. */
export async function n8nEnv(
	install: N8nInstall,
	userFolder: string,
	extra: Record<string, string> = {},
): Promise<NodeJS.ProcessEnv> {
	const env = npmEnv();
	return {
		...env,
		...install.recipe.env,
		PATH: `${path.dirname(install.nodeBin)}${path.delimiter}${env.PATH}`,
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: 'mediagen-e2e-encryption-key',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_PYTHON_ENABLED: 'false',
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		DB_SQLITE_POOL_SIZE: '1',
		// The suites wait for lines n8n logs at this level ("n8n ready on …"); a parent that loaded the test harness
		// holds N8N_LOG_LEVEL=silent, which a child n8n would otherwise inherit and print nothing.
		N8N_LOG_LEVEL: 'info',
		...extra,
	};
}

/** A running n8n process (`n8n start`, a worker) and the address of its HTTP server (editor and REST, health check). */
export interface N8nServer {
	child: ChildProcess;
	url: string;
}

/**
 * Starts `n8n start` on a free port of 127.0.0.1 (or `chosenPort`: workflows imported before the start may need
 * their own URLs), its output appended to `logFile`, and waits until its editor is accessible: its HTTP server
 * answers before it has activated the published workflows and registered their webhooks. `env` comes from
 * n8nEnv; plain-HTTP cookies are allowed, since the editor runs on http://127.0.0.1.
 */
export async function startN8nServer(
	install: N8nInstall,
	env: NodeJS.ProcessEnv,
	logFile: string,
	chosenPort?: number,
): Promise<N8nServer> {
	const serverEnv = async (port: number) => ({
		...env,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}/`,
		WEBHOOK_URL: `http://127.0.0.1:${port}/`,
		N8N_SECURE_COOKIE: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
	});
	// Whoever answered, this n8n must say it listens on the port (or that it could not).
	const ready = (port: number) => [new RegExp(`n8n ready on \\S+, port ${port}\\b`), /Editor is now accessible/];
	return await startListening(install, ['start'], logFile, serverEnv, ready, chosenPort);
}

/**
 * Starts `n8n <args>` with the environment `envFor` gives for its server's port (a free one of 127.0.0.1, or
 * `chosenPort`), its output appended to `logFile`, and waits until the server's /healthz/readiness answers and
 * the log shows each of the `ready` lines after it. A port free when freePort chose it can be taken before n8n
 * binds it (another suite's process, an outgoing connection's local port); then n8n exits saying so (another
 * process may even answer on that port), and the start is tried again on another port (twice at most).
 */
export async function startListening(
	install: N8nInstall,
	args: string[],
	logFile: string,
	envFor: (port: number) => Promise<NodeJS.ProcessEnv>,
	ready: (port: number) => RegExp[],
	chosenPort?: number,
): Promise<N8nServer> {
	const timeoutMs = 240_000;
	for (let attempt = 1; ; attempt++) {
		const port = chosenPort ?? (await freePort());
		const url = `http://127.0.0.1:${port}`;
		const from = logSize(logFile);
		const env = await envFor(port);
		// Its own process group with the task runners it starts, so that signalProcess/stopProcess reach them all (a
		// SIGKILL to the group is what a crashed container looks like).
		const options = { cwd: env.N8N_USER_FOLDER ?? ROOT, env, detached: true };
		const child = spawnLogged(install.nodeBin, [install.n8nBin, ...args], options, logFile);
		try {
			await waitForHttp(`${url}/healthz/readiness`, timeoutMs, child);
			for (const line of ready(port)) await waitForLog(logFile, line, timeoutMs, child, from);
			return { child, url };
		} catch (error) {
			await stopProcess(child);
			const taken = /port \d+ is already in use/i.test(logSince(logFile, from));
			if (chosenPort !== undefined || attempt >= 3 || !taken) throw error;
		}
	}
}

/**
 * Waits until a published workflow's trigger is registered: n8n 2.x activates published workflows in the
 * background after its HTTP server is up. A GET to a POST-only webhook at `webhookPath` tells the two states apart
 * without starting an execution ("not registered for GET requests" once the POST webhook exists); a Chat Trigger's
 * hosted chat page (`kind` chat: `webhookPath` is its webhook id) answers GET once the workflow is active.
 */
export async function waitForTrigger(
	baseUrl: string,
	webhookPath: string,
	timeoutMs: number,
	kind: 'webhook' | 'chat' = 'webhook',
) {
	const chat = kind === 'chat';
	const url = `${baseUrl}/webhook/${webhookPath}${chat ? '/chat' : ''}`;
	await waitFor(
		async (see) => {
			const text = await fetch(url)
				.then(async (response) => `HTTP ${response.status} ${await response.text()}`)
				.catch((error: Error) => `no answer (${error.message})`);
			see(text.slice(0, 200));
			return chat ? text.startsWith('HTTP 200 ') : /not registered for GET requests/.test(text);
		},
		{ deadline: timeoutMs, describe: `the ${kind} ${webhookPath} to be registered`, interval: 500 },
	);
}

/** POSTs a JSON body (to a webhook, a chat) and returns the answer's text; throws unless n8n accepted it. */
export async function postJson(url: string, body: object, timeoutMs?: number): Promise<string> {
	const response = await fetch(url, {
		...jsonPost(body),
		signal: timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined,
	});
	const text = await response.text();
	if (!response.ok) throw new Error(`POST ${url} answered HTTP ${response.status}: ${text.slice(0, 300)}`);
	return text;
}

/** Calls a production webhook with a JSON body; throws unless n8n accepted it. */
export async function callWebhook(baseUrl: string, webhookPath: string, body: object): Promise<void> {
	await postJson(`${baseUrl}/webhook/${webhookPath}`, body);
}

/** Sends a chat message to a Chat Trigger as the hosted chat page does; returns the answer's text. */
export async function sendChat(
	baseUrl: string,
	webhookId: string,
	sessionId: string,
	chatInput: string,
	timeoutMs: number,
) {
	return await postJson(
		`${baseUrl}/webhook/${webhookId}/chat`,
		{ action: 'sendMessage', sessionId, chatInput },
		timeoutMs,
	);
}

/** The items of a tool's result as n8n hands it to a model or an MCP client: its output items as JSON text. */
export function toolItems(text: string): Array<Record<string, unknown>> {
	const value = JSON.parse(text) as unknown;
	check(Array.isArray(value), `the tool result is a JSON array: ${text.slice(0, 300)}`);
	return value as Array<Record<string, unknown>>;
}

/** The MediaGen credential pointing at a simulator, as `n8n import:credentials` and the REST API take it. */
export function simulatorCredential(baseUrl: string) {
	return { id: 'mediagen-cred', name: 'MediaGen account', type: 'mediaGenApi', data: { apiKey: SIM_KEY, baseUrl } };
}

/** A node as workflowOf takes it: its id and place are given there; typeVersion defaults to 1. */
export interface NodeSpec {
	name: string;
	type: string;
	typeVersion?: number;
	parameters: Record<string, unknown>;
	webhookId?: string;
	credentials?: Record<string, { id: string; name: string }>;
	[setting: string]: unknown;
}

/** A node of a workflow as n8n imports and stores it. */
export interface WorkflowNode extends NodeSpec {
	id: string;
	typeVersion: number;
	position: [number, number];
}

/** How a workflow's MediaGen node refers to the simulator credential. */
export const CREDENTIAL_REF = { mediaGenApi: { id: 'mediagen-cred', name: 'MediaGen account' } };

/** A workflow as n8n imports and stores it. */
export interface Workflow {
	id: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<string, Record<string, Array<Array<{ node: string; type: string; index: number }>>>>;
	[setting: string]: unknown;
}

/** A connection from a node's output (main 0 unless told) to a node's input. */
export type Link = [from: string, to: string, output?: number, type?: string];

let nodeIds = 0;

/** A workflow as n8n imports it: `nodes` placed left to right, wired by `links`. */
export function workflowOf(id: string, name: string, nodes: NodeSpec[], links: Link[]): Workflow {
	const connections: Workflow['connections'] = {};
	for (const [from, to, output = 0, type = 'main'] of links) {
		const outputs = ((connections[from] ??= {})[type] ??= []);
		while (outputs.length <= output) outputs.push([]);
		outputs[output].push({ node: to, type, index: 0 });
	}
	const placed = nodes.map(
		(node, index): WorkflowNode => ({
			typeVersion: 1,
			...node,
			id: `e0000000-0000-4000-8000-${String(++nodeIds).padStart(12, '0')}`,
			position: [220 * index, 0],
		}),
	);
	return { id, name, nodes: placed, connections, active: false, settings: { executionOrder: 'v1' }, pinData: {} };
}

/** A Webhook trigger that takes a POST at `webhookPath` and answers at once. */
export function webhookNode(webhookPath: string, webhookId: string): NodeSpec & { typeVersion: number } {
	return {
		webhookId,
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		parameters: { httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} },
	};
}

/** The node of `workflow` that `test` picks; fails the suite, saying the workflow should have `what`, when none does. */
export function findNode(workflow: Workflow, what: string, test: (node: WorkflowNode) => boolean): WorkflowNode {
	const node = workflow.nodes.find(test);
	check(node, `${workflow.name} has ${what}`);
	return node;
}

/**
 * Replaces an example's Manual Trigger with a Webhook at `webhookPath` (a running n8n starts it; nobody presses
 * the button), wired as the trigger was.
 */
export function startedByWebhook(
	workflow: Workflow,
	webhookPath: string,
	ids: { id: string; webhookId: string },
): WorkflowNode {
	const manual = findNode(workflow, 'a manual trigger', (node) => node.type === 'n8n-nodes-base.manualTrigger');
	const webhook = { ...webhookNode(webhookPath, ids.webhookId), id: ids.id, position: manual.position };
	workflow.nodes = workflow.nodes.map((node) => (node === manual ? webhook : node));
	workflow.connections[webhook.name] = workflow.connections[manual.name];
	delete workflow.connections[manual.name];
	return webhook;
}
