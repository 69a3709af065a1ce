/**
 * `npm run test:mcp`: examples/mcp-server.json (n8n's MCP Server Trigger with three MediaGen tools) in real n8n,
 * called as external clients do: the MCP SDK client n8n ships, at its defaults (a request fails after 60 s), over
 * Streamable HTTP and SSE, and n8n's own MCP Client Tool under an AI Agent whose model is the scripted model server.
 * The simulator's prompt markers choose what each call meets; CONTRIBUTING.md, "The MCP suite", lists what is
 * checked. MEDIAGEN_MCP_VERSIONS picks the n8n versions (default "2.41.1,1.123.81").
 */
import { createRequire } from 'node:module';
import path from 'node:path';

import type { ModelServer } from './lib/model-server';
import { findNode, sendChat, toolItems, workflowOf, type Workflow } from './lib/n8n';
import { freePort, runMain } from './lib/process';
import { check, log, since } from './lib/report';
import { listExecutions } from './lib/rest';
import { SIM_KEY, simulatorRecord, simulatorTasks, type SimulatorProcess } from './lib/simulator';
import { readExample, runOnVersions, suiteVersions, type RunningN8n } from './lib/suite';
import {
	callsThenRepeat,
	checkCompleted,
	checkPending,
	creationsAt,
	imageArgs,
	TOOL_TYPE,
	withModelServer,
} from './lib/tool-suite';
import { waitFor } from './lib/wait';

/** The MCP SDK client's default request timeout (`DEFAULT_REQUEST_TIMEOUT_MSEC`): what the clients here keep. */
const CLIENT_TIMEOUT_MS = 60_000;
/** A render longer than the client's patience. */
const LONG_RENDER_S = 70;
const IMAGE_PATH = '/v1/tlimages/betav45';
const TOOLS = ['create_image', 'create_video', 'wait_for_task'];
const VIDEO_PATH = '/v1/tlvideo/alphav15pro';

/** The parts of the SDK's client the suite uses. */
interface McpClient {
	connect(transport: unknown): Promise<void>;
	listTools(): Promise<{ tools: Array<{ name: string; description?: string }> }>;
	callTool(request: {
		name: string;
		arguments: Record<string, unknown>;
	}): Promise<{ isError?: boolean; content?: Array<{ text?: string }> }>;
	close(): Promise<void>;
}

type Transport = 'streamable HTTP' | 'SSE';

/** Connects the MCP SDK client that n8n ships (from its AI nodes' dependencies, as n8n resolves it) to `url`. */
function sdkClient(installDir: string, url: string): (transport: Transport) => Promise<McpClient> {
	const langchain = createRequire(
		createRequire(path.join(installDir, 'package.json')).resolve('@n8n/n8n-nodes-langchain/package.json'),
	);
	const load = (file: string) =>
		langchain(`@modelcontextprotocol/sdk/client/${file}`) as Record<string, new (arg: object) => unknown>;
	const Client = load('index.js').Client as new (info: object) => McpClient;
	const transports = {
		'streamable HTTP': load('streamableHttp.js').StreamableHTTPClientTransport,
		SSE: load('sse.js').SSEClientTransport,
	};
	return async (transport) => {
		const client = new Client({ name: 'mediagen-mcp-suite', version: '1.0.0' });
		await client.connect(new transports[transport](new URL(url)));
		return client;
	};
}

interface Context {
	connect: ReturnType<typeof sdkClient>;
	simulator: SimulatorProcess;
	/** Every text any client received, for the key check. */
	received: string[];
}

interface Session extends Context {
	client: McpClient;
	label: (what: string) => string;
	/** A short tag that makes a scenario's prompts unique in the simulator's record. */
	tag: (what: string) => string;
}

async function onSession(context: Context, transport: Transport, body: (session: Session) => Promise<void>) {
	const client = await context.connect(transport);
	try {
		const tag = (what: string) => `[${transport === 'SSE' ? 'sse' : 'http'} ${what}]`;
		await body({ ...context, client, label: (what) => `${transport} / ${what}`, tag });
	} finally {
		await client.close();
	}
}

