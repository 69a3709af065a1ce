/**
 * Any exception as the error of the item it happened to: anything but the node's own errors (a RangeError from
 * hostile data, a bug) would reach n8n without its item and task (docs/errors-and-n8n-settings.md, "No item is lost").
 */
import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';
import { shorten, SHOWN } from '../helpers/shorten';
import { mayHaveCreated } from '../transport';

/** The errors an item can end with: each names its item, and its task when there is one. */
export type ItemError = NodeApiError | NodeOperationError;

export interface FailureStep {
	/** What the node was doing, for the message: "checking its task", "writing its output". */
	step: string;
	taskId?: string | null;
	/** A creation whose request may have reached the server: a task may exist and be charged. */
	mayHaveCreated?: boolean;
	/** The caller adds what to do about the task itself (a failed status check says how to check again). */
	advised?: boolean;
}

/** What to do next, after a space; nothing when the caller says it. */
function advice(about: FailureStep): string {
	if (about.advised) return '';
	if (about.taskId) {
		return ` Task ${about.taskId} exists on the server and keeps running: check it with Task → Get or Task → Wait (Task ID "${about.taskId}") rather than creating it again.`;
	}
	if (about.mayHaveCreated) return ` ${mayHaveCreated('The creation request may have reached the server, so')}`;
	return '';
}

/** The error an item ends with: the node's own as it is, anything else as a NodeOperationError naming it. */
export function itemFailure(node: INode, error: unknown, itemIndex: number, about: FailureStep): ItemError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	const thrown =
		error instanceof Error ? `${error.name}: ${error.message}` : `a thrown ${typeof error} (${String(error)})`;
	const cause = shorten(thrown, SHOWN.cause);
	const task = about.taskId ? ` (task ${about.taskId})` : '';
	const failure = new NodeOperationError(
		node,
		`MediaGen failed while ${about.step}: ${cause}${task} [item ${itemIndex}]`,
		{
			itemIndex,
			description: `The node met an error it does not expect (${cause}) and ended this item with it rather than lose the item.${advice(about)}`,
		},
	);
	if (error instanceof Error) failure.cause = error;
	return failure;
}
