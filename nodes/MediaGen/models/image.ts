/** The API's five image models: each model's fields and limits, once. */
import { choice, integer, prompt, SEED, sourceImageText } from './fields';
import type { ModelSpec, ReferenceSpec } from './types';

const PROIMAGE_RATIOS = ['1:1', '4:3', '3:4', '3:2', '2:3', '16:9', '9:16', '21:9', '5:4', '4:5'];
const BETAV45_RATIOS = ['9:16', '16:9', '3:4', '4:3', '1:1', '2:3', '3:2'];
const BETAV4_RATIOS = ['9:16', '16:9', '3:4', '4:3', '1:1'];
const BETAV45_PIXELS = { min: 3686400, max: 16777216 };

const WXH = /^(\d+)[xX](\d+)$/;

/** The API documents sizes as WxH: an upper-case X is accepted and sent lower-case. */
const lowerCaseX = (value: string) => (WXH.test(value) ? value.toLowerCase() : value);

const PROMPT = 'What to generate, or how to edit the reference images';

const batchsize = (max?: number) =>
	integer(
		'batchsize',
		'Batch Size',
		max ? `Number of images to generate, 1 to ${max}` : 'Number of images to generate',
		{ min: 1, max, default: 1, renderTime: true },
	);

const sourceReferences = (model: string): ReferenceSpec => ({
	fileField: 'sourceImage.items',
	label: 'Source Images',
	urlField: {
		wire: 'imageUrl',
		list: false,
		displayName: 'Source Image URL',
		description: `Web address (http or https) of one image for ${model} to start from`,
	},
	valueField: sourceImageText(
		'. For a file use Source Images From Binary; for a web address use Source Image URL.',
		false,
	),
	filesByDefault: false,
});

export const PROIMAGE: ModelSpec = {
	operation: 'proimage',
	taskType: 'image',
	path: '/v1/tlimages/proimage',
	displayName: 'Create With Proimage',
	action: 'Create an image with proimage',
	description:
		'Generate or edit images with the proimg-2 family (1K, 2K, 4K), with up to 16 reference images and a mask',
	fields: [
		{
			kind: 'options',
			wire: 'model',
			displayName: 'Model',
			description: 'The model tier sets the delivered resolution; output quality is fixed to high',
			placement: 'main',
			required: true,
			values: ['proimg-2', 'proimg-2-2k', 'proimg-2-4k'],
			labels: { 'proimg-2': 'proimg-2 (1K)', 'proimg-2-2k': 'proimg-2-2k (2K)', 'proimg-2-4k': 'proimg-2-4k (4K)' },
			default: 'proimg-2',
			renderTime: true,
		},
		prompt('Generation or editing instruction, at most 32000 characters', { required: true, maxLength: 32000 }),
		{
			kind: 'string',
			wire: 'size',
			displayName: 'Size',
			description: `Text-to-image: auto, a ratio (${PROIMAGE_RATIOS.join(', ')}) or a WxH pixel size. Editing: a WxH pixel size. Delivered dimensions follow the model tier.`,
			placement: 'additional',
			placeholder: 'e.g. 16:9 or 1536x1024',
			renderTime: true,
			normalize: lowerCaseX,
			check: (value, request) => {
				if (WXH.test(value)) return undefined;
				if (request.referenceCount > 0)
					return 'must be a WxH pixel size (e.g. 1024x1024) when reference images are given';
				if (value === 'auto' || PROIMAGE_RATIOS.includes(value)) return undefined;
				return `must be auto, one of ${PROIMAGE_RATIOS.join(', ')}, or a WxH pixel size`;
			},
		},
		integer('n', 'Number of Images', 'How many images to generate, 1 to 10', {
			min: 1,
			max: 10,
			default: 1,
			renderTime: true,
		}),
	],
	references: {
		fileField: 'image',
		label: 'Reference Images',
		urlField: {
			wire: 'imageUrl',
			list: true,
			displayName: 'Reference Image URLs',
			description: 'Comma-separated web addresses (http or https) of images to edit or take as reference',
		},
		maxTotal: 16,
		totalRule: 'reference files plus URLs',
		acceptedTypes: ['image/png', 'image/webp', 'image/jpeg', 'image/jpg'],
		acceptedTypesLabel: 'PNG, WebP, JPG or JPEG',
		filesByDefault: false,
	},
	mask: { wire: 'mask' },
};

