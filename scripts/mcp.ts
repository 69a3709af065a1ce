/**
 * `npm run test:mcp`: examples/mcp-server.json (n8n's MCP Server Trigger with three MediaGen tools) in real n8n,
 * called as external clients do: the MCP SDK client n8n ships, at its defaults (a request fails after 60 s), over
 * Streamable HTTP and SSE, and n8n's own MCP Client Tool under an AI Agent whose model is the scripted model server.
 * The simulator's prompt markers choose what each call meets; CONTRIBUTING.md, "The MCP suite", lists what is
 * checked. MEDIAGEN_MCP_VERSIONS picks the n8n versions (default "2.41.1,1.123.81").
 */
import { createRequire } from 'node:module';
import path from 'node:path';

import type { N8nInstall } from './lib/installer';
import { startModelServer, type ModelRequest, type ModelScript, type ModelServer } from './lib/model-server';
import { findNode, sendChat, toolItems, workflowOf, type Workflow } from './lib/n8n';
import { logFolder } from './lib/paths';
import { freePort, runMain } from './lib/process';
import { check, log } from './lib/report';
import { listExecutions } from './lib/rest';
import { SIM_KEY, simulatorRecord, simulatorTasks, type SimulatorProcess } from './lib/simulator';
import { readExample, runOnVersions, suiteVersions, withN8n } from './lib/suite';
import { waitFor } from './lib/wait';
import type { RecordedRequestSummary } from '../test/simulator/server';

/** The MCP SDK client's default request timeout (`DEFAULT_REQUEST_TIMEOUT_MSEC`): what the clients here keep. */
const CLIENT_TIMEOUT_MS = 60_000;
/** A render longer than the client's patience. */
const LONG_RENDER_S = 70;
const IMAGE_PATH = '/v1/tlimages/betav45';
const TOOLS = ['create_image', 'create_video', 'wait_for_task'];
const TOOL_TYPE = 'n8n-nodes-mediagen.mediaGenTool';
const VIDEO_PATH = '/v1/tlvideo/alphav15pro';

/** A tool result as an MCP client receives it. */
interface CallResult {
	isError?: boolean;
	content?: Array<{ type: string; text?: string }>;
}

/** The parts of the SDK the suite uses (loaded from n8n's own node_modules: the client n8n ships). */
interface McpClient {
	connect(transport: unknown): Promise<void>;
	listTools(): Promise<{ tools: Array<{ name: string; description?: string }> }>;
	callTool(request: { name: string; arguments: Record<string, unknown> }): Promise<CallResult>;
	close(): Promise<void>;
}

interface Sdk {
	connect(url: string, transport: Transport): Promise<McpClient>;
}

type Transport = 'streamable HTTP' | 'SSE';

function loadSdk(install: N8nInstall): Sdk {
	// The SDK is a dependency of n8n's AI nodes; resolve it from there, as n8n itself does.
	const langchain = createRequire(
		createRequire(path.join(install.dir, 'package.json')).resolve('@n8n/n8n-nodes-langchain/package.json'),
	);
	const load = (entry: string) => langchain(`@modelcontextprotocol/sdk/${entry}`) as Record<string, unknown>;
	const { Client } = load('client/index.js') as { Client: new (info: object) => McpClient };
	const { StreamableHTTPClientTransport } = load('client/streamableHttp.js') as {
		StreamableHTTPClientTransport: new (url: URL) => unknown;
	};
	const { SSEClientTransport } = load('client/sse.js') as { SSEClientTransport: new (url: URL) => unknown };
	return {
		async connect(url, transport) {
			const client = new Client({ name: 'mediagen-mcp-suite', version: '1.0.0' });
			const made =
				transport === 'SSE' ? new SSEClientTransport(new URL(url)) : new StreamableHTTPClientTransport(new URL(url));
			await client.connect(made);
			return client;
		},
	};
}

/** The text an MCP client received from a call (every text part). */
function textOf(result: CallResult): string {
	return (result.content ?? []).map((part) => part.text ?? '').join('\n');
}

/** A call and what the client saw: the result or the error, and when. */
interface Observed {
	result?: CallResult;
	error?: { code?: number; message: string };
	ms: number;
}

async function observe(client: McpClient, name: string, args: Record<string, unknown>): Promise<Observed> {
	const started = Date.now();
	try {
		const result = await client.callTool({ name, arguments: args });
		return { result, ms: Date.now() - started };
	} catch (error) {
		const { code, message } = error as { code?: number; message: string };
		return { error: { code, message }, ms: Date.now() - started };
	}
}

