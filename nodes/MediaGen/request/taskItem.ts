/** The task an item names for Task operations: its id and its type, checked before anything is sent. */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { TaskType } from '../models/endpoints';
import { holdsObjects, ItemProblems } from './validation';
import { invalidInput } from '../helpers/badInput';

/** Task Type value that reads each input item's `taskType` field (set on every MediaGen output). */
export const TASK_TYPE_FROM_INPUT = 'fromInput';

/** A task an item names, as Task → Get and Task → Wait read it. */
export interface TaskRef {
	itemIndex: number;
	taskType: TaskType;
	taskId: string;
	/** Sent with video info requests. */
	moreTaskInfo?: boolean;
	/** Task operations: what to check when the API answers that the task does not exist (see taskTypeHint). */
	notFoundHint?: string;
}

export function readTaskRef(this: IExecuteFunctions, itemIndex: number, item: INodeExecutionData): TaskRef {
	const problems = new ItemProblems(this, itemIndex);
	const taskType = problems.check(() => readTaskType.call(this, itemIndex, item));
	const field = { name: 'Task ID', parameter: 'taskId' };
	const taskId = problems.check(() => {
		const value = this.getNodeParameter(field.parameter, itemIndex, '') as unknown;
		if (holdsObjects(value)) throw invalidInput.call(this, itemIndex, field, value, 'must be one task ID (text)');
		const id = String(value ?? '').trim();
		if (!id) throw invalidInput.call(this, itemIndex, field, value, 'is required');
		return id;
	});
	problems.throwIfAny();
	const moreTaskInfo =
		taskType === 'video' ? (this.getNodeParameter('moreTaskInfo', itemIndex, false) as boolean) : undefined;
	const notFoundHint = taskTypeHint.call(this, itemIndex, taskType!);
	return { itemIndex, taskType: taskType!, taskId: taskId!, moreTaskInfo, notFoundHint };
}

/**
 * The API keeps image and video tasks apart: an image task ID queried (or deleted) as a video task is "not found",
 * and the reverse. Said with the error of such an answer, naming where the Task Type came from.
 */
export function taskTypeHint(this: IExecuteFunctions, itemIndex: number, taskType: TaskType): string {
	const other = taskType === 'image' ? 'video' : 'image';
	const chosen = this.getNodeParameter('taskType', itemIndex, TASK_TYPE_FROM_INPUT) as string;
	const source =
		chosen === TASK_TYPE_FROM_INPUT
			? `Task Type is "From Input Item" and the item's taskType is "${taskType}"`
			: `Task Type is ${taskType === 'image' ? 'Image' : 'Video'}`;
	return `${source}: if this is ${other === 'image' ? 'an image' : 'a video'} task, choose Task Type ${other === 'image' ? 'Image' : 'Video'} (the API does not find ${other} tasks among ${taskType} tasks).`;
}

export function readTaskType(this: IExecuteFunctions, itemIndex: number, item: INodeExecutionData): TaskType {
	const chosen = this.getNodeParameter('taskType', itemIndex, TASK_TYPE_FROM_INPUT) as string;
	if (chosen === 'image' || chosen === 'video') return chosen;
	const fromItem = item.json?.taskType;
	if (fromItem === 'image' || fromItem === 'video') return fromItem;
	const rule = 'is "From Input Item", so the item needs a taskType field of "image" or "video"';
	const hint = 'Choose Image or Video as Task Type, or pass items that come from a MediaGen node.';
	throw invalidInput.call(this, itemIndex, 'Task Type', fromItem, rule, hint);
}
