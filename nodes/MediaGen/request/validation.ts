import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

function show(value: unknown): string {
	if (typeof value === 'string') {
		const clipped = value.length > 60 ? `${value.slice(0, 60)}… (${value.length} characters)` : value;
		return JSON.stringify(clipped);
	}
	if (value === undefined) return 'nothing';
	return JSON.stringify(value) ?? String(value);
}

/**
 * The one shape of every bad-input error: it names the field, the value, the rule and the item,
 * and says that nothing was sent for that item.
 */
export function invalidInput(
	this: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
	rule: string,
	hint?: string,
): NodeOperationError {
	return new NodeOperationError(this.getNode(), `Item ${itemIndex}: "${field}" ${rule}; got ${show(value)}`, {
		itemIndex,
		description: `${hint ? `${hint} ` : ''}Nothing was sent to the API for this item.`,
	});
}

/** Splits a comma-separated list (or takes an array from an expression) into trimmed, non-empty strings. */
export function toList(value: unknown): string[] {
	const parts = Array.isArray(value) ? value : String(value ?? '').split(',');
	return parts.map((part) => String(part).trim()).filter((part) => part.length > 0);
}

/** Whether a value (or an entry of a list from an expression) is an object, which as text would be "[object Object]". */
export function holdsObjects(value: unknown): boolean {
	const entries = Array.isArray(value) ? value : [value];
	return entries.some((entry) => entry !== null && typeof entry === 'object');
}
