/**
 * Values of the wrong type or shape: integers that would change on the way (1e21, beyond 2^53) are refused
 * while digit strings are sent exactly, and objects or arrays where text is expected are refused instead of
 * being flattened into text. Task IDs that are not text: operations.test.ts.
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode } from '../../harness';
import { createParameters, useSimulator } from '../../support';

const context = useSimulator();

const create = (operation: string, parameters: INodeParameters = {}): INodeParameters =>
	createParameters('image', operation, parameters);

async function run(parameters: INodeParameters, items: INodeExecutionData[] = [{ json: {} }]) {
	return await runNode({ parameters, items, credentials: context.credentials() });
}

describe('integers are sent exactly, or refused', () => {
	const gamma = (seed: unknown) =>
		create('gammaimage', { prompt: 'a fox', additionalFields: { seed } as INodeParameters });

	it.each([
		['1e21', 1e21],
		['2^53 + 2', 2 ** 53 + 2],
		['-(2^53 + 2)', -(2 ** 53 + 2)],
		['"1e21" from an expression', '={{ "1e21" }}'],
	])('seed %s is refused before anything is sent', async (_name, seed) => {
		const { error } = await run(gamma(seed));
		expect(error?.message).toMatch(/^Item 0: "Seed" must be an integer; got /);
		expect((error as { description?: string }).description).toMatch(/beyond 9007199254740991 .* as a string of digits/);
		expect(context.sim.requests('/v1/tlimages/gammaimage')).toHaveLength(0);
	});

	it.each([
		['a large safe integer', 9007199254740991, '9007199254740991'],
		['a string of digits beyond 2^53, from an expression', '={{ "9007199254740993" }}', '9007199254740993'],
		['a negative string of digits', '={{ "-12345678901234567890" }}', '-12345678901234567890'],
		['a plain number', 42, '42'],
	])('seed as %s is sent exactly', async (_name, seed, sent) => {
		const { error } = await run(gamma(seed));
		expect(error).toBeUndefined();
		expect(context.sim.requests('/v1/tlimages/gammaimage')[0].fields.seed).toEqual([sent]);
	});

	it("a digit string outside a field's range is refused like a number", async () => {
		const { error } = await run(
			create('betav4', { prompt: 'a fox', additionalFields: { batchsize: '={{ "99999999999999999999" }}' } }),
		);
		expect(error?.message).toBe('Item 0: "Batch Size" must be an integer from 1 to 15; got "99999999999999999999"');
		expect(context.sim.requests('/v1/tlimages/betav4')).toHaveLength(0);
	});
});

describe('objects and arrays are not flattened into text', () => {
	it('an object as an Extra Form Field value is refused, naming the field', async () => {
		const { error } = await run(
			create('betav4', {
				prompt: 'a fox',
				additionalFields: { extraFormFields: { field: [{ name: 'style', value: '={{ { a: 1 } }}' }] } },
			}),
		);
		expect(error?.message).toBe(
			'Item 0: "Extra Form Fields › Value" of "style" must be text, a number or true/false; got {"a":1}',
		);
		expect((error as { description?: string }).description).toMatch(/Nothing was sent to the API for this item/);
		expect(context.sim.requests('/v1/tlimages/betav4')).toHaveLength(0);
	});

	it('an array as an Extra Form Field value is refused', async () => {
		const { error } = await run(
			create('betav4', {
				prompt: 'a fox',
				additionalFields: { extraFormFields: { field: [{ name: 'tags', value: '={{ ["a", "b"] }}' }] } },
			}),
		);
		expect(error?.message).toBe(
			'Item 0: "Extra Form Fields › Value" of "tags" must be text, a number or true/false; got ["a","b"]',
		);
		expect(context.sim.requests('/v1/tlimages/betav4')).toHaveLength(0);
	});

	it('numbers and booleans as Extra Form Field values are still sent as text', async () => {
		const { error } = await run(
			create('betav4', {
				prompt: 'a fox',
				additionalFields: {
					extraFormFields: {
						field: [
							{ name: 'steps', value: '={{ 30 }}' },
							{ name: 'hd', value: '={{ true }}' },
						],
					},
				},
			}),
		);
		expect(error).toBeUndefined();
		expect(context.sim.requests('/v1/tlimages/betav4')[0].fields).toMatchObject({ steps: ['30'], hd: ['true'] });
	});

	it('an array of URLs in the single Source Image URL field is refused, not joined', async () => {
		const { error } = await run(
			create('betav4', {
				prompt: 'a fox',
				imageUrls: '={{ ["https://example.com/a.png", "https://example.com/b.png"] }}',
			}),
		);
		expect(error?.message).toBe(
			'Item 0: "Source Image URL" must be one URL (this model takes a single source image URL); got ["https://example.com/a.png","https://example.com/b.png"]',
		);
		expect(context.sim.requests('/v1/tlimages/betav4')).toHaveLength(0);
	});

	it('objects in the Reference Image URLs list are refused, naming what was given', async () => {
		const { error } = await run(
			create('proimage', {
				model: 'proimg-2',
				prompt: 'a fox',
				imageUrls: '={{ [{ href: "https://example.com/a.png" }] }}',
			}),
		);
		expect(error?.message).toBe(
			'Item 0: "Reference Image URLs" must be comma-separated URLs or a list of URLs (text); got [{"href":"https://example.com/a.png"}]',
		);
		expect(context.sim.requests('/v1/tlimages/proimage')).toHaveLength(0);
	});

	it('an object as Source Image as Text is refused', async () => {
		const { error } = await run(
			create('betav4', { prompt: 'a fox', additionalFields: { sourceImage: '={{ { url: "x" } }}' } }),
		);
		expect(error?.message).toBe('Item 0: "Source Image as Text" must be text; got {"url":"x"}');
		expect(context.sim.requests('/v1/tlimages/betav4')).toHaveLength(0);
	});
});

describe('numbers that are not finite are shown as themselves', () => {
	it.each([
		['NaN', '={{ NaN }}', /got NaN$/],
		['Infinity', '={{ Infinity }}', /got Infinity$/],
		['-Infinity', '={{ -Infinity }}', /got -Infinity$/],
		['a list holding NaN', '={{ [1, NaN] }}', /got \[1,NaN\]$/],
	])('%s from an expression appears as such in the error, never as "null"', async (_name, batchsize, message) => {
		const { error } = await run(create('betav4', { prompt: 'a fox', additionalFields: { batchsize } }));
		expect(error?.message).toMatch(message);
		expect(error?.message).not.toMatch(/null/);
		expect(context.sim.requests('/v1/tlimages/betav4')).toHaveLength(0);
	});
});
