/**
 * The image and video resources: one "Create With <model>" operation per model spec (models/), whose spec yields its
 * parameters and its behaviour. A creation is repeated only when it provably created nothing (it could charge twice).
 */
import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import { IMAGE_MODELS } from '../models/image';
import type { ModelSpec } from '../models/types';
import { VIDEO_MODELS } from '../models/video';
import { failedCreationJson, type ItemOutcome, type RequestSummary } from '../output/items';
import { buildForm, requestSummary } from '../request/body';
import { prepareRequest, type PreparedRequest } from '../request/prepare';
import { apiMultipartRequest } from '../transport';
import type { CreatedTask } from '../waiting/taskState';
import { runEngine, type CreationJob } from '../waiting/engine';
import { renderKey } from '../learning/history';
import { executionNote, type CreationRef } from '../waiting/paidTasks';
import { fingerprint } from '../helpers/fingerprint';
import { TaskMemory } from '../waiting/memory';
import { readWaitingOptions } from '../waiting/options';
import { modelProperties, operationProperty } from './descriptions';
import type { OperationModule } from './node.type';
import { failuresContinue } from '../tool/call';

function creationOperation(spec: ModelSpec): OperationModule<PreparedRequest> {
	return {
		description: modelProperties(spec),
		read(itemIndex, item) {
			return prepareRequest.call(this, spec, itemIndex, item);
		},
		run(prepared) {
			return createTasks.call(this, prepared, spec);
		},
	};
}

function creationOperations(resource: string, models: ModelSpec[]) {
	const operations = Object.fromEntries(models.map((spec) => [spec.operation, creationOperation(spec)]));
	return {
		operations,
		description: [operationProperty(resource, models), ...Object.values(operations).flatMap((op) => op.description)],
	};
}

export const image = creationOperations('image', IMAGE_MODELS);
export const video = creationOperations('video', VIDEO_MODELS);

async function createTasks(
	this: IExecuteFunctions,
	prepared: PreparedRequest[],
	spec: ModelSpec,
): Promise<ItemOutcome[]> {
	const wait = this.getNodeParameter('waitForCompletion', 0, true) as boolean;
	const options = readWaitingOptions.call(this, spec.taskType, wait);
	// Retry On Fail runs this again on the same items: tasks already created for an item's request are resumed.
	const memory = TaskMemory.open(this);
	const fingerprints = new Map<number, string>();
	const resumed: CreatedTask[] = [];
	const refused: ItemOutcome[] = [];
	const creations: CreationJob[] = [];
	for (const request of prepared) {
		const { itemIndex } = request;
		const key = requestFingerprint(request);
		fingerprints.set(itemIndex, key);
		const summary = withEarlierTasks(requestSummary(request), memory.otherTasks(itemIndex, key));
		const known = memory.find(itemIndex, key);
		if (known === 'uncertain' && !options.repeatUncertain) {
			refused.push(uncertainBefore.call(this, itemIndex, spec, summary));
		} else if (known && known !== 'uncertain') {
			const creation = { taskid: known.taskId };
			resumed.push({ itemIndex, ...known, creation, summary: withAlsoNamed(summary, known.alsoNamed) });
			this.logger.info(
				`MediaGen node "${this.getNode().name}" resumes ${known.taskType} task ${known.taskId} for item ${itemIndex} instead of creating it again ${executionNote(this)}`,
			);
		} else {
			creations.push(creationJob.call(this, request, spec, summary));
		}
	}
	const outcomes = await runEngine.call(this, {
		creations,
		existing: resumed,
		options,
		continueOnFail: failuresContinue(this),
		memory: remembered(memory, (itemIndex) => fingerprints.get(itemIndex)!),
	});
	return [...refused, ...outcomes];
}

/** One item's creation, one attempt per call; the body is built per attempt (a multipart body is sent once). */
function creationJob(
	this: IExecuteFunctions,
	request: PreparedRequest,
	spec: ModelSpec,
	summary: RequestSummary,
): CreationJob {
	const { itemIndex } = request;
	const { taskType } = spec;
	return {
		itemIndex,
		taskType,
		summary,
		renderKey: renderKey(spec, summary.request),
		send: async (session, timeout): Promise<CreatedTask> => {
			const form = await buildForm.call(this, request);
			const context = { itemIndex, timeout, survivesCancel: true, session };
			const { data, alsoNamed } = await apiMultipartRequest.call(this, spec.path, form, context);
			const taskSummary = withAlsoNamed(summary, alsoNamed);
			return { itemIndex, taskType, taskId: data.taskid, creation: data, summary: taskSummary, alsoNamed };
		},
	};
}

/** What the task memory keeps of each creation, under its item's request fingerprint, for a later try. */
function remembered(memory: TaskMemory, key: (itemIndex: number) => string) {
	return {
		created: (task: CreatedTask) =>
			memory.remember(task.itemIndex, key(task.itemIndex), {
				taskId: task.taskId,
				taskType: task.taskType,
				alsoNamed: task.alsoNamed,
			}),
		uncertain: (job: CreationRef) => memory.remember(job.itemIndex, key(job.itemIndex), 'uncertain'),
		failed: (task: CreatedTask) => memory.forget(task.itemIndex, key(task.itemIndex)),
	};
}

/** An earlier try's task for another request (an expression gave other values) is named in every output of the item. */
function withEarlierTasks(summary: RequestSummary, earlier: string[]): RequestSummary {
	if (!earlier.length) return summary;
	const ids = earlier.join(', ');
	return {
		...summary,
		warning: `An earlier try of this item created task ${ids} with a different request (an expression gave other values); it keeps running and may be charged. This try created a new task. Follow ${ids} with Task → Get or Task → Wait if you need its result.`,
	};
}

/** Other tasks the creation's answer named (a `taskid` given twice) may be charged: every output names them. */
function withAlsoNamed(summary: RequestSummary, alsoNamed: string[] | undefined): RequestSummary {
	if (!alsoNamed?.length) return summary;
	const ids = alsoNamed.join(', ');
	const note = `The API's answer to this item's creation also named task ${ids}: it may exist and be charged too. Follow ${ids} with Task → Get or Task → Wait if you need its result; this item follows the task in taskid.`;
	return { ...summary, warning: summary.warning ? `${summary.warning} ${note}` : note };
}

/** An item whose earlier try got an answer that may have created a task: not created again unasked. */
function uncertainBefore(
	this: IExecuteFunctions,
	itemIndex: number,
	spec: ModelSpec,
	summary: RequestSummary,
): ItemOutcome {
	const error = new NodeOperationError(
		this.getNode(),
		`An earlier try of this item may have created a task, so it was not created again [item ${itemIndex}]`,
		{
			itemIndex,
			description: `An earlier try of this node (Retry On Fail, or Retry execution) sent this item's request and got no clear answer (HTTP 5xx, a dropped connection, or no answer in time): a task may have been created (and charged) anyway. Check your tasks before creating it again. To let a later try create it again anyway, turn on Options → Repeat Uncertain Creations.`,
		},
	);
	return { itemIndex, error, json: failedCreationJson({ taskType: spec.taskType, summary }) };
}

/** What makes two tries of an item the same request: the model, the fields and the files sent. */
function requestFingerprint(request: PreparedRequest): string {
	const files = request.files.map((file) => [file.field, file.propertyName, file.fileName, file.mimeType]);
	return fingerprint(JSON.stringify([request.spec.operation, request.fields, files]));
}
