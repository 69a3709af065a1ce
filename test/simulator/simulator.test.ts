import http from 'node:http';

import { allText, DEFAULT_SIM_KEY, postForm, postJson, useSimulator } from '../support';
import { startSimulator } from '../../scripts/lib/simulator';
import { makePng, readPngSize } from './png';

const context = useSimulator();

type Field = [string, string | { data: Buffer; filename: string; contentType: string }];

const png = (width = 64, height = 64, name = 'ref.png'): Field[1] => ({
	data: makePng(width, height),
	filename: name,
	contentType: 'image/png',
});
const file = (name: string, contentType: string): Field[1] => ({
	data: Buffer.from('not really an image'),
	filename: name,
	contentType,
});
const refs = (count: number): Field[] =>
	Array.from({ length: count }, (_, i) => ['image', png(8, 8, `r${i}.png`)] as Field);
const urls = (count: number) => Array.from({ length: count }, (_, i) => `https://example.com/${i}.png`).join(',');

interface LimitCase {
	limit: string;
	path: string;
	accepted: Field[];
	rejected: Field[];
	message: RegExp;
}

const P = '/v1/tlimages/proimage';
const B45 = '/v1/tlimages/betav45';
const B4 = '/v1/tlimages/betav4';
const G = '/v1/tlimages/gammaimage';
const V2 = '/v1/tlvideo/alphav2mini';
const V15 = '/v1/tlvideo/alphav15pro';
const pro: Field[] = [
	['model', 'proimg-2'],
	['prompt', 'a cat'],
];
const src = (count: number): Field[] =>
	Array.from({ length: count }, (_, i) => ['sourceImage.items', png(8, 8, `s${i}.png`)] as Field);

