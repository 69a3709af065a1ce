/**
 * A client for a running n8n's REST API (the editor's API): set up or log in the owner and keep the auth
 * cookie, then read executions (with their run data) and binary files the way the editor does, wait for an
 * execution to reach a status.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

import type { N8nInstall } from './installer';
import { causeOf } from './process';
import { waitFor } from './wait';

/** A logged-in session on a running n8n's REST API (the editor's API): owner set up, auth cookie kept. */
export interface RestSession {
	baseUrl: string;
	cookie: string;
}

/** The instance owner that signInOwner sets up (the browser test signs in with it). */
export const OWNER = { email: 'owner@mediagen.test', password: 'Mediagen-e2e-1' };

/** A POST with a JSON body, for fetch. */
export function jsonPost(body: object): RequestInit {
	return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** Sets up the owner (OWNER), or logs it in again (`login`, e.g. after a restart); keeps its auth cookie. */
export async function signInOwner(baseUrl: string, how: 'setup' | 'login'): Promise<RestSession> {
	const [route, body] =
		how === 'setup'
			? ['/owner/setup', { ...OWNER, firstName: 'Test', lastName: 'Owner' }]
			: ['/login', { emailOrLdapLoginId: OWNER.email, password: OWNER.password }];
	const response = await restRequest({ baseUrl, cookie: '' }, route, jsonPost(body));
	const cookie = response.headers
		.getSetCookie()
		.map((entry) => entry.split(';')[0])
		.find((entry) => entry.startsWith('n8n-auth='));
	if (!cookie) throw new Error(`POST /rest${route} set no n8n-auth cookie`);
	return { baseUrl, cookie };
}

/**
 * A request to n8n's REST API with the session's cookie; throws unless n8n answered 2xx. A GET whose connection
 * failed (a busy n8n may reset one) is sent again, twice at most: reading changes nothing.
 */
export async function restRequest(
	session: RestSession,
	pathAndQuery: string,
	init: RequestInit = {},
): Promise<Response> {
	const what = `${init.method ?? 'GET'} /rest${pathAndQuery}`;
	const headers = { cookie: session.cookie, ...(init.headers ?? {}) };
	let response: Response | undefined;
	for (let attempt = 1; !response; attempt++) {
		try {
			response = await fetch(`${session.baseUrl}/rest${pathAndQuery}`, { ...init, headers });
		} catch (error) {
			if (!what.startsWith('GET ') || attempt >= 3) throw new Error(`${what}: no answer (${causeOf(error)})`);
		}
	}
	if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`);
	return response;
}

/** The `data` of a REST route's answer to a GET, or to a POST of `body` (JSON) when one is given. */
export async function restJson<T>(session: RestSession, pathAndQuery: string, body?: object): Promise<T> {
	const response = await restRequest(session, pathAndQuery, body && jsonPost(body));
	return ((await response.json()) as { data: T }).data;
}

/** One item of a node's output in an execution's run data (as the REST API and `n8n execute --rawOutput` give it). */
export interface ExecutionItem {
	json: Record<string, unknown>;
	binary?: Record<string, { id?: string; data?: string; mimeType: string; fileName?: string; fileSize?: string }>;
	pairedItem?: unknown;
}

/** An execution as n8n stores it: status, and the run data of every node that ran. */
export interface ExecutionRecord {
	id: string;
	status: string;
	finished: boolean;
	mode: string;
	/** Set on an execution started by "Retry execution": the id of the execution it retries. */
	retryOf?: string | null;
	waitTill?: string | null;
	startedAt?: string;
	stoppedAt?: string;
	data: {
		resultData: {
			error?: { message: string; name?: string; description?: string };
			lastNodeExecuted?: string;
			runData: Record<
				string,
				Array<{ data?: { main: Array<ExecutionItem[] | null> }; error?: { message: string; description?: string } }>
			>;
		};
		executionData?: { contextData?: Record<string, unknown> };
	};
}

/** An execution as the executions list gives it. */
export type ExecutionSummary = Omit<ExecutionRecord, 'data'>;

/** The items of a node's output `output` over all its runs. */
export function outputOf(execution: ExecutionRecord, node: string, output = 0): ExecutionItem[] {
	return (execution.data.resultData.runData[node] ?? []).flatMap((run) => run.data?.main[output] ?? []);
}

/** An execution with its run data, as the editor reads it (the stored data is "flatted" JSON). */
export async function getExecution(install: N8nInstall, session: RestSession, id: string): Promise<ExecutionRecord> {
	const execution = await restJson<ExecutionSummary & { data: unknown }>(session, `/executions/${id}`);
	const flatted = createRequire(path.join(install.dir, 'package.json'))('flatted') as {
		parse: (text: string) => unknown;
	};
	const data = typeof execution.data === 'string' ? flatted.parse(execution.data) : execution.data;
	return { ...execution, data: data as ExecutionRecord['data'] };
}

/** Executions of a workflow (newest first), without their data. */
export async function listExecutions(session: RestSession, workflowId: string): Promise<ExecutionSummary[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const page = await restJson<{ results: ExecutionSummary[] }>(session, `/executions?filter=${filter}&limit=100`);
	return page.results;
}

/** The bytes of a binary data id, read through n8n's REST binary-data endpoint (whatever the storage mode). */
export async function readBinary(session: RestSession, binaryId: string): Promise<Buffer> {
	const response = await restRequest(session, `/binary-data?id=${encodeURIComponent(binaryId)}&action=download`);
	return Buffer.from(await response.arrayBuffer());
}

/**
 * Publishes (activates) a workflow as the editor's Publish button does, so that its production triggers (webhooks,
 * chat) are registered at once: n8n 1.x and 2.x both take the workflow's current versionId.
 */
export async function activateWorkflow(session: RestSession, workflowId: string): Promise<void> {
	const { versionId } = await restJson<{ versionId: string }>(session, `/workflows/${workflowId}`);
	// n8n 2.41.1 just after its start on a loaded machine (its database ping had timed out) once refused the AI
	// Agent example with "Error validating node parameters" for n8n's own OpenAI Chat Model: its publish check had
	// thrown (WorkflowValidationService.validateNodeParameters), not found an issue. That answer is asked again; any
	// other refusal, or that one past the deadline, fails the suite.
	const activate = async () => await restJson(session, `/workflows/${workflowId}/activate`, { versionId });
	await retryWhile(activate, /Error validating node parameters/, 60_000, `n8n to publish workflow ${workflowId}`);
}

/**
 * Runs a REST request again while n8n answers "503 Database is not ready!": n8n refuses every request (before
 * handling it) for a while after a database ping took more than 5 s, which a loaded machine sees at start-up.
 */
export async function whileDatabaseNotReady<T>(work: () => Promise<T>): Promise<T> {
	return await retryWhile(work, /HTTP 503\b.*Database is not ready/, 120_000, "n8n's database to be ready");
}

/** Runs `work` again, every second up to `deadline` ms, while it fails with a `refusal`; any other error fails. */
async function retryWhile<T>(work: () => Promise<T>, refusal: RegExp, deadline: number, describe: string) {
	const { value } = await waitFor(
		async (see) => {
			try {
				return { value: await work() };
			} catch (error) {
				if (!refusal.test((error as Error).message)) throw error;
				see((error as Error).message);
				return undefined;
			}
		},
		{ deadline, describe, interval: 1000 },
	);
	return value;
}

/**
 * What waitForExecution waits for: `which` picks the execution (an id, or a filter over the list, newest first,
 * e.g. "not one of the ids known before the trigger"; the newest when unset), `wanted` tests its status (by
 * default: it has ended), `what` names the wait in its timeout's error.
 */
export interface ExecutionWait {
	which?: string | ((execution: ExecutionSummary) => boolean);
	wanted?: (status: string) => boolean;
	deadline?: number;
	what: string;
}
const hasEnded = (status: string) => !['new', 'running', 'waiting'].includes(status);

/**
 * Waits until an execution of the workflow is as ExecutionWait says and returns it (without data). `session` is
 * a getter, so that a caller can log in again after restarting n8n meanwhile.
 */
export async function waitForExecution(
	session: () => RestSession,
	workflowId: string,
	{ which, wanted = hasEnded, deadline = 120_000, what }: ExecutionWait,
): Promise<ExecutionSummary> {
	const picked = typeof which === 'string' ? (execution: { id: string }) => execution.id === which : which;
	return await waitFor(
		async (see) => {
			let executions: ExecutionSummary[];
			try {
				executions = await listExecutions(session(), workflowId);
			} catch (error) {
				// n8n restarting, or busy: the list is read again on the next check.
				see(`the executions list did not answer (${(error as Error).message.split('\n')[0].slice(0, 200)})`);
				return undefined;
			}
			const execution = picked ? executions.find(picked) : executions[0];
			const newest = executions.slice(0, 5).map((candidate) => `${candidate.id} ${candidate.status}`);
			see(
				execution
					? `execution ${execution.id} with status "${execution.status}"`
					: `no such execution among ${executions.length} (${newest.join(', ')})`,
			);
			return execution && wanted(execution.status) ? execution : undefined;
		},
		{ deadline, describe: what, interval: 500 },
	);
}
