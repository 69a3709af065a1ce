import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { mapConcurrent } from '../../helpers/concurrency';
import { INFO_PATH, infoRequestBody } from '../../models/endpoints';
import { buildTaskOutput, resultUrls, type ItemOutcome } from '../../output/taskOutput';
import { readTaskId, readTaskType, TASK_TYPE_FROM_INPUT } from '../../request/taskItem';
import { apiJsonRequest } from '../../transport';
import { DEFAULT_MAX_CONCURRENCY } from '../../waiting/options';

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

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<ItemOutcome[]> {
	const outcomes = await mapConcurrent(
		items,
		DEFAULT_MAX_CONCURRENCY,
		async (item, itemIndex): Promise<ItemOutcome> => {
			let taskId: string | undefined;
			try {
				const taskType = readTaskType.call(this, itemIndex, item);
				taskId = readTaskId.call(this, itemIndex);
				const moreTaskInfo =
					taskType === 'video' && (this.getNodeParameter('moreTaskInfo', itemIndex, false) as boolean);
				const info = await apiJsonRequest.call(
					this,
					INFO_PATH[taskType],
					infoRequestBody(taskType, taskId, moreTaskInfo),
					{
						itemIndex,
						taskId,
					},
				);
				const urls = resultUrls(info);
				// Without declared status codes only result URLs tell that a task is done (Task → Wait can use codes).
				const json = buildTaskOutput({ taskId, taskType, status: urls.length ? 'completed' : 'pending', urls, info });
				return { itemIndex, items: [{ json }] };
			} catch (error) {
				return { itemIndex, error, json: taskId ? { taskid: taskId } : {} };
			}
		},
	);
	return outcomes;
}
