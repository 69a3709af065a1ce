/**
 * The API's documented validation, written from the API documentation on its own (it deliberately does not import
 * the node's model definitions, so the node's checks are tested against an independent reading).
 * Each check returns the message the simulator sends as `{code: 9999, msg}`, naming the broken rule.
 */
import type { MultipartPart } from './multipart';
import { readPngSize } from './png';

export interface CreationForm {
	fields: Map<string, string[]>;
	files: MultipartPart[];
}

export interface CreationPlan {
	kind: 'image' | 'video';
	model: string;
	/** Number of result files the task delivers. */
	outputs: number;
	width?: number;
	height?: number;
	/** Extra result: a last-frame PNG for videos. */
	lastFrame?: boolean;
	/** Whether the creation answer carries `url` (betav5, gammaimage). */
	urlInCreation?: boolean;
	video?: { resolution?: string; fps?: number; duration?: number; seed?: number; ratio?: string };
}

export class RuleError extends Error {}

const RATIOS_PROIMAGE = ['1:1', '4:3', '3:4', '3:2', '2:3', '16:9', '9:16', '21:9', '5:4', '4:5'];
const RATIOS_BETAV45 = ['9:16', '16:9', '3:4', '4:3', '1:1', '2:3', '3:2'];
const RATIOS_BETAV4 = ['9:16', '16:9', '3:4', '4:3', '1:1'];
const RATIOS_VIDEO = ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9', 'adaptive'];
const IMAGE_TYPES = ['image/png', 'image/webp', 'image/jpeg', 'image/jpg'];
const IMAGE_EXTENSIONS = /\.(png|webp|jpe?g)$/i;

function one(form: CreationForm, name: string): string | undefined {
	const values = form.fields.get(name);
	if (values && values.length > 1) throw new RuleError(`${name} must be sent once`);
	return values?.[0];
}

function required(form: CreationForm, name: string): string {
	const value = one(form, name);
	if (value === undefined || value.trim() === '') throw new RuleError(`${name} is required`);
	return value;
}

function integer(form: CreationForm, name: string, min?: number, max?: number): number | undefined {
	const raw = one(form, name);
	if (raw === undefined) return undefined;
	if (!/^-?\d+$/.test(raw)) throw new RuleError(`${name} must be an integer, got "${raw}"`);
	const value = Number(raw);
	if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
		throw new RuleError(`${name} must be between ${min} and ${max}, got ${value}`);
	}
	return value;
}

