import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

export type MediaGenResource = 'image' | 'video' | 'task';

/** The result of one input item: its output items, or the error that ended it. */
export type ItemOutcome =
	| { itemIndex: number; items: INodeExecutionData[] }
	| {
			itemIndex: number;
			error: NodeApiError | NodeOperationError;
			/** Kept on the error item so that a paid task is never lost (e.g. taskid, model). */
			json?: IDataObject;
	  };

export interface OperationModule {
	description: INodeProperties[];
	/** Runs every input item; item-level failures come back as outcomes, never as throws. */
	execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<ItemOutcome[]>;
}
