import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../node.type';
import * as del from './delete.operation';
import * as get from './get.operation';

export const operations: Record<string, OperationModule> = { get, delete: del };

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
		],
		default: 'get',
	},
	{
		displayName: 'Task Type',
		name: 'taskType',
		type: 'options',
		options: [
			{ name: 'Image', value: 'image' },
			{ name: 'Video', value: 'video' },
		],
		default: 'image',
		description: 'Whether the task IDs belong to image or video tasks (the API keeps them apart)',
		displayOptions: { show: { resource: ['task'] } },
	},
	...get.description,
	...del.description,
];
