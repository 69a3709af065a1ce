/** The API's two video models: each model's fields and limits, once. */
import { SEED } from './fields';
import type { FieldSpec, ModelSpec, ReferenceSpec } from './types';

const VIDEO_RATIOS = ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9', 'adaptive'];

const common = {
	prompt: (maxLength?: number): FieldSpec => ({
		kind: 'string',
		wire: 'prompt',
		displayName: 'Prompt',
		description: maxLength
			? `What should happen in the video, at most ${maxLength} characters`
			: 'What should happen in the video',
		placement: 'main',
		rows: 4,
		maxLength,
	}),
	ratio: {
		kind: 'options',
		wire: 'ratio',
		displayName: 'Ratio',
		description: 'Aspect ratio of the video',
		placement: 'additional',
		values: VIDEO_RATIOS,
		default: 'adaptive',
		renderTime: true,
	} as FieldSpec,
	duration: (values: number[]): FieldSpec => ({
		kind: 'options',
		wire: 'duration',
		displayName: 'Duration (Seconds)',
		description: `Length of the video: ${values.join(', ')} seconds`,
		placement: 'additional',
		values,
		default: values[0],
		renderTime: true,
	}),
	resolution: (values: string[]): FieldSpec => ({
		kind: 'options',
		wire: 'resolution',
		displayName: 'Resolution',
		description: `Video resolution: ${values.join(', ')}`,
		placement: 'additional',
		values,
		default: values[0],
		renderTime: true,
	}),
	fps: {
		kind: 'integer',
		wire: 'fps',
		displayName: 'FPS',
		description: 'Frame rate; the API documents no allowed values',
		placement: 'additional',
		min: 1,
		default: 24,
	} as FieldSpec,
};

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
		valueField: {
			wire: 'sourceImage',
			displayName: 'Source Image as Text',
			description:
				'A source image given as text in the form the API accepts (its documentation says only "source image value"); counts as one of the 1 or 2 source images',
			counts: true,
		},
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
		common.prompt(8192),
		common.ratio,
		common.duration([5, 10, 15]),
		SEED,
		common.resolution(['480p', '720p']),
		common.fps,
		{
			kind: 'integer',
			wire: 'execution_expires_after',
			displayName: 'Execution Expires After (Seconds)',
			description: 'How long the task may wait to run, 3600 to 259200 seconds',
			placement: 'additional',
			min: 3600,
			max: 259200,
			default: 86400,
		},
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
		common.prompt(),
		common.ratio,
		common.duration([5, 10]),
		SEED,
		common.resolution(['480p', '720p', '1080p']),
		common.fps,
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
