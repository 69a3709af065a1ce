/**
 * Each documented limit, one by one: a value just inside it is sent, a value just outside it is refused before
 * any request, with an error naming the item, the field, the rule and the value. Image models, then video models.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../../harness';
import { createParameters, framesItem, useSimulator } from '../../support';

const context = useSimulator();

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

const IMAGE_LIMITS: LimitCase[] = [
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
	const create = (operation: string, parameters: INodeParameters = {}): INodeParameters =>
		createParameters('image', operation, parameters);

	for (const limit of IMAGE_LIMITS) {
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

const VIDEO_LIMITS: Array<{
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
	const create = (operation: string, parameters: INodeParameters = {}): INodeParameters =>
		createParameters('video', operation, parameters);

	for (const limit of VIDEO_LIMITS) {
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

describe('a length limit counts the text as the API receives it (line breaks as CRLF)', () => {
	// 8190 letters and one line break: 8191 characters in n8n, 8192 on the wire whatever the break's form.
	const prompt = (lineBreak: string, letters = 8190) =>
		`${'p'.repeat(letters / 2)}${lineBreak}${'p'.repeat(letters / 2)}`;
	const create = (value: string) =>
		createParameters('video', 'alphav2mini', {
			prompt: value,
			imageInput: 'properties',
			binaryPropertyNames: 'frame0',
		});
	const run = async (value: string) =>
		await runNode({ parameters: create(value), items: [await framesItem(1)], credentials: context.credentials() });

	it.each([
		['LF', '\n'],
		['CR', '\r'],
		['CRLF', '\r\n'],
	])('the %s copy of a prompt at the limit is sent', async (_name, lineBreak) => {
		const { error } = await run(prompt(lineBreak));
		expect(error).toBeUndefined();
		expect(context.sim.requests('/v1/tlvideo/alphav2mini')[0].fields.prompt[0]).toHaveLength(8192);
	});

	it.each([
		['LF', '\n'],
		['CR', '\r'],
		['CRLF', '\r\n'],
	])('the %s copy of a prompt one letter over is refused, naming how it was counted', async (_name, lineBreak) => {
		const { error } = await run(prompt(lineBreak, 8192));
		// The note on counting appears where the text in n8n is shorter than on the wire (LF, CR).
		expect(error?.message).toMatch(
			/^Item 0: "Prompt" must be at most 8192 characters( as sent, each line break counting as two \(CRLF\))? \(it has 8194\)/,
		);
		if (lineBreak !== '\r\n') expect(error?.message).toMatch(/as sent, each line break counting as two/);
		expect(context.sim.requests('/v1/tlvideo/alphav2mini')).toHaveLength(0);
	});
});
