/**
 * Binary inputs: binary properties the item does not have, reference images that are not PNG, WebP or JPEG,
 * more than 16 references (files plus URLs), a mask that is not a PNG or not the size of the first reference
 * (whatever that reference's format), and a video's 1 to 2 source images. Each is refused before anything is
 * sent, naming the field and the item; the matching good input is sent.
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode, storeBinary } from '../../harness';
import { makePng } from '../../simulator/png';
import { createParameters, frameNames, framesItem, pngItem, useSimulator } from '../../support';

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

describe('binary input problems', () => {
	const proimage = (extra: INodeParameters): INodeParameters => ({
		resource: 'image',
		operation: 'proimage',
		model: 'proimg-2',
		prompt: 'x',
		waitForCompletion: false,
		...extra,
	});

	it.each([
		[
			'a missing binary property',
			{ imageInput: 'properties', binaryPropertyNames: 'photo' },
			/^Item 0: "Binary Property Names" names binary properties the item does not have \(photo\)/,
		],
		[
			'a non-image file as reference',
			{ imageInput: 'all' },
			/^Item 0: "Reference Images \(binary property "doc"\)" must be PNG, WebP, JPG or JPEG/,
		],
		[
			'a non-PNG mask',
			{ imageUrls: 'https://example.com/a.png', additionalFields: { maskBinaryProperty: 'doc' } },
			/^Item 0: "Mask Binary Property" must hold a PNG file/,
		],
		[
			'a missing mask property',
			{ imageUrls: 'https://example.com/a.png', additionalFields: { maskBinaryProperty: 'mask' } },
			/^Item 0: "Mask Binary Property" names a binary property the item does not have/,
		],
		[
			'an empty list of property names',
			{ imageInput: 'properties', binaryPropertyNames: ' , ' },
			/^Item 0: "Binary Property Names" must name at least one binary property/,
		],
		[
			'an empty extra field name',
			{ additionalFields: { extraFormFields: { field: [{ name: ' ', value: 'v' }] } } },
			/^Item 0: "Extra Form Fields › Name" is required/,
		],
	] as const)('%s', async (_name, extra, message) => {
		const item: INodeExecutionData = {
			json: {},
			binary: { doc: await storeBinary(Buffer.from('%PDF-1.7 not an image'), 'notes.pdf', 'application/pdf') },
		};
		const { error } = await runNode({
			parameters: proimage(extra as INodeParameters),
			items: [item],
			credentials: context.credentials(),
		});
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toMatch(message);
		expect(context.sim.requests()).toHaveLength(0);
	});
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

describe('Image → proimage: reference count and mask', () => {
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

describe('Video: source image count', () => {
	const create = (operation: string, parameters: INodeParameters = {}): INodeParameters =>
		createParameters('video', operation, parameters);
	const names = frameNames;

	it.each([
		['alphav2mini', 0, '', /"Source Images" must total 1 to 2 \(source image files plus Source Image as Text\); got 0/],
		['alphav2mini', 3, '', /"Source Images" must total 1 to 2 .*; got 3/],
		[
			'alphav15pro',
			0,
			'',
			/"Source Images" must total 1 to 2 \(source image files plus URLs plus Source Image as Text\); got 0/,
		],
		['alphav15pro', 2, 'https://example.com/x.png', /; got 3/],
	] as const)('%s refuses %i files (+ URLs %s) with zero requests', async (operation, files, urls, message) => {
		const { error } = await runNode({
			parameters: create(operation, {
				imageInput: files ? 'properties' : 'none',
				binaryPropertyNames: names(files),
				...(operation === 'alphav15pro' ? { imageUrls: urls } : {}),
			}),
			items: [await framesItem(files)],
			credentials: context.credentials(),
		});
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toMatch(message);
		expect(context.sim.requests()).toHaveLength(0);
	});
});
