import type { INodeProperties } from 'n8n-workflow';

import { operationProperty } from '../descriptions';
import { VIDEO_MODELS } from '../../models/video';
import type { OperationModule } from '../node.type';
import * as alphav15pro from './alphav15pro.operation';
import * as alphav2mini from './alphav2mini.operation';

export const operations: Record<string, OperationModule> = { alphav2mini, alphav15pro };

export const description: INodeProperties[] = [
	operationProperty('video', VIDEO_MODELS),
	...alphav2mini.description,
	...alphav15pro.description,
];
