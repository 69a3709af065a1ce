/**
 * `npm run test:agent`: examples/agent-images.json and variants of it (model API, streaming, Max Wait) in real
 * n8n, offline: a scripted OpenAI-compatible model (scripts/lib/model-server.ts) calls the MediaGen tools, whose
 * credential points at the API simulator, then repeats what they returned. Checked on the simulator's record (what
 * reached the API) and the model server's (what the model read); CONTRIBUTING.md, "The AI Agent suite", lists it.
 * MEDIAGEN_AGENT_VERSIONS picks the n8n versions (default "2.41.1,1.123.81").
 */
import type { ModelServer } from './lib/model-server';
import { findNode, sendChat, toolItems, type Workflow } from './lib/n8n';
import { runMain } from './lib/process';
import { check, log, since } from './lib/report';
import { getExecution, waitForExecution } from './lib/rest';
import { injectFault, resetSimulator, simulatorRecord } from './lib/simulator';
import { readExample, runOnVersions, suiteVersions, type RunningN8n } from './lib/suite';
import {
	callsThenRepeat,
	checkCompleted,
	checkPending,
	creationsAt,
	imageArgs,
	offeredTool,
	TOOL_TYPE,
	withModelServer,
	type ScriptedCall,
} from './lib/tool-suite';

const CREATE_PATH = '/v1/tlimages/betav45';
const INFO_PATH = '/v1/tlimages/infobytaskid';
/** Renders take this long in the simulator: longer than the short-wait variant's Max Wait (1 s). */
const TASK_SECONDS = 4;

type Variant = ReturnType<typeof variants>[number];

/** n8n's tool name for a node: characters outside [A-Za-z0-9_-] become "_" (nodeNameToToolName). */
function toolName(nodeName: string): string {
	return nodeName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
}

/** The example's parts the suite drives, checked to be there. */
function exampleParts(workflow: Workflow) {
	const trigger = findNode(workflow, 'a Chat Trigger', (node) => node.type === '@n8n/n8n-nodes-langchain.chatTrigger');
	const model = findNode(workflow, 'an OpenAI Chat Model', (node) => node.type.endsWith('.lmChatOpenAi'));
	const toolNode = (what: string, test: (parameters: Record<string, unknown>) => boolean) =>
		findNode(workflow, `a MediaGen ${what} tool`, (node) => node.type === TOOL_TYPE && test(node.parameters));
	const create = toolNode('image', ({ resource }) => resource === 'image');
	const wait = toolNode('Task → Wait', ({ resource, operation }) => resource === 'task' && operation === 'wait');
	check(trigger.parameters.public === true && trigger.webhookId, 'the Chat Trigger is public and has a webhook id');
	const apart = [create.name, wait.name].filter((name) => !workflow.connections[name]?.ai_tool?.[0]?.[0]?.node);
	check(!apart.length, `the MediaGen tools are connected to the agent as tools (not ${apart.join(', ')})`);
	return { trigger, model, create, wait };
}

/**
 * The example as it is, and variants that differ in one setting each: the model API (Chat Completions instead of
 * Responses), the chat's response mode (not streamed), or the creation tool's Max Wait (1 s, so that a render
 * comes back pending).
 */
type Setting = 'chatCompletions' | 'notStreamed' | 'agent31' | 'shortWait';
const VARIANTS: Array<{ label: string } & Partial<Record<Setting, boolean>>> = [
	{ label: 'the example' },
	{ label: 'Chat Completions, not streamed', chatCompletions: true, notStreamed: true },
	{ label: 'Responses, not streamed', notStreamed: true },
	{ label: 'Chat Completions, streamed', chatCompletions: true, agent31: true },
	{ label: 'Max Wait 1 s', shortWait: true },
];

/** VARIANTS as workflows, each with its own workflow id, name and chat URL. */
function variants(example: Workflow, version: string) {
	return VARIANTS.map(({ label, chatCompletions, notStreamed, agent31, shortWait }, index) => {
		const workflow = JSON.parse(JSON.stringify(example)) as Workflow;
		const { trigger, model, create } = exampleParts(workflow);
		if (index > 0) {
			workflow.id = `${example.id.slice(0, 15)}Var${index}`;
			workflow.name = `${example.name} [${label}]`;
			trigger.webhookId = `${trigger.webhookId!.slice(0, -4)}${String(index).padStart(4, '0')}`;
		}
		if (chatCompletions) model.parameters.responsesApiEnabled = false;
		const options = (trigger.parameters.options ?? {}) as Record<string, unknown>;
		if (notStreamed) trigger.parameters.options = { ...options, responseMode: 'lastNode' };
		// The AI Agent that n8n 2.x adds by default (3.1) besides the example's 3, which n8n 1.x also has.
		if (agent31 && !version.startsWith('1.'))
			findNode(workflow, 'an AI Agent', (node) => node.type.endsWith('.agent')).typeVersion = 3.1;
		if (shortWait) create.parameters.options = { ...(create.parameters.options as object), maxWait: 1 };
		return {
			label,
			workflow,
			webhookId: trigger.webhookId!,
			api: model.parameters.responsesApiEnabled === false ? 'chat' : 'responses',
			streamed: !notStreamed && options.responseMode === 'streaming',
		};
	});
}

