/** Fields that several models declare alike, on the wire and in the editor. */
import type { FieldSpec } from './types';

export const SEED: FieldSpec = {
	kind: 'integer',
	wire: 'seed',
	displayName: 'Seed',
	description: 'Random seed, for repeatable results',
	placement: 'additional',
	default: 0,
};
