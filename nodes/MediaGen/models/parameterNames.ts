/** How a model's wire fields are named as n8n parameters, shared by the editor fields and the request reader. */

/** n8n parameter name of a wire field: `execution_expires_after` → `executionExpiresAfter`. */
export function parameterName(wire: string): string {
	return wire.replace(/[._]([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

export const REFERENCE_INPUT = { none: 'none', properties: 'properties', all: 'all' } as const;

/**
 * Where a field's value lives among the node's parameters, as n8n addresses it (`getNodeParameter` takes the
 * same path): a top-level parameter, or an entry of the Additional Fields collection.
 */
export function parameterPath(field: { wire: string; placement: 'main' | 'additional' }): string {
	const name = parameterName(field.wire);
	return field.placement === 'main' ? name : `additionalFields.${name}`;
}