const LIMITS: LimitCase[] = [
	{
		limit: 'proimage model',
		path: P,
		accepted: [
			['model', 'proimg-2-4k'],
			['prompt', 'x'],
		],
		rejected: [
			['model', 'proimg-3'],
			['prompt', 'x'],
		],
		message: /model must be one of/,
	},
	{
		limit: 'proimage prompt required',
		path: P,
		accepted: pro,
		rejected: [['model', 'proimg-2']],
		message: /prompt is required/,
	},
	{
		limit: 'proimage prompt ≤ 32000',
		path: P,
		accepted: [
			['model', 'proimg-2'],
			['prompt', 'a'.repeat(32000)],
		],
		rejected: [
			['model', 'proimg-2'],
			['prompt', 'a'.repeat(32001)],
		],
		message: /prompt must be at most 32000 characters, got 32001/,
	},
	{
		limit: 'proimage n ≤ 10',
		path: P,
		accepted: [...pro, ['n', '10']],
		rejected: [...pro, ['n', '11']],
		message: /n must be between 1 and 10, got 11/,
	},
	{
		limit: 'proimage n ≥ 1',
		path: P,
		accepted: [...pro, ['n', '1']],
		rejected: [...pro, ['n', '0']],
		message: /n must be between 1 and 10, got 0/,
	},
	{
		limit: 'proimage n integer',
		path: P,
		accepted: [...pro, ['n', '2']],
		rejected: [...pro, ['n', '2.5']],
		message: /n must be an integer/,
	},
	{
		limit: 'proimage references ≤ 16 (files)',
		path: P,
		accepted: [...pro, ...refs(16)],
		rejected: [...pro, ...refs(17)],
		message: /at most 16, got 17/,
	},
	{
		limit: 'proimage references ≤ 16 (files + URLs)',
		path: P,
		accepted: [...pro, ...refs(6), ['imageUrl', urls(10)]],
		rejected: [...pro, ...refs(6), ['imageUrl', urls(11)]],
		message: /at most 16, got 17/,
	},
	{
		limit: 'proimage file types',
		path: P,
		accepted: [...pro, ['image', file('a.webp', 'image/webp')], ['image', file('b.jpg', 'image/jpeg')]],
		rejected: [...pro, ['image', file('a.gif', 'image/gif')]],
		message: /must be PNG, WebP, JPG or JPEG/,
	},
	{
		limit: 'proimage image.items part name',
		path: P,
		accepted: [...pro, ['image.items', png()]],
		rejected: [...pro, ['image.items', file('a.bmp', 'image/bmp')]],
		message: /must be PNG, WebP, JPG or JPEG/,
	},
	{
		limit: 'proimage size (text-to-image)',
		path: P,
		accepted: [...pro, ['size', '21:9']],
		rejected: [...pro, ['size', '7:3']],
		message: /size must be auto, one of/,
	},
	{
		limit: 'proimage size auto',
		path: P,
		accepted: [...pro, ['size', 'auto']],
		rejected: [...pro, ['size', 'big']],
		message: /size must be auto/,
	},
	{
		limit: 'proimage size when editing is WxH',
		path: P,
		accepted: [...pro, ['size', '1024x768'], ['image', png()]],
		rejected: [...pro, ['size', '16:9'], ['image', png()]],
		message: /size must be a WxH pixel size when editing/,
	},
	{
		limit: 'proimage mask is PNG',
		path: P,
		accepted: [...pro, ['image', png(32, 32)], ['mask', png(32, 32, 'mask.png')]],
		rejected: [...pro, ['image', png(32, 32)], ['mask', file('mask.webp', 'image/webp')]],
		message: /mask must be a PNG file/,
	},
	{
		limit: 'proimage mask needs a reference',
		path: P,
		accepted: [...pro, ['imageUrl', urls(1)], ['mask', png(32, 32, 'mask.png')]],
		rejected: [...pro, ['mask', png(32, 32, 'mask.png')]],
		message: /mask requires at least one reference image/,
	},
	{
		limit: 'proimage mask matches the first image',
		path: P,
		accepted: [...pro, ['image', png(40, 30)], ['mask', png(40, 30, 'mask.png')]],
		rejected: [...pro, ['image', png(40, 30)], ['mask', png(30, 40, 'mask.png')]],
		message: /mask must match the first image's dimensions 40x30, got 30x40/,
	},
	{
		limit: 'betav45 prompt required',
		path: B45,
		accepted: [['prompt', 'x']],
		rejected: [['batchsize', '1']],
		message: /prompt is required/,
	},
	{
		limit: 'betav45 batchsize ≤ 15',
		path: B45,
		accepted: [
			['prompt', 'x'],
			['batchsize', '15'],
		],
		rejected: [
			['prompt', 'x'],
			['batchsize', '16'],
		],
		message: /batchsize must be between 1 and 15, got 16/,
	},
	{
		limit: 'betav45 batchsize ≥ 1',
		path: B45,
		accepted: [
			['prompt', 'x'],
			['batchsize', '1'],
		],
		rejected: [
			['prompt', 'x'],
			['batchsize', '0'],
		],
		message: /batchsize must be between 1 and 15, got 0/,
	},
	{
		limit: 'betav45 category',
		path: B45,
		accepted: [
			['prompt', 'x'],
			['category', 'betav45'],
		],
		rejected: [
			['prompt', 'x'],
			['category', 'betav4'],
		],
		message: /category must be "betav45"/,
	},
	{
		limit: 'betav45 resolution ratio',
		path: B45,
		accepted: [
			['prompt', 'x'],
			['resolution', '2:3'],
		],
		rejected: [
			['prompt', 'x'],
			['resolution', '21:9'],
		],
		message: /resolution must be a ratio/,
	},
	{
		limit: 'betav45 resolution tier',
		path: B45,
		accepted: [
			['prompt', 'x'],
			['resolution', '4K'],
		],
		rejected: [
			['prompt', 'x'],
			['resolution', '8K'],
		],
		message: /resolution must be a ratio/,
	},
	{
		limit: 'betav45 WxH ≥ 3686400 pixels',
		path: B45,
		accepted: [
			['prompt', 'x'],
			['resolution', '1920x1920'],
		],
		rejected: [
			['prompt', 'x'],
			['resolution', '1919x1920'],
		],
		message: /3686400 to 16777216 pixels, got 3684480/,
	},
	{
		limit: 'betav45 WxH ≤ 16777216 pixels',
		path: B45,
		accepted: [
			['prompt', 'x'],
			['resolution', '4096x4096'],
		],
		rejected: [
			['prompt', 'x'],
			['resolution', '4097x4096'],
		],
		message: /3686400 to 16777216 pixels, got 16781312/,
	},
	{
		limit: 'betav4 batchsize ≤ 15',
		path: B4,
		accepted: [
			['prompt', 'x'],
			['batchsize', '15'],
		],
		rejected: [
			['prompt', 'x'],
			['batchsize', '16'],
		],
		message: /batchsize must be between 1 and 15/,
	},
	{
		limit: 'betav4 resolution ratios',
		path: B4,
		accepted: [
			['prompt', 'x'],
			['resolution', '9:16'],
		],
		rejected: [
			['prompt', 'x'],
			['resolution', '2:3'],
		],
		message: /resolution must be one of 9:16, 16:9, 3:4, 4:3, 1:1/,
	},
	{
		limit: 'betav4 prompt required',
		path: B4,
		accepted: [['prompt', 'x']],
		rejected: [['resolution', '1:1']],
		message: /prompt is required/,
	},
	{
		limit: 'gammaimage resolution W*H',
		path: G,
		accepted: [
			['prompt', 'x'],
			['resolution', '1024*768'],
		],
		rejected: [
			['prompt', 'x'],
			['resolution', '1024x768'],
		],
		message: /resolution must be width\*height/,
	},
	{
		limit: 'gammaimage seed integer',
		path: G,
		accepted: [
			['prompt', 'x'],
			['seed', '42'],
		],
		rejected: [
			['prompt', 'x'],
			['seed', 'abc'],
		],
		message: /seed must be an integer/,
	},
	{
		limit: 'alphav2mini prompt ≤ 8192',
		path: V2,
		accepted: [['prompt', 'a'.repeat(8192)], ...src(1)],
		rejected: [['prompt', 'a'.repeat(8193)], ...src(1)],
		message: /prompt must be at most 8192 characters, got 8193/,
	},
	{
		limit: 'alphav2mini sources ≤ 2',
		path: V2,
		accepted: src(2),
		rejected: src(3),
		message: /source images must be 1 to 2, got 3/,
	},
	{
		limit: 'alphav2mini sources ≥ 1',
		path: V2,
		accepted: [['sourceImage', 'https://example.com/a.png']],
		rejected: [['prompt', 'x']],
		message: /source images must be 1 to 2, got 0/,
	},
	{
		limit: 'alphav2mini ratio',
		path: V2,
		accepted: [...src(1), ['ratio', 'adaptive']],
		rejected: [...src(1), ['ratio', '5:4']],
		message: /ratio must be one of 16:9, 4:3, 1:1, 3:4, 9:16, 21:9, adaptive/,
	},
	{
		limit: 'alphav2mini duration',
		path: V2,
		accepted: [...src(1), ['duration', '15']],
		rejected: [...src(1), ['duration', '20']],
		message: /duration must be one of 5, 10, 15, got 20/,
	},
	{
		limit: 'alphav2mini resolution',
		path: V2,
		accepted: [...src(1), ['resolution', '720p']],
		rejected: [...src(1), ['resolution', '1080p']],
		message: /resolution must be one of 480p, 720p/,
	},
	{
		limit: 'alphav2mini execution_expires_after ≥ 3600',
		path: V2,
		accepted: [...src(1), ['execution_expires_after', '3600']],
		rejected: [...src(1), ['execution_expires_after', '3599']],
		message: /execution_expires_after must be between 3600 and 259200, got 3599/,
	},
	{
		limit: 'alphav2mini execution_expires_after ≤ 259200',
		path: V2,
		accepted: [...src(1), ['execution_expires_after', '259200']],
		rejected: [...src(1), ['execution_expires_after', '259201']],
		message: /got 259201/,
	},
	{
		limit: 'alphav2mini switches 0/1',
		path: V2,
		accepted: [...src(1), ['generate_audio', '1'], ['return_last_frame', '0'], ['web_search', '1']],
		rejected: [...src(1), ['web_search', 'true']],
		message: /web_search must be 0 or 1/,
	},
	{
		limit: 'alphav15pro sources ≤ 2 (files + URLs)',
		path: V15,
		accepted: [...src(1), ['imageUrl', urls(1)]],
		rejected: [...src(2), ['imageUrl', urls(1)]],
		message: /source images must be 1 to 2, got 3/,
	},
	{
		limit: 'alphav15pro sources ≥ 1',
		path: V15,
		accepted: [['imageUrl', urls(2)]],
		rejected: [['prompt', 'x']],
		message: /got 0/,
	},
	{
		limit: 'alphav15pro duration',
		path: V15,
		accepted: [...src(1), ['duration', '10']],
		rejected: [...src(1), ['duration', '15']],
		message: /duration must be one of 5, 10, got 15/,
	},
	{
		limit: 'alphav15pro resolution',
		path: V15,
		accepted: [...src(1), ['resolution', '1080p']],
		rejected: [...src(1), ['resolution', '4k']],
		message: /resolution must be one of 480p, 720p, 1080p/,
	},
	{
		limit: 'alphav15pro ratio',
		path: V15,
		accepted: [...src(1), ['ratio', '21:9']],
		rejected: [...src(1), ['ratio', '2:1']],
		message: /ratio must be one of/,
	},
	{
		limit: 'alphav15pro switches 0/1',
		path: V15,
		accepted: [...src(1), ['camera_fixed', '1']],
		rejected: [...src(1), ['camera_fixed', '2']],
		message: /camera_fixed must be 0 or 1/,
	},
];

