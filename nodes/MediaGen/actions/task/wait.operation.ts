import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { ItemOutcome } from '../../output/taskOutput';
import { readTaskId, readTaskType, TASK_TYPE_FROM_INPUT } from '../../request/taskItem';
import type { CreatedTask } from '../../waiting/answers';
import { waitForTasks } from '../../waiting/engine';
import { readWaitingOptions } from '../../waiting/options';
import { optionsProperty } from '../descriptions';

const showForWait = { resource: ['task'], operation: ['wait'] };

// One Options collection per Task Type, so that the editor shows that type's defaults.
export const description: INodeProperties[] = [
	{ ...optionsProperty(['image'], false), displayOptions: { show: { ...showForWait, taskType: ['image'] } } },
	{ ...optionsProperty(['video'], false), displayOptions: { show: { ...showForWait, taskType: ['video'] } } },
	{
		...optionsProperty(['image', 'video'], false),
		displayOptions: { show: { ...showForWait, taskType: [TASK_TYPE_FROM_INPUT] } },
	},
];

/**
 * Waits on existing task IDs (e.g. to resume after On Timeout), with the same options as creation.
 * Items from a creation or from an earlier Wait work as they are: their model and request stay on the item.
 */
export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<ItemOutcome[]> {
	const outcomes: ItemOutcome[] = [];
	const tasks: CreatedTask[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const item = items[itemIndex];
			const taskType = readTaskType.call(this, itemIndex, item);
			const taskId = readTaskId.call(this, itemIndex);
			const moreTaskInfo =
				taskType === 'video' ? (this.getNodeParameter('moreTaskInfo', itemIndex, false) as boolean) : undefined;
			tasks.push({ itemIndex, taskType, taskId, creation: {}, summary: carriedSummary(item, taskId), moreTaskInfo });
		} catch (error) {
			outcomes.push({ itemIndex, error });
		}
	}
	if (outcomes.length && !this.continueOnFail()) return outcomes;
	const options = readWaitingOptions.call(this, tasks.length ? tasks.map((task) => task.taskType) : ['image'], true);
	// No argument spread: a run may hold more outcomes than a call can take arguments.
	for (const outcome of await waitForTasks.call(this, tasks, options)) outcomes.push(outcome);
	return outcomes;
}

/** A MediaGen item of the same task keeps its model and request through a durable waiting loop. */
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