/** The agent's reply text, streamed or not. */
async function chat(baseUrl: string, variant: Variant, sessionId: string, chatInput: string): Promise<string> {
	const text = await sendChat(baseUrl, variant.webhookId, sessionId, chatInput, 180_000);
	if (!variant.streamed) {
		const body = JSON.parse(text) as { output?: string } | Array<{ output?: string }>;
		const output = Array.isArray(body) ? body[0]?.output : body.output;
		check(typeof output === 'string', `the chat answer has an output: ${text.slice(0, 300)}`);
		return output;
	}
	// Streamed: one JSON object per line; the reply is the content of the "item" chunks.
	const chunks = text
		.split('\n')
		.filter((line) => line.trim())
		.map((line) => JSON.parse(line) as { type: string; content?: string });
	const types = chunks.map((chunk) => chunk.type);
	check(types.includes('begin') && types.includes('end'), `the chat answer was streamed: ${text.slice(0, 300)}`);
	return chunks.map((chunk) => (chunk.type === 'item' ? (chunk.content ?? '') : '')).join('');
}

interface Context {
	n8n: RunningN8n;
	model: ModelServer;
	/** Executions already read: a scenario's execution is the one not seen before. */
	seen: Set<string>;
	/** The example's two MediaGen nodes' names (the model knows them by their toolName). */
	create: string;
	wait: string;
}

/**
 * A chat message, the creation tool's arguments the model calls it with (then `next`, when given), and an
 * envelope the API answers `fault.path` with (HTTP 200). Unless `refusedByNode`, the creation reaches the API.
 */
interface Scenario {
	name: string;
	chatInput: string;
	args: Record<string, unknown> & { prompt: string };
	next?: ScriptedCall;
	fault?: { path: string; code: number; msg: string };
	refusedByNode?: boolean;
}

/** Runs a scenario and checks what every one checks; returns what it saw and the first result's first item. */
async function runScenario(context: Context, variant: Variant, scenario: Scenario) {
	const { n8n, model, seen } = context;
	const { name, fault } = scenario;
	const { simulator, install, session } = n8n;
	await resetSimulator(simulator.url);
	const calls = [{ tool: toolName(context.create), args: scenario.args }, ...(scenario.next ? [scenario.next] : [])];
	model.setScript(callsThenRepeat(calls));
	if (fault) {
		const body = JSON.stringify({ code: fault.code, msg: fault.msg });
		await injectFault(simulator.url, { path: fault.path, action: { type: 'status', status: 200, body } });
	}
	const started = Date.now();
	const answer = await chat(n8n.server.url, variant, `${name}-${n8n.version}`, scenario.chatInput);
	const fresh = await waitForExecution(() => session, variant.workflow.id, {
		which: (candidate) => !seen.has(candidate.id),
		deadline: 180_000,
		what: `a new execution of ${variant.workflow.id} to finish`,
	});
	seen.add(fresh.id);
	const execution = await getExecution(install, session, fresh.id);
	const requests = [...model.requests];
	const record = await simulatorRecord(simulator.url);
	check(requests.length > 0, `${name}: the model was asked`);
	const how = `${variant.api} API ${variant.streamed ? 'streamed' : 'not streamed'}`;
	const other = requests.find((request) => request.api !== variant.api || request.stream !== variant.streamed);
	check(!other, `${name}: n8n called the ${how} (got ${other?.api}, stream ${other?.stream})`);
	// Every tool result the model read in this scenario, in call order.
	const results = requests.at(-1)!.toolResults.map((result) => ({ ...result, items: toolItems(result.output) }));
	log(
		'agent',
		`${variant.label} / ${name}: ${requests.length} model requests (${how}), ${results.length} tool result(s), execution ${execution.id} ${execution.status} in ${since(started, 1)}`,
	);
	for (const result of results) log('agent', `  the model read from ${result.name}: ${result.output}`);
	check(execution.status === 'success', `${name}: the execution succeeded (${execution.status})`);
	const made = creationsAt(record, CREATE_PATH);
	if (!scenario.refusedByNode) {
		check(made.length === 1, `${name}: exactly one creation reached the API (${made.length})`);
		check(made[0].fields.prompt?.[0] === scenario.args.prompt, `${name}: the creation carries the model's prompt`);
		const downloads = record.filter((entry) => entry.method === 'GET' && entry.path.startsWith('/files/'));
		check(downloads.length === 0, `${name}: no result file was downloaded in tool mode`);
		const runs = execution.data.resultData.runData[context.create] ?? [];
		const items = runs.flatMap((run) => Object.values(run.data ?? {}).flatMap((output) => output.flat()));
		const binary = items.filter((item) => item?.binary);
		check(!binary.length, `${name}: the tool's output items carry no binary data (${binary.length} do)`);
	}
	return { answer, requests, results, record, created: made[0], item: results[0]?.items[0] };
}