describe('simulator: documented limits (one accepted, one rejected value each)', () => {
	for (const limit of LIMITS) {
		it(limit.limit, async () => {
			const accepted = await postForm(context.sim.url, limit.path, limit.accepted);
			expect(accepted.body).toMatchObject({ code: 1000, data: { taskid: expect.any(String) } });
			const rejected = await postForm(context.sim.url, limit.path, limit.rejected);
			expect(rejected.body.code).toBe(9999);
			expect(rejected.body.msg).toMatch(limit.message);
		});
	}
});

describe('simulator: auth, credits and JSON endpoints', () => {
	it('takes the raw key only: missing, wrong and Bearer-prefixed keys get HTTP 401', async () => {
		for (const key of [null, 'nope', `Bearer ${DEFAULT_SIM_KEY}`]) {
			const response = await postJson(context.sim.url, '/v1/tlimages/infobytaskid', { taskid: 'x' }, key);
			expect(response.status).toBe(401);
			expect(response.body).toEqual({ code: 9999, msg: 'Unauthorized: invalid or missing API key' });
		}
	});

	it('answers 9000 when the key runs out of credits, and charges only valid requests', async () => {
		context.sim.credits.set('poor-key', 1);
		expect((await postForm(context.sim.url, B4, [['batchsize', '1']], 'poor-key')).body.code).toBe(9999);
		expect((await postForm(context.sim.url, B4, [['prompt', 'x']], 'poor-key')).body.code).toBe(1000);
		expect(await postForm(context.sim.url, B4, [['prompt', 'x']], 'poor-key')).toMatchObject({
			status: 200,
			body: { code: 9000, msg: 'Insufficient credits' },
		});
	});

	it('returns url in the creation answer of betav5 and gammaimage only', async () => {
		const b5 = await postForm(context.sim.url, '/v1/tlimages/betav5', [
			['prompt', 'x'],
			['category', 'betav5'],
		]);
		expect(b5.body.data).toEqual({ taskid: expect.any(String), url: expect.stringContaining('/files/') });
		const g = await postForm(context.sim.url, G, [['prompt', 'x']]);
		expect(g.body.data?.url).toEqual(expect.stringContaining('/files/'));
		const b4 = await postForm(context.sim.url, B4, [['prompt', 'x']]);
		expect(b4.body.data).toEqual({ taskid: expect.any(String) });
	});

	it('refuses JSON on creation endpoints and multipart on JSON endpoints', async () => {
		expect((await postJson(context.sim.url, B4, { prompt: 'x' })).body.msg).toMatch(/multipart\/form-data/);
		expect((await postForm(context.sim.url, '/v1/tlimages/infobytaskid', [['taskid', 'x']])).body.code).toBe(9999);
	});

	it('keeps image and video tasks apart and deletes them', async () => {
		const image = String((await postForm(context.sim.url, B4, [['prompt', 'x']])).body.data?.taskid);
		expect((await postJson(context.sim.url, '/v1/tlvideo/infobytaskid', { taskid: image })).body.msg).toMatch(
			/not found/,
		);
		expect((await postJson(context.sim.url, '/v1/tlvideo/deletevideotask', { taskids: [image] })).body.msg).toMatch(
			/unknown task ids/,
		);
		expect((await postJson(context.sim.url, '/v1/tlimages/deleteimagestask', { taskids: [] })).body.code).toBe(9999);
		expect(
			(await postJson(context.sim.url, '/v1/tlimages/deleteimagestask', { taskids: [image], uid: 'u1' })).body,
		).toEqual({
			code: 1000,
			msg: 'success',
			data: { status: 'deleted 1 task(s) successfully' },
		});
		expect((await postJson(context.sim.url, '/v1/tlimages/infobytaskid', { taskid: image })).body.msg).toMatch(
			/not found/,
		);
	});
});

