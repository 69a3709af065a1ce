import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode, storeBinary } from '../harness';
import { makePng } from '../simulator/png';
import { createParameters, DEFAULT_SIM_KEY, useSimulator } from '../support';

const context = useSimulator();

const create = (operation: string, parameters: INodeParameters = {}): INodeParameters =>
	createParameters('video', operation, parameters);

async function framesItem(count: number): Promise<INodeExecutionData> {
	const binary: INodeExecutionData['binary'] = {};
	for (let i = 0; i < count; i++)
		binary[`frame${i}`] = await storeBinary(makePng(32, 18), `frame${i}.png`, 'image/png');
	return { json: {}, binary };
}

const names = (count: number) => Array.from({ length: count }, (_, i) => `frame${i}`).join(',');

describe('Video → alphav2mini', () => {
	it('sends every documented field and the three switches as 1', async () => {
		const { output, error } = await runNode({
			parameters: create('alphav2mini', {
				prompt: 'the camera pans over the harbour',
				imageInput: 'properties',
				binaryPropertyNames: names(2),
				additionalFields: {
					ratio: '21:9',
					duration: 15,
					seed: 1234,
					resolution: '720p',
					fps: 30,
					executionExpiresAfter: 7200,
					generateAudio: true,
					returnLastFrame: true,
					webSearch: true,
				},
			}),
			items: [await framesItem(2)],
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		const [request] = context.sim.requests('/v1/tlvideo/alphav2mini');
		expect(request.code).toBe(1000);
		expect(request.headers.authorization).toBe(DEFAULT_SIM_KEY);
		expect(request.fields).toEqual({
			prompt: ['the camera pans over the harbour'],
			ratio: ['21:9'],
			duration: ['15'],
			seed: ['1234'],
			resolution: ['720p'],
			fps: ['30'],
			execution_expires_after: ['7200'],
			generate_audio: ['1'],
			return_last_frame: ['1'],
			web_search: ['1'],
		});
		expect(request.files.map(({ field, filename, contentType }) => ({ field, filename, contentType }))).toEqual([
			{ field: 'sourceImage.items', filename: 'frame0.png', contentType: 'image/png' },
			{ field: 'sourceImage.items', filename: 'frame1.png', contentType: 'image/png' },
		]);
		expect(output[0].json).toMatchObject({ taskid: expect.stringMatching(/^vid-/), model: 'alphav2mini' });
	});

	it('sends switches as 0 when set off, and not at all when unset', async () => {
		await runNode({
			parameters: create('alphav2mini', {
				imageInput: 'properties',
				binaryPropertyNames: 'frame0',
				additionalFields: { generateAudio: false },
			}),
			items: [await framesItem(1)],
			credentials: context.credentials(),
		});
		await runNode({
			parameters: create('alphav2mini', { imageInput: 'properties', binaryPropertyNames: 'frame0' }),
			items: [await framesItem(1)],
			credentials: context.credentials(),
		});
		const [off, unset] = context.sim.requests('/v1/tlvideo/alphav2mini');
		expect(off.fields).toEqual({ generate_audio: ['0'] });
		expect(unset.fields).toEqual({});
	});

	it('counts Source Image as Text as a source and sends an extra field', async () => {
		const { error } = await runNode({
			parameters: create('alphav2mini', {
				imageInput: 'none',
				additionalFields: {
					sourceImage: 'https://example.com/first.png',
					extraFormFields: { field: [{ name: 'motion_strength', value: '0.7' }] },
				},
			}),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(context.sim.requests()[0].fields).toEqual({
			sourceImage: ['https://example.com/first.png'],
			motion_strength: ['0.7'],
		});
	});
});

describe('Video → alphav15pro', () => {
	it('sends every documented field, a file and a URL, and its switches', async () => {
		const { error } = await runNode({
			parameters: create('alphav15pro', {
				prompt: 'waves roll in',
				imageInput: 'properties',
				binaryPropertyNames: 'frame0',
				imageUrls: 'https://example.com/end.png',
				additionalFields: {
					ratio: '16:9',
					duration: 10,
					seed: 9,
					resolution: '1080p',
					fps: 24,
					cameraFixed: true,
					returnLastFrame: false,
					generateAudio: true,
				},
			}),
			items: [await framesItem(1)],
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		const [request] = context.sim.requests('/v1/tlvideo/alphav15pro');
		expect(request.code).toBe(1000);
		expect(request.fields).toEqual({
			prompt: ['waves roll in'],
			ratio: ['16:9'],
			duration: ['10'],
			seed: ['9'],
			resolution: ['1080p'],
			fps: ['24'],
			camera_fixed: ['1'],
			return_last_frame: ['0'],
			generate_audio: ['1'],
			imageUrl: ['https://example.com/end.png'],
		});
		expect(request.files.map((f) => f.field)).toEqual(['sourceImage.items']);
	});
});

describe('Video: source image count', () => {
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

const LIMITS: Array<{
	name: string;
	operation: string;
	field: string;
	top?: boolean;
	accepted: unknown;
	refused: unknown;
	message: RegExp;
}> = [
	{
		name: 'alphav2mini prompt ≤ 8192',
		operation: 'alphav2mini',
		field: 'prompt',
		top: true,
		accepted: 'p'.repeat(8192),
		refused: 'p'.repeat(8193),
		message: /"Prompt" must be at most 8192 characters \(it has 8193\)/,
	},
	{
		name: 'alphav2mini ratio',
		operation: 'alphav2mini',
		field: 'ratio',
		accepted: 'adaptive',
		refused: '5:4',
		message: /"Ratio" must be one of 16:9, 4:3, 1:1, 3:4, 9:16, 21:9, adaptive; got "5:4"/,
	},
	{
		name: 'alphav2mini duration',
		operation: 'alphav2mini',
		field: 'duration',
		accepted: 5,
		refused: 20,
		message: /"Duration \(Seconds\)" must be one of 5, 10, 15; got 20/,
	},
	{
		name: 'alphav2mini resolution',
		operation: 'alphav2mini',
		field: 'resolution',
		accepted: '480p',
		refused: '1080p',
		message: /"Resolution" must be one of 480p, 720p; got "1080p"/,
	},
	{
		name: 'alphav2mini execution_expires_after ≥ 3600',
		operation: 'alphav2mini',
		field: 'executionExpiresAfter',
		accepted: 3600,
		refused: 3599,
		message: /"Execution Expires After \(Seconds\)" must be an integer from 3600 to 259200; got 3599/,
	},
	{
		name: 'alphav2mini execution_expires_after ≤ 259200',
		operation: 'alphav2mini',
		field: 'executionExpiresAfter',
		accepted: 259200,
		refused: 259201,
		message: /from 3600 to 259200; got 259201/,
	},
	{
		name: 'alphav2mini seed integer',
		operation: 'alphav2mini',
		field: 'seed',
		accepted: -5,
		refused: 1.5,
		message: /"Seed" must be an integer; got 1.5/,
	},
	{
		name: 'alphav2mini fps positive integer',
		operation: 'alphav2mini',
		field: 'fps',
		accepted: 60,
		refused: 0,
		message: /"FPS" must be an integer of at least 1; got 0/,
	},
	{
		name: 'alphav2mini switch is boolean',
		operation: 'alphav2mini',
		field: 'webSearch',
		accepted: true,
		refused: 'yes',
		message: /"Web Search" must be true or false; got "yes"/,
	},
	{
		name: 'alphav15pro ratio',
		operation: 'alphav15pro',
		field: 'ratio',
		accepted: '9:16',
		refused: '2:1',
		message: /"Ratio" must be one of .*; got "2:1"/,
	},
	{
		name: 'alphav15pro duration',
		operation: 'alphav15pro',
		field: 'duration',
		accepted: 10,
		refused: 15,
		message: /"Duration \(Seconds\)" must be one of 5, 10; got 15/,
	},
	{
		name: 'alphav15pro resolution',
		operation: 'alphav15pro',
		field: 'resolution',
		accepted: '1080p',
		refused: '4k',
		message: /"Resolution" must be one of 480p, 720p, 1080p; got "4k"/,
	},
	{
		name: 'alphav15pro fps integer',
		operation: 'alphav15pro',
		field: 'fps',
		accepted: 12,
		refused: 'fast',
		message: /"FPS" must be an integer of at least 1; got "fast"/,
	},
];

describe('Video validation before any request (one accepted and one refused value per limit)', () => {
	for (const limit of LIMITS) {
		it(limit.name, async () => {
			const withValue = (value: unknown): INodeParameters => {
				const base: INodeParameters = { imageInput: 'properties', binaryPropertyNames: 'frame0' };
				return create(
					limit.operation,
					limit.top
						? { ...base, [limit.field]: value as string }
						: { ...base, additionalFields: { [limit.field]: value as string } },
				);
			};
			const item = await framesItem(1);
			const accepted = await runNode({
				parameters: withValue(limit.accepted),
				items: [item],
				credentials: context.credentials(),
			});
			expect(accepted.error).toBeUndefined();
			expect(context.sim.requests()).toHaveLength(1);
			expect(context.sim.requests()[0].code).toBe(1000);
			context.sim.resetRecord();
			const refused = await runNode({
				parameters: withValue(limit.refused),
				items: [item],
				credentials: context.credentials(),
			});
			expect(refused.error?.name).toBe('NodeOperationError');
			expect(refused.error?.message).toMatch(limit.message);
			expect(context.sim.requests()).toHaveLength(0);
		});
	}
});
