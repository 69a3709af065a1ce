/**
 * examples/durable-wait.json as the durable and semantics suites run it: its nodes found by their role, the
 * pattern's structure checked, started by a Webhook (a running n8n starts it; nobody presses the button) and its
 * Wait node waiting as long as the suite needs; and the checks both suites make of its run.
 */
import { NODE_TYPE } from '../../test/nodeType';
import { findNode, startedByWebhook, type Workflow, type WorkflowNode } from './n8n';
import { check } from './report';
import { outputOf, type ExecutionItem, type ExecutionRecord } from './rest';
import { simulatorRecord } from './simulator';
import { readExample } from './suite';

/** The IF node's conditions, as the example writes them. */
interface Conditions {
	combinator: string;
	conditions: Array<{ leftValue: string; rightValue: unknown; operator: { type: string; operation: string } }>;
}

/**
 * The example's workflow and nodes; `bound` is the IF node's condition `{{ $runIndex }} < n` that bounds the
 * rounds; the loop ends at `done` (the IF node's "done" branch) and `failed` (Task → Wait's error output).
 */
export function durableExample(webhookPath: string, ids: { id: string; webhookId: string }, waitSeconds: number) {
	const workflow = readExample<Workflow>('durable-wait.json');
	const find = (what: string, test: (node: WorkflowNode) => boolean) => findNode(workflow, what, test);
	const scenes = find(
		'a Scenes node with its scenes as JSON',
		(node) => typeof node.parameters.jsonOutput === 'string',
	);
	const create = find(
		'a creation without waiting',
		(node) => node.type === NODE_TYPE && node.parameters.waitForCompletion === false,
	);
	const wait = find('a Wait node', (node) => node.type === 'n8n-nodes-base.wait');
	const taskWait = find(
		'a Task → Wait node',
		(node) => node.type === NODE_TYPE && node.parameters.resource === 'task' && node.parameters.operation === 'wait',
	);
	const condition = find('an IF node', (node) => node.type === 'n8n-nodes-base.if');
	const done = workflow.connections[condition.name].main[1]?.[0]?.node;
	check(done, 'the IF node has a "done" (false) branch');
	check(
		workflow.connections[condition.name].main[0]?.[0]?.node === wait.name,
		'the IF node sends pending items back to the Wait node',
	);
	const options = taskWait.parameters.options as Record<string, unknown>;
	check(options.onTimeout === 'returnPending', 'Task → Wait returns pending tasks instead of failing');
	check(taskWait.onError === 'continueErrorOutput', 'Task → Wait sends failed tasks to its error output');
	const failed = workflow.connections[taskWait.name].main[1]?.[0]?.node;
	check(failed && failed !== wait.name, 'the error output of Task → Wait leads out of the loop');
	const conditions = condition.parameters.conditions as Conditions;
	const bound = conditions.conditions.find(
		(entry) =>
			/\$runIndex/.test(entry.leftValue) && entry.operator.operation === 'lt' && typeof entry.rightValue === 'number',
	);
	check(
		conditions.combinator === 'and' && bound,
		'the IF node bounds the rounds: status is pending AND {{ $runIndex }} < a number',
	);
	startedByWebhook(workflow, webhookPath, ids);
	wait.parameters = { ...wait.parameters, amount: waitSeconds, unit: 'seconds' };
	return { workflow, scenes, create, wait, taskWait, condition, bound, done, failed };
}

/** The task that the creation node's output `created` holds for the scene with `prompt`. */
export function sceneTask(created: ExecutionItem[], prompt: string): string {
	const item = created.find(
		(candidate) => (candidate.json.request as { prompt?: string } | undefined)?.prompt === prompt,
	);
	return String(item?.json.taskid);
}

/** The creations at `path` (the example's: video alpha) that the simulator saw, with `tag` in their prompt. */
export async function creationsOf(simulatorUrl: string, path = '/v1/tlvideo/alpha', tag = '') {
	return (await simulatorRecord(simulatorUrl)).filter(
		(entry) => entry.method === 'POST' && entry.path.startsWith(path) && entry.fields.prompt?.[0]?.includes(tag),
	);
}

/**
 * Checks what both suites' runs of the example show (`nodes`: durableExample's): one render created per scene, the
 * simulator saw one creation for each (`tag`ged), and the render refused at a status check (its scene's `prompt`)
 * left by Task → Wait's error output with its task id, the refusal its last check (the loop ended for it), every
 * other render at the loop's end (`done`). Returns the creation node's items, the end's, the refused task and how
 * many checks it had, and the creations.
 */
export async function checkRun(
	simulatorUrl: string,
	execution: ExecutionRecord,
	nodes: { create: { name: string }; done: string; failed: string },
	[scenes, prompt, tag = '']: [number, string, string?],
) {
	const created = outputOf(execution, nodes.create.name);
	check(created.length === scenes, `one render per scene was created (${created.length} of ${scenes})`);
	const creations = await creationsOf(simulatorUrl, undefined, tag);
	const prompts = new Set(creations.map((entry) => entry.fields.prompt?.[0]));
	check(
		creations.length === scenes && prompts.size === scenes,
		`exactly one creation per scene (${creations.length} creations for ${scenes} scenes)`,
	);
	const refusedId = sceneTask(created, prompt);
	const failed = outputOf(execution, nodes.failed);
	check(failed.length === 1, `one render left by the error output (${failed.length})`);
	const failure = failed[0].json as { error?: Record<string, unknown>; [field: string]: unknown };
	check(
		failure.error?.taskid === refusedId &&
			failure.error.status === 'failed' &&
			/content moderation/.test(String(failure.message)),
		`the refused render ${refusedId} is on the error output as failed, with its task id at $json.error.taskid: ${JSON.stringify(failure)}`,
	);
	// n8n merges the item that went into Task → Wait (the pending one) into the error item.
	check(
		failure.taskid === refusedId && failure.status === 'pending',
		`the error item also carries the input item's taskid and status: ${JSON.stringify(failure)}`,
	);
	const codes = (await simulatorRecord(simulatorUrl))
		.filter(
			(entry) =>
				entry.path === '/v1/tlvideo/infobytaskid' &&
				(entry.json as { taskid?: string } | undefined)?.taskid === refusedId,
		)
		.map((entry) => entry.code);
	check(
		codes.at(-1) === 9999 && codes.filter((code) => code === 9999).length === 1,
		`the loop ended for the refused render: its refusal was the last status check of it (${codes.join(', ')})`,
	);
	const done = outputOf(execution, nodes.done);
	const idsOf = (items: ExecutionItem[]) => items.map((item) => String(item.json.taskid)).sort();
	const [ended, expected] = [idsOf(done), idsOf(created).filter((id) => id !== refusedId)];
	check(
		JSON.stringify(ended) === JSON.stringify(expected),
		`every other render reached the end: the results are the created tasks but the refused one (${ended.join(', ')} vs ${expected.join(', ')})`,
	);
	return { created, done, refusedId, refusedChecks: codes.length, creations: creations.length };
}
