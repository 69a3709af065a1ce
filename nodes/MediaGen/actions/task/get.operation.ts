import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { mapConcurrent } from '../../helpers/concurrency';
import { INFO_PATH, infoRequestBody } from '../../models/endpoints';
import { buildTaskOutput, resultUrls, type ItemOutcome } from '../../output/taskOutput';
import { readTaskRef, TASK_TYPE_FROM_INPUT, type TaskRef } from '../../request/taskItem';
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

export const read = readTaskRef;

/** One status check per task, at most DEFAULT_MAX_CONCURRENCY in flight. */
export async function run(this: IExecuteFunctions, tasks: TaskRef[]): Promise<ItemOutcome[]> {
	return await mapConcurrent(tasks, DEFAULT_MAX_CONCURRENCY, async (task): Promise<ItemOutcome> => {
		const { itemIndex, taskType, taskId, moreTaskInfo } = task;
		try {
			const info = await apiJsonRequest.call(
				this,
				INFO_PATH[taskType],
				infoRequestBody(taskType, taskId, moreTaskInfo),
				{ itemIndex, taskId },
			);
			const urls = resultUrls(info);
			// Without declared status codes only result URLs tell that a task is done (Task → Wait can use codes).
			const json = buildTaskOutput({ taskId, taskType, status: urls.length ? 'completed' : 'pending', urls, info });
			return { itemIndex, items: [{ json }] };
		} catch (error) {
			return { itemIndex, error, json: { taskid: taskId } };
		}
	});
}
