import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as image from './actions/image';
import { router } from './actions/router';
import * as task from './actions/task';
import * as video from './actions/video';

export class MediaGen implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'MediaGen',
		name: 'mediaGen',
		icon: { light: 'file:../../icons/mediaGen.svg', dark: 'file:../../icons/mediaGen.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Create images and videos with the MediaGen API and wait for the results',
		defaults: {
			name: 'MediaGen',
		},
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'mediaGenApi',
				required: true,
			},
		],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Image', value: 'image' },
					{ name: 'Task', value: 'task' },
					{ name: 'Video', value: 'video' },
				],
				default: 'image',
			},
			...image.description,
			...video.description,
			...task.description,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
