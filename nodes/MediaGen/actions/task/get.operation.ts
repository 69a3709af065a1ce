import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { mapConcurrent } from '../../helpers/concurrency';
import { holdsObjects, invalidInput } from '../../helpers/validation';
import { INFO_PATH, infoRequestBody, type TaskKind } from '../../models/endpoints';
import { apiJsonRequest } from '../../transport';
import type { ItemOutcome } from '../node.type';
import { DEFAULT_MAX_CONCURRENCY } from '../../helpers/polling';

// Task → Wait reads the same task parameters.
const showForTaskQueries = { resource: ['task'], operation: ['get', 'wait'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Task ID',
		name: 'taskId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. {{ $json.taskid }}',
		description: 'Identifier returned when the task was created',
		displayOptions: { show: showForTaskQueries },
	},
	{
		displayName: 'More Task Info',
		name: 'moreTaskInfo',
		type: 'boolean',
		default: false,
		description: 'Whether to ask the API for extended task information (sent as moreTaskInfo)',
		displayOptions: { show: { ...showForTaskQueries, taskType: ['video'] } },
	},
];

/** Reads the task id of an item, refusing an empty one before anything is sent. */
export function readTaskId(this: IExecuteFunctions, itemIndex: number): string {
	const value = this.getNodeParameter('taskId', itemIndex, '') as unknown;
	if (holdsObjects(value)) throw invalidInput.call(this, itemIndex, 'Task ID', value, 'must be one task ID (text)');
	const taskId = String(value ?? '').trim();
	if (!taskId) throw invalidInput.call(this, itemIndex, 'Task ID', value, 'is required');
	return taskId;
}

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<ItemOutcome[]> {
	const outcomes = await mapConcurrent(items, DEFAULT_MAX_CONCURRENCY, async (_item, itemIndex): Promise<ItemOutcome> => {
		let taskId: string | undefined;
		try {
			const kind = this.getNodeParameter('taskType', itemIndex) as TaskKind;
			taskId = readTaskId.call(this, itemIndex);
			const data = await apiJsonRequest.call(
				this,
				INFO_PATH[kind],
				infoRequestBody(kind, taskId, this.getNodeParameter('moreTaskInfo', itemIndex, false) as boolean),
				{ itemIndex, taskId },
			);
			return { itemIndex, items: [{ json: data ?? {} }] };
		} catch (error) {
			return { itemIndex, error, json: taskId ? { taskid: taskId } : {} };
		}
	});
	return outcomes as ItemOutcome[];
}
