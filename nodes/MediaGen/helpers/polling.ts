import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ItemOutcome } from '../actions/node.type';
import type { TaskKind } from '../models/endpoints';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../transport';

/** Default bound on requests in flight at once, per node execution. */
export const DEFAULT_MAX_CONCURRENCY = 5;

export interface CreatedTask {
	itemIndex: number;
	kind: TaskKind;
	taskId: string;
	/** The creation answer's data (taskid, and url for some models). */
	creation: IDataObject;
	/** Model and request summary for the output. */
	summary: IDataObject;
}

export interface RunOptions {
	wait: boolean;
	maxConcurrency: number;
	requestTimeoutMs: number;
}

export function readRunOptions(this: IExecuteFunctions): RunOptions {
	const options = (this.getNodeParameter('options', 0, {}) as IDataObject) ?? {};
	return {
		wait: this.getNodeParameter('waitForCompletion', 0, false) as boolean,
		maxConcurrency: Math.max(1, Math.floor(Number(options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY))),
		requestTimeoutMs: options.requestTimeout ? Number(options.requestTimeout) * 1000 : DEFAULT_REQUEST_TIMEOUT_MS,
	};
}

export async function waitForTasks(this: IExecuteFunctions, tasks: CreatedTask[]): Promise<ItemOutcome[]> {
	return tasks.map((task) => ({ itemIndex: task.itemIndex, items: [{ json: { taskid: task.taskId, ...task.creation, ...task.summary } }] }));
}
