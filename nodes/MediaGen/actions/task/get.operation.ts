import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { mapConcurrent } from '../../helpers/concurrency';
import { buildTaskOutput, resultUrls } from '../../helpers/output';
import { holdsObjects, invalidInput } from '../../helpers/validation';
import { INFO_PATH, infoRequestBody, type TaskKind } from '../../models/endpoints';
import { apiJsonRequest } from '../../transport';
import type { ItemOutcome } from '../node.type';
import { DEFAULT_MAX_CONCURRENCY } from '../../helpers/polling';

/** Task Type value that reads each input item's `taskType` field (set on every MediaGen output). */
export const TASK_TYPE_FROM_INPUT = 'fromInput';

// Task → Wait reads the same task parameters.
const showForTaskQueries = { resource: ['task'], operation: ['get', 'wait'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Task ID',
		name: 'taskId',
		type: 'string',
		required: true,
		// MediaGen output items carry their id as `taskid`: items from a creation work as they are.
		default: '={{ $json.taskid }}',
		placeholder: 'e.g. img-1-ab12',
		description: 'Identifier returned when the task was created',
		displayOptions: { show: showForTaskQueries },
	},
	{
		displayName: 'More Task Info',
		name: 'moreTaskInfo',
		type: 'boolean',
		default: false,
		description: 'Whether to ask for extended information about video tasks (e.g. prompt and source image)',
		displayOptions: { show: { ...showForTaskQueries, taskType: ['video', TASK_TYPE_FROM_INPUT] } },
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

/** The task type of an item: the chosen one, or the item's own `taskType` field. */
export function readTaskKind(this: IExecuteFunctions, itemIndex: number, item: INodeExecutionData): TaskKind {
	const chosen = this.getNodeParameter('taskType', itemIndex, TASK_TYPE_FROM_INPUT) as string;
	if (chosen === 'image' || chosen === 'video') return chosen;
	const fromItem = item.json?.taskType;
	if (fromItem === 'image' || fromItem === 'video') return fromItem;
	throw invalidInput.call(
		this,
		itemIndex,
		'Task Type',
		fromItem,
		'is "From Input Item", so the item needs a taskType field of "image" or "video"',
		'Choose Image or Video as Task Type, or pass items that come from a MediaGen node.',
	);
}

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<ItemOutcome[]> {
	const outcomes = await mapConcurrent(items, DEFAULT_MAX_CONCURRENCY, async (item, itemIndex): Promise<ItemOutcome> => {
		let taskId: string | undefined;
		try {
			const kind = readTaskKind.call(this, itemIndex, item);
			taskId = readTaskId.call(this, itemIndex);
			const moreTaskInfo = kind === 'video' && (this.getNodeParameter('moreTaskInfo', itemIndex, false) as boolean);
			const info = await apiJsonRequest.call(this, INFO_PATH[kind], infoRequestBody(kind, taskId, moreTaskInfo), { itemIndex, taskId });
			const urls = resultUrls(info);
			// Without declared status codes only result URLs tell that a task is done (Task → Wait can use codes).
			const json = buildTaskOutput({ taskId, kind, status: urls.length ? 'completed' : 'pending', urls, info });
			return { itemIndex, items: [{ json }] };
		} catch (error) {
			return { itemIndex, error, json: taskId ? { taskid: taskId } : {} };
		}
	});
	return outcomes;
}