export const BETAV45: ModelSpec = {
	operation: 'betav45',
	taskType: 'image',
	path: '/v1/tlimages/betav45',
	displayName: 'Create With Beta v4.5',
	action: 'Create an image with beta v4.5',
	description: 'Generate up to 15 images with beta v4.5 at a ratio, a 2K/4K tier or an explicit size',
	constants: { category: 'betav45' },
	fields: [
		prompt(PROMPT, { required: true }),
		batchsize(15),
		{
			kind: 'string',
			wire: 'resolution',
			displayName: 'Resolution',
			description: `An aspect ratio (${BETAV45_RATIOS.join(', ')}), a tier (2K, 4K), or WxH with total pixels from ${BETAV45_PIXELS.min} to ${BETAV45_PIXELS.max}`,
			placement: 'additional',
			placeholder: 'e.g. 16:9, 2K or 2560x1440',
			renderTime: true,
			normalize: lowerCaseX,
			check: (value) => {
				if (BETAV45_RATIOS.includes(value) || value === '2K' || value === '4K') return undefined;
				const size = WXH.exec(value);
				if (!size) return `must be a ratio (${BETAV45_RATIOS.join(', ')}), 2K, 4K, or WxH`;
				const pixels = Number(size[1]) * Number(size[2]);
				if (pixels < BETAV45_PIXELS.min || pixels > BETAV45_PIXELS.max) {
					return `as WxH must total ${BETAV45_PIXELS.min} to ${BETAV45_PIXELS.max} pixels (this is ${pixels})`;
				}
				return undefined;
			},
		},
	],
	references: sourceReferences('beta v4.5'),
};

export const BETAV5: ModelSpec = {
	operation: 'betav5',
	taskType: 'image',
	path: '/v1/tlimages/betav5',
	displayName: 'Create With Beta v5 Lite',
	action: 'Create an image with beta v5 lite',
	description: 'Generate images with beta v5 lite; the answer already carries an image URL',
	constants: { category: 'betav5' },
	fields: [
		prompt(PROMPT),
		batchsize(),
		{
			kind: 'string',
			wire: 'resolution',
			displayName: 'Resolution',
			description: 'Size or aspect ratio of the images; the API documents no allowed values for this model',
			placement: 'additional',
			renderTime: true,
		},
	],
	references: sourceReferences('beta v5 lite'),
};

export const BETAV4: ModelSpec = {
	operation: 'betav4',
	taskType: 'image',
	path: '/v1/tlimages/betav4',
	displayName: 'Create With Beta v4',
	action: 'Create an image with beta v4',
	description: 'Generate up to 15 images with beta v4 at one of five aspect ratios',
	constants: { category: 'betav4' },
	fields: [
		prompt(PROMPT, { required: true }),
		batchsize(15),
		choice(
			'resolution',
			'Resolution',
			'Aspect ratio of the images. Field name assumed ("resolution"): see the README if it has no effect.',
			BETAV4_RATIOS,
			'1:1',
		),
	],
	references: sourceReferences('beta v4'),
};

export const GAMMAIMAGE: ModelSpec = {
	operation: 'gammaimage',
	taskType: 'image',
	path: '/v1/tlimages/gammaimage',
	displayName: 'Create With Gamma Image',
	action: 'Create an image with gamma image',
	description: 'Generate an image with the gamma image model; the answer already carries an image URL',
	fields: [
		prompt(PROMPT),
		{
			kind: 'string',
			wire: 'resolution',
			displayName: 'Resolution',
			description: 'Width, an asterisk, then height',
			placement: 'additional',
			placeholder: 'e.g. 1024*768',
			renderTime: true,
			check: (value) => (/^\d+\*\d+$/.test(value) ? undefined : 'must be width*height, e.g. 1024*768'),
		},
		SEED,
	],
};

export const IMAGE_MODELS: ModelSpec[] = [PROIMAGE, BETAV45, BETAV5, BETAV4, GAMMAIMAGE];
