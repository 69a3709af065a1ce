/**
 * examples/durable-wait.json as the durable and semantics suites run it: its nodes found by their role, the
 * pattern's structure checked, started by a Webhook (a running n8n starts it; nobody presses the button) and its
 * Wait node waiting as long as the suite needs.
 */
import { NODE_TYPE } from '../../test/nodeType';
import { findNode, startedByWebhook, type Workflow, type WorkflowNode } from './n8n';
import { check } from './report';
import { readExample } from './suite';

/** The IF node's conditions, as the example writes them. */
interface Conditions {
	combinator: string;
	conditions: Array<{ leftValue: string; rightValue: unknown; operator: { type: string; operation: string } }>;
}

export interface DurableExample {
	workflow: Workflow;
	scenes: WorkflowNode;
	create: WorkflowNode;
	wait: WorkflowNode;
	taskWait: WorkflowNode;
	condition: WorkflowNode;
	/** The IF node's condition `{{ $runIndex }} < n` that bounds the rounds. */
	bound: Conditions['conditions'][number];
	/** Where the loop ends: the IF node's "done" branch, and Task → Wait's error output. */
	done: string;
	failed: string;
}

export function durableExample(
	webhookPath: string,
	ids: { id: string; webhookId: string },
	waitSeconds: number,
): DurableExample {
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
