import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { runOptions } from '../../helpers/parameters';
import { waitForTasks } from '../../helpers/engine';
import { readRunOptions, type CreatedTask } from '../../helpers/polling';
import type { TaskKind } from '../../models/endpoints';
import type { ItemOutcome } from '../node.type';
import { readTaskId } from './get.operation';

export const description: INodeProperties[] = [
	{ ...runOptions('video', false), displayOptions: { show: { resource: ['task'], operation: ['wait'] } } },
];

/** Waits on existing task IDs (e.g. to resume after On Timeout), with the same options as creation. */
export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<ItemOutcome[]> {
	const outcomes: ItemOutcome[] = [];
	const tasks: CreatedTask[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const kind = this.getNodeParameter('taskType', itemIndex) as TaskKind;
			const taskId = readTaskId.call(this, itemIndex);
			const moreTaskInfo = kind === 'video' ? (this.getNodeParameter('moreTaskInfo', itemIndex, false) as boolean) : undefined;
			tasks.push({ itemIndex, kind, taskId, creation: {}, summary: { taskType: kind }, moreTaskInfo });
		} catch (error) {
			outcomes.push({ itemIndex, error });
		}
	}
	if (outcomes.length && !this.continueOnFail()) return outcomes;
	const kind = (this.getNodeParameter('taskType', 0) as TaskKind) ?? 'video';
	outcomes.push(...(await waitForTasks.call(this, tasks, readRunOptions.call(this, kind, true))));
	return outcomes;
}
