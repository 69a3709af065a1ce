/**
 * Reads one item's parameters for a model and checks every documented limit, all broken fields reported at once,
 * without touching the network (request/body.ts builds the form right before sending).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { IMAGE_SIZE_HEADER_BYTES, imageSize, isJpeg, PNG_HEADER_BYTES, pngSize } from '../media/imageSize';
import { parameterName, parameterPath, REFERENCE_INPUT } from '../models/parameterNames';
import type { FieldSpec, ModelSpec, ReferenceSpec } from '../models/types';
import { binaryPropertiesOf, describeInputFile, readFileHeader, type InputFile } from './inputFiles';
import { refuseFilesInTool } from '../tool/call';
import { wireText } from '../transport';
import { holdsObjects, ItemProblems, toList } from './validation';
import { invalidInput } from '../helpers/badInput';

interface PreparedFile extends InputFile {
	field: string;
}

export interface PreparedRequest {
	itemIndex: number;
	spec: ModelSpec;
	fields: Array<[string, string]>;
	files: PreparedFile[];
}

const HTTP_URL = /^https?:\/\/\S+$/i;

function availableHint(item: INodeExecutionData): string {
	const available = binaryPropertiesOf(item);
	return available.length ? `The item has: ${available.join(', ')}.` : 'The item has no binary data.';
}

function isSet(value: unknown): boolean {
	return value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '');
}

const UNSAFE_INTEGER_HINT = `A number beyond ${Number.MAX_SAFE_INTEGER} (2^53 - 1) cannot be held exactly in a workflow and would change on the way (1e21 would be sent as "1e+21"). Give a larger value as a string of digits from an expression, e.g. {{ "12345678901234567890" }}: it is sent exactly.`;

/**
 * The exact decimal text of an integer: a string of digits is sent exactly, a number must be safe (beyond 2^53 it
 * has already lost digits: `unsafe`, as "1e21" is); undefined for anything that is not an integer.
 */
function exactInteger(raw: unknown): string | undefined | 'unsafe' {
	const text = typeof raw === 'string' ? raw.trim() : undefined;
	if (text !== undefined && /^[-+]?\d+$/.test(text)) return BigInt(text).toString();
	const value = text !== undefined ? Number(text) : raw;
	if (typeof value !== 'number' || !Number.isInteger(value)) return undefined;
	return Number.isSafeInteger(value) ? String(value) : 'unsafe';
}

/** Validates one field's value and returns its wire text, or undefined when it is not sent. */
function fieldValue(
	this: IExecuteFunctions,
	itemIndex: number,
	field: FieldSpec,
	raw: unknown,
	referenceCount: number,
): string | undefined {
	const input = { name: field.displayName, parameter: parameterPath(field) };
	const fail = (rule: string, hint?: string) => invalidInput.call(this, itemIndex, input, raw, rule, hint);
	if (!isSet(raw)) {
		if (field.required) throw fail('is required');
		return undefined;
	}
	switch (field.kind) {
		case 'string': {
			if (typeof raw !== 'string' && typeof raw !== 'number') throw fail('must be text');
			const value = String(raw);
			// Counted as the API receives it: LF, CR and CRLF copies of one text get one verdict.
			const sent = wireText(value).length;
			if (field.maxLength !== undefined && sent > field.maxLength) {
				const breaks = sent !== value.length ? ' as sent, each line break counting as two (CRLF)' : '';
				throw fail(`must be at most ${field.maxLength} characters${breaks} (it has ${sent})`);
			}
			const checked = field.normalize ? field.normalize(value.trim()) : value.trim();
			const broken = field.check?.(checked, { referenceCount });
			if (broken) throw fail(broken);
			return field.check || field.normalize ? checked : value;
		}
		case 'integer': {
			const range =
				field.min !== undefined && field.max !== undefined
					? ` from ${field.min} to ${field.max}`
					: field.min !== undefined
						? ` of at least ${field.min}`
						: '';
			const exact = exactInteger(raw);
			const value = exact === undefined || exact === 'unsafe' ? undefined : BigInt(exact);
			const inRange =
				value !== undefined &&
				(field.min === undefined || value >= BigInt(field.min)) &&
				(field.max === undefined || value <= BigInt(field.max));
			if (!inRange) throw fail(`must be an integer${range}`, exact === 'unsafe' ? UNSAFE_INTEGER_HINT : undefined);
			return exact!;
		}
		case 'options': {
			const value = String(raw).trim();
			if (!field.values.map(String).includes(value)) throw fail(`must be one of ${field.values.join(', ')}`);
			return value;
		}
		case 'switch': {
			if (typeof raw !== 'boolean') throw fail('must be true or false');
			return raw ? '1' : '0';
		}
	}
}

interface References {
	files: PreparedFile[];
	fields: Array<[string, string]>;
	count: number;
	/** False when some could not be read as given (bad input): their total is unknown. */
	complete: boolean;
	/** Fields given wrongly: not sent now, but once corrected (an extra field may not take their names). */
	broken: string[];
}

