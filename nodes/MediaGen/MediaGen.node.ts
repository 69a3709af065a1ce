/** The node n8n loads: its description, built from the model specs, and `execute`, which the router runs. */
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { image, video } from './actions/create.operation';
import { router } from './actions/router';
import * as task from './actions/task';
import { withToolProperties } from './tool/properties';
import { isToolCall } from './tool/call';
import { runAsTool } from './tool/reply';

export class MediaGen implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'MediaGen',
		name: 'mediaGen',
		icon: { light: 'file:../../icons/mediaGen.svg', dark: 'file:../../icons/mediaGen.dark.svg' },
		group: ['transform'],
		version: 1,
		// The operation as the actions list names it (e.g. "Create With Beta v4.5"). The lint wants a literal
		// here; test/node/editor.test.ts checks it against the model specs and the Operation options.
		subtitle:
			'={{ {"proimage":"Create With Proimage","betav45":"Create With Beta v4.5","betav5":"Create With Beta v5 Lite","betav4":"Create With Beta v4","gammaimage":"Create With Gamma Image","alphav2mini":"Create With Alpha v2 Mini","alphav15pro":"Create With Alpha v1.5 Pro","get":"Get Task","wait":"Wait for Task","delete":"Delete Tasks","__CUSTOM_API_CALL__":"Custom API Call"}[$parameter["operation"]] || $parameter["operation"] }}',
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
		// As an AI Agent's tool the node shows its own description per operation and its own defaults (tool/).
		properties: withToolProperties([
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
		]),
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return isToolCall(this) ? await runAsTool.call(this, router) : await router.call(this);
	}
}
