/**
 * The creation operation of every image and video model: the model's spec yields both its parameters and its
 * behaviour, so adding a model means adding its spec (models/), not an operation file.
 * 1. `read`: prepare and validate one item (the router reads every item before anything is sent);
 * 2. `run`: hand the creations to the waiting engine, which polls each task from its own creation on
 *    (waiting/engine.ts); a creation is repeated only when it provably created nothing (it could charge twice).
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { ModelSpec } from '../models/types';
import type { ItemOutcome } from '../output/taskOutput';
import { buildForm, requestSummary } from '../request/body';
import { prepareRequest, type PreparedRequest } from '../request/prepare';
import { apiMultipartRequest } from '../transport';
import type { CreatedTask } from '../waiting/answers';
import { runEngine, type CreationJob } from '../waiting/engine';
import { fingerprint, TaskMemory } from '../waiting/memory';
import { readWaitingOptions } from '../waiting/options';
import { modelProperties, operationProperty, waitingProperties } from './descriptions';
import type { OperationModule } from './node.type';
import { failuresContinue } from '../tool/mode';

function creationOperation(spec: ModelSpec): OperationModule<PreparedRequest> {
	return {
		description: modelProperties(spec, waitingProperties(spec.taskType)),
		async read(itemIndex, item) {
			return await prepareRequest.call(this, spec, itemIndex, item);
		},
		async run(prepared) {
			return await createTasks.call(this, prepared, spec);
		},
	};
}

/** The Operation selector and every operation of a resource, one per model spec. */
export function creationOperations(resource: string, models: ModelSpec[]) {
	const operations = Object.fromEntries(models.map((spec) => [spec.operation, creationOperation(spec)]));
	return {
		operations,
		description: [operationProperty(resource, models), ...Object.values(operations).flatMap((op) => op.description)],
	};
}

async function createTasks(
	this: IExecuteFunctions,
	prepared: PreparedRequest[],
	spec: ModelSpec,
): Promise<ItemOutcome[]> {
	const options = readWaitingOptions.call(
		this,
		spec.taskType,
		this.getNodeParameter('waitForCompletion', 0, true) as boolean,
	);
	// Retry On Fail runs this again on the same items: tasks already created for an item's request are resumed.
	const memory = TaskMemory.open(this);
	const fingerprints = new Map<number, string>();
	const resumed: CreatedTask[] = [];
	const creations: CreationJob[] = [];
	for (const request of prepared) {
		const summary = requestSummary(request);
		const key = requestFingerprint(request);
		fingerprints.set(request.itemIndex, key);
		const known = memory.find(request.itemIndex, key);
		if (known) {
			resumed.push({ itemIndex: request.itemIndex, ...known, summary });
			continue;
		}
		creations.push({
			itemIndex: request.itemIndex,
			taskType: spec.taskType,
			summary,
			// One attempt; the body is built per attempt (a multipart body can be sent only once).
			send: async (session): Promise<CreatedTask> => {
				const data = await apiMultipartRequest.call(this, spec.path, await buildForm.call(this, request), {
					itemIndex: request.itemIndex,
					timeout: options.requestTimeoutMs,
					survivesCancel: true,
					session,
				});
				return {
					itemIndex: request.itemIndex,
					taskType: spec.taskType,
					taskId: String(data?.taskid ?? ''),
					creation: data ?? {},
					summary,
				};
			},
		});
	}
	for (const task of resumed) {
		this.logger.info(
			`MediaGen node "${this.getNode().name}" resumes ${task.taskType} task ${task.taskId} for item ${task.itemIndex} instead of creating it again (execution ${this.getExecutionId()})`,
		);
	}
	const remembered = {
		created: (task: CreatedTask) =>
			memory.remember(task.itemIndex, fingerprints.get(task.itemIndex)!, {
				taskId: task.taskId,
				taskType: task.taskType,
				creation: task.creation,
			}),
		failed: (task: CreatedTask) => memory.forget(task.itemIndex, fingerprints.get(task.itemIndex)!),
	};
	return await runEngine.call(this, {
		creations,
		existing: resumed,
		options,
		continueOnFail: failuresContinue(this),
		memory: remembered,
	});
}

/** What makes two tries of an item the same request: the model, the fields and the files sent. */
function requestFingerprint(request: PreparedRequest): string {
	const files = request.files.map((file) => [file.field, file.propertyName, file.fileName, file.mimeType]);
	return fingerprint(JSON.stringify([request.spec.operation, request.fields, files]));
}
