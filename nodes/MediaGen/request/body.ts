/** The body of a creation request, and what the output says about it. */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { ModelSpec } from '../models/types';
import type { RequestSummary } from '../output/items';
import { StreamingForm } from '../transport';
import { filePart } from './inputFiles';
import type { PreparedRequest } from './prepare';

/**
 * The multipart body: text fields, then one part per file, its bytes read from binary storage while the body is sent
 * (transport/multipart.ts). Built per attempt: a body can be sent once.
 */
export async function buildForm(this: IExecuteFunctions, request: PreparedRequest): Promise<StreamingForm> {
	const form = new StreamingForm();
	for (const [name, value] of request.fields) form.append(name, value);
	for (const file of request.files) {
		form.append(file.field, await filePart.call(this, request.itemIndex, file), file.fileName);
	}
	return form;
}

/** The wire text of a numeric field as a number, when it survives the round trip exactly. */
function echoValue(spec: ModelSpec, name: string, value: string): string | number {
	const field = spec.fields.find((candidate) => candidate.wire === name);
	const numeric =
		field?.kind === 'integer' ||
		field?.kind === 'switch' ||
		(field?.kind === 'options' && field.values.every((option) => typeof option === 'number'));
	const number = Number(value);
	return numeric && /^-?\d+$/.test(value) && Number.isSafeInteger(number) ? number : value;
}

/** What the output tells downstream nodes about the request (fields as typed, file names, no bytes). */
export function requestSummary(request: PreparedRequest): RequestSummary {
	return {
		model: request.spec.operation,
		request: {
			...Object.fromEntries(request.fields.map(([name, value]) => [name, echoValue(request.spec, name, value)])),
			...(request.files.length
				? { files: request.files.map(({ field, fileName, mimeType }) => ({ field, fileName, mimeType })) }
				: {}),
		},
	};
}
