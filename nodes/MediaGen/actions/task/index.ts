/** The Task resource: its Operation and Task Type selectors, and Get, Wait and Delete. */
import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../node.type';
import * as del from './delete.operation';
import { get, wait } from './query.operation';
import { TASK_TYPE_FROM_INPUT } from '../../request/taskItem';

export const operations: Record<string, OperationModule> = { get, delete: del, wait };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['task'] } },
		options: [
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete tasks',
				description: 'Delete image or video tasks by ID',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get a task',
				description: 'Get the status and results of an image or video task',
			},
			{
				name: 'Wait',
				value: 'wait',
				action: 'Wait for a task to finish',
				description: 'Poll existing image or video tasks until their results exist',
			},
		],
		default: 'get',
	},
	{
		displayName: 'Task Type',
		name: 'taskType',
		type: 'options',
		options: [
			{
				name: 'From Input Item',
				value: TASK_TYPE_FROM_INPUT,
				description: 'Use the taskType field ("image" or "video") that every MediaGen output item carries',
			},
			{ name: 'Image', value: 'image' },
			{ name: 'Video', value: 'video' },
		],
		default: TASK_TYPE_FROM_INPUT,
		description: 'Whether the tasks are image or video tasks (the API keeps them apart)',
		displayOptions: { show: { resource: ['task'] } },
	},
	...get.description,
	...del.description,
	...wait.description,
];