function oneOf(form: CreationForm, name: string, allowed: string[]): string | undefined {
	const value = one(form, name);
	if (value !== undefined && !allowed.includes(value)) {
		throw new RuleError(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
	}
	return value;
}

function maxLength(value: string | undefined, name: string, limit: number): void {
	if (value !== undefined && value.length > limit) {
		throw new RuleError(`${name} must be at most ${limit} characters, got ${value.length}`);
	}
}

function urls(form: CreationForm): string[] {
	const raw = one(form, 'imageUrl');
	return raw
		? raw
				.split(',')
				.map((url) => url.trim())
				.filter(Boolean)
		: [];
}

function filesNamed(form: CreationForm, ...names: string[]): MultipartPart[] {
	return form.files.filter((file) => names.includes(file.name));
}

function switch01(form: CreationForm, name: string): boolean {
	const value = one(form, name);
	if (value !== undefined && value !== '0' && value !== '1') {
		throw new RuleError(`${name} must be 0 or 1, got "${value}"`);
	}
	return value === '1';
}

function parseSize(value: string, separator: 'x' | '*'): { width: number; height: number } | undefined {
	const pattern = separator === 'x' ? /^(\d+)[xX](\d+)$/ : /^(\d+)\*(\d+)$/;
	const match = pattern.exec(value);
	return match ? { width: Number(match[1]), height: Number(match[2]) } : undefined;
}

function scaleRatio(ratio: string, longSide: number): { width: number; height: number } {
	const [a, b] = ratio.split(':').map(Number);
	return a >= b
		? { width: longSide, height: Math.round((longSide * b) / a) }
		: { width: Math.round((longSide * a) / b), height: longSide };
}

function checkSwitchless(form: CreationForm, category: string): void {
	const value = one(form, 'category');
	if (value !== undefined && value !== category) {
		throw new RuleError(`category must be "${category}" on this endpoint, got "${value}"`);
	}
}

const PROIMAGE_TIERS: Record<string, number> = { 'proimg-2': 1024, 'proimg-2-2k': 2048, 'proimg-2-4k': 4096 };

function proimage(form: CreationForm): CreationPlan {
	const model = required(form, 'model');
	if (!(model in PROIMAGE_TIERS)) {
		throw new RuleError(`model must be one of ${Object.keys(PROIMAGE_TIERS).join(', ')}, got "${model}"`);
	}
	maxLength(required(form, 'prompt'), 'prompt', 32000);
	const n = integer(form, 'n', 1, 10) ?? 1;
	const images = filesNamed(form, 'image', 'image.items');
	for (const file of images) {
		const typeOk = file.contentType ? IMAGE_TYPES.includes(file.contentType.toLowerCase()) : false;
		const nameOk = file.filename ? IMAGE_EXTENSIONS.test(file.filename) : false;
		if (!typeOk && !nameOk) {
			throw new RuleError(`image files must be PNG, WebP, JPG or JPEG, got ${file.contentType ?? file.filename}`);
		}
	}
	const references = images.length + urls(form).length;
	if (references > 16) throw new RuleError(`image files plus imageUrl entries must be at most 16, got ${references}`);
	const editing = references > 0;

	const masks = filesNamed(form, 'mask');
	if (masks.length > 1) throw new RuleError('mask must be sent once');
	if (masks.length === 1) {
		const maskSize = readPngSize(masks[0].data);
		if (!maskSize) throw new RuleError('mask must be a PNG file');
		if (!editing) throw new RuleError('mask requires at least one reference image');
		const firstSize = images[0] ? readPngSize(images[0].data) : undefined;
		if (firstSize && (firstSize.width !== maskSize.width || firstSize.height !== maskSize.height)) {
			throw new RuleError(
				`mask must match the first image's dimensions ${firstSize.width}x${firstSize.height}, got ${maskSize.width}x${maskSize.height}`,
			);
		}
	}

	const longSide = PROIMAGE_TIERS[model];
	const size = one(form, 'size');
	let dimensions = { width: longSide, height: longSide };
	if (size !== undefined) {
		const explicit = parseSize(size, 'x');
		if (editing && !explicit) throw new RuleError(`size must be a WxH pixel size when editing, got "${size}"`);
		if (explicit) dimensions = scaleRatio(`${explicit.width}:${explicit.height}`, longSide);
		else if (RATIOS_PROIMAGE.includes(size)) dimensions = scaleRatio(size, longSide);
		else if (size !== 'auto') {
			throw new RuleError(`size must be auto, one of ${RATIOS_PROIMAGE.join(', ')} or WxH, got "${size}"`);
		}
	}
	return { kind: 'image', model, outputs: n, ...dimensions };
}

function betav45(form: CreationForm): CreationPlan {
	checkSwitchless(form, 'betav45');
	required(form, 'prompt');
	const batchsize = integer(form, 'batchsize', 1, 15) ?? 1;
	const resolution = one(form, 'resolution');
	let dimensions = { width: 2048, height: 2048 };
	if (resolution !== undefined) {
		const explicit = parseSize(resolution, 'x');
		if (RATIOS_BETAV45.includes(resolution)) dimensions = scaleRatio(resolution, 2048);
		else if (resolution === '2K') dimensions = { width: 2048, height: 2048 };
		else if (resolution === '4K') dimensions = { width: 4096, height: 4096 };
		else if (explicit) {
			const pixels = explicit.width * explicit.height;
			if (pixels < 3686400 || pixels > 16777216) {
				throw new RuleError(`resolution WxH must total 3686400 to 16777216 pixels, got ${pixels}`);
			}
			dimensions = explicit;
		} else {
			throw new RuleError(
				`resolution must be a ratio (${RATIOS_BETAV45.join(', ')}), 2K, 4K or WxH, got "${resolution}"`,
			);
		}
	}
	return { kind: 'image', model: 'betav45', outputs: batchsize, ...dimensions };
}

function betav5(form: CreationForm): CreationPlan {
	checkSwitchless(form, 'betav5');
	const batchsize = integer(form, 'batchsize') ?? 1;
	return {
		kind: 'image',
		model: 'betav5',
		outputs: Math.max(1, batchsize),
		width: 1024,
		height: 1024,
		urlInCreation: true,
	};
}

function betav4(form: CreationForm): CreationPlan {
	checkSwitchless(form, 'betav4');
	required(form, 'prompt');
	const batchsize = integer(form, 'batchsize', 1, 15) ?? 1;
	const resolution = oneOf(form, 'resolution', RATIOS_BETAV4) ?? '1:1';
	return { kind: 'image', model: 'betav4', outputs: batchsize, ...scaleRatio(resolution, 1024) };
}

function gammaimage(form: CreationForm): CreationPlan {
	integer(form, 'seed');
	const resolution = one(form, 'resolution');
	let dimensions = { width: 1024, height: 1024 };
	if (resolution !== undefined) {
		const explicit = parseSize(resolution, '*');
		if (!explicit) throw new RuleError(`resolution must be width*height, got "${resolution}"`);
		dimensions = explicit;
	}
	return { kind: 'image', model: 'gammaimage', outputs: 1, ...dimensions, urlInCreation: true };
}

function countVideoSources(form: CreationForm, withUrls: boolean): number {
	const files = filesNamed(form, 'sourceImage.items').length;
	const value = one(form, 'sourceImage');
	return files + (value && value.trim() ? 1 : 0) + (withUrls ? urls(form).length : 0);
}

function videoCommon(form: CreationForm, durations: number[], resolutions: string[]) {
	const ratio = oneOf(form, 'ratio', RATIOS_VIDEO);
	const duration = integer(form, 'duration');
	if (duration !== undefined && !durations.includes(duration)) {
		throw new RuleError(`duration must be one of ${durations.join(', ')}, got ${duration}`);
	}
	const resolution = oneOf(form, 'resolution', resolutions);
	const seed = integer(form, 'seed');
	const fps = integer(form, 'fps', 1);
	return { ratio, duration, resolution, seed, fps };
}

function alphav2mini(form: CreationForm): CreationPlan {
	maxLength(one(form, 'prompt'), 'prompt', 8192);
	const sources = countVideoSources(form, false);
	if (sources < 1 || sources > 2) throw new RuleError(`source images must be 1 to 2, got ${sources}`);
	const video = videoCommon(form, [5, 10, 15], ['480p', '720p']);
	integer(form, 'execution_expires_after', 3600, 259200);
	switch01(form, 'generate_audio');
	switch01(form, 'web_search');
	const lastFrame = switch01(form, 'return_last_frame');
	return { kind: 'video', model: 'alphav2mini', outputs: 1, lastFrame, video };
}

function alphav15pro(form: CreationForm): CreationPlan {
	const sources = countVideoSources(form, true);
	if (sources < 1 || sources > 2) throw new RuleError(`source images must be 1 to 2, got ${sources}`);
	const video = videoCommon(form, [5, 10], ['480p', '720p', '1080p']);
	switch01(form, 'generate_audio');
	switch01(form, 'camera_fixed');
	const lastFrame = switch01(form, 'return_last_frame');
	return { kind: 'video', model: 'alphav15pro', outputs: 1, lastFrame, video };
}

export const CREATION_ENDPOINTS: Record<string, (form: CreationForm) => CreationPlan> = {
	'/v1/tlimages/proimage': proimage,
	'/v1/tlimages/betav45': betav45,
	'/v1/tlimages/betav5': betav5,
	'/v1/tlimages/betav4': betav4,
	'/v1/tlimages/gammaimage': gammaimage,
	'/v1/tlvideo/alphav2mini': alphav2mini,
	'/v1/tlvideo/alphav15pro': alphav15pro,
};