async function get(url: string): Promise<{ status: number; type?: string; body: Buffer }> {
	return await new Promise((resolve, reject) => {
		http
			.get(url, (response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('end', () =>
					resolve({
						status: response.statusCode ?? 0,
						type: response.headers['content-type'],
						body: Buffer.concat(chunks),
					}),
				);
			})
			.on('error', reject);
	});
}

describe('simulator: task lifecycle and result files', () => {
	it('moves a task from queued to processing to succeeded and serves PNGs of the delivered size', async () => {
		context.sim.taskDurationMs = 400;
		const created = await postForm(context.sim.url, B45, [
			['prompt', 'x'],
			['batchsize', '2'],
			['resolution', '2560x1440'],
		]);
		const taskid = String(created.body.data?.taskid);
		const first = await postJson(context.sim.url, '/v1/tlimages/infobytaskid', { taskid });
		expect(first.body.data).toMatchObject({ image_status: 0, url: [] });
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect((await postJson(context.sim.url, '/v1/tlimages/infobytaskid', { taskid })).body.data).toMatchObject({
			image_status: 1,
			url: [],
		});
		await new Promise((resolve) => setTimeout(resolve, 250));
		const done = await postJson(context.sim.url, '/v1/tlimages/infobytaskid', { taskid });
		expect(done.body.data).toMatchObject({
			taskid,
			image_status: 2,
			width: 2560,
			height: 1440,
			starttime: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
		});
		const resultUrls = done.body.data?.url as string[];
		expect(resultUrls).toHaveLength(2);
		const downloaded = await get(resultUrls[1]);
		expect(downloaded.type).toBe('image/png');
		expect(readPngSize(downloaded.body)).toEqual({ width: 2560, height: 1440 });
	});

	it('serves a real MP4 for videos, and a last frame when asked', async () => {
		const created = await postForm(context.sim.url, V2, [
			...src(1),
			['return_last_frame', '1'],
			['duration', '10'],
			['resolution', '480p'],
		]);
		const info = await postJson(context.sim.url, '/v1/tlvideo/infobytaskid', {
			taskid: created.body.data?.taskid,
			moreTaskInfo: false,
		});
		expect(info.body.data).toMatchObject({ task_status: 2, duration: 10, resolution: '480p' });
		const [video, lastFrame] = info.body.data?.url as string[];
		const mp4 = await get(video);
		expect(mp4.type).toBe('video/mp4');
		expect(mp4.body.subarray(4, 8).toString('ascii')).toBe('ftyp');
		expect((await get(lastFrame)).type).toBe('image/png');
	});

	it('fails, never finishes, or reports empty URLs as the outcome hook says', async () => {
		const outcomes = ['fail', 'never', 'emptyUrls', 'infoError'] as const;
		context.sim.taskOutcome = ({ index }) => outcomes[index % 4];
		const ids: string[] = [];
		for (let i = 0; i < 4; i++) {
			ids.push(String((await postForm(context.sim.url, B4, [['prompt', 'x']])).body.data?.taskid));
		}
		const infos = await Promise.all(
			ids.map(async (taskid) => (await postJson(context.sim.url, '/v1/tlimages/infobytaskid', { taskid })).body),
		);
		const byOutcome = new Map(ids.map((id, i) => [context.sim.tasks.get(id)!.outcome, infos[i]]));
		expect(byOutcome.get('fail')?.data).toMatchObject({ image_status: 3, url: [] });
		expect(byOutcome.get('never')?.data).toMatchObject({ image_status: 1, url: [] });
		expect(byOutcome.get('emptyUrls')?.data).toMatchObject({ image_status: 2, url: [] });
		expect(byOutcome.get('infoError')).toEqual({
			code: 9999,
			msg: expect.stringMatching(/failed: content moderation/),
		});
	});
});