/** A call that must have answered (not failed or timed out): logged, its text kept for the key check. */
async function answered(session: Session, what: string, tool: string, args: Record<string, unknown>) {
	const label = session.label(what);
	const started = Date.now();
	const result = await session.client
		.callTool({ name: tool, arguments: args })
		.catch(({ code, message }: { code?: number; message: string }) => `the call failed (${code ?? '-'} ${message})`);
	const ms = Date.now() - started;
	const text = typeof result === 'string' ? '' : (result.content ?? []).map((part) => part.text ?? '').join('\n');
	const said = typeof result === 'string' ? result : `isError ${result.isError === true}, ${text.slice(0, 400)}`;
	const seen = `${(ms / 1000).toFixed(1)} s: ${said}${text.length > 400 ? '…' : ''}`;
	log('mcp', `${label}: ${tool} → ${seen}`);
	check(typeof result !== 'string', `${label}: the client got an answer (${seen})`);
	session.received.push(text);
	return { isError: result.isError === true, text, ms };
}

const creations = async (context: Context, apiPath: string, marker: string) =>
	creationsAt(await simulatorRecord(context.simulator.url), apiPath, marker).length;

/** The arguments of a video call that renders longer than the client's patience. */
const longVideo = (context: Context, prompt: string) => ({
	prompt: `${prompt} [sim:seconds=${LONG_RENDER_S}]`,
	sourceImageUrl: `${context.simulator.url}/files/source.png`,
	duration: 5,
	aspectRatio: '16:9',
});

/** The long render: answered pending within the client's patience, then picked up by wait_for_task. */
async function longRender(session: Session): Promise<void> {
	const { label, tag } = session;
	const marker = tag('long');
	const video = longVideo(session, `A slow pan over a harbour at night ${marker}`);
	const created = await answered(session, 'long video', 'create_video', video);
	const timeout = `the client's ${CLIENT_TIMEOUT_MS / 1000} s`;
	check(created.ms < CLIENT_TIMEOUT_MS, `${label('long video')}: answered within ${timeout}`);
	check(!created.isError, `${label('long video')}: a pending task is not an error`);
	const taskid = checkPending(label('long video'), toolItems(created.text)[0]);
	const waited = await answered(session, 'long video, wait', 'wait_for_task', { taskType: 'video', taskid });
	check(waited.ms < CLIENT_TIMEOUT_MS, `${label('long video')}: wait_for_task answered within ${timeout}`);
	const urls = checkCompleted(label('long video'), toolItems(waited.text)[0], taskid);
	check(urls.length > 0, `${label('long video')}: with its result URLs`);
	check((await creations(session, VIDEO_PATH, marker)) === 1, `${label('long video')}: exactly one creation`);
}

const image = async (session: Session, what: string, marker: string, extra: Record<string, unknown> = {}) =>
	await answered(session, what, 'create_image', imageArgs(`A lighthouse on a cliff at dawn ${marker}`, extra));

async function listTools({ received, client, label }: Session): Promise<void> {
	const { tools } = await client.listTools();
	received.push(JSON.stringify(tools));
	const names = tools.map((tool) => tool.name).sort();
	log('mcp', `${label('tools/list')}: ${names.join(', ')}`);
	const missing = TOOLS.filter((name) => !names.includes(name));
	check(!missing.length, `${label('tools/list')}: the three MediaGen tools are listed (not ${missing.join(', ')})`);
	const description = tools.find((tool) => tool.name === 'create_video')?.description ?? '';
	check(/pending/.test(description) && /taskid/.test(description), `${label('tools/list')}: described`);
}

