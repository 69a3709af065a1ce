/**
 * What each Video operation sends: the documented fields with their wire names, switches as 1/0 (and nothing
 * when unset), source image files, URLs and Source Image as Text. Refused input is in ../validation/.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../../harness';
import { createParameters, DEFAULT_SIM_KEY, frameNames, framesItem, useSimulator } from '../../support';

const context = useSimulator();

const create = (operation: string, parameters: INodeParameters = {}): INodeParameters =>
	createParameters('video', operation, parameters);

const names = frameNames;

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
