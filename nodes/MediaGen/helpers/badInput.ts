/**
 * The bad-input error, at the bottom of the node so that every layer that refuses input (an item, the credential's
 * Base URL, the options, a tool call's files) raises the same one.
 */
import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { shorten, SHOWN } from './shorten';

function show(value: unknown): string {
	if (typeof value === 'string') return JSON.stringify(shorten(value, SHOWN.value, { sayLength: true }));
	if (value === undefined) return 'nothing';
	// JSON has no NaN or Infinity (it writes null): they are shown as themselves, inside lists and objects too.
	const marker = '\u0000';
	const text = (
		JSON.stringify(value, (_key, inner: unknown) =>
			typeof inner === 'number' && !Number.isFinite(inner) ? `${marker}${inner}${marker}` : inner,
		) ?? String(value)
	).replace(/"\\u0000(-?Infinity|NaN)\\u0000"/g, '$1');
	return shorten(text, SHOWN.value, { sayLength: true });
}

/** One broken field of an item: which field, the value it got (as shown), the rule it breaks. */
export interface InputProblem {
	field: string;
	/** The node parameter the value was read from (e.g. `additionalFields.batchsize`), where one parameter holds it. */
	parameter?: string;
	shown: string;
	rule: string;
	hint?: string;
}

/**
 * The problems behind a bad-input error, kept on the error itself (not enumerable, so not in n8n's saved error
 * data), so that the errors of one item's fields can be joined into one.
 */
const PROBLEMS = 'mediaGenInputProblems';

export function problemsOf(error: unknown): InputProblem[] | undefined {
	return error instanceof NodeOperationError
		? ((error as unknown as Record<string, unknown>)[PROBLEMS] as InputProblem[] | undefined)
		: undefined;
}

/** One problem as a bad-input message says it: `"Batch Size" must be an integer from 1 to 15; got 20`. */
export function problemEntry(problem: InputProblem): string {
	return `"${problem.field}" ${problem.rule}; got ${problem.shown}`;
}

/** The problems of one item as a message (without the item), each said by `entry`. */
export function problemsMessage(problems: InputProblem[], entry = problemEntry): string {
	// One field keeps the one-line shape; several are numbered in one message (n8n shows the message as the
	// error's title and renders the description as HTML, where line breaks would be lost).
	return problems.length === 1
		? entry(problems[0])
		: `${problems.length} fields are invalid. ${problems
				.map((problem, index) => `(${index + 1}) ${entry(problem)}.`)
				.join(' ')}`;
}

export function inputError(node: INode, itemIndex: number, problems: InputProblem[]): NodeOperationError {
	const hints = [...new Set(problems.map((problem) => problem.hint).filter(Boolean))];
	const description = `${hints.map((hint) => `${hint} `).join('')}Nothing was sent to the API for this item.`;
	const message = `Item ${itemIndex}: ${problemsMessage(problems)}`;
	const error = new NodeOperationError(node, message, { itemIndex, description });
	Object.defineProperty(error, PROBLEMS, { value: problems, enumerable: false });
	return error;
}

export function invalidInput(
	this: IExecuteFunctions,
	itemIndex: number,
	field: string | { name: string; parameter: string },
	value: unknown,
	rule: string,
	hint?: string,
): NodeOperationError {
	const named = typeof field === 'string' ? { field } : { field: field.name, parameter: field.parameter };
	return inputError(this.getNode(), itemIndex, [{ ...named, shown: show(value), rule, hint }]);
}