function describe(observed: Observed): string {
	const seconds = `${(observed.ms / 1000).toFixed(1)} s`;
	if (observed.error) return `${seconds}: the call failed (${observed.error.code ?? '-'} ${observed.error.message})`;
	const text = textOf(observed.result!);
	return `${seconds}: isError ${observed.result!.isError === true}, ${text.length > 400 ? `${text.slice(0, 400)}…` : text}`;
}

/** A call that must have answered (not failed or timed out): logged, its text kept for the key check. */
async function answered(
	context: Context,
	client: McpClient,
	label: string,
	tool: string,
	args: Record<string, unknown>,
): Promise<{ result: CallResult; ms: number }> {
	const observed = await observe(client, tool, args);
	log('mcp', `${label}: ${tool} → ${describe(observed)}`);
	check(observed.result, `${label}: the client got an answer (${describe(observed)})`);
	context.received.push(textOf(observed.result));
	return { result: observed.result, ms: observed.ms };
}

const creationsWith = (record: RecordedRequestSummary[], apiPath: string, marker: string) =>
	record.filter((entry) => entry.path === apiPath && (entry.fields.prompt?.[0] ?? '').includes(marker));

interface Context {
	sdk: Sdk;
	url: string;
	simulator: SimulatorProcess;
	/** Every text any client received, for the key check. */
	received: string[];
}

/** A short label that makes each scenario's prompts unique in the simulator's record. */
const tag = (transport: Transport, what: string) => `[${transport === 'SSE' ? 'sse' : 'http'} ${what}]`;

/** The long render: answered pending within the client's patience, then picked up by wait_for_task. */
async function longRender(context: Context, transport: Transport): Promise<void> {
	const label = `${transport} / long video`;
	const client = await context.sdk.connect(context.url, transport);
	try {
		const marker = tag(transport, 'long');
		const { result, ms } = await answered(context, client, label, 'create_video', {
			prompt: `A slow pan over a harbour at night ${marker} [sim:seconds=${LONG_RENDER_S}]`,
			sourceImageUrl: `${context.simulator.url}/files/source.png`,
			duration: 5,
			aspectRatio: '16:9',
		});
		check(ms < CLIENT_TIMEOUT_MS, `${label}: answered within the client's ${CLIENT_TIMEOUT_MS / 1000} s`);
		check(result.isError !== true, `${label}: a pending task is not an error`);
		const [pending] = toolItems(textOf(result));
		check(pending.status === 'pending', `${label}: status pending (${String(pending.status)})`);
		const taskid = String(pending.taskid ?? '');
		check(taskid, `${label}: the client got the task id`);
		check(String(pending.hint ?? '').includes(taskid), `${label}: the hint says how to come back for ${taskid}`);

		const waited = await answered(context, client, `${label}, wait`, 'wait_for_task', { taskType: 'video', taskid });
		const done = waited.result;
		check(waited.ms < CLIENT_TIMEOUT_MS, `${label}: wait_for_task answered within the client's timeout`);
		const [item] = toolItems(textOf(done));
		check(item.status === 'completed' && item.taskid === taskid, `${label}: the same task, completed`);
		check(Array.isArray(item.urls) && item.urls.length > 0, `${label}: with its result URLs`);
		const record = await simulatorRecord(context.simulator.url);
		check(creationsWith(record, VIDEO_PATH, marker).length === 1, `${label}: exactly one creation reached the API`);
	} finally {
		await client.close();
	}
}

/** The arguments of an image call whose prompt carries `marker`. */
const image = (marker: string, extra: Record<string, unknown> = {}) => ({
	prompt: `A lighthouse on a cliff at dawn ${marker}`,
	referenceImageUrl: '',
	count: 1,
	aspectRatio: '16:9',
	...extra,
});

/** One MCP session on one transport: the calls it makes and what they are checked against. */
interface Session {
	context: Context;
	client: McpClient;
	transport: Transport;
	label: (what: string) => string;
	record: () => Promise<RecordedRequestSummary[]>;
}

/** Everything else, on one transport: list, image, refusals, parallel calls. */
async function shortCalls(context: Context, transport: Transport): Promise<void> {
	const client = await context.sdk.connect(context.url, transport);
	const session: Session = {
		context,
		client,
		transport,
		label: (what) => `${transport} / ${what}`,
		record: async () => await simulatorRecord(context.simulator.url),
	};
	try {
		await listTools(session);
		await imageCall(session);
		await refusals(session);
		await parallelCalls(session);
	} finally {
		await client.close();
	}
}

