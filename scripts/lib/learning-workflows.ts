/**
 * The workflows of the learning suite (scripts/learning.ts) and of the bench's queue-mode row: each starts MediaGen
 * creations (beta v4, Wait for Completion, no downloads) the way users start them. Node types and versions exist in
 * n8n 1.123.81 and 2.41.1 alike; render times come from the prompts (`[sim:seconds=N]`, read by the simulator).
 */

import { NODE_TYPE } from '../../test/nodeType';
import { CREDENTIAL_REF, webhookNode, workflowOf, type Link, type NodeSpec, type Workflow as N8nWorkflow } from './n8n';
import { readExample } from './suite';

/** Poll Interval of every MediaGen node here, in seconds. */
export const INTERVAL_S = 1;

export type Schedule = 'learned' | 'fixed';

/** With a webhook workflow's production path, or a chat workflow's Chat Trigger webhook id (/webhook/<id>/chat). */
export type Workflow = N8nWorkflow & { webhookPath?: string; chatId?: string };

/** A workflow id for an n8n version's deployments (one simulator serves every version: prompts carry the ids). */
export const workflowId = (version: string, name: string) => `${name}-v${version.split('.')[0]}`;

/** The MediaGen node's name in every workflow here (earlier versions kept render times under it too). */
export const MEDIAGEN = 'Create Image';

let counter = 0;
/** A node or webhook id in n8n's UUID shape, unique within the process. */
const nodeId = () => `c0000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`;

function node(name: string, type: string, typeVersion: number, parameters: Record<string, unknown>): NodeSpec {
	return { name, type, typeVersion, parameters };
}

/**
 * The render kind of each case (beta v4's Batch Size, a render-time field): an n8n process pools what it learned per
 * API and kind, so cases running at once do not teach each other but where the suite means it to (warm: single's).
 */
export const KINDS = {
	single: 2,
	subWorkflow: 3,
	batch: 4,
	schedule: 5,
	manual: 6,
	wait: 7,
	rss: 8,
	drop: 9,
	dropOne: 10,
	newcomer: 11,
	mixed: 12,
	slower: 13,
} as const;

/** The MediaGen creation every workflow runs, its prompt an expression, its render kind `kind` (Batch Size). */
function mediaGenNode(prompt: string, schedule: Schedule, kind?: number, intervalS = INTERVAL_S): NodeSpec {
	return {
		...node(MEDIAGEN, NODE_TYPE, 1, {
			resource: 'image',
			operation: 'betav4',
			prompt,
			...(kind ? { additionalFields: { batchsize: kind } } : {}),
			options: {
				pollInterval: intervalS,
				maxWait: 120,
				downloadResults: false,
				...(schedule === 'fixed' ? { pollSchedule: 'fixed' } : {}),
			},
		}),
		credentials: CREDENTIAL_REF,
	};
}

const pathOf = (id: string) => `learning-${id}`;

function webhook(id: string, responseMode = 'lastNode'): NodeSpec {
	const trigger = webhookNode(pathOf(id), nodeId());
	return { ...trigger, parameters: { ...trigger.parameters, responseMode } };
}

/** Splits an array field into one item per element, each as `{ prompt }`. */
function splitPrompts(field: string): NodeSpec {
	return node('Split Prompts', 'n8n-nodes-base.splitOut', 1, {
		fieldToSplitOut: field,
		options: { destinationFieldName: 'prompt' },
	});
}

/** A workflow whose nodes run one after the other; a webhook workflow when the first is a Webhook. */
function chain(id: string, nodes: NodeSpec[]): Workflow {
	const links = nodes.slice(1).map((next, index): Link => [nodes[index].name, next.name]);
	const workflow = workflowOf(id, `MediaGen learning: ${id}`, nodes, links);
	return nodes[0].type === 'n8n-nodes-base.webhook' ? { ...workflow, webhookPath: pathOf(id) } : workflow;
}

/** Webhook → MediaGen: one prompt per call (`{ prompt }`), one item per execution; Poll Interval `intervalS`. */
export function singleItemWorkflow(id: string, schedule: Schedule, kind?: number, intervalS = INTERVAL_S): Workflow {
	return chain(id, [webhook(id), mediaGenNode('={{ $json.body.prompt }}', schedule, kind, intervalS)]);
}

/** Webhook → Split Out → MediaGen: a batch of prompts per call (`{ prompts: [...] }`). */
export function batchWorkflow(id: string, kind?: number, schedule: Schedule = 'learned'): Workflow {
	return chain(id, [webhook(id), splitPrompts('body.prompts'), mediaGenNode('={{ $json.prompt }}', schedule, kind)]);
}

/** What a user gets by duplicating a workflow: the same nodes, new workflow, node and webhook ids. */
export function copyOf(workflow: Workflow, id: string): Workflow {
	const webhookPath = workflow.webhookPath && pathOf(id);
	const nodes = workflow.nodes.map((original) => ({
		...original,
		id: nodeId(),
		...(original.webhookId ? { webhookId: nodeId() } : {}),
		...(original.type === 'n8n-nodes-base.webhook'
			? { parameters: { ...original.parameters, path: webhookPath } }
			: {}),
	}));
	return { ...workflow, id, name: `MediaGen learning: ${id}`, nodes, ...(webhookPath ? { webhookPath } : {}) };
}

