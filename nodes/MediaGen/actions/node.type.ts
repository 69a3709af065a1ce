import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { ItemOutcome } from '../output/items';

export type MediaGenResource = 'image' | 'video' | 'task';

/** What an operation read from one item: at least the item it came from. */
export interface ReadItem {
	itemIndex: number;
}

/**
 * An operation in two phases, so that the router can hold the product promise "bad input anywhere, nothing
 * sent" for every operation in one place: `read` runs for every item before `run` sends anything.
 *
 * Unlike n8n's per-item `execute(i)` convention, `run` gets all items at once: creations, polls and
 * downloads of all items share one schedule and one bound on requests in flight (see waiting/engine.ts).
 */
export interface OperationModule<T extends ReadItem = ReadItem> {
	description: INodeProperties[];
	/** Reads and checks one item's parameters; throws a NodeOperationError on bad input. Sends nothing. */
	read(this: IExecuteFunctions, itemIndex: number, item: INodeExecutionData): Promise<T> | T;
	/** Sends what was read; item-level failures come back as outcomes, never as throws. */
	run(this: IExecuteFunctions, read: T[]): Promise<ItemOutcome[]>;
}
