/** Task → Get and Task → Wait: the task an item names, checked once or waited on, through the waiting engine. */
import type { INodeExecutionData } from 'n8n-workflow';

import { readTaskRef, TASK_TYPE_FROM_INPUT } from '../../request/taskItem';
import type { CreatedTask } from '../../waiting/taskState';
import { checkTasks, waitForTasks } from '../../waiting/engine';
import { readWaitingOptions } from '../../waiting/options';
import type { OperationModule } from '../node.type';
import { taskOptionsProperties } from '../descriptions';

const showForTaskQueries = { resource: ['task'], operation: ['get', 'wait'] };

/** One status check per task (its bound on requests in flight, its retries). Holds the parameters Wait shares. */
export const get: OperationModule<CreatedTask> = {
	description: [
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
	],
	read(itemIndex, item) {
		return { ...readTaskRef.call(this, itemIndex, item), creation: {}, summary: {} };
	},
	async run(tasks) {
		const options = readWaitingOptions.call(this, tasks.length ? tasks.map((task) => task.taskType) : ['image'], false);
		return await checkTasks.call(this, tasks, options);
	},
};

/** Waits on existing task IDs (e.g. to resume after On Timeout), with the same options as creation. */
export const wait: OperationModule<CreatedTask> = {
	description: taskOptionsProperties('wait'),
	read(itemIndex, item) {
		const task = readTaskRef.call(this, itemIndex, item);
		return { ...task, creation: {}, summary: carriedSummary(item, task.taskId) };
	},
	async run(tasks) {
		const options = readWaitingOptions.call(this, tasks.length ? tasks.map((task) => task.taskType) : ['image'], true);
		return await waitForTasks.call(this, tasks, options);
	},
};

/** A MediaGen item of the same task keeps its model and request, so that a waiting loop can carry them. */
function carriedSummary(item: INodeExecutionData, taskId: string): CreatedTask['summary'] {
	const json = item.json ?? {};
	if (String(json.taskid ?? '') !== taskId) return {};
	return {
		...(typeof json.model === 'string' ? { model: json.model } : {}),
		...(json.request && typeof json.request === 'object' && !Array.isArray(json.request)
			? { request: json.request as never }
			: {}),
	};
}
