/**
 * What every operation module is: its editor properties and two phases, so that the router holds "bad input anywhere,
 * nothing sent" in one place: `read` runs for every item before `run` sends anything. `run` gets all items at once
 * (unlike n8n's per-item `execute(i)`): they share one schedule and one bound on requests in flight (waiting/engine.ts).
 */
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { ItemOutcome } from '../output/items';

/** What an operation read from one item: at least the item it came from. */
export interface ReadItem {
	itemIndex: number;
}

export interface OperationModule<T extends ReadItem = ReadItem> {
	description: INodeProperties[];
	/** Reads and checks one item's parameters; throws a NodeOperationError on bad input. Sends nothing. */
	read(this: IExecuteFunctions, itemIndex: number, item: INodeExecutionData): Promise<T> | T;
	/** Sends what was read; item-level failures come back as outcomes, never as throws. */
	run(this: IExecuteFunctions, read: T[]): Promise<ItemOutcome[]>;
}
