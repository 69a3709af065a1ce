import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode, storeBinary } from '../harness';
import { makePng } from '../simulator/png';
import { allText, createParameters, DEFAULT_SIM_KEY, useSimulator } from '../support';

const context = useSimulator();

const create = (operation: string, parameters: INodeParameters = {}): INodeParameters =>
	createParameters('image', operation, parameters);

async function pngItem(properties: Record<string, [number, number]>, json = {}): Promise<INodeExecutionData> {
	const binary: INodeExecutionData['binary'] = {};
	for (const [name, [width, height]] of Object.entries(properties)) {
		binary[name] = await storeBinary(makePng(width, height), `${name}.png`, 'image/png');
	}
	return { json, binary };
}

function fileSummary(files: Array<{ field: string; filename?: string; contentType?: string }>) {
	return files.map(({ field, filename, contentType }) => ({ field, filename, contentType }));
}

describe('Image → proimage', () => {
	it('sends every field, reference files, URLs and the mask as multipart, with the raw key', async () => {
		const item = await pngItem({ data: [48, 32], second: [20, 20], mask: [48, 32] }, { idea: 'a red fox in snow' });
		item.binary!.photo = await storeBinary(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]), 'photo.jpg', 'image/jpeg');
		const { output, error } = await runNode({
			parameters: create('proimage', {
				model: 'proimg-2-2k',
				prompt: '=Paint {{ $json.idea }}',
				imageInput: 'properties',
				binaryPropertyNames: 'data, photo',
				imageUrls: 'https://example.com/a.png, https://example.com/b.webp',
				additionalFields: { size: '1536x1024', n: 3, maskBinaryProperty: 'mask' },
			}),
			items: [item],
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		const [request] = context.sim.requests('/v1/tlimages/proimage');
		expect(request.code).toBe(1000);
		expect(request.headers.authorization).toBe(DEFAULT_SIM_KEY);
		expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
		expect(request.fields).toEqual({
			model: ['proimg-2-2k'],
			prompt: ['Paint a red fox in snow'],
			size: ['1536x1024'],
			n: ['3'],
			imageUrl: ['https://example.com/a.png,https://example.com/b.webp'],
		});
		expect(fileSummary(request.files)).toEqual([
			{ field: 'image', filename: 'data.png', contentType: 'image/png' },
			{ field: 'image', filename: 'photo.jpg', contentType: 'image/jpeg' },
			{ field: 'mask', filename: 'mask.png', contentType: 'image/png' },
		]);
		// The bytes came from filesystem-mode binary data, unchanged.
		expect(request.files[0].data.equals(makePng(48, 32))).toBe(true);
		expect(output).toHaveLength(1);
		expect(output[0].pairedItem).toEqual({ item: 0 });
		expect(output[0].json).toMatchObject({
			taskid: expect.stringMatching(/^img-/),
			status: 'pending',
			taskType: 'image',
			model: 'proimage',
			// The request echo keeps numbers as numbers.
			request: {
				model: 'proimg-2-2k',
				prompt: 'Paint a red fox in snow',
				n: 3,
				files: expect.arrayContaining([{ field: 'mask', fileName: 'mask.png', mimeType: 'image/png' }]),
			},
		});
		expect(allText(output)).not.toContain(DEFAULT_SIM_KEY);
	});

	it('sends all binary properties of each item when asked, one task per item', async () => {
		const items = [await pngItem({ a: [8, 8], b: [8, 8] }), await pngItem({ c: [8, 8] })];
		const { output, error } = await runNode({
			parameters: create('proimage', { model: 'proimg-2', prompt: 'edit', imageInput: 'all' }),
			items,
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		const requests = context.sim.requests('/v1/tlimages/proimage');
		expect(requests.map((r) => r.files.map((f) => f.filename)).sort()).toEqual([['a.png', 'b.png'], ['c.png']]);
		expect(output.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('accepts 16 references (files + URLs) and refuses 17 with zero requests', async () => {
		const sizes = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, [8, 8] as [number, number]]));
		const item = await pngItem(sizes);
		const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://example.com/${i}.png`).join(',');
		const ok = await runNode({
			parameters: create('proimage', { model: 'proimg-2', prompt: 'x', imageInput: 'all', imageUrls: urls(6) }),
			items: [item],
			credentials: context.credentials(),
		});
		expect(ok.error).toBeUndefined();
		expect(context.sim.requests()[0].files).toHaveLength(10);
		context.sim.resetRecord();
		const refused = await runNode({
			parameters: create('proimage', { model: 'proimg-2', prompt: 'x', imageInput: 'all', imageUrls: urls(7) }),
			items: [item],
			credentials: context.credentials(),
		});
		expect(refused.error?.name).toBe('NodeOperationError');
		expect(refused.error?.message).toBe(
			'Item 0: "Reference Images" must total at most 16 (reference files plus URLs); got 17',
		);
		expect(context.sim.requests()).toHaveLength(0);
	});

	it.each([
		[
			'a mask whose size differs from the first reference',
			{ data: [40, 30], mask: [30, 40] },
			'data',
			/"Mask Binary Property" must match the size of the first reference image "data" \(40x30\); got "30x40"/,
		],
		[
			'a mask without any reference image',
			{ mask: [30, 40] },
			'',
			/"Mask Binary Property" needs at least one reference image/,
		],
	] as const)('refuses %s, sending nothing', async (_name, sizes, names, message) => {
		const item = await pngItem(sizes as unknown as Record<string, [number, number]>);
		const { error } = await runNode({
			parameters: create('proimage', {
				model: 'proimg-2',
				prompt: 'x',
				imageInput: names ? 'properties' : 'none',
				binaryPropertyNames: names,
				additionalFields: { maskBinaryProperty: 'mask', size: '1024x1024' },
			}),
			items: [item],
			credentials: context.credentials(),
		});
		expect(error?.message).toMatch(message);
		expect(context.sim.requests()).toHaveLength(0);
	});

	it('refuses a non-PNG mask and a non-image reference, sending nothing', async () => {
		const item = await pngItem({ data: [8, 8] });
		item.binary!.mask = await storeBinary(Buffer.from('RIFF....WEBPVP8 '), 'mask.webp', 'image/webp');
		item.binary!.doc = await storeBinary(Buffer.from('%PDF-1.4'), 'doc.pdf', 'application/pdf');
		const mask = await runNode({
			parameters: create('proimage', {
				model: 'proimg-2',
				prompt: 'x',
				imageInput: 'properties',
				binaryPropertyNames: 'data',
				additionalFields: { maskBinaryProperty: 'mask' },
			}),
			items: [item],
			credentials: context.credentials(),
		});
		expect(mask.error?.message).toBe(
			'Item 0: "Mask Binary Property" must hold a PNG file; got "mask.webp (image/webp)"',
		);
		const doc = await runNode({
			parameters: create('proimage', {
				model: 'proimg-2',
				prompt: 'x',
				imageInput: 'properties',
				binaryPropertyNames: 'data,doc',
			}),
			items: [item],
			credentials: context.credentials(),
		});
		expect(doc.error?.message).toBe(
			'Item 0: "Reference Images (binary property "doc")" must be PNG, WebP, JPG or JPEG; got "doc.pdf (application/pdf)"',
		);
		const missing = await runNode({
			parameters: create('proimage', {
				model: 'proimg-2',
				prompt: 'x',
				imageInput: 'properties',
				binaryPropertyNames: 'data,nothere',
			}),
			items: [item],
			credentials: context.credentials(),
		});
		expect(missing.error?.message).toBe(
			'Item 0: "Binary Property Names" names binary properties the item does not have (nothere); got "data,nothere"',
		);
		expect(context.sim.requests()).toHaveLength(0);
	});
});

describe('Image → beta and gamma models', () => {
	it('betav45 sends category, batchsize, resolution, sourceImage and sourceImage.items', async () => {
		const item = await pngItem({ data: [16, 16] });
		const { output, error } = await runNode({
			parameters: create('betav45', {
				prompt: 'a castle',
				imageInput: 'properties',
				binaryPropertyNames: 'data',
				imageUrls: 'https://example.com/src.png',
				additionalFields: { batchsize: 4, resolution: '2K', sourceImage: 'style-ref-1' },
			}),
			items: [item],
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		const [request] = context.sim.requests('/v1/tlimages/betav45');
		expect(request.fields).toEqual({
			category: ['betav45'],
			prompt: ['a castle'],
			batchsize: ['4'],
			resolution: ['2K'],
			imageUrl: ['https://example.com/src.png'],
			sourceImage: ['style-ref-1'],
		});
		expect(fileSummary(request.files)).toEqual([
			{ field: 'sourceImage.items', filename: 'data.png', contentType: 'image/png' },
		]);
		expect(output[0].json).toMatchObject({ taskid: expect.any(String), model: 'betav45' });
	});

	it('betav5 returns the url of the creation answer', async () => {
		const { output, error } = await runNode({
			parameters: create('betav5', { prompt: 'a lake', additionalFields: { batchsize: 2, resolution: '1:1' } }),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(context.sim.requests('/v1/tlimages/betav5')[0].fields).toEqual({
			category: ['betav5'],
			prompt: ['a lake'],
			batchsize: ['2'],
			resolution: ['1:1'],
		});
		expect(output[0].json).toMatchObject({
			taskid: expect.any(String),
			status: 'pending',
			urls: [expect.stringContaining('/files/')],
			model: 'betav5',
		});
		expect(output[0].json.request).toEqual({ category: 'betav5', prompt: 'a lake', batchsize: 2, resolution: '1:1' });
	});

	it('betav4 sends its unnamed resolution parameter as resolution', async () => {
		const { error } = await runNode({
			parameters: create('betav4', { prompt: 'a dog', additionalFields: { resolution: '9:16', batchsize: 15 } }),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(context.sim.requests('/v1/tlimages/betav4')[0].fields).toEqual({
			category: ['betav4'],
			prompt: ['a dog'],
			batchsize: ['15'],
			resolution: ['9:16'],
		});
	});

	it('gammaimage sends prompt, resolution and seed and returns url', async () => {
		const { output, error } = await runNode({
			parameters: create('gammaimage', { prompt: 'a bridge', additionalFields: { resolution: '1024*768', seed: 42 } }),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(context.sim.requests('/v1/tlimages/gammaimage')[0].fields).toEqual({
			prompt: ['a bridge'],
			resolution: ['1024*768'],
			seed: ['42'],
		});
		expect(output[0].json).toMatchObject({
			urls: [expect.stringContaining('/files/')],
			model: 'gammaimage',
			request: { seed: 42, resolution: '1024*768' },
		});
		expect(output[0].json.url).toBeUndefined();
	});

	it('sends Extra Form Fields as they are, and refuses one that shadows a field', async () => {
		const extra = (name: string) => ({ extraFormFields: { field: [{ name, value: 'v1' }] } });
		const ok = await runNode({
			parameters: create('gammaimage', { prompt: 'x', additionalFields: extra('style_preset') }),
			credentials: context.credentials(),
		});
		expect(ok.error).toBeUndefined();
		expect(context.sim.requests()[0].fields.style_preset).toEqual(['v1']);
		context.sim.resetRecord();
		const shadow = await runNode({
			parameters: create('gammaimage', { prompt: 'x', additionalFields: extra('prompt') }),
			credentials: context.credentials(),
		});
		expect(shadow.error?.message).toBe(
			'Item 0: "Extra Form Fields › Name" is already sent by a field of this operation; got "prompt"',
		);
		expect(context.sim.requests()).toHaveLength(0);
	});
});

interface LimitCase {
	name: string;
	operation: string;
	base: INodeParameters;
	field: string;
	accepted: unknown;
	refused: unknown;
	message: RegExp;
	/** Where the value goes: a top-level parameter or an Additional Fields entry. */
	top?: boolean;
}

const LIMITS: LimitCase[] = [
	{
		name: 'proimage prompt ≤ 32000',
		operation: 'proimage',
		base: { model: 'proimg-2' },
		field: 'prompt',
		top: true,
		accepted: 'a'.repeat(32000),
		refused: 'a'.repeat(32001),
		message: /"Prompt" must be at most 32000 characters \(it has 32001\)/,
	},
	{
		name: 'proimage prompt required',
		operation: 'proimage',
		base: { model: 'proimg-2' },
		field: 'prompt',
		top: true,
		accepted: 'x',
		refused: '   ',
		message: /"Prompt" is required/,
	},
	{
		name: 'proimage model',
		operation: 'proimage',
		base: { prompt: 'x' },
		field: 'model',
		top: true,
		accepted: 'proimg-2-4k',
		refused: 'proimg-3',
		message: /"Model" must be one of proimg-2, proimg-2-2k, proimg-2-4k; got "proimg-3"/,
	},
	{
		name: 'proimage n ≤ 10',
		operation: 'proimage',
		base: { model: 'proimg-2', prompt: 'x' },
		field: 'n',
		accepted: 10,
		refused: 11,
		message: /"Number of Images" must be an integer from 1 to 10; got 11/,
	},
	{
		name: 'proimage n ≥ 1',
		operation: 'proimage',
		base: { model: 'proimg-2', prompt: 'x' },
		field: 'n',
		accepted: 1,
		refused: 0,
		message: /from 1 to 10; got 0/,
	},
	{
		name: 'proimage n integer',
		operation: 'proimage',
		base: { model: 'proimg-2', prompt: 'x' },
		field: 'n',
		accepted: '4',
		refused: 2.5,
		message: /must be an integer from 1 to 10; got 2.5/,
	},
	{
		name: 'proimage size ratio',
		operation: 'proimage',
		base: { model: 'proimg-2', prompt: 'x' },
		field: 'size',
		accepted: '21:9',
		refused: '7:3',
		message: /"Size" must be auto, one of 1:1, .*, or a WxH pixel size; got "7:3"/,
	},
	{
		name: 'proimage size editing needs WxH',
		operation: 'proimage',
		base: { model: 'proimg-2', prompt: 'x', imageUrls: 'https://example.com/a.png' },
		field: 'size',
		accepted: '1024x768',
		refused: '16:9',
		message: /"Size" must be a WxH pixel size .* when reference images are given; got "16:9"/,
	},
	{
		name: 'proimage URLs are http(s)',
		operation: 'proimage',
		base: { model: 'proimg-2', prompt: 'x' },
		field: 'imageUrls',
		top: true,
		accepted: 'https://example.com/a.png',
		refused: 'ftp://example.com/a.png',
		message: /"Reference Image URLs" must hold http\(s\) URLs; got "ftp:/,
	},
	{
		name: 'betav45 batchsize ≤ 15',
		operation: 'betav45',
		base: { prompt: 'x' },
		field: 'batchsize',
		accepted: 15,
		refused: 16,
		message: /"Batch Size" must be an integer from 1 to 15; got 16/,
	},
	{
		name: 'betav45 batchsize ≥ 1',
		operation: 'betav45',
		base: { prompt: 'x' },
		field: 'batchsize',
		accepted: 1,
		refused: 0,
		message: /from 1 to 15; got 0/,
	},
	{
		name: 'betav45 resolution ratio',
		operation: 'betav45',
		base: { prompt: 'x' },
		field: 'resolution',
		accepted: '3:2',
		refused: '21:9',
		message: /"Resolution" must be a ratio \(9:16, 16:9, 3:4, 4:3, 1:1, 2:3, 3:2\), 2K, 4K, or WxH; got "21:9"/,
	},
	{
		name: 'betav45 resolution tier',
		operation: 'betav45',
		base: { prompt: 'x' },
		field: 'resolution',
		accepted: '4K',
		refused: '8K',
		message: /must be a ratio .*; got "8K"/,
	},
	{
		name: 'betav45 WxH ≥ 3686400 pixels',
		operation: 'betav45',
		base: { prompt: 'x' },
		field: 'resolution',
		accepted: '1920x1920',
		refused: '1919x1920',
		message: /as WxH must total 3686400 to 16777216 pixels \(this is 3684480\); got "1919x1920"/,
	},
	{
		name: 'betav45 WxH ≤ 16777216 pixels',
		operation: 'betav45',
		base: { prompt: 'x' },
		field: 'resolution',
		accepted: '4096x4096',
		refused: '4097x4096',
		message: /\(this is 16781312\)/,
	},
	{
		name: 'betav45 prompt required',
		operation: 'betav45',
		base: {},
		field: 'prompt',
		top: true,
		accepted: 'x',
		refused: '  ',
		message: /"Prompt" is required; got " {2}"/,
	},
	{
		name: 'betav4 batchsize ≤ 15',
		operation: 'betav4',
		base: { prompt: 'x' },
		field: 'batchsize',
		accepted: 15,
		refused: 16,
		message: /"Batch Size" must be an integer from 1 to 15; got 16/,
	},
	{
		name: 'betav4 resolution ratios',
		operation: 'betav4',
		base: { prompt: 'x' },
		field: 'resolution',
		accepted: '4:3',
		refused: '2:3',
		message: /"Resolution" must be one of 9:16, 16:9, 3:4, 4:3, 1:1; got "2:3"/,
	},
	{
		name: 'betav5 batchsize integer',
		operation: 'betav5',
		base: { prompt: 'x' },
		field: 'batchsize',
		accepted: 3,
		refused: 'many',
		message: /"Batch Size" must be an integer of at least 1; got "many"/,
	},
	{
		name: 'gammaimage resolution W*H',
		operation: 'gammaimage',
		base: { prompt: 'x' },
		field: 'resolution',
		accepted: '768*1024',
		refused: '768x1024',
		message: /"Resolution" must be width\*height, e.g. 1024\*768; got "768x1024"/,
	},
	{
		name: 'gammaimage seed integer',
		operation: 'gammaimage',
		base: { prompt: 'x' },
		field: 'seed',
		accepted: 7,
		refused: 'seven',
		message: /"Seed" must be an integer; got "seven"/,
	},
];

describe('Image validation before any request (one accepted and one refused value per limit)', () => {
	for (const limit of LIMITS) {
		it(limit.name, async () => {
			const withValue = (value: unknown): INodeParameters =>
				create(
					limit.operation,
					limit.top
						? { ...limit.base, [limit.field]: value as string }
						: { ...limit.base, additionalFields: { [limit.field]: value as string } },
				);
			const accepted = await runNode({ parameters: withValue(limit.accepted), credentials: context.credentials() });
			expect(accepted.error).toBeUndefined();
			expect(context.sim.requests()).toHaveLength(1);
			expect(context.sim.requests()[0].code).toBe(1000);
			context.sim.resetRecord();
			const refused = await runNode({ parameters: withValue(limit.refused), credentials: context.credentials() });
			expect(refused.error?.name).toBe('NodeOperationError');
			expect(refused.error?.message).toMatch(/^Item 0: /);
			expect(refused.error?.message).toMatch(limit.message);
			expect(context.sim.requests()).toHaveLength(0);
		});
	}
});

describe('Image: bad input among several items', () => {
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
			error: 'Item 1: "Number of Images" must be an integer from 1 to 10; got 12',
			errorDescription: 'Nothing was sent to the API for this item.',
		});
		expect(output[2].json.request).toMatchObject({ n: 3 });
	});
});
