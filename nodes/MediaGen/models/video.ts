/** The API's two video models: each model's fields and limits, once. */
import { choice, integer, prompt, SEED, sourceImageText } from './fields';
import type { FieldSpec, ModelSpec, ReferenceSpec } from './types';

const VIDEO_RATIOS = ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9', 'adaptive'];

const FPS = integer('fps', 'FPS', 'Frame rate; the API documents no allowed values', { min: 1, default: 24 });

const ratio = choice('ratio', 'Ratio', 'Aspect ratio of the video', VIDEO_RATIOS, 'adaptive');
const duration = (values: number[]) =>
	choice('duration', 'Duration (Seconds)', `Length of the video: ${values.join(', ')} seconds`, values);
const resolution = (values: string[]) =>
	choice('resolution', 'Resolution', `Video resolution: ${values.join(', ')}`, values);

function switchField(wire: string, displayName: string, what: string): FieldSpec {
	return {
		kind: 'switch',
		wire,
		displayName,
		description: `Whether to ${what}. Field name assumed ("${wire}"): see the README if it has no effect.`,
		placement: 'additional',
	};
}

const generateAudio = switchField('generate_audio', 'Generate Audio', 'generate an audio track');
const returnLastFrame = switchField('return_last_frame', 'Return Last Frame', 'also return the last frame as an image');

/** Both video models take 1 or 2 sources: files, the sourceImage value and (alpha v1.5 pro) URLs. */
function sourceImages(urlField?: ReferenceSpec['urlField']): ReferenceSpec {
	return {
		fileField: 'sourceImage.items',
		label: 'Source Images',
		...(urlField ? { urlField } : {}),
		valueField: sourceImageText('; counts as one of the 1 or 2 source images', true),
		minTotal: 1,
		maxTotal: 2,
		totalRule: `source image files plus ${urlField ? 'URLs plus ' : ''}Source Image as Text`,
		filesByDefault: true,
	};
}

export const ALPHAV2MINI: ModelSpec = {
	operation: 'alphav2mini',
	taskType: 'video',
	path: '/v1/tlvideo/alphav2mini',
	displayName: 'Create With Alpha v2 Mini',
	action: 'Create a video with alpha v2 mini',
	description: 'Turn 1 or 2 source images and a prompt into a 5 to 15 second video',
	fields: [
		prompt('What should happen in the video, at most 8192 characters', { maxLength: 8192 }),
		ratio,
		duration([5, 10, 15]),
		SEED,
		resolution(['480p', '720p']),
		FPS,
		integer(
			'execution_expires_after',
			'Execution Expires After (Seconds)',
			'How long the task may wait to run, 3600 to 259200 seconds',
			{ min: 3600, max: 259200, default: 86400 },
		),
		generateAudio,
		returnLastFrame,
		switchField('web_search', 'Web Search', 'let the model use web search'),
	],
	references: sourceImages(),
};

export const ALPHAV15PRO: ModelSpec = {
	operation: 'alphav15pro',
	taskType: 'video',
	path: '/v1/tlvideo/alphav15pro',
	displayName: 'Create With Alpha v1.5 Pro',
	action: 'Create a video with alpha v1.5 pro',
	description: 'Turn 1 or 2 source images (files or URLs) and a prompt into a video up to 1080p',
	fields: [
		prompt('What should happen in the video'),
		ratio,
		duration([5, 10]),
		SEED,
		resolution(['480p', '720p', '1080p']),
		FPS,
		switchField('camera_fixed', 'Fixed Camera', 'keep the camera fixed'),
		returnLastFrame,
		generateAudio,
	],
	references: sourceImages({
		wire: 'imageUrl',
		list: true,
		displayName: 'Source Image URLs',
		description: 'Comma-separated web addresses (http or https) of the source images',
	}),
};

export const VIDEO_MODELS: ModelSpec[] = [ALPHAV2MINI, ALPHAV15PRO];