async function imageCall(session: Session): Promise<void> {
	const { label, tag } = session;
	const { isError, text } = await image(session, 'image', `${tag('image')} [sim:seconds=2]`);
	check(!isError, `${label('image')}: not an error`);
	const [item] = toolItems(text);
	check(item.status === 'completed' && typeof item.taskid === 'string', `${label('image')}: completed`);
	check(Array.isArray(item.urls) && item.urls.length === 1, `${label('image')}: one result URL`);
	check((await creations(session, IMAGE_PATH, tag('image'))) === 1, `${label('image')}: one creation`);
}

/** Refusals: MCP errors whose text still says what happened and what to do. */
async function refusals(session: Session): Promise<void> {
	const { label, tag } = session;
	const bad = await image(session, 'bad arguments', tag('bad'), { count: 20, aspectRatio: 'square' });
	check(bad.isError, `${label('bad arguments')}: isError`);
	check(/count/.test(bad.text) && /aspectRatio/.test(bad.text), `${label('bad arguments')}: named`);
	check(/Nothing was sent/i.test(bad.text), `${label('bad arguments')}: says nothing was sent`);
	check((await creations(session, IMAGE_PATH, tag('bad'))) === 0, `${label('bad arguments')}: no creation`);
	const credits = await image(session, 'credits', `${tag('credits')} [sim:credits]`);
	check(credits.isError, `${label('credits')}: isError`);
	check(/insufficient credits/i.test(credits.text), `${label('credits')}: says why`);
	check(/top up/i.test(credits.text), `${label('credits')}: says what to do`);
	const marker = tag('refused');
	const refused = await image(session, 'refused task', `${marker} [sim:refuse] [sim:seconds=1]`);
	check(refused.isError, `${label('refused task')}: isError`);
	check((await creations(session, IMAGE_PATH, marker)) === 1, `${label('refused task')}: one creation`);
	const tasks = await simulatorTasks(session.simulator.url);
	const taskid = tasks.find((task) => (task.prompt ?? '').includes(marker))?.taskid;
	check(taskid && refused.text.includes(taskid), `${label('refused task')}: the text names task ${taskid}`);
	check(/moderation/i.test(refused.text), `${label('refused task')}: with the API's reason`);
}

async function parallelCalls(session: Session): Promise<void> {
	const { label, tag } = session;
	const ids = await Promise.all(
		[1, 2, 3].map(async (index) => {
			const what = `parallel #${index}`;
			const { text } = await image(session, what, `${tag('parallel')} #${index} [sim:seconds=${1 + index}]`);
			const [item] = toolItems(text);
			check(item.status === 'completed', `${label(what)}: completed`);
			return String(item.taskid);
		}),
	);
	check(new Set(ids).size === 3, `${label('parallel')}: three different tasks`);
	check((await creations(session, IMAGE_PATH, tag('parallel'))) === 3, `${label('parallel')}: three creations`);
}

/** The path of the example's MCP Server Trigger, and its three tools checked to be there. */
function exampleServerPath(example: Workflow): string {
	const trigger = findNode(example, 'an MCP Server Trigger with a path', (node) => node.type.endsWith('.mcpTrigger'));
	check(typeof trigger.parameters.path === 'string', 'the MCP Server Trigger has a path');
	for (const name of TOOLS)
		findNode(example, `the MediaGen tool ${name}`, (node) => node.name === name && node.type === TOOL_TYPE);
	return trigger.parameters.path;
}

/**
 * A chat workflow whose AI Agent reaches the example's tools through n8n's own MCP Client Tool (at its defaults:
 * Streamable HTTP, a 60 s timeout), with an OpenAI model that the scripted model server answers.
 */
