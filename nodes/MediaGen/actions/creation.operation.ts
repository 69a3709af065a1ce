/**
 * The creation pipeline shared by every image and video operation:
 * 1. prepare and validate every item (no request is sent while any input is bad, unless Continue On Fail);
 * 2. hand the creations to the engine, which polls each task from its own creation on (waiting/engine.ts); a creation
 *    is repeated only when it provably created nothing (it could charge twice).
 */

import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ModelSpec } from '../models/types';
import type { ItemOutcome } from '../output/taskOutput';
import { buildForm, requestSummary } from '../request/body';
import { prepareRequest, type PreparedRequest } from '../request/prepare';
import { apiMultipartRequest } from '../transport';
import type { CreatedTask } from '../waiting/answers';
import { runEngine, type CreationJob } from '../waiting/engine';
import { readWaitingOptions } from '../waiting/options';
import { modelProperties, waitingProperties } from './descriptions';
import type { OperationModule } from './node.type';

/** A creation operation is its model spec: the spec yields both the parameters and the behaviour. */
export function creationOperation(spec: ModelSpec): OperationModule {
	return {
		description: modelProperties(spec, waitingProperties(spec.taskType)),
		async execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<ItemOutcome[]> {
			return await createTasks.call(this, items, spec);
		},
	};
}

export async function createTasks(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	spec: ModelSpec,
): Promise<ItemOutcome[]> {
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

	const options = readWaitingOptions.call(
		this,
		spec.taskType,
		this.getNodeParameter('waitForCompletion', 0, true) as boolean,
	);
	const creations: CreationJob[] = prepared.map((request) => {
		const summary = requestSummary(request);
		return {
			itemIndex: request.itemIndex,
			summary,
			// One attempt; the body is built per attempt (a multipart body can be sent only once).
			send: async (): Promise<CreatedTask> => {
				const data = await apiMultipartRequest.call(this, spec.path, await buildForm.call(this, request), {
					itemIndex: request.itemIndex,
					timeout: options.requestTimeoutMs,
					survivesCancel: true,
				});
				return {
					itemIndex: request.itemIndex,
					taskType: spec.taskType,
					taskId: String(data?.taskid ?? ''),
					creation: data ?? {},
					summary,
				};
			},
		};
	});
	// No argument spread: a run may hold more outcomes than a call can take arguments.
	for (const outcome of await runEngine.call(this, { creations, existing: [], options, continueOnFail }))
		outcomes.push(outcome);
	return outcomes;
}
