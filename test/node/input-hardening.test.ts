/**
 * Bad input that used to slip through: integers that change on the way (1e21, above 2^53), objects and
 * arrays flattened into text, the mask-size rule skipped for JPEG and WebP references, an upper-case X.
 * Each case runs in n8n's engine against the simulator and checks what reached the wire (or that nothing did).
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode, storeBinary } from '../harness';
import { makePng } from '../simulator/png';
import { createParameters, useSimulator } from '../support';

const context = useSimulator();

const create = (operation: string, parameters: INodeParameters = {}): INodeParameters =>
	createParameters('image', operation, parameters);

async function run(parameters: INodeParameters, items: INodeExecutionData[] = [{ json: {} }]) {
	return await runNode({ parameters, items, credentials: context.credentials() });
}

/** A JPEG's leading segments: SOI, a JFIF APP0, a large APP1 (as EXIF data would be), then SOF0 with the size. */
function jpegHeader(width: number, height: number, app1Bytes = 70_000): Buffer {
	const segment = (marker: number, data: Buffer) => {
		const head = Buffer.from([0xff, marker, 0, 0]);
		head.writeUInt16BE(data.length + 2, 2);
		return Buffer.concat([head, data]);
	};
	const app1Chunks: Buffer[] = [];
	for (let left = app1Bytes; left > 0; left -= 65_000)
		app1Chunks.push(segment(0xe1, Buffer.alloc(Math.min(left, 65_000), 0x45)));
	const sof = Buffer.from([8, 0, 0, 0, 0, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
	sof.writeUInt16BE(height, 1);
	sof.writeUInt16BE(width, 3);
	return Buffer.concat([
		Buffer.from([0xff, 0xd8]),
		segment(0xe0, Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1')),
		...app1Chunks,
		segment(0xc0, sof),
		Buffer.from([0xff, 0xd9]),
	]);
}

function riff(fourcc: string, data: Buffer): Buffer {
	const chunkHeader = Buffer.alloc(8);
	chunkHeader.write(fourcc, 0, 'ascii');
	chunkHeader.writeUInt32LE(data.length, 4);
	const body = Buffer.concat([Buffer.from('WEBP', 'ascii'), chunkHeader, data]);
	const head = Buffer.alloc(8);
	head.write('RIFF', 0, 'ascii');
	head.writeUInt32LE(body.length, 4);
	return Buffer.concat([head, body]);
}

function webpLossy(width: number, height: number): Buffer {
	const data = Buffer.alloc(20);
	data.set([0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a]);
	data.writeUInt16LE(width, 6);
	data.writeUInt16LE(height, 8);
	return riff('VP8 ', data);
}

function webpLossless(width: number, height: number): Buffer {
	const data = Buffer.alloc(10);
	data[0] = 0x2f;
	data.writeUInt32LE(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14), 1);
	return riff('VP8L', data);
}

function webpExtended(width: number, height: number): Buffer {
	const data = Buffer.alloc(10);
	data.writeUIntLE(width - 1, 4, 3);
	data.writeUIntLE(height - 1, 7, 3);
	return riff('VP8X', data);
}

async function editingItem(
	first: Buffer,
	fileName: string,
	mimeType: string,
	mask: [number, number],
): Promise<INodeExecutionData> {
	return {
		json: {},
		binary: {
			data: await storeBinary(first, fileName, mimeType),
			mask: await storeBinary(makePng(...mask), 'mask.png', 'image/png'),
		},
	};
}

const editing = (additionalFields: INodeParameters = {}) =>
	create('proimage', {
		model: 'proimg-2',
		prompt: 'edit',
		imageInput: 'properties',
		binaryPropertyNames: 'data',
		additionalFields: { maskBinaryProperty: 'mask', ...additionalFields },
	});

describe('the mask must match the first reference image, whatever its format', () => {
	const formats: Array<[string, (w: number, h: number) => Buffer, string, string]> = [
		['a JPEG (size in SOF0, after 70 kB of APP1)', jpegHeader, 'photo.jpg', 'image/jpeg'],
		['a lossy WebP (VP8)', webpLossy, 'photo.webp', 'image/webp'],
		['a lossless WebP (VP8L)', webpLossless, 'photo.webp', 'image/webp'],
		['an extended WebP (VP8X)', webpExtended, 'photo.webp', 'image/webp'],
	];

	it.each(formats)('%s of another size: refused, nothing sent', async (_name, build, fileName, mimeType) => {
		const { error } = await run(editing(), [await editingItem(build(300, 200), fileName, mimeType, [64, 64])]);
		expect(error?.message).toBe(
			'Item 0: "Mask Binary Property" must match the size of the first reference image "data" (300x200); got "64x64"',
		);
		expect(context.sim.requests('/v1/tlimages/proimage')).toHaveLength(0);
	});

	it.each(formats)('%s of the same size: sent', async (_name, build, fileName, mimeType) => {
		const { error } = await run(editing({ size: '300x200' }), [
			await editingItem(build(300, 200), fileName, mimeType, [300, 200]),
		]);
		expect(error).toBeUndefined();
		expect(context.sim.requests('/v1/tlimages/proimage')).toHaveLength(1);
	});
});

describe('WxH sizes are sent with a lower-case x', () => {
	it.each([
		['proimage', 'size', '1536X1024', '1536x1024'],
		['betav45', 'resolution', '2560X1440', '2560x1440'],
	])('%s %s %s is sent as %s', async (operation, field, given, sent) => {
		const base = operation === 'proimage' ? { model: 'proimg-2', prompt: 'a fox' } : { prompt: 'a fox' };
		const { error } = await run(create(operation, { ...base, additionalFields: { [field]: given } }));
		expect(error).toBeUndefined();
		expect(context.sim.requests(`/v1/tlimages/${operation}`)[0].fields[field]).toEqual([sent]);
	});
});

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

describe('task IDs are text', () => {
	it('an object as the Task ID of Task → Get is refused, nothing sent', async () => {
		const { error } = await run({
			resource: 'task',
			operation: 'get',
			taskType: 'image',
			taskId: '={{ { id: "img-1" } }}',
		});
		expect(error?.message).toBe('Item 0: "Task ID" must be one task ID (text); got {"id":"img-1"}');
		expect(context.sim.requests()).toHaveLength(0);
	});

	it('objects in the Task IDs list of Task → Delete are refused, nothing sent', async () => {
		const { error } = await run({
			resource: 'task',
			operation: 'delete',
			taskType: 'image',
			taskIds: '={{ [{ id: "img-1" }, "img-2"] }}',
		});
		expect(error?.message).toBe(
			'Item 0: "Task IDs" must be comma-separated text or a list of task IDs (text); got [{"id":"img-1"},"img-2"]',
		);
		expect(context.sim.requests()).toHaveLength(0);
	});
});