async function listTools({ context, client, label }: Session): Promise<void> {
	const { tools } = await client.listTools();
	context.received.push(JSON.stringify(tools));
	const names = tools.map((tool) => tool.name).sort();
	log('mcp', `${label('tools/list')}: ${names.join(', ')}`);
	check(
		TOOLS.every((name) => names.includes(name)),
		`${label('tools/list')}: the three MediaGen tools are listed`,
	);
	const description = tools.find((tool) => tool.name === 'create_video')?.description ?? '';
	check(/pending/.test(description) && /taskid/.test(description), `${label('tools/list')}: described`);
}

/** An image call of the session that must have answered. */
async function answeredCall({ context, client, label }: Session, what: string, args: Record<string, unknown>) {
	return (await answered(context, client, label(what), 'create_image', args)).result;
}

/** An image: the result URLs and the task id. */
async function imageCall(session: Session): Promise<void> {
	const { label, transport } = session;
	const marker = tag(transport, 'image');
	const result = await answeredCall(session, 'image', image(`${marker} [sim:seconds=2]`));
	check(result.isError !== true, `${label('image')}: not an error`);
	const [item] = toolItems(textOf(result));
	check(item.status === 'completed' && typeof item.taskid === 'string', `${label('image')}: completed`);
	check(Array.isArray(item.urls) && item.urls.length === 1, `${label('image')}: one result URL`);
	check(creationsWith(await session.record(), IMAGE_PATH, marker).length === 1, `${label('image')}: one creation`);
}

/** Refusals: MCP errors whose text still says what happened and what to do. */
async function refusals(session: Session): Promise<void> {
	const { label, transport, context } = session;
	{
		const marker = tag(transport, 'bad');
		const result = await answeredCall(session, 'bad arguments', image(marker, { count: 20, aspectRatio: 'square' }));
		check(result.isError === true, `${label('bad arguments')}: isError`);
		check(/count/.test(textOf(result)) && /aspectRatio/.test(textOf(result)), `${label('bad arguments')}: named`);
		check(/Nothing was sent/i.test(textOf(result)), `${label('bad arguments')}: says nothing was sent`);
		check(
			creationsWith(await session.record(), IMAGE_PATH, marker).length === 0,
			`${label('bad arguments')}: no creation`,
		);
	}
	{
		const marker = tag(transport, 'credits');
		const result = await answeredCall(session, 'credits', image(`${marker} [sim:credits]`));
		check(result.isError === true, `${label('credits')}: isError`);
		check(/insufficient credits/i.test(textOf(result)), `${label('credits')}: says why`);
		check(/top up/i.test(textOf(result)), `${label('credits')}: says what to do`);
	}
	{
		const marker = tag(transport, 'refused');
		const result = await answeredCall(session, 'refused task', image(`${marker} [sim:refuse] [sim:seconds=1]`));
		check(result.isError === true, `${label('refused task')}: isError`);
		const created = creationsWith(await session.record(), IMAGE_PATH, marker);
		check(created.length === 1, `${label('refused task')}: one creation`);
		const tasks = await simulatorTasks(context.simulator.url);
		const taskid = tasks.find((task) => (task.prompt ?? '').includes(marker))?.taskid;
		check(taskid && textOf(result).includes(taskid), `${label('refused task')}: the text names task ${taskid}`);
		check(/moderation/i.test(textOf(result)), `${label('refused task')}: with the API's reason`);
	}
}

/** Three calls at once on one session. */
async function parallelCalls({ context, client, transport, label, record }: Session): Promise<void> {
	const marker = tag(transport, 'parallel');
	const ids = await Promise.all(
		[1, 2, 3].map(async (index) => {
			const what = `${label('parallel')} #${index}`;
			const args = image(`${marker} #${index} [sim:seconds=${1 + index}]`);
			const [item] = toolItems(textOf((await answered(context, client, what, 'create_image', args)).result));
			check(item.status === 'completed', `${what}: completed`);
			return String(item.taskid);
		}),
	);
	check(new Set(ids).size === 3, `${label('parallel')}: three different tasks`);
	check(creationsWith(await record(), IMAGE_PATH, marker).length === 3, `${label('parallel')}: three creations`);
}

/** The MCP server of examples/mcp-server.json with its production URL. */
function exampleServer(example: Workflow): { path: string } {
	const trigger = findNode(example, 'an MCP Server Trigger with a path', (node) => node.type.endsWith('.mcpTrigger'));
	check(typeof trigger.parameters.path === 'string', 'the MCP Server Trigger has a path');
	for (const name of TOOLS)
		findNode(example, `the MediaGen tool ${name}`, (node) => node.name === name && node.type === TOOL_TYPE);
	return { path: trigger.parameters.path };
}

