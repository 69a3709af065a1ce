/**
 * Every broken field of an item is reported at once: one error per item that names the item and lists each
 * broken field with its value and rule, and nothing is sent. One broken field keeps the one-line message the
 * other validation tests match.
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode } from '../../harness';
import { pngItem, useSimulator } from '../../support';

const context = useSimulator();

async function run(parameters: INodeParameters, items: INodeExecutionData[] = [{ json: {} }], continueOnFail = false) {
	return await runNode({ parameters, items, credentials: context.credentials(), continueOnFail });
}

const description = (error: unknown) => (error as { description?: string } | undefined)?.description ?? '';

describe('every broken field of an item in one error (issue 18, point 11)', () => {
	it('a creation with four broken fields and a clashing extra field: all five, numbered, in one message', async () => {
		const { error } = await run({
			resource: 'image',
			operation: 'betav45',
			prompt: ' ',
			waitForCompletion: false,
			imageInput: 'none',
			imageUrls: 'ftp://example.com/a.png',
			additionalFields: {
				batchsize: 20,
				resolution: '5:5',
				extraFormFields: { field: [{ name: 'prompt', value: 'again' }] },
			},
		});
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toBe(
			'Item 0: 5 fields are invalid. ' +
				'(1) "Source Image URL" must hold http(s) URLs; got "ftp://example.com/a.png". ' +
				'(2) "Prompt" is required; got " ". ' +
				'(3) "Batch Size" must be an integer from 1 to 15; got 20. ' +
				'(4) "Resolution" must be a ratio (9:16, 16:9, 3:4, 4:3, 1:1, 2:3, 3:2), 2K, 4K, or WxH; got "5:5". ' +
				'(5) "Extra Form Fields › Name" is already sent by a field of this operation; got "prompt".',
		);
		expect(description(error)).toBe(
			'Set that field instead, or leave it unset. Nothing was sent to the API for this item.',
		);
		expect(context.sim.requests()).toHaveLength(0);
	});

	it('one broken field keeps the one-line message', async () => {
		const { error } = await run({
			resource: 'image',
			operation: 'betav4',
			prompt: 'a lighthouse',
			waitForCompletion: false,
			additionalFields: { batchsize: 0 },
		});
		expect(error?.message).toBe('Item 0: "Batch Size" must be an integer from 1 to 15; got 0');
		expect(description(error)).toBe('Nothing was sent to the API for this item.');
	});

	it('missing binary properties and a broken field are reported together; the mask is not compared with them', async () => {
		const item = await pngItem({ data: [64, 64], mask: [32, 32] });
		const { error } = await run(
			{
				resource: 'image',
				operation: 'proimage',
				model: 'proimg-2',
				prompt: 'edit',
				waitForCompletion: false,
				imageInput: 'properties',
				binaryPropertyNames: 'data, missing',
				additionalFields: { n: 11, maskBinaryProperty: 'mask' },
			},
			[item],
		);
		expect(error?.message).toBe(
			'Item 0: 2 fields are invalid. ' +
				'(1) "Binary Property Names" names binary properties the item does not have (missing); got "data, missing". ' +
				'(2) "Number of Images" must be an integer from 1 to 10; got 11.',
		);
		expect(description(error)).toBe('The item has: data, mask. Nothing was sent to the API for this item.');
	});

	it('with Continue On Fail each item gets its own error listing its own broken fields', async () => {
		const { output } = await run(
			{
				resource: 'image',
				operation: 'betav4',
				prompt: '={{ $json.prompt }}',
				waitForCompletion: false,
				additionalFields: { batchsize: '={{ $json.batch }}' },
			},
			[{ json: { prompt: '', batch: 99 } }, { json: { prompt: 'fine', batch: 0 } }],
			true,
		);
		expect(output.map((item) => item.json.error)).toEqual([
			'Item 0: 2 fields are invalid. (1) "Prompt" is required; got "". (2) "Batch Size" must be an integer from 1 to 15; got 99.',
			'Item 1: "Batch Size" must be an integer from 1 to 15; got 0',
		]);
		expect(context.sim.requests()).toHaveLength(0);
	});

	it.each([
		['Task → Get', { operation: 'get', taskId: ' ' }],
		['Task → Wait', { operation: 'wait', taskId: ' ' }],
		['Task → Delete', { operation: 'delete', taskIds: ' , ' }],
	])('%s: a missing Task Type and a missing id are reported together', async (_name, parameters) => {
		const { error } = await run({ resource: 'task', taskType: 'fromInput', ...parameters });
		expect(error?.message).toMatch(
			/^Item 0: 2 fields are invalid\. \(1\) "Task Type" is "From Input Item", so the item needs a taskType field of "image" or "video"; got nothing\. \(2\) "Task IDs?" (is required|must list at least one task ID); got " ,? ?"\.$/,
		);
		expect(context.sim.requests()).toHaveLength(0);
	});
});
