import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { ItemOutcome } from '../../output/items';
import { readTaskRef, TASK_TYPE_FROM_INPUT } from '../../request/taskItem';
import type { CreatedTask } from '../../waiting/taskState';
import { checkTasks } from '../../waiting/tasks';
import { readWaitingOptions } from '../../waiting/options';
import { taskOptionsProperties } from '../descriptions';

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
	// Task → Get waits for nothing: of the options only the bound on requests in flight and the timeout apply.
	...taskOptionsProperties('get', ['maxConcurrency', 'requestTimeout']),
];

export function read(this: IExecuteFunctions, itemIndex: number, item: INodeExecutionData): CreatedTask {
	return { ...readTaskRef.call(this, itemIndex, item), creation: {}, summary: {} };
}

/** One status check per task, through the waiting engine (its bound on requests in flight, its retries). */
export async function run(this: IExecuteFunctions, tasks: CreatedTask[]): Promise<ItemOutcome[]> {
	const options = readWaitingOptions.call(this, tasks.length ? tasks.map((task) => task.taskType) : ['image'], false);
	return await checkTasks.call(this, tasks, options);
}
