import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { ItemOutcome } from '../output/taskOutput';

export type MediaGenResource = 'image' | 'video' | 'task';

export interface OperationModule {
	description: INodeProperties[];
	/** Runs every input item; item-level failures come back as outcomes, never as throws. */
	execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<ItemOutcome[]>;
}
