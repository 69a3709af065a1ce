/**
 * The creation pipeline shared by every image and video operation:
 * 1. prepare and validate every item (no request is sent while any input is bad, unless Continue On Fail);
 * 2. create the tasks, at most Max Concurrent Requests at a time, never retrying a creation (it could charge twice);
 * 3. optionally wait for all created tasks together.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemOutcome } from '../actions/node.type';
import type { ModelSpec } from '../models/types';
import { apiMultipartRequest } from '../transport';
import { mapConcurrent } from './concurrency';
import { buildTaskOutput, resultUrls } from './output';
import { readRunOptions, waitForTasks, type CreatedTask } from './polling';
import { buildForm, prepareRequest, requestSummary, type PreparedRequest } from './request';

export async function createTasks(this: IExecuteFunctions, items: INodeExecutionData[], spec: ModelSpec): Promise<ItemOutcome[]> {
	const continueOnFail = this.continueOnFail();
	const outcomes: ItemOutcome[] = [];
	const prepared: PreparedRequest[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			prepared.push(await prepareRequest.call(this, spec, itemIndex, items[itemIndex]));
		} catch (error) {
			outcomes.push({ itemIndex, error });
		}
	}
	if (outcomes.length && !continueOnFail) return outcomes;

	const options = readRunOptions.call(this, spec.resource, this.getNodeParameter('waitForCompletion', 0, true) as boolean);
	const cancelSignal = this.getExecutionCancelSignal();
	let stop = false;
	const created: CreatedTask[] = [];

	await mapConcurrent(
		prepared,
		options.maxConcurrency,
		async (request) => {
			const summary = requestSummary(request);
			try {
				const data = await apiMultipartRequest.call(
					this,
					spec.path,
					await buildForm.call(this, request),
					{ itemIndex: request.itemIndex, timeout: options.requestTimeoutMs },
				);
				created.push({ itemIndex: request.itemIndex, kind: spec.resource, taskId: String(data?.taskid ?? ''), creation: data ?? {}, summary });
			} catch (error) {
				outcomes.push({ itemIndex: request.itemIndex, error, json: { ...summary } });
				if (!continueOnFail) stop = true;
			}
		},
		() => stop || cancelSignal?.aborted === true,
	);

	if (!options.wait || stop) {
		for (const task of created) {
			// Not waited on: pending, even when the creation answer already carries a URL (betav5, gammaimage).
			const json = buildTaskOutput({ taskId: task.taskId, kind: task.kind, status: 'pending', urls: resultUrls(task.creation), info: task.creation, ...task.summary });
			outcomes.push({ itemIndex: task.itemIndex, items: [{ json }] });
		}
		return outcomes;
	}
	outcomes.push(...(await waitForTasks.call(this, created, options)));
	return outcomes;
}