/**
 * A chat workflow whose AI Agent reaches the example's tools through n8n's own MCP Client Tool (at its defaults:
 * Streamable HTTP, a 60 s timeout), with an OpenAI model that the scripted model server answers.
 */
function clientWorkflow(mcpUrl: string, modelCredential: { id: string; name: string }): Workflow {
	const langchain = '@n8n/n8n-nodes-langchain';
	return workflowOf(
		'mediagenMcpClient01',
		'An AI Agent using MediaGen through MCP',
		[
			{
				parameters: { public: true, mode: 'hostedChat', options: { responseMode: 'lastNode' } },
				name: 'When chat message received',
				type: `${langchain}.chatTrigger`,
				typeVersion: 1.1,
				webhookId: '8c4f1d63-6b2a-4e9f-8d4c-7a2b3e5f8001',
			},
			{
				parameters: { promptType: 'auto', options: { maxIterations: 6 } },
				name: 'AI Agent',
				type: `${langchain}.agent`,
				typeVersion: 2,
			},
			{
				parameters: { model: { __rl: true, value: 'gpt-4o-mini', mode: 'list' }, options: {} },
				name: 'OpenAI Chat Model',
				type: `${langchain}.lmChatOpenAi`,
				typeVersion: 1.2,
				credentials: { openAiApi: modelCredential },
			},
			{
				parameters: { endpointUrl: mcpUrl, serverTransport: 'httpStreamable', options: {} },
				name: 'MediaGen MCP',
				type: `${langchain}.mcpClientTool`,
				typeVersion: 1.1,
			},
		],
		[
			['When chat message received', 'AI Agent'],
			['OpenAI Chat Model', 'AI Agent', 0, 'ai_languageModel'],
			['MediaGen MCP', 'AI Agent', 0, 'ai_tool'],
		],
	);
}

/**
 * The items of a MediaGen result as n8n's MCP Client Tool hands it to the model: the MCP result's content parts as
 * JSON, whose text is the tool's JSON.
 */
function clientToolItems(output: string | undefined): Array<Record<string, unknown>> {
	try {
		const parts = JSON.parse(output ?? '') as Array<{ text?: string }>;
		return JSON.parse(parts.map((part) => part.text ?? '').join('')) as Array<Record<string, unknown>>;
	} catch {
		return [];
	}
}

/** The offered tool whose name ends with `name` (n8n's MCP Client Tool may prefix the server's tool names). */
function offered(request: ModelRequest, name: string): string {
	const tool = request.tools.find((candidate) => candidate.name === name || candidate.name.endsWith(`_${name}`));
	if (!tool) throw new Error(`no tool ${name} offered (${request.tools.map((entry) => entry.name).join(', ')})`);
	return tool.name;
}

/**
 * The scripted model of agentThroughMcp: a long video, then wait_for_task with its task id, then an image the
 * API refuses for lack of credits, then text that repeats every result.
 */
function agentScript(simulatorUrl: string, marker: string): ModelScript {
	return (request) => {
		const results = request.toolResults;
		if (results.length === 0)
			return {
				call: {
					name: offered(request, 'create_video'),
					arguments: {
						prompt: `Waves at night ${marker} [sim:seconds=${LONG_RENDER_S}]`,
						sourceImageUrl: `${simulatorUrl}/files/source.png`,
						duration: 5,
						aspectRatio: '16:9',
					},
				},
			};
		if (results.length === 1) {
			const [pending] = clientToolItems(results[0].output);
			if (!pending?.taskid) return { text: `no task id: ${results[0].output}` };
			return {
				call: { name: offered(request, 'wait_for_task'), arguments: { taskType: 'video', taskid: pending.taskid } },
			};
		}
		if (results.length === 2)
			return {
				call: {
					name: offered(request, 'create_image'),
					arguments: {
						prompt: 'A fox [agent credits] [sim:credits]',
						referenceImageUrl: '',
						count: 1,
						aspectRatio: '1:1',
					},
				},
			};
		return { text: `Results: ${results.map((result) => result.output).join(' || ')}` };
	};
}

/**
 * n8n's own MCP Client Tool under an AI Agent: the long render reaches the model as pending with its task id
 * before the client tool's 60 s timeout, the model picks it up with wait_for_task, and a refusal reaches the
 * model as the error's text (what happened, what to do).
 */