/** 1. A successful creation: the model's arguments reach the API, the model reads the result URLs and task id. */
async function success(context: Context, variant: Variant): Promise<void> {
	const { create, wait, n8n } = context;
	const prompt = `A lighthouse on a cliff at dawn, watercolour (${variant.label})`;
	const args = imageArgs(prompt, { referenceImageUrl: 'https://images.example.com/lighthouse.jpg', count: 2 });
	const { created, results, answer, requests } = await runScenario(context, variant, {
		name: 'success',
		chatInput: 'Paint me a lighthouse at dawn, two versions, wide format.',
		args,
	});
	check(
		created.fields.imageUrl?.[0] === args.referenceImageUrl,
		'success: the reference image URL the model chose reached the API',
	);
	check(
		created.fields.batchsize?.[0] === '2' && created.fields.resolution?.[0] === '16:9',
		'success: the count and aspect ratio the model chose reached the API',
	);
	check(results.length === 1, 'success: the model read one tool result');
	const [item, ...more] = results[0].items;
	check(!more.length, 'success: the tool result holds one item for the one task');
	check(item.status === 'completed', `success: status completed (${String(item.status)})`);
	const urls = item.urls as string[];
	check(
		Array.isArray(urls) && urls.length === 2 && urls.every((url) => url.startsWith(`${n8n.simulator.url}/files/`)),
		'success: the model read the two result URLs',
	);
	check(typeof item.taskid === 'string' && urls[0].includes(item.taskid), 'success: the model read the task id');
	check(item.request === undefined, 'success: the tool result does not echo the request');
	check(!results[0].output.includes(prompt), 'success: the tool result does not echo the prompt');
	const missing = urls.filter((url) => !answer.includes(url));
	check(!missing.length, `success: the final chat answer carries the URLs (not ${missing.join(', ')})`);
	// What the model is told about the tool, by default and by the example's $fromAI descriptions.
	const offered = offeredTool(requests[0], toolName(create));
	check(
		/url/i.test(offered.description) && /taskid/.test(offered.description) && /pending/.test(offered.description),
		`success: the tool description says what comes back (URLs, taskid, pending): ${offered.description}`,
	);
	check(
		/^What the picture shows/.test(offered.parameters.properties?.prompt?.description ?? ''),
		'success: the prompt argument carries the example description',
	);
	check(
		/taskid/.test(offeredTool(requests[0], toolName(wait)).description),
		'success: the Task → Wait tool says it takes the taskid',
	);
}