function referenceNames(
	this: IExecuteFunctions,
	problems: ItemProblems,
	item: INodeExecutionData,
	maskProperty: string | undefined,
): string[] {
	const { itemIndex } = problems;
	const mode = this.getNodeParameter('imageInput', itemIndex) as string;
	if (mode === REFERENCE_INPUT.all) return binaryPropertiesOf(item).filter((name) => name !== maskProperty);
	if (mode !== REFERENCE_INPUT.properties) return [];
	const raw = this.getNodeParameter('binaryPropertyNames', itemIndex, '') as unknown;
	const names = toList(raw);
	const available = binaryPropertiesOf(item);
	const missing = names.filter((name) => !available.includes(name));
	const field = 'Binary Property Names';
	if (!names.length) {
		problems.note(invalidInput.call(this, itemIndex, field, raw, 'must name at least one binary property'));
	} else if (missing.length) {
		const rule = `names binary properties the item does not have (${missing.join(', ')})`;
		problems.note(invalidInput.call(this, itemIndex, field, raw, rule, availableHint(item)));
	}
	return names.filter((name) => available.includes(name));
}

/** The reference files of an item; a type the model does not accept is noted. */
function referenceFiles(
	this: IExecuteFunctions,
	problems: ItemProblems,
	item: INodeExecutionData,
	references: ReferenceSpec,
	names: string[],
): PreparedFile[] {
	return names.map((propertyName) => {
		const file = describeInputFile(item.binary![propertyName], propertyName);
		const accepted = references.acceptedTypes
			? references.acceptedTypes.includes(file.mimeType)
			: file.mimeType.startsWith('image/');
		if (!accepted) {
			const field = `${references.label} (binary property "${propertyName}")`;
			const rule = `must be ${references.acceptedTypesLabel ?? 'an image file'}`;
			problems.note(invalidInput.call(this, problems.itemIndex, field, `${file.fileName} (${file.mimeType})`, rule));
		}
		return { ...file, field: references.fileField };
	});
}

/** The reference URLs of an item (undefined when they are given wrongly: noted). */
function referenceUrls(
	this: IExecuteFunctions,
	problems: ItemProblems,
	urlField: NonNullable<ReferenceSpec['urlField']>,
): string[] | undefined {
	const { itemIndex } = problems;
	const input = { name: urlField.displayName, parameter: 'imageUrls' };
	const raw = this.getNodeParameter(input.parameter, itemIndex, '') as unknown;
	return problems.check(() => {
		if (!urlField.list && isSet(raw) && typeof raw !== 'string') {
			const rule = 'must be one URL (this model takes a single source image URL)';
			throw invalidInput.call(this, itemIndex, input, raw, rule);
		}
		if (urlField.list && holdsObjects(raw)) {
			throw invalidInput.call(this, itemIndex, input, raw, 'must be comma-separated URLs or a list of URLs (text)');
		}
		const list = urlField.list ? toList(raw) : isSet(raw) ? [String(raw).trim()] : [];
		const bad = list.find((url) => !HTTP_URL.test(url));
		if (bad !== undefined) throw invalidInput.call(this, itemIndex, input, bad, 'must hold http(s) URLs');
		return list;
	});
}

/** An item's references: files, URLs and the value field, their total checked once each could be read. */
async function readReferences(
	this: IExecuteFunctions,
	problems: ItemProblems,
	item: INodeExecutionData,
	references: ReferenceSpec,
	additional: IDataObject,
	maskProperty: string | undefined,
): Promise<References> {
	const before = problems.count;
	const names = referenceNames.call(this, problems, item, maskProperty);
	const files = referenceFiles.call(this, problems, item, references, names);
	const fields: Array<[string, string]> = [];
	const broken: string[] = [];
	let count = files.length;
	if (references.urlField) {
		const urls = referenceUrls.call(this, problems, references.urlField);
		if (urls === undefined) broken.push(references.urlField.wire);
		if (urls?.length) fields.push([references.urlField.wire, urls.join(',')]);
		count += urls?.length ?? 0;
	}
	if (references.valueField) {
		const { wire, displayName, counts } = references.valueField;
		const raw = additional[parameterName(wire)];
		if (isSet(raw) && typeof raw !== 'string' && typeof raw !== 'number') {
			const input = { name: displayName, parameter: parameterPath({ wire, placement: 'additional' }) };
			problems.note(invalidInput.call(this, problems.itemIndex, input, raw, 'must be text'));
			broken.push(wire);
		} else if (isSet(raw)) {
			fields.push([wire, String(raw).trim()]);
		}
		if (isSet(raw) && counts) count += 1;
	}
	const complete = problems.count === before;
	const tooFew = references.minTotal !== undefined && count < references.minTotal;
	const tooMany = references.maxTotal !== undefined && count > references.maxTotal;
	if (complete && (tooFew || tooMany)) {
		const bounds =
			references.minTotal !== undefined
				? `${references.minTotal} to ${references.maxTotal}`
				: `at most ${references.maxTotal}`;
		const rule = `must total ${bounds} (${references.totalRule})`;
		problems.note(invalidInput.call(this, problems.itemIndex, references.label, count, rule));
	}
	return { files, fields, count, complete, broken };
}

