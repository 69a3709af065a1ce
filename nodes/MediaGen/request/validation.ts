/** What every item reader shares: all of an item's broken fields in one error, and lists from text or expressions. */
import type { IExecuteFunctions } from 'n8n-workflow';

import { inputError, problemsOf, type InputProblem } from '../helpers/badInput';

/**
 * Each independent check of an item runs and its bad-input error is noted; `throwIfAny` throws one error that lists
 * them all. Any other error (a file that cannot be read) is thrown at once.
 */
export class ItemProblems {
	private readonly problems: InputProblem[] = [];

	constructor(
		private readonly context: IExecuteFunctions,
		readonly itemIndex: number,
	) {}

	get count(): number {
		return this.problems.length;
	}

	note(error: unknown): void {
		const problems = problemsOf(error);
		if (!problems) throw error;
		this.problems.push(...problems);
	}

	/** Runs one check: its result, or undefined when it found bad input (noted). */
	check<T>(run: () => T): T | undefined {
		try {
			return run();
		} catch (error) {
			this.note(error);
			return undefined;
		}
	}

	throwIfAny(): void {
		if (this.problems.length) throw inputError(this.context.getNode(), this.itemIndex, this.problems);
	}
}

export function toList(value: unknown): string[] {
	const parts = Array.isArray(value) ? value : String(value ?? '').split(',');
	return parts.map((part) => String(part).trim()).filter((part) => part.length > 0);
}

/** Whether a value (or an entry of a list from an expression) is an object, which as text would be "[object Object]". */
export function holdsObjects(value: unknown): boolean {
	const entries = Array.isArray(value) ? value : [value];
	return entries.some((entry) => entry !== null && typeof entry === 'object');
}