describe('simulator: fault injection and the record', () => {
	it('applies status, HTML, malformed, delay and drop faults to matching requests only', async () => {
		const path = '/v1/tlimages/infobytaskid';
		context.sim.inject({ path, action: { type: 'status', status: 503 } });
		context.sim.inject({ path, action: { type: 'html', status: 502 } });
		context.sim.inject({ path, action: { type: 'malformed' } });
		context.sim.inject({ path, action: { type: 'delay', ms: 150 } });
		expect((await postJson(context.sim.url, path, { taskid: 'x' })).status).toBe(503);
		await expect(postJson(context.sim.url, path, { taskid: 'x' })).rejects.toThrow(); // HTML is not JSON
		await expect(postJson(context.sim.url, path, { taskid: 'x' })).rejects.toThrow(); // malformed JSON
		const started = Date.now();
		expect((await postJson(context.sim.url, path, { taskid: 'x' })).body.msg).toMatch(/not found/);
		expect(Date.now() - started).toBeGreaterThanOrEqual(140);
		context.sim.inject({ path: /tlvideo/, action: { type: 'drop' } });
		await expect(postJson(context.sim.url, '/v1/tlvideo/infobytaskid', { taskid: 'x' })).rejects.toThrow(
			/socket hang up|ECONNRESET/,
		);
		expect(context.sim.requests(path).map((r) => r.fault)).toEqual(['status', 'html', 'malformed', 'delay']);
		expect(context.sim.requests(path)[1].status).toBe(502);
	});

	it('a late fault handles the request at once and answers it later: the task exists, its render under way', async () => {
		context.sim.inject({ path: B4, action: { type: 'late', ms: 300 } });
		const created = await postForm(context.sim.url, B4, [
			['category', 'betav4'],
			['prompt', 'a cat'],
		]);
		const answered = Date.now();
		const taskid = (created.body.data as { taskid: string }).taskid;
		expect(answered - context.sim.tasks.get(taskid)!.createdAt).toBeGreaterThanOrEqual(290);
		expect(context.sim.requests(B4).map((r) => r.fault)).toEqual(['late']);
	});

	it('records headers, fields and files of multipart requests', async () => {
		await postForm(context.sim.url, P, [
			...pro,
			['image', png(16, 16, 'one.png')],
			['image', file('two.jpg', 'image/jpeg')],
			['imageUrl', urls(2)],
		]);
		const [request] = context.sim.requests(P);
		expect(request.headers.authorization).toBe(DEFAULT_SIM_KEY);
		expect(request.fields).toEqual({ model: ['proimg-2'], prompt: ['a cat'], imageUrl: [urls(2)] });
		expect(request.files.map(({ field, filename, contentType }) => ({ field, filename, contentType }))).toEqual([
			{ field: 'image', filename: 'one.png', contentType: 'image/png' },
			{ field: 'image', filename: 'two.jpg', contentType: 'image/jpeg' },
		]);
		expect(allText(context.sim.requests(P)[0].fields)).not.toContain(DEFAULT_SIM_KEY);
	});
});

