import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { ItemOutcome } from '../../output/items';
import { readTaskRef } from '../../request/taskItem';
import type { CreatedTask } from '../../waiting/taskState';
import { waitForTasks } from '../../waiting/tasks';
import { readWaitingOptions } from '../../waiting/options';
import { taskOptionsProperties } from '../descriptions';

export const description: INodeProperties[] = taskOptionsProperties('wait');

export function read(this: IExecuteFunctions, itemIndex: number, item: INodeExecutionData): CreatedTask {
	const task = readTaskRef.call(this, itemIndex, item);
	return { ...task, creation: {}, summary: carriedSummary(item, task.taskId) };
}

/** Waits on existing task IDs (e.g. to resume after On Timeout), with the same options as creation. */
export async function run(this: IExecuteFunctions, tasks: CreatedTask[]): Promise<ItemOutcome[]> {
	const options = readWaitingOptions.call(this, tasks.length ? tasks.map((task) => task.taskType) : ['image'], true);
	return await waitForTasks.call(this, tasks, options);
}

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
