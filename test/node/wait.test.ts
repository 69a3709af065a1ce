import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { readBinary, runNode } from '../harness';
import { readPngSize } from '../simulator/png';
import { allText, betav4Parameters, createTaskDirect, DEFAULT_SIM_KEY, ideaItems, useSimulator } from '../support';

const context = useSimulator();

const IMAGE_CREATE = '/v1/tlimages/betav4';
const IMAGE_INFO = '/v1/tlimages/infobytaskid';

const items = ideaItems;

const betav4 = (options: INodeParameters = {}): INodeParameters =>
	betav4Parameters({ pollInterval: 0.1, maxWait: 10 }, options);

function infoCallsPerTask(): Map<string, number> {
	const counts = new Map<string, number>();
	for (const request of context.sim.requests(IMAGE_INFO)) {
		const id = (request.json as { taskid: string }).taskid;
		counts.set(id, (counts.get(id) ?? 0) + 1);
	}
	return counts;
}

describe('Wait for completion', () => {
	it('waits on 20 tasks together: lifetimes overlap, few polls per task, order and pairedItem kept', async () => {
		context.sim.taskDurationMs = 1000;
		const { output, error } = await runNode({
			parameters: betav4({ pollInterval: 0.5, maxConcurrency: 5 }),
			items: items(20),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(context.sim.requests(IMAGE_CREATE)).toHaveLength(20);
		const tasks = [...context.sim.tasks.values()].filter(
			(task) => task.plan.model === 'betav4' && task.createdAt >= context.sim.record[0].at,
		);
		expect(tasks).toHaveLength(20);
		const lastCreated = Math.max(...tasks.map((task) => task.createdAt));
		const firstDone = Math.min(...tasks.map((task) => task.firstReportedDoneAt ?? Infinity));
		expect(lastCreated).toBeLessThan(firstDone); // all 20 alive at once
		const calls = infoCallsPerTask();
		expect(calls.size).toBe(20);
		expect(Math.max(...calls.values())).toBeLessThanOrEqual(Math.ceil(1 / 0.5) + 2);
		expect(output).toHaveLength(20);
		expect(output.map((item) => item.pairedItem)).toEqual(Array.from({ length: 20 }, (_, item) => ({ item })));
		output.forEach((item, index) => {
			expect(item.json).toMatchObject({ status: 'completed', image_status: 2, request: { prompt: `idea ${index}` } });
			expect(item.json.urls).toEqual([expect.stringContaining(`/files/${String(item.json.taskid)}/0.png`)]);
		});
	});

	it('with On Timeout "Return Pending Task" outputs the id and last status', async () => {
		let created = 0;
		context.sim.taskOutcome = () => (created++ === 0 ? 'never' : 'succeed');
		const { output, error } = await runNode({
			parameters: betav4({ maxWait: 0.4, onTimeout: 'returnPending' }),
			items: items(2),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({
			taskid: expect.stringMatching(/^img-/),
			status: 'pending',
			lastStatus: 1,
			model: 'betav4',
		});
		expect(output[1].json.status).toBe('completed');
		expect(context.sim.requests(IMAGE_CREATE)).toHaveLength(2);
	});

	it('downloads results into binary data (PNG of the delivered size) without sending the key to the file host', async () => {
		const { output, error } = await runNode({
			parameters: {
				resource: 'image',
				operation: 'betav45',
				prompt: 'x',
				waitForCompletion: true,
				additionalFields: { batchsize: 2, resolution: '2560x1440' },
				options: { pollInterval: 0.1, downloadResults: true, binaryPropertyPrefix: 'image' },
			},
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		const binary = output[0].binary!;
		expect(Object.keys(binary)).toEqual(['image', 'image_1']);
		// Named after the task, not after the server's 0.png / 1.png, so merged items never collide.
		const taskId = String(output[0].json.taskid);
		expect(binary.image).toMatchObject({ mimeType: 'image/png', fileName: `${taskId}-0.png`, fileExtension: 'png' });
		expect(binary.image_1.fileName).toBe(`${taskId}-1.png`);
		expect(binary.image.id).toMatch(/^filesystem/); // stored by n8n's filesystem mode
		expect(readPngSize(await readBinary(binary.image_1))).toEqual({ width: 2560, height: 1440 });
		expect(context.sim.requests('/v1/tlimages/betav45')).toHaveLength(1);
		const downloads = context.sim.requests(/^\/files\//);
		expect(downloads).toHaveLength(2);
		for (const download of downloads) expect(download.headers.authorization).toBeUndefined();
		expect(allText(output)).not.toContain(DEFAULT_SIM_KEY);
	});

	it('downloads an MP4 for a video and splits results into items', async () => {
		const frame = (await import('../harness')).storeBinary;
		const png = (await import('../simulator/png')).makePng;
		const item: INodeExecutionData = { json: {}, binary: { data: await frame(png(32, 18), 'f.png', 'image/png') } };
		const { output, error } = await runNode({
			parameters: {
				resource: 'video',
				operation: 'alphav2mini',
				prompt: 'x',
				imageInput: 'properties',
				binaryPropertyNames: 'data',
				waitForCompletion: true,
				additionalFields: { returnLastFrame: true },
				options: { pollInterval: 0.1, downloadResults: true, splitIntoItems: true },
			},
			items: [item],
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(context.sim.requests('/v1/tlvideo/alphav2mini')).toHaveLength(1);
		expect(output).toHaveLength(2);
		expect(output.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
		expect(output[0].binary!.data).toMatchObject({
			mimeType: 'video/mp4',
			fileName: `${String(output[0].json.taskid)}-0.mp4`,
		});
		const mp4 = await readBinary(output[0].binary!.data);
		expect(mp4.subarray(4, 8).toString('ascii')).toBe('ftyp');
		expect(output[1].binary!.data).toMatchObject({
			mimeType: 'image/png',
			fileName: `${String(output[0].json.taskid)}-1.png`,
		});
		expect(output[0].json).toMatchObject({
			status: 'completed',
			task_status: 2,
			resultIndex: 0,
			url: expect.stringMatching(/0\.mp4$/),
		});
	});
});

describe('Task → Wait', () => {
	it('resumes waiting on existing image and video task ids', async () => {
		context.sim.taskDurationMs = 300;
		const image = await createTaskDirect(context.sim.url, 'image');
		const video = await createTaskDirect(context.sim.url, 'video');
		context.sim.resetRecord();
		const waitFor = (taskType: string, taskId: string) =>
			runNode({
				parameters: {
					resource: 'task',
					operation: 'wait',
					taskType,
					taskId,
					moreTaskInfo: true,
					options: { pollInterval: 0.1 },
				},
				credentials: context.credentials(),
			});
		const imageRun = await waitFor('image', image);
		const videoRun = await waitFor('video', video);
		expect(imageRun.output[0].json).toMatchObject({
			taskid: image,
			status: 'completed',
			taskType: 'image',
			width: 1024,
		});
		expect(videoRun.output[0].json).toMatchObject({
			taskid: video,
			status: 'completed',
			taskType: 'video',
			source: 'api',
		});
		expect(
			context.sim
				.requests(/tlvideo\/infobytaskid/)
				.every((r) => (r.json as { moreTaskInfo: boolean }).moreTaskInfo === true),
		).toBe(true);
		expect(context.sim.requests(/proimage|betav|gamma|alpha/)).toHaveLength(0);
	});
});
