/**
 * The names an AI Agent's model knows the tool's fields by: n8n offers it one argument per `$fromAI` call in the
 * node's parameters (Batch Size set to `{{ $fromAI('count', …) }}` is `count`), and those expressions stay in the
 * parameters while the node runs, the one record of which argument fills which field.
 */
import type { INode } from 'n8n-workflow';

/** The argument names of each parameter the model fills, by its path (`additionalFields.batchsize`, `[0]`). */
export type ToolArguments = ReadonlyMap<string, readonly string[]>;

/** The keys of the `$fromAI` calls of one expression, in order, each once. */
function fromAIKeys(expression: string): string[] {
	// n8n accepts any capitalisation of $fromAI and requires a literal key of letters, digits, "_" and "-".
	const calls = expression.matchAll(/\$fromAI\s*\(\s*(['"`])([A-Za-z0-9_-]{1,64})\1/gi);
	return [...new Set(Array.from(calls, (match) => match[2]))];
}

export function toolArguments(node: INode): ToolArguments {
	const found = new Map<string, string[]>();
	const visit = (value: unknown, path: string) => {
		if (typeof value === 'string') {
			// Only an expression (a value that starts with "=") is evaluated: text that mentions $fromAI stays text.
			const keys = value.startsWith('=') ? fromAIKeys(value) : [];
			if (keys.length) found.set(path, keys);
		} else if (Array.isArray(value)) {
			value.forEach((entry, index) => visit(entry, `${path}[${index}]`));
		} else if (value !== null && typeof value === 'object') {
			for (const [key, entry] of Object.entries(value)) visit(entry, path ? `${path}.${key}` : key);
		}
	};
	visit(node.parameters, '');
	return found;
}
