/**
 * A model is described once, as data: these specs generate the node's parameters, drive the validation
 * that runs before any request, and name the multipart fields on the wire.
 */
import type { TaskType } from './endpoints';

interface FieldBase {
	/** Multipart field name on the wire, as the API documents it. */
	wire: string;
	displayName: string;
	description: string;
	/** Top-level parameter (`main`) or an entry of the Additional Fields collection. */
	placement: 'main' | 'additional';
	required?: boolean;
	placeholder?: string;
	/** Renders take longer or shorter with this field's value: the learned Poll Schedule keeps them apart per value. */
	renderTime?: true;
}

export interface StringField extends FieldBase {
	kind: 'string';
	maxLength?: number;
	rows?: number;
	/** Returns the broken rule, or undefined when the value is fine; a rule may depend on the references sent. */
	check?: (value: string, request: { referenceCount: number }) => string | undefined;
	/** The wire form of an accepted spelling (e.g. `1536X1024` → `1536x1024`); runs before `check`. */
	normalize?: (value: string) => string;
}

export interface IntegerField extends FieldBase {
	kind: 'integer';
	min?: number;
	max?: number;
	default?: number;
}

export interface OptionsField extends FieldBase {
	kind: 'options';
	values: ReadonlyArray<string | number>;
	/** UI names for values, where the value alone is not clear. */
	labels?: Record<string, string>;
	default: string | number;
}

/** A boolean in the UI, sent as 0 or 1. */
export interface SwitchField extends FieldBase {
	kind: 'switch';
}

export type FieldSpec = StringField | IntegerField | OptionsField | SwitchField;

export interface ReferenceSpec {
	/** Multipart name of the file parts (repeated once per file). */
	fileField: string;
	/** UI noun: "Reference Images" or "Source Images". */
	label: string;
	/** The URL field, and whether it holds a comma-separated list or a single URL. */
	urlField?: { wire: string; list: boolean; displayName: string; description: string };
	/** A plain-value field that also counts as a source (e.g. `sourceImage`). */
	valueField?: { wire: string; displayName: string; description: string; counts: boolean };
	minTotal?: number;
	maxTotal?: number;
	/** What `minTotal`/`maxTotal` count, for error messages. */
	totalRule?: string;
	/** Accepted MIME types of uploaded files; unset accepts any image/* type. */
	acceptedTypes?: readonly string[];
	acceptedTypesLabel?: string;
	/** Whether files are the usual way to give sources (binary input on by default). */
	filesByDefault: boolean;
}

export interface ModelSpec {
	/** Operation value in the node, also the model's name in outputs. */
	operation: string;
	/** Also the n8n resource the operation is listed under. */
	taskType: TaskType;
	path: string;
	/** Operation name in the UI. */
	displayName: string;
	action: string;
	description: string;
	/** Fields sent with a fixed value on every request (e.g. `category`). */
	constants?: Record<string, string>;
	fields: FieldSpec[];
	references?: ReferenceSpec;
	/** Whether a PNG mask can be sent (proimage). */
	mask?: { wire: string };
}
