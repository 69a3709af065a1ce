/**
 * What each Image operation sends: the documented fields with their wire names, reference files, URLs and the
 * mask as multipart with the raw key, WxH sizes with a lower-case x, and Extra Form Fields as given (but never
 * over a field the operation sends). Other refused input is in ../validation/.
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode, storeBinary } from '../../harness';
import { makePng } from '../../simulator/png';
import { allText, createParameters, DEFAULT_SIM_KEY, pngItem, useHostileApi, useSimulator } from '../../support';

const context = useSimulator();

const create = (operation: string, parameters: INodeParameters = {}): INodeParameters =>
	createParameters('image', operation, parameters);

async function run(parameters: INodeParameters, items: INodeExecutionData[] = [{ json: {} }]) {
	return await runNode({ parameters, items, credentials: context.credentials() });
}

/** A JPEG's leading segments: SOI, a JFIF APP0, a large APP1 (as EXIF data would be), then SOF0 with the size. */
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

describe('a creation of text fields only is a well-formed multipart body', () => {
	// Such a form is encoded by the node as one buffer (transport/multipart.ts); the platform's own multipart
	// parser reads it here, independent of the simulator's.
	const { server, useApi, run } = useHostileApi();

	it('any prompt text arrives as typed (line breaks as CRLF), with a Content-Length that matches', async () => {
		useApi();
		const prompt = `Line one\r\nLine two\n--not-a-boundary\rcarriage\r\n\r\n"quoted" ünïcødé 🦊 ${'x'.repeat(20_000)}\r\n`;
		const { error } = await run({
			...createParameters('image', 'proimage', { prompt: `=${prompt}` }),
			additionalFields: { size: '1024x1024', n: 2 },
		});
		expect(error).toBeUndefined();
		const [request] = server.requests.filter((recorded) => recorded.path === '/v1/tlimages/proimage');
		expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
		expect(Number(request.headers['content-length'])).toBe(request.body.length);
		const form = await new Response(request.body, {
			headers: { 'content-type': String(request.headers['content-type']) },
		}).formData();
		const names: string[] = [];
		form.forEach((_value, name) => names.push(name));
		expect(names).toEqual(['model', 'prompt', 'size', 'n']);
		// Line breaks arrive as CRLF, as any form encoder sends them; everything else as typed.
		expect(form.get('prompt')).toBe(prompt.replace(/\r?\n|\r/g, '\r\n'));
		expect(form.get('size')).toBe('1024x1024');
		expect(form.get('n')).toBe('2');
	});
});