async function readMask(
	this: IExecuteFunctions,
	itemIndex: number,
	item: INodeExecutionData,
	propertyName: string,
	references: References,
): Promise<InputFile> {
	const fail = (value: unknown, rule: string, hint?: string) =>
		invalidInput.call(this, itemIndex, 'Mask Binary Property', value, rule, hint);
	const binary = item.binary?.[propertyName];
	if (!binary) throw fail(propertyName, 'names a binary property the item does not have', availableHint(item));
	const mask = describeInputFile(binary, propertyName);
	const size = pngSize(await readFileHeader.call(this, itemIndex, propertyName, PNG_HEADER_BYTES));
	if (!size) throw fail(`${mask.fileName} (${mask.mimeType})`, 'must hold a PNG file');
	// References given wrongly are reported on their own: the mask is not compared with them.
	if (!references.complete) return { ...mask, mimeType: 'image/png' };
	if (references.count === 0) throw fail(propertyName, 'needs at least one reference image (file or URL)');
	const first = references.files[0];
	if (!first) return { ...mask, mimeType: 'image/png' };
	// The first reference's size from its first bytes; a JPEG whose frame header lies beyond them (large EXIF or ICC
	// segments) is read whole: it is about to be uploaded anyway.
	const header = await readFileHeader.call(this, itemIndex, first.propertyName, IMAGE_SIZE_HEADER_BYTES);
	let firstSize = imageSize(header);
	if (!firstSize && isJpeg(header) && header.length >= IMAGE_SIZE_HEADER_BYTES)
		firstSize = imageSize(await this.helpers.getBinaryDataBuffer(itemIndex, first.propertyName));
	if (firstSize && (firstSize.width !== size.width || firstSize.height !== size.height)) {
		const rule = `must match the size of the first reference image "${first.propertyName}" (${firstSize.width}x${firstSize.height})`;
		throw fail(`${size.width}x${size.height}`, rule);
	}
	return { ...mask, mimeType: 'image/png' };
}

function readExtraFields(
	this: IExecuteFunctions,
	problems: ItemProblems,
	additional: IDataObject,
	taken: Set<string>,
): Array<[string, string]> {
	const fail = (part: string, value: unknown, rule: string, hint?: string) =>
		invalidInput.call(this, problems.itemIndex, `Extra Form Fields › ${part}`, value, rule, hint);
	const entries = ((additional.extraFormFields as IDataObject | undefined)?.field as IDataObject[] | undefined) ?? [];
	const fields: Array<[string, string]> = [];
	for (const entry of entries) {
		const field = problems.check((): [string, string] => {
			const name = String(entry.name ?? '').trim();
			if (!name) throw fail('Name', entry.name, 'is required');
			if (taken.has(name)) {
				const hint = 'Set that field instead, or leave it unset.';
				throw fail('Name', name, 'is already sent by a field of this operation', hint);
			}
			taken.add(name);
			const value = entry.value;
			if (value !== null && typeof value === 'object') {
				const hint = 'A form field carries one text value; send each part as its own field.';
				throw fail('Value', value, `of "${name}" must be text, a number or true/false`, hint);
			}
			return [name, String(value ?? '')];
		});
		if (field) fields.push(field);
	}
	return fields;
}

export async function prepareRequest(
	this: IExecuteFunctions,
	spec: ModelSpec,
	itemIndex: number,
	item: INodeExecutionData,
): Promise<PreparedRequest> {
	const problems = new ItemProblems(this, itemIndex);
	const additional = (this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject) ?? {};
	const maskProperty =
		spec.mask && isSet(additional.maskBinaryProperty) ? String(additional.maskBinaryProperty).trim() : undefined;
	refuseFilesInTool.call(this, itemIndex, spec, maskProperty);

	const references: References = spec.references
		? await readReferences.call(this, problems, item, spec.references, additional, maskProperty)
		: { files: [], fields: [], count: 0, complete: true, broken: [] };

	const fields: Array<[string, string]> = Object.entries(spec.constants ?? {});
	const broken = [...references.broken];
	for (const field of spec.fields) {
		const name = parameterName(field.wire);
		const raw = field.placement === 'main' ? this.getNodeParameter(name, itemIndex, undefined) : additional[name];
		const before = problems.count;
		const value = problems.check(() => fieldValue.call(this, itemIndex, field, raw, references.count));
		if (value !== undefined) fields.push([field.wire, value]);
		else if (problems.count > before) broken.push(field.wire);
	}
	fields.push(...references.fields);

	const files = [...references.files];
	if (spec.mask && maskProperty) {
		const mask = await readMask
			.call(this, itemIndex, item, maskProperty, references)
			.catch((error: unknown) => problems.note(error));
		if (mask) files.push({ ...mask, field: spec.mask.wire });
	}

	// Names this operation sends, the broken fields included (extra fields may not take them).
	const taken = new Set([...fields.map(([wire]) => wire), ...files.map((file) => file.field), ...broken]);
	fields.push(...readExtraFields.call(this, problems, additional, taken));
	problems.throwIfAny();
	return { itemIndex, spec, fields, files };
}
