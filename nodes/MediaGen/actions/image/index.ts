import type { INodeProperties } from 'n8n-workflow';

import { operationProperty } from '../descriptions';
import { IMAGE_MODELS } from '../../models/image';
import type { OperationModule } from '../node.type';
import * as betav4 from './betav4.operation';
import * as betav45 from './betav45.operation';
import * as betav5 from './betav5.operation';
import * as gammaimage from './gammaimage.operation';
import * as proimage from './proimage.operation';

export const operations: Record<string, OperationModule> = { proimage, betav45, betav5, betav4, gammaimage };

export const description: INodeProperties[] = [
	operationProperty('image', IMAGE_MODELS),
	...proimage.description,
	...betav45.description,
	...betav5.description,
	...betav4.description,
	...gammaimage.description,
];