async function agentThroughMcp(
	context: Context,
	baseUrl: string,
	model: ModelServer,
	webhookId: string,
): Promise<void> {
	const marker = '[agent long]';
	model.setScript(agentScript(context.simulator.url, marker));
	const started = Date.now();
	await sendChat(baseUrl, webhookId, 'mcp-agent', 'Make a video of waves at night.', 300_000);
	const last = model.requests[model.requests.length - 1];
	const [created, waited, refused] = last?.toolResults ?? [];
	for (const [what, result] of [
		['create_video', created],
		['wait_for_task', waited],
		['create_image (9000)', refused],
	] as const)
		log('mcp', `agent via MCP Client Tool: the model read from ${what}: ${result?.output.slice(0, 400)}`);
	const [pending] = clientToolItems(created?.output);
	check(pending?.status === 'pending', 'agent via MCP Client Tool: the long render came back pending');
	const taskid = String(pending.taskid ?? '');
	check(taskid, 'agent via MCP Client Tool: with its task id');
	const [done] = clientToolItems(waited?.output);
	check(
		done?.status === 'completed' && done.taskid === taskid,
		'agent via MCP Client Tool: wait_for_task returned it completed',
	);
	check(
		refused && /insufficient credits/i.test(refused.output) && /top up/i.test(refused.output),
		`agent via MCP Client Tool: the refusal's text reached the model (${refused?.output})`,
	);
	const record = await simulatorRecord(context.simulator.url);
	check(creationsWith(record, VIDEO_PATH, marker).length === 1, 'agent via MCP Client Tool: one video creation');
	context.received.push(...(last?.toolResults ?? []).map((result) => result.output));
	log('mcp', `agent via MCP Client Tool: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Waits until the MCP server answers a client's connection. */
async function waitForMcpServer(sdk: Sdk, url: string): Promise<void> {
	await waitFor(
		async (see) => {
			try {
				const client = await sdk.connect(url, 'streamable HTTP');
				await client.close();
				return true;
			} catch (error) {
				see((error as Error).message);
				return false;
			}
		},
		{ deadline: 120_000, describe: `the MCP server at ${url}`, interval: 500 },
	);
}

async function runVersion(version: string, tarball: string): Promise<void> {
	const example = readExample<Workflow>('mcp-server.json');
	const { path: mcpPath } = exampleServer(example);
	const model = await startModelServer();
	const modelCredential = { id: 'openai-cred', name: 'OpenAi account' };
	// The client workflow names the server's URL, so the port is chosen before the import.
	const port = await freePort();
	const url = `http://127.0.0.1:${port}/mcp/${mcpPath}`;
	const agent = clientWorkflow(url, modelCredential);
	const chatId = agent.nodes[0].webhookId!;
	const options = {
		scope: 'mcp',
		version,
		tarball,
		logFile: path.join(logFolder(`mcp-${version}`), 'n8n.log'),
		simulator: { taskDurationMs: 2000 },
		credentials: [{ ...modelCredential, type: 'openAiApi', data: { apiKey: 'sk-mcp-test', url: model.baseUrl } }],
		workflows: [example, agent],
		// The agent's Chat Trigger answers once n8n has registered its webhook, which a loaded machine may do after
		// the workflow's activation has returned (a chat sent before was answered HTTP 404 once).
		chats: [chatId],
		port,
	};
	try {
		await withN8n(options, async (n8n) => {
			const sdk = loadSdk(n8n.install);
			await waitForMcpServer(sdk, url);
			n8n.step('MCP server answers');
			const context: Context = { sdk, url, simulator: n8n.simulator, received: [] };
			// The long renders run side by side; everything else runs meanwhile.
			const long = Promise.all([
				longRender(context, 'streamable HTTP'),
				longRender(context, 'SSE'),
				agentThroughMcp(context, n8n.server.url, model, chatId),
			]);
			long.catch(() => {});
			await shortCalls(context, 'streamable HTTP');
			await shortCalls(context, 'SSE');
			await long;
			n8n.step('calls');

			const received = context.received.join('\n');
			check(!received.includes(SIM_KEY), 'the API key is in nothing any client received');
			const executions = await listExecutions(n8n.session, example.id);
			log('mcp', `n8n recorded ${executions.length} executions of the MCP server workflow`);
			log('mcp', `PASS on n8n ${version}`);
		});
	} finally {
		await model.close();
	}
}

runMain('mcp', async () => await runOnVersions('mcp', suiteVersions('MEDIAGEN_MCP_VERSIONS'), runVersion));
