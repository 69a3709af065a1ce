/**
 * Invariant 11, no item is lost: on every schedule that did not stop, every input item comes out of the node,
 * on the output or the error output, paired with it; none comes out only through the router's last resort (an item
 * its operation reported nothing for, a defect: actions/outcomes.ts). When the run stopped with an error, that
 * error names an input item (invariant 1 checks that it names every paid task).
 */
import type { INodeExecutionData, IPairedItemData } from 'n8n-workflow';

import { allText } from '../../support';
import type { Observation } from '../invariants';

/** The input items an output item pairs with. */
export function pairedItems(item: INodeExecutionData): number[] {
	const paired = item.pairedItem;
	const list = Array.isArray(paired) ? paired : paired === undefined ? [] : [paired];
	return list.map((entry) => (typeof entry === 'number' ? entry : (entry as IPairedItemData).item));
}

export function checkItemsOut(observation: Observation): string[] {
	const { schedule, result } = observation;
	// After Stop n8n keeps nothing of the node's output; a crash is invariant 3's.
	if (observation.stoppedAt !== undefined || observation.crashed !== undefined || !result) return [];
	if (result.error) {
		// "… [item 3]", or bad input's "Item 3: …".
		const named = /\[item (\d+)\]|^Item (\d+):/.exec(String(result.error.message ?? ''));
		return named && Number(named[1] ?? named[2]) < schedule.items
			? []
			: [`the run stopped with an error that names no input item: ${String(result.error.message).slice(0, 200)}`];
	}
	const violations: string[] = [];
	const out = new Set<number>();
	for (const item of [...result.output, ...result.errorOutput]) {
		for (const index of pairedItems(item)) out.add(index);
		if (/reported no result for this item/.test(allText(item.json)))
			violations.push(`input item ${pairedItems(item).join(', ')} came out only as "reported no result" (a defect)`);
	}
	for (let index = 0; index < schedule.items; index++) {
		if (!out.has(index))
			violations.push(`input item ${index} did not come out (no output or error item pairs with it)`);
	}
	return violations;
}
