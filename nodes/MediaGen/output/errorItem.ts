/**
 * The error item of a failed task (Continue On Fail), in the shape n8n routes for the chosen On Error mode.
 *
 * Every error item carries the task's fields (taskid, taskType, status, model, request, urls where known) plus
 * the error's message and description:
 * - "Continue" (regular output): one flat item, `{ taskid, taskType, status, …, error, errorDescription }`.
 * - "Continue (using error output)": n8n moves an item to the error output only when its json holds nothing but
 *   `error` and `message` (n8n-core's WorkflowExecute, handleNodeErrorOutput; n8n 1.x allows no other key), and
 *   then merges the item it came from into it. So the task's fields go inside `error`:
 *   `{ error: { message, description, taskid, taskType, status, … }, message }`, read as `$json.error.taskid`.
 * `item.error` is never set: n8n replaces the json of such an item with `{ error: message }` in every mode, which
 * would lose the task id.
 */
import type { IDataObject, INodeExecutionData, NodeApiError, NodeOperationError } from 'n8n-workflow';

/** The fields every error item has, whatever failed (a task that was never created has `taskid: null`). */
export interface FailedTaskJson extends IDataObject {
	taskid: string | null;
	taskType: string | null;
	status: string;
}

export function buildErrorItem(
	json: FailedTaskJson,
	error: NodeApiError | NodeOperationError,
	itemIndex: number,
	errorOutput: boolean,
): INodeExecutionData {
	const description = error.description ? { errorDescription: error.description } : {};
	if (!errorOutput) {
		return { json: { ...json, error: error.message, ...description }, pairedItem: { item: itemIndex } };
	}
	return {
		json: {
			error: { message: error.message, ...(error.description ? { description: error.description } : {}), ...json },
			message: error.message,
		},
		pairedItem: { item: itemIndex },
	};
}