/** 2. Insufficient credits (9000): nothing was created; the model reads the message and the advice. */
async function credits(context: Context, variant: Variant): Promise<void> {
	const { item, answer, results } = await runScenario(context, variant, {
		name: 'credits',
		chatInput: 'Draw a red fox in the snow.',
		args: imageArgs('A red fox in the snow'),
		fault: { path: CREATE_PATH, code: 9000, msg: 'Insufficient credits' },
	});
	check(item.status === 'failed', `credits: status failed (${String(item.status)})`);
	check(item.error === undefined, 'credits: no top-level "error" key (it would trigger Retry On Fail)');
	check(
		typeof item.message === 'string' && /insufficient credits/i.test(item.message) && !/\[item/.test(item.message),
		`credits: the model read what happened, without "[item N]" (${String(item.message)})`,
	);
	check(
		typeof item.hint === 'string' && /top up/i.test(item.hint),
		`credits: the model read the advice (${String(item.hint)})`,
	);
	check(item.taskid === undefined, 'credits: no task id, since nothing was created');
	check(answer.includes(results[0].output), 'credits: the final chat answer repeats the tool result, advice included');
}

/** 3. A task the API refuses after it was created: the model reads the task id, the API's reason, the advice. */
async function refused(context: Context, variant: Variant): Promise<void> {
	const reason = 'task refused: the prompt violates the content policy';
	const { item, record } = await runScenario(context, variant, {
		name: 'refused',
		chatInput: 'Make a portrait of a famous singer.',
		args: imageArgs('A portrait of a famous singer'),
		fault: { path: INFO_PATH, code: 9999, msg: reason },
	});
	const taskid = (record.find((entry) => entry.path === INFO_PATH)?.json as { taskid?: string })?.taskid;
	check(item.status === 'failed', `refused: status failed (${String(item.status)})`);
	check(taskid && item.taskid === taskid, `refused: the model read the task id ${taskid}`);
	check(String(item.message).includes(reason), 'refused: the model read the API’s reason');
	check(
		typeof item.hint === 'string' && item.hint.includes(taskid) && /charged/.test(item.hint),
		`refused: the advice names the task and says a new creation is charged (${String(item.hint)})`,
	);
}

/** 4. Arguments the node refuses: named by the example's $fromAI argument names; nothing reaches the API. */
async function badArguments(context: Context, variant: Variant): Promise<void> {
	const { record, results } = await runScenario(context, variant, {
		name: 'bad arguments',
		chatInput: 'Paint twenty lighthouses from my photo lighthouse.jpg, square please.',
		args: imageArgs('A lighthouse in a storm', {
			referenceImageUrl: 'lighthouse.jpg',
			count: 20,
			aspectRatio: 'square please',
		}),
		refusedByNode: true,
	});
	check(record.length === 0, `bad arguments: nothing reached the API (${record.length} requests)`);
	const [item, ...more] = results[0].items;
	check(!more.length && item.status === 'failed', `bad arguments: one failed result (${results[0].output})`);
	for (const expected of [
		/^3 fields are invalid\. /,
		/\(1\) referenceImageUrl must hold http\(s\) URLs \("Source Image URL"\); got "lighthouse\.jpg"\./,
		/\(2\) count must be an integer from 1 to 15 \("Batch Size"\); got 20\./,
		/\(3\) aspectRatio must be .+ \("Resolution"\); got "square please"\.$/,
	])
		check(expected.test(String(item.message)), `bad arguments: the message matches ${String(expected)}`);
	check(
		typeof item.hint === 'string' && /Nothing was sent to the API/.test(item.hint),
		`bad arguments: the hint says nothing was sent (${String(item.hint)})`,
	);
}

/** 5. A render longer than Max Wait: pending with the task id; the model comes back through Task → Wait. */
async function pending(context: Context, variant: Variant): Promise<void> {
	const [createTool, waitTool] = [toolName(context.create), toolName(context.wait)];
	const comeBack = ([created]: Array<{ output: string }>) => {
		const [item] = toolItems(created.output);
		return item.status === 'pending' ? { taskid: item.taskid } : `expected pending: ${created.output}`;
	};
	const { results, answer } = await runScenario(context, variant, {
		name: 'pending',
		chatInput: 'Paint a mountain lake.',
		args: imageArgs('A slow render of a mountain lake'),
		next: { tool: waitTool, args: comeBack },
	});
	check(results.length === 2, `pending: the model read two tool results (${results.length})`);
	const [first, second] = results;
	check(
		first.name === createTool && second.name === waitTool,
		'pending: the model called the creation tool, then the Task → Wait tool',
	);
	const urls = checkCompleted('pending', second.items[0], checkPending('pending', first.items[0]));
	check(urls.length === 1 && urls.every((url) => answer.includes(url)), 'pending: the final answer carries the URL');
}

async function runVersion(version: string, tarball: string): Promise<void> {
	const example = readExample<Workflow>('agent-images.json');
	const all = variants(example, version);
	const { create, wait, model: chatModel } = exampleParts(example);
	const openAi = chatModel.credentials?.openAiApi;
	check(openAi, 'the example names an OpenAI credential');
	const options = {
		scope: 'agent',
		version,
		tarball,
		simulator: { taskDurationMs: TASK_SECONDS * 1000 },
		workflows: all.map((variant) => variant.workflow),
		chats: all.map((variant) => variant.webhookId),
	};
	await withModelServer(options, openAi, async (n8n, model) => {
		const context: Context = { n8n, model, seen: new Set(), create: create.name, wait: wait.name };
		const [asIs, chatNotStreamed, responsesNotStreamed, , shortWait] = all;
		// Every API × streaming combination the variants cover.
		for (const variant of all.filter((candidate) => candidate !== shortWait)) await success(context, variant);
		n8n.step('success: 4 combinations');
		await credits(context, asIs);
		await refused(context, chatNotStreamed);
		await badArguments(context, responsesNotStreamed);
		n8n.step('errors: 9000, a refused task, bad arguments');
		await pending(context, shortWait);
		n8n.step('pending, then Task → Wait');
		log('agent', `PASS on n8n ${version}`);
	});
}

runMain('agent', async () => await runOnVersions('agent', suiteVersions('MEDIAGEN_AGENT_VERSIONS'), runVersion));
