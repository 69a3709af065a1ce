/** The task an item names for Task operations: its id and its type, checked before anything is sent. */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { TaskType } from '../models/endpoints';
import { holdsObjects, invalidInput, ItemProblems } from './validation';

/** Task Type value that reads each input item's `taskType` field (set on every MediaGen output). */
export const TASK_TYPE_FROM_INPUT = 'fromInput';

/** A task an item names, as Task → Get and Task → Wait read it. */
export interface TaskRef {
	itemIndex: number;
	taskType: TaskType;
	taskId: string;
	/** Sent with video info requests. */
	moreTaskInfo?: boolean;
}

/** The task of an item for Task → Get and Task → Wait: its type, id and the More Task Info switch of videos. */
export function readTaskRef(this: IExecuteFunctions, itemIndex: number, item: INodeExecutionData): TaskRef {
	// Both fields are checked, and reported together when both are wrong.
	const problems = new ItemProblems(this, itemIndex);
	const taskType = problems.check(() => readTaskType.call(this, itemIndex, item));
	const taskId = problems.check(() => readTaskId.call(this, itemIndex));
	problems.throwIfAny();
	const moreTaskInfo =
		taskType === 'video' ? (this.getNodeParameter('moreTaskInfo', itemIndex, false) as boolean) : undefined;
	return { itemIndex, taskType: taskType!, taskId: taskId!, moreTaskInfo };
}

/** Reads the task id of an item, refusing an empty one before anything is sent. */
function readTaskId(this: IExecuteFunctions, itemIndex: number): string {
	const value = this.getNodeParameter('taskId', itemIndex, '') as unknown;
	if (holdsObjects(value)) throw invalidInput.call(this, itemIndex, 'Task ID', value, 'must be one task ID (text)');
	const taskId = String(value ?? '').trim();
	if (!taskId) throw invalidInput.call(this, itemIndex, 'Task ID', value, 'is required');
	return taskId;
}

/** The task type of an item: the chosen one, or the item's own `taskType` field. */
export function readTaskType(this: IExecuteFunctions, itemIndex: number, item: INodeExecutionData): TaskType {
	const chosen = this.getNodeParameter('taskType', itemIndex, TASK_TYPE_FROM_INPUT) as string;
	if (chosen === 'image' || chosen === 'video') return chosen;
	const fromItem = item.json?.taskType;
	if (fromItem === 'image' || fromItem === 'video') return fromItem;
	throw invalidInput.call(
		this,
		itemIndex,
		'Task Type',
		fromItem,
		'is "From Input Item", so the item needs a taskType field of "image" or "video"',
		'Choose Image or Video as Task Type, or pass items that come from a MediaGen node.',
	);
}