describe('switches for trying error branches offline', () => {
	const create = async (prompt: string) =>
		await postForm(context.sim.url, B4, [
			['category', 'betav4'],
			['prompt', prompt],
		]);
	const info = async (taskid: string) => await postJson(context.sim.url, '/v1/tlimages/infobytaskid', { taskid });

	it('[sim:fail] ends the task with status 3, [sim:empty] without result URLs', async () => {
		const failed = await create('a cat [sim:fail]');
		const empty = await create('a cat [sim:empty]');
		expect((await info(String(failed.body.data?.taskid))).body.data).toMatchObject({ image_status: 3, url: [] });
		expect((await info(String(empty.body.data?.taskid))).body.data).toMatchObject({ image_status: 2, url: [] });
	});

	it('[sim:refuse] answers the info call 9999 once the task is done', async () => {
		const refused = await create('a cat [sim:refuse]');
		expect((await info(String(refused.body.data?.taskid))).body).toMatchObject({
			code: 9999,
			msg: expect.stringMatching(/content moderation/),
		});
	});

	it('[sim:credits] answers the creation 9000 and charges nothing; [sim:never] and [sim:seconds=N] keep a task running', async () => {
		const before = context.sim.credits.get(DEFAULT_SIM_KEY);
		expect((await create('a cat [sim:credits]')).body).toEqual({ code: 9000, msg: 'Insufficient credits' });
		expect(context.sim.credits.get(DEFAULT_SIM_KEY)).toBe(before);
		const never = await create('a cat [sim:never]');
		const slow = await create('a cat [sim:seconds=30]');
		expect((await info(String(never.body.data?.taskid))).body.data).toMatchObject({ url: [] });
		expect((await info(String(slow.body.data?.taskid))).body.data).toMatchObject({ image_status: 0, url: [] });
	});

	it('SIM_FAIL_EVERY, SIM_REFUSE_EVERY and SIM_NEVER_EVERY decide every n-th task of `npm run simulator`', async () => {
		const simulator = await startSimulator({ taskDurationMs: 0 }, { SIM_FAIL_EVERY: '2', SIM_REFUSE_EVERY: '3' });
		try {
			const statuses: Array<number | string> = [];
			for (let index = 0; index < 4; index++) {
				const created = await postForm(simulator.url, B4, [['prompt', `task ${index}`]], simulator.credentials.apiKey);
				const answer = await postJson(
					simulator.url,
					'/v1/tlimages/infobytaskid',
					{ taskid: created.body.data?.taskid },
					simulator.credentials.apiKey,
				);
				statuses.push(answer.body.code === 1000 ? Number(answer.body.data?.image_status) : 'refused');
			}
			expect(statuses).toEqual([2, 3, 'refused', 3]);
		} finally {
			simulator.child.kill();
		}
	});
});
