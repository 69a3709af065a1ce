/**
 * No item is lost (docs/errors-and-n8n-settings.md): every item an operation's run was given comes out, as output or
 * as an error that names its item and task, also when the run throws, forgets an item, or returns an output n8n
 * could not save (n8n would fail the whole execution when it saves it).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { itemFailure, type ItemError } from '../output/itemFailure';
import { essentialJson, type ItemOutcome } from '../output/items';
import type { OperationModule, ReadItem } from './node.type';

export interface ContainedRun {
	outcomes: ItemOutcome[];
	/** Errors of items the run did not report: a defect, shown only when no other error stops the node. */
	unreported: Set<ItemError>;
}

/** The input items an outcome's output items pair with. */
function pairedWith(outcome: ItemOutcome): number[] {
	if (!('items' in outcome)) return [];
	return outcome.items.flatMap(({ pairedItem }) =>
		(Array.isArray(pairedItem) ? pairedItem : pairedItem === undefined ? [] : [pairedItem]).map((entry) =>
			typeof entry === 'number' ? entry : entry.item,
		),
	);
}

function taskIdOf(json: IDataObject | undefined): string | undefined {
	return typeof json?.taskid === 'string' && json.taskid ? json.taskid : undefined;
}

/** Why n8n could not save this JSON (it stringifies every execution's data), if it could not. */
function unwritable(json: IDataObject | undefined): unknown {
	try {
		JSON.stringify(json);
		return undefined;
	} catch (error) {
		return error ?? new Error('the output cannot be written as JSON');
	}
}

function written(this: IExecuteFunctions, outcome: ItemOutcome): ItemOutcome {
	const { itemIndex } = outcome;
	if ('items' in outcome) {
		for (const item of outcome.items) {
			const cause = unwritable(item.json);
			if (cause === undefined) continue;
			const json = essentialJson(item.json);
			const about = { step: 'writing its output', taskId: taskIdOf(json) };
			return { itemIndex, error: itemFailure(this.getNode(), cause, itemIndex, about), json };
		}
		return outcome;
	}
	const about = { step: 'handling it', taskId: taskIdOf(outcome.json) };
	const error = itemFailure(this.getNode(), outcome.error, itemIndex, about);
	const json = unwritable(outcome.json) === undefined ? outcome.json : essentialJson(outcome.json);
	return { itemIndex, error, json };
}

export interface RunContext {
	/** A creation operation: an item whose run failed as a whole may have created a task. */
	creates: boolean;
	/** The tasks this run created for an item (Retry On Fail's memory), for an item the run did not report. */
	knownTasks: (itemIndex: number) => string[];
}

export async function runContained(
	this: IExecuteFunctions,
	module: OperationModule,
	read: ReadItem[],
	{ creates, knownTasks }: RunContext,
): Promise<ContainedRun> {
	let outcomes: ItemOutcome[] = [];
	let failure: unknown;
	try {
		outcomes = await module.run.call(this, read);
	} catch (error) {
		failure = error;
	}
	const contained = outcomes.map((outcome) => written.call(this, outcome));
	// An item of Task → Delete's Combine All Items comes out paired with the group's first item.
	const reported = new Set(contained.flatMap((outcome) => [outcome.itemIndex, ...pairedWith(outcome)]));
	const unreported = new Set<ItemError>();
	for (const { itemIndex } of read) {
		if (reported.has(itemIndex)) continue;
		const tasks = knownTasks(itemIndex);
		const taskId = tasks.join(', ') || undefined;
		const json = taskId ? { taskid: tasks[0] } : undefined;
		if (failure !== undefined) {
			const step = { step: 'running the operation', taskId, mayHaveCreated: creates && !taskId };
			contained.push({ itemIndex, error: itemFailure(this.getNode(), failure, itemIndex, step), json });
			continue;
		}
		const error = new NodeOperationError(
			this.getNode(),
			`MediaGen reported no result for this item${taskId ? ` (task ${taskId})` : ''} [item ${itemIndex}]`,
			{
				itemIndex,
				description: `The operation ended without an output or an error for this item, which is a defect of the node: it comes out with this error rather than not at all. ${taskId ? `Its task keeps running on the server: check it with Task → Get or Task → Wait (Task ID "${tasks[0]}").` : 'Check whether it did what you asked before running the node again.'}`,
			},
		);
		unreported.add(error);
		contained.push({ itemIndex, error, json });
	}
	return { outcomes: contained, unreported };
}