function clientWorkflow(mcpUrl: string, openAi: { id: string; name: string }): Workflow {
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
				credentials: { openAiApi: openAi },
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

/**
 * n8n's own MCP Client Tool under an AI Agent: the long render reaches the model as pending with its task id
 * before the client tool's 60 s timeout, the model picks it up with wait_for_task, and a refusal reaches the
 * model as the error's text (what happened, what to do).
 */
async function agentThroughMcp(context: Context, n8n: RunningN8n, model: ModelServer, webhookId: string) {
	const label = 'agent via MCP Client Tool';
	const marker = '[agent long]';
	const comeBack = ([created]: Array<{ output: string }>) => {
		const taskid = clientToolItems(created.output)[0]?.taskid;
		return taskid ? { taskType: 'video', taskid } : `no task id: ${created.output}`;
	};
	model.setScript(
		callsThenRepeat([
			{ tool: 'create_video', args: longVideo(context, `Waves at night ${marker}`) },
			{ tool: 'wait_for_task', args: comeBack },
			{ tool: 'create_image', args: imageArgs('A fox [agent credits] [sim:credits]', { aspectRatio: '1:1' }) },
		]),
	);
	const started = Date.now();
	await sendChat(n8n.server.url, webhookId, 'mcp-agent', 'Make a video of waves at night.', 300_000);
	const results = model.requests.at(-1)?.toolResults ?? [];
	for (const { name, output } of results) log('mcp', `${label}: the model read from ${name}: ${output.slice(0, 400)}`);
	const [created, waited, refused] = results;
	const taskid = checkPending(label, clientToolItems(created?.output)[0], false);
	checkCompleted(label, clientToolItems(waited?.output)[0], taskid);
	check(
		refused && /insufficient credits/i.test(refused.output) && /top up/i.test(refused.output),
		`${label}: the refusal's text reached the model (${refused?.output})`,
	);
	check((await creations(context, VIDEO_PATH, marker)) === 1, `${label}: one video creation`);
	context.received.push(...results.map((result) => result.output));
	log('mcp', `${label}: done in ${since(started, 1)}`);
}

async function runVersion(version: string, tarball: string): Promise<void> {
	const example = readExample<Workflow>('mcp-server.json');
	const openAi = { id: 'openai-cred', name: 'OpenAi account' };
	// The client workflow names the server's URL, so the port is chosen before the import.
	const port = await freePort();
	const url = `http://127.0.0.1:${port}/mcp/${exampleServerPath(example)}`;
	const agent = clientWorkflow(url, openAi);
	const chatId = agent.nodes[0].webhookId!;
	const options = {
		scope: 'mcp',
		version,
		tarball,
		simulator: { taskDurationMs: 2000 },
		workflows: [example, agent],
		// The agent's Chat Trigger answers once n8n has registered its webhook, which a loaded machine may do after
		// the workflow's activation has returned (a chat sent before was answered HTTP 404 once).
		chats: [chatId],
		port,
	};
	await withModelServer(options, openAi, async (n8n, model) => {
		const connect = sdkClient(n8n.install.dir, url);
		await waitFor(
			async (see) =>
				await connect('streamable HTTP')
					.then(async (client) => await client.close())
					.then(() => true)
					.catch((error: Error) => see(error.message)),
			{ deadline: 120_000, describe: `the MCP server at ${url}`, interval: 500 },
		);
		n8n.step('MCP server answers');
		const context: Context = { connect, simulator: n8n.simulator, received: [] };
		// The long renders run side by side; everything else runs meanwhile.
		const long = Promise.all([
			onSession(context, 'streamable HTTP', longRender),
			onSession(context, 'SSE', longRender),
			agentThroughMcp(context, n8n, model, chatId),
		]);
		long.catch(() => {});
		for (const transport of ['streamable HTTP', 'SSE'] as const)
			await onSession(context, transport, async (session) => {
				await listTools(session);
				await imageCall(session);
				await refusals(session);
				await parallelCalls(session);
			});
		await long;
		n8n.step('calls');
		check(!context.received.join('\n').includes(SIM_KEY), 'the API key is in nothing any client received');
		const executions = await listExecutions(n8n.session, example.id);
		log('mcp', `n8n recorded ${executions.length} executions of the MCP server workflow`);
		log('mcp', `PASS on n8n ${version}`);
	});
}

runMain('mcp', async () => await runOnVersions('mcp', suiteVersions('MEDIAGEN_MCP_VERSIONS'), runVersion));
