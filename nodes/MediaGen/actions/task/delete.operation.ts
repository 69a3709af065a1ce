/** Task → Delete: its parameters and each item's ids, read and checked (its requests: deleteRequests.ts). */
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { holdsObjects, ItemProblems, toList } from '../../request/validation';
import { invalidInput } from '../../helpers/badInput';
import type { ItemOutcome } from '../../output/items';
import { readTaskType, TASK_TYPE_FROM_INPUT, taskTypeHint } from '../../request/taskItem';
import { failuresContinue, isToolCall } from '../../tool/call';
import { deleteTasks, type DeleteItem } from './deleteRequests';
import { readWaitingOptions } from '../../waiting/options';
import { withOptionDefaults } from '../../tool/properties';
import { taskOptionsProperties } from '../descriptions';

const showFor = { resource: ['task'], operation: ['delete'] };

/** Delete's Max Wait is how long a failing request is repeated, not how long a task is waited on: its own default. */
const DELETE_MAX_WAIT_S = 300;

const DELETE_MAX_WAIT = {
	maxWait: {
		default: DELETE_MAX_WAIT_S,
		description:
			'How long a delete request is repeated while the API rate-limits it (HTTP 429, after its Retry-After) or fails to answer (HTTP 5xx, no answer), counted from its first attempt; then its task IDs count as not deleted',
	},
};

export const description: INodeProperties[] = [
	{
		displayName: 'Task IDs',
		name: 'taskIds',
		type: 'string',
		required: true,
		default: '={{ $json.taskid }}',
		placeholder: 'e.g. img-1-ab12, img-2-cd34',
		description: 'Comma-separated task identifiers, or an array from an expression',
		displayOptions: { show: showFor },
	},
	{
		displayName: 'User ID',
		name: 'uid',
		type: 'string',
		default: '',
		description: 'The user the image tasks belong to, if your account uses user IDs; leave empty otherwise',
		displayOptions: { show: { ...showFor, taskType: ['image', TASK_TYPE_FROM_INPUT] } },
	},
	{
		displayName: 'Combine All Items Into One Request',
		name: 'combineItems',
		type: 'boolean',
		default: false,
		description:
			'Whether to delete the task IDs of all input items together (one group per distinct User ID, sent in requests of up to 100 IDs) and output one item',
		displayOptions: { show: showFor },
	},
	// A delete waits for nothing but its answers: the bound on requests in flight, how long failing requests are
	// repeated, and the timeout apply.
	...taskOptionsProperties('delete', ['maxConcurrency', 'maxWait', 'requestTimeout']).map((property) =>
		withOptionDefaults(property, DELETE_MAX_WAIT),
	),
];

export function read(this: IExecuteFunctions, itemIndex: number, item: INodeExecutionData): DeleteItem {
	const problems = new ItemProblems(this, itemIndex);
	const taskType = problems.check(() => readTaskType.call(this, itemIndex, item));
	const field = { name: 'Task IDs', parameter: 'taskIds' };
	const raw = this.getNodeParameter(field.parameter, itemIndex, '') as unknown;
	const taskIds = problems.check(() => {
		if (holdsObjects(raw))
			throw invalidInput.call(this, itemIndex, field, raw, 'must be comma-separated text or a list of task IDs (text)');
		const list = toList(raw);
		if (!list.length) throw invalidInput.call(this, itemIndex, field, raw, 'must list at least one task ID');
		return list;
	});
	problems.throwIfAny();
	const uid = taskType === 'image' ? String(this.getNodeParameter('uid', itemIndex, '') ?? '').trim() : '';
	const notFoundHint = taskTypeHint.call(this, itemIndex, taskType!);
	return { itemIndex, taskType: taskType!, taskIds: taskIds!, uid, notFoundHint };
}

/** Sends every item's ids, in chunks, with the bound on requests in flight of the creations (deleteRequests.ts). */
export async function run(this: IExecuteFunctions, items: DeleteItem[]): Promise<ItemOutcome[]> {
	const combine = this.getNodeParameter('combineItems', 0, false) as boolean;
	const taskTypes = items.length ? items.map((item) => item.taskType) : ['image' as const];
	const options = readWaitingOptions.call(this, taskTypes, false);
	const maxWait = (this.getNodeParameter('options', 0, {}) as { maxWait?: unknown }).maxWait;
	// As an AI Agent's tool the tool's short Max Wait stays (readWaitingOptions).
	if (maxWait === undefined && !isToolCall(this)) options.maxWaitMs = DELETE_MAX_WAIT_S * 1000;
	return await deleteTasks.call(this, items, combine, options, failuresContinue(this));
}
