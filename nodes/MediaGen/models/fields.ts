/** Fields that several models declare alike, on the wire and in the editor. */
import type { FieldSpec, IntegerField, ReferenceSpec, StringField } from './types';

/** An Additional Field of whole numbers. */
export function integer(
	wire: string,
	displayName: string,
	description: string,
	limits: Pick<IntegerField, 'min' | 'max' | 'default' | 'renderTime'>,
): FieldSpec {
	return { kind: 'integer', wire, displayName, description, placement: 'additional', ...limits };
}

export const SEED = integer('seed', 'Seed', 'Random seed, for repeatable results', { default: 0 });

export function prompt(description: string, limits: Pick<StringField, 'required' | 'maxLength'> = {}): StringField {
	return { kind: 'string', wire: 'prompt', displayName: 'Prompt', description, placement: 'main', rows: 4, ...limits };
}

/** An Additional Field of fixed values (a ratio, a duration, a resolution): renders take longer or shorter with it. */
export function choice(
	wire: string,
	displayName: string,
	description: string,
	values: ReadonlyArray<string | number>,
	byDefault = values[0],
): FieldSpec {
	return {
		kind: 'options',
		wire,
		displayName,
		description,
		placement: 'additional',
		values,
		default: byDefault,
		renderTime: true,
	};
}

/** The `sourceImage` field; `use` ends its description with how it adds to the files. */
export function sourceImageText(use: string, counts: boolean): NonNullable<ReferenceSpec['valueField']> {
	return {
		wire: 'sourceImage',
		displayName: 'Source Image as Text',
		description: `A source image given as text in the form the API accepts (its documentation says only "source image value")${use}`,
		counts,
	};
}
