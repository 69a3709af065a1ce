/**
 * What the suites of the node as a tool share (scripts/agent.ts, scripts/mcp.ts): n8n with a scripted model server
 * behind an OpenAI credential, a model that calls tools one after another and then repeats what they returned, and
 * the checks both make on the API's record and on a render that comes back pending.
 */
import path from 'node:path';

import {
	startModelServer,
	type ModelRequest,
	type ModelScript,
	type ModelServer,
	type OfferedTool,
} from './model-server';
import type { ToolResult } from './model-server';
import { logFolder } from './paths';
import { check } from './report';
import { withN8n, type RunningN8n, type StartOptions } from './suite';
import type { RecordedRequestSummary } from '../../test/simulator/server';

export const TOOL_TYPE = 'n8n-nodes-mediagen.mediaGenTool';

/** The tool `name` as the request offers it (n8n's MCP Client Tool may prefix the server's tool names). */
export function offeredTool(request: ModelRequest, name: string): OfferedTool {
	const tool = request.tools.find((candidate) => candidate.name === name || candidate.name.endsWith(`_${name}`));
	if (!tool) throw new Error(`no tool ${name} offered (${request.tools.map((entry) => entry.name).join(', ')})`);
	return tool;
}

/** A call the scripted model makes: its arguments, or made from the results so far (a string: it stops, saying so). */
export interface ScriptedCall {
	tool: string;
	args: Record<string, unknown> | ((results: ToolResult[]) => Record<string, unknown> | string);
}

/** A model that makes `calls` one after another, then answers with text that repeats every tool result. */
export function callsThenRepeat(calls: ScriptedCall[]): ModelScript {
	return (request) => {
		// Every tool the script calls must be offered on every request, not only when it is called.
		const names = calls.map((call) => offeredTool(request, call.tool).name);
		const results = request.toolResults;
		const next = calls[results.length];
		if (!next) return { text: `The tool returned: ${results.map((result) => result.output).join(' || ')}` };
		const args = typeof next.args === 'function' ? next.args(results) : next.args;
		return typeof args === 'string' ? { text: args } : { call: { name: names[results.length], arguments: args } };
	};
}

/** withN8n with a scripted model server that the OpenAI credential `openAi` points at; the server goes after. */
export async function withModelServer(
	options: Omit<StartOptions, 'logFile' | 'credentials'>,
	openAi: { id: string; name: string },
	body: (n8n: RunningN8n, model: ModelServer) => Promise<void>,
): Promise<void> {
	const { scope, version } = options;
	const model = await startModelServer();
	const logFile = path.join(logFolder(`${scope}-${version}`), 'n8n.log');
	const credentials = [{ ...openAi, type: 'openAiApi', data: { apiKey: `sk-${scope}-test`, url: model.baseUrl } }];
	try {
		await withN8n({ ...options, logFile, credentials }, async (n8n) => await body(n8n, model));
	} finally {
		await model.close();
	}
}

/** The creations at `apiPath` in the API's record, those whose prompt carries `marker` when given. */
export const creationsAt = (record: RecordedRequestSummary[], apiPath: string, marker = '') =>
	record.filter(
		(entry) => entry.method === 'POST' && entry.path === apiPath && (entry.fields.prompt?.[0] ?? '').includes(marker),
	);

type Item = Record<string, unknown> | undefined;

/** A render longer than the wait came back pending with its task id (with `hint`, and how to come back for it). */
export function checkPending(label: string, pending: Item, hint = true): string {
	check(pending?.status === 'pending', `${label}: the creation came back pending (${String(pending?.status)})`);
	const taskid = pending.taskid;
	check(typeof taskid === 'string' && taskid, `${label}: with its task id`);
	if (hint) check(String(pending.hint).includes(taskid), `${label}: the hint says how to come back for ${taskid}`);
	return taskid;
}

/** The pending task came back completed; returns its result URLs. */
export function checkCompleted(label: string, done: Item, taskid: string): string[] {
	check(
		done?.status === 'completed' && done.taskid === taskid,
		`${label}: the same task came back completed (${JSON.stringify(done)})`,
	);
	return Array.isArray(done.urls) ? (done.urls as string[]) : [];
}

/** The arguments of the examples' image tools (their $fromAI names): one picture, no reference, unless told. */
export const imageArgs = (prompt: string, more: Record<string, unknown> = {}) => ({
	prompt,
	referenceImageUrl: '',
	count: 1,
	aspectRatio: '16:9',
	...more,
});