/** Webhook → Wait → MediaGen: above 65 s n8n parks the execution, resumed from its snapshot (2.x: no static data). */
export function waitWorkflow(id: string, seconds: number, kind?: number): Workflow {
	const wait = {
		...node('Wait', 'n8n-nodes-base.wait', 1.1, { amount: seconds, unit: 'seconds' }),
		webhookId: nodeId(),
	};
	return chain(id, [webhook(id, 'onReceived'), wait, mediaGenNode('={{ $json.body.prompt }}', 'learned', kind)]);
}

/** The RSS Feed Trigger's name: its cursor is kept in the workflow's static data under `node:<name>`. */
export const RSS_TRIGGER = 'RSS Feed Trigger';

/** RSS Feed Trigger (polling `feedUrl` every minute) → MediaGen, each new item's title as its prompt. */
export function rssWorkflow(id: string, feedUrl: string, kind?: number): Workflow {
	return chain(id, [
		node(RSS_TRIGGER, 'n8n-nodes-base.rssFeedReadTrigger', 1, {
			pollTimes: { item: [{ mode: 'everyMinute' }] },
			feedUrl,
		}),
		mediaGenNode('={{ $json.title }}', 'learned', kind),
	]);
}

/**
 * Schedule Trigger → the prompts → Split Out → MediaGen, each prompt tagged with its execution's id. The trigger
 * keeps its own state in the static data (written when published): the suite reads whether it survives.
 */
export function scheduleWorkflow(id: string, seconds: number, prompts: string[], kind?: number): Workflow {
	return chain(id, [
		node('Schedule Trigger', 'n8n-nodes-base.scheduleTrigger', 1.2, {
			rule: { interval: [{ field: 'seconds', secondsInterval: seconds }] },
		}),
		node('Prompts', 'n8n-nodes-base.set', 3.4, {
			mode: 'raw',
			jsonOutput: JSON.stringify({ prompts }),
			options: {},
		}),
		splitPrompts('prompts'),
		mediaGenNode('={{ $json.prompt }} (execution {{ $execution.id }})', 'learned', kind),
	]);
}

/** The name of the manual workflow's trigger (the editor's "Execute workflow" starts from it). */
export const MANUAL_TRIGGER = 'Manual Trigger';

/** Manual Trigger → MediaGen with one prompt: what a user tries from the editor. */
export function manualWorkflow(id: string, prompt: string, kind?: number): Workflow {
	return chain(id, [
		node(MANUAL_TRIGGER, 'n8n-nodes-base.manualTrigger', 1, {}),
		mediaGenNode(`=${prompt} (execution {{ $execution.id }})`, 'learned', kind),
	]);
}

/**
 * A sub-workflow and a webhook workflow that calls it, with the ids to publish: n8n 2.x calls only published
 * sub-workflows from production executions, and 1.x cannot publish one without a trigger.
 */
export function subWorkflowPair(version: string, prefix: string, kind?: number) {
	const sub = chain(workflowId(version, `${prefix}sub`), [
		node('When Called', 'n8n-nodes-base.executeWorkflowTrigger', 1, {}),
		mediaGenNode('={{ $json.body.prompt }}', 'learned', kind),
	]);
	const callerId = workflowId(version, `${prefix}caller`);
	const caller = chain(callerId, [
		webhook(callerId),
		node('Call Sub-workflow', 'n8n-nodes-base.executeWorkflow', 1, {
			source: 'database',
			workflowId: sub.id,
			options: {},
		}),
	]);
	return { sub, caller, publish: version.startsWith('1.') ? [caller.id] : [sub.id, caller.id] };
}

/** The MediaGen tool the agent example's model calls (n8n's tool name for the node "Create images"). */
export const AGENT_TOOL = 'Create_images';

/**
 * examples/agent-images.json as a user runs it, its tool's Poll Interval the suite's and the chat answered when the
 * execution ends (not streamed); its OpenAI credential is the model server's (agentModelCredential).
 */
export function agentWorkflow(id: string): Workflow {
	const example = readExample<Workflow>('agent-images.json');
	type Node = Workflow['nodes'][number];
	const chatTrigger = (node: Node) => node.type === '@n8n/n8n-nodes-langchain.chatTrigger';
	const withOptions = (node: Node, options: object) => ({ ...node, parameters: { ...node.parameters, options } });
	const nodes = example.nodes.map((node) => {
		if (chatTrigger(node)) return withOptions(node, { responseMode: 'lastNode' });
		if (node.name !== 'Create images') return node;
		return withOptions(node, { ...(node.parameters.options as object), pollInterval: INTERVAL_S });
	});
	const chatId = nodes.find(chatTrigger)?.webhookId as string;
	return { ...example, id, name: `MediaGen learning: ${id}`, nodes, active: false, chatId };
}

/** The OpenAI credential the agent example names. */
export function agentModelCredential(modelBaseUrl: string) {
	return {
		id: 'openai-cred',
		name: 'OpenAi account',
		type: 'openAiApi',
		data: { apiKey: 'sk-learning', url: modelBaseUrl },
	};
}
