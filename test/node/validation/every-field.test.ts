/**
 * Bad input is refused before anything is sent, with an error naming the field, the value, the rule and the
 * item. The sweep covers every field of every model, generated from the model specs: item 0 is valid and item 1
 * carries the bad value (through an expression, as a workflow would); with Continue On Fail the simulator must
 * record exactly one creation (item 0's) and item 1 must come back as a NodeOperationError naming the field and
 * item. Without Continue On Fail, one bad item stops the run before any request.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { IMAGE_MODELS } from '../../../nodes/MediaGen/models/image';
import type { FieldSpec, ModelSpec } from '../../../nodes/MediaGen/models/types';
import { VIDEO_MODELS } from '../../../nodes/MediaGen/models/video';
import { parameterName } from '../../../nodes/MediaGen/models/parameterNames';
import { runNode, storeBinary } from '../../harness';
import { makePng } from '../../simulator/png';
import { createParameters, useSimulator } from '../../support';

const context = useSimulator();

/** Valid values for fields whose rule is not a plain range or list (read from the API documentation's text). */
const VALID_TEXT: Record<string, string> = {
	'proimage.size': '16:9',
	'betav45.resolution': '2K',
	'betav5.resolution': '1:1',
	'gammaimage.resolution': '1024*768',
	'proimage.prompt': 'a prompt',
};

function validValue(model: ModelSpec, field: FieldSpec): unknown {
	switch (field.kind) {
		case 'string':
			return VALID_TEXT[`${model.operation}.${field.wire}`] ?? 'a prompt';
		case 'integer':
			return field.min ?? 1;
		case 'options':
			return field.values[field.values.length - 1];
		case 'switch':
			return true;
	}
}

function invalidValues(model: ModelSpec, field: FieldSpec): Array<[string, unknown, RegExp]> {
	const bad: Array<[string, unknown, RegExp]> = [];
	switch (field.kind) {
		case 'string':
			bad.push(['a wrong-typed value (object)', { nested: true }, /must be text/]);
			if (field.required) bad.push(['an empty value', '   ', /is required/]);
			if (field.maxLength)
				bad.push([
					'one character too many',
					'x'.repeat(field.maxLength + 1),
					new RegExp(`must be at most ${field.maxLength} characters`),
				]);
			if (field.check) bad.push(['a value of the wrong form', 'not-a-valid-value', /must be/]);
			break;
		case 'integer':
			bad.push(['text', 'many', /must be an integer/], ['a fraction', 2.5, /must be an integer/]);
			if (field.min !== undefined) bad.push(['below the minimum', field.min - 1, /must be an integer/]);
			if (field.max !== undefined) bad.push(['above the maximum', field.max + 1, /must be an integer/]);
			break;
		case 'options':
			bad.push(['a value outside the list', 'nope', /must be one of/]);
			break;
		case 'switch':
			bad.push(['a string', 'yes', /must be true or false/]);
			break;
	}
	return bad;
}

async function baseItem(model: ModelSpec): Promise<INodeExecutionData> {
	if (!model.references?.minTotal) return { json: {} };
	return { json: {}, binary: { data: await storeBinary(makePng(16, 16), 'source.png', 'image/png') } };
}

function parametersFor(model: ModelSpec, field: FieldSpec): INodeParameters {
	const name = parameterName(field.wire);
	const parameters: INodeParameters = {
		resource: model.taskType,
		operation: model.operation,
		waitForCompletion: false,
		imageInput: model.references?.minTotal ? 'properties' : 'none',
		binaryPropertyNames: 'data',
	};
	for (const other of model.fields.filter((candidate) => candidate.placement === 'main' && candidate !== field)) {
		parameters[parameterName(other.wire)] = validValue(model, other) as string;
	}
	const expression = '={{ $json.value }}';
	if (field.placement === 'main') parameters[name] = expression;
	else parameters.additionalFields = { [name]: expression };
	return parameters;
}

const cases: Array<[string, ModelSpec, FieldSpec, string, unknown, RegExp]> = [];
for (const model of [...IMAGE_MODELS, ...VIDEO_MODELS]) {
	for (const field of model.fields) {
		for (const [what, value, rule] of invalidValues(model, field))
			cases.push([`${model.operation} ${field.wire}: ${what}`, model, field, what, value, rule]);
	}
}

describe('every field of every model refuses bad values before sending', () => {
	it.each(cases)('%s', async (_title, model, field, _what, value, rule) => {
		const item = await baseItem(model);
		const items: INodeExecutionData[] = [
			{ ...item, json: { value: validValue(model, field) } as IDataObject },
			{ ...item, json: { value } as IDataObject },
		];
		const { output, error } = await runNode({
			parameters: parametersFor(model, field),
			items,
			credentials: context.credentials(),
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(context.sim.requests(model.path)).toHaveLength(1);
		expect(output[0].json.taskid).toEqual(expect.any(String));
		expect(output[1].json.error).toMatch(new RegExp(`^Item 1: "${field.displayName.replace(/[()]/g, '\\$&')}" `));
		expect(output[1].json.error).toMatch(rule);
		expect(output[1].json.errorDescription).toBe('Nothing was sent to the API for this item.');
	});
});

describe('Image: bad input among several items', () => {
	const create = (operation: string, parameters: INodeParameters = {}): INodeParameters =>
		createParameters('image', operation, parameters);

	const items = [{ json: { n: 2 } }, { json: { n: 12 } }, { json: { n: 3 } }];
	const parameters = create('proimage', { model: 'proimg-2', prompt: 'x', additionalFields: { n: '={{ $json.n }}' } });

	it('stops before any request when one item is invalid', async () => {
		const { error } = await runNode({ parameters, items, credentials: context.credentials() });
		expect(error?.message).toBe('Item 1: "Number of Images" must be an integer from 1 to 10; got 12');
		expect((error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(1);
		expect(context.sim.requests()).toHaveLength(0);
	});

	it('with Continue On Fail creates the valid items and returns an error item for the invalid one', async () => {
		const { output, error } = await runNode({
			parameters,
			items,
			credentials: context.credentials(),
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(context.sim.requests()).toHaveLength(2);
		expect(output.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[0].json.taskid).toEqual(expect.any(String));
		expect(output[1].json).toEqual({
			taskid: null,
			taskType: 'image',
			status: 'failed',
			model: 'proimage',
			error: 'Item 1: "Number of Images" must be an integer from 1 to 10; got 12',
			errorDescription: 'Nothing was sent to the API for this item.',
		});
		expect(output[2].json.request).toMatchObject({ n: 3 });
	});
});
