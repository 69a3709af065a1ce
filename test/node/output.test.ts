/**
 * One output shape for every operation, the node's fields winning over the API's, result files as binary data,
 * and creation items that go into the Task operations as they are (the durable waiting loop).
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { readBinary, runNode } from '../harness';
import { readPngSize } from '../simulator/png';
import { allText, createTaskDirect, DEFAULT_SIM_KEY, useSimulator } from '../support';

const context = useSimulator();

const IMAGE_CREATE = '/v1/tlimages/betav4';
const IMAGE_INFO = '/v1/tlimages/infobytaskid';

const betav4 = (parameters: INodeParameters = {}): INodeParameters => ({
	resource: 'image',
	operation: 'betav4',
	prompt: '={{ $json.idea }}',
	additionalFields: { batchsize: 2 },
	...parameters,
});
const ideas = (count: number): INodeExecutionData[] =>
	Array.from({ length: count }, (_, i) => ({ json: { idea: `idea ${i}` } }));
const keys = (json: IDataObject) => Object.keys(json);

describe('One output shape everywhere', () => {
	it('Create with and without waiting, Task → Get and Task → Wait: taskid, status, urls first, then info, taskType, model, request', async () => {
		const created = await runNode({
			parameters: betav4({ waitForCompletion: false }),
			items: ideas(1),
			credentials: context.credentials(),
		});
		const waited = await runNode({
			parameters: betav4({ options: { pollInterval: 0.1 } }),
			items: ideas(1),
			credentials: context.credentials(),
		});
		const taskId = String(created.output[0].json.taskid);
		const got = await runNode({
			parameters: { resource: 'task', operation: 'get' },
			items: created.output,
			credentials: context.credentials(),
		});
		const resumed = await runNode({
			parameters: { resource: 'task', operation: 'wait', options: { pollInterval: 0.1 } },
			items: created.output,
			credentials: context.credentials(),
		});
		for (const result of [created, waited, got, resumed]) expect(result.error).toBeUndefined();

		expect(created.output[0].json).toEqual({
			taskid: taskId,
			status: 'pending',
			urls: [],
			taskType: 'image',
			model: 'betav4',
			request: { category: 'betav4', prompt: 'idea 0', batchsize: 2 },
		});
		for (const json of [waited.output[0].json, got.output[0].json, resumed.output[0].json]) {
			expect(keys(json).slice(0, 3)).toEqual(['taskid', 'status', 'urls']);
			expect(json).toMatchObject({
				status: 'completed',
				image_status: 2,
				width: expect.any(Number),
				taskType: 'image',
			});
			expect(json.urls).toHaveLength(2);
			expect(json.url).toBeUndefined();
			expect(json.operation).toBeUndefined(); // model says it once
		}
		expect(got.output[0].json.taskid).toBe(taskId);
		// Task → Wait keeps the creation's model and request on the item; Get reports what the API knows.
		expect(resumed.output[0].json).toMatchObject({ taskid: taskId, model: 'betav4', request: { batchsize: 2 } });
		expect(keys(waited.output[0].json).slice(-3)).toEqual(['taskType', 'model', 'request']);
		expect(context.sim.requests(IMAGE_CREATE)).toHaveLength(2);
	});

	it('a numeric taskid in a creation answer comes out as a string (Wait off)', async () => {
		context.sim.inject({
			path: IMAGE_CREATE,
			action: { type: 'status', status: 200, body: JSON.stringify({ code: 1000, msg: 'ok', data: { taskid: 12345 } }) },
		});
		const { output, error } = await runNode({
			parameters: betav4({ waitForCompletion: false }),
			items: ideas(1),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(output[0].json.taskid).toBe('12345');
	});

	it('an info answer naming another task, or carrying status/urls fields, never replaces the item’s own fields', async () => {
		const taskId = await createTaskDirect(context.sim.url, 'image');
		const hostile = {
			taskid: 'someone-elses-task',
			status: 'weird',
			urls: ['https://elsewhere.example/x.png'],
			url: [`${context.sim.url}/files/${taskId}/0.png`],
			image_status: 2,
		};
		for (const operation of ['get', 'wait']) {
			context.sim.inject({
				path: IMAGE_INFO,
				action: { type: 'status', status: 200, body: JSON.stringify({ code: 1000, msg: 'ok', data: hostile }) },
			});
			const { output, error } = await runNode({
				parameters: {
					resource: 'task',
					operation,
					taskType: 'image',
					taskId,
					options: { pollInterval: 0.1, downloadResults: false },
				},
				credentials: context.credentials(),
			});
			expect(error).toBeUndefined();
			expect(output[0].json).toMatchObject({ taskid: taskId, status: 'completed', urls: hostile.url, image_status: 2 });
		}
	});

	it('downloads the results by default, and keeps the URLs in the JSON', async () => {
		const { output, error } = await runNode({
			parameters: betav4({ options: { pollInterval: 0.1 } }),
			items: ideas(1),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(Object.keys(output[0].binary ?? {})).toEqual(['data', 'data_1']);
		expect(output[0].json.urls).toHaveLength(2);
		expect(context.sim.requests(/^\/files\//)).toHaveLength(2);
	});
});

describe('Result files', () => {
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

describe('Durable waiting loop: create without waiting → (Wait node) → Task → Wait → IF pending → back', () => {
	it('items go round as they are, keep their task ids and pairing, and nothing is created twice', async () => {
		context.sim.taskDurationMs = 1500;
		const created = await runNode({
			parameters: betav4({ waitForCompletion: false }),
			items: ideas(3),
			credentials: context.credentials(),
		});
		expect(created.error).toBeUndefined();
		const ids = created.output.map((item) => item.json.taskid);

		// Task → Wait with its defaults (Task ID from $json.taskid, Task Type from the item) and a short Max Wait.
		const wait = {
			resource: 'task',
			operation: 'wait',
			options: { pollInterval: 0.1, maxWait: 0.3, onTimeout: 'returnPending' },
		};
		let items: INodeExecutionData[] = created.output.map(({ json }) => ({ json }));
		const rounds: string[][] = [];
		for (let round = 0; round < 20 && items.some((item) => item.json.status === 'pending'); round++) {
			const { output, error } = await runNode({ parameters: wait, items, credentials: context.credentials() });
			expect(error).toBeUndefined();
			expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
			expect(output.map((item) => item.json.taskid)).toEqual(ids);
			rounds.push(output.map((item) => String(item.json.status)));
			items = output.map(({ json, binary }) => ({ json, ...(binary ? { binary } : {}) }));
		}
		expect(rounds[0]).toEqual(['pending', 'pending', 'pending']); // the IF node's test: status is "pending"
		expect(rounds.at(-1)).toEqual(['completed', 'completed', 'completed']);
		expect(items.every((item) => Object.keys(item.binary ?? {}).length === 2)).toBe(true);
		expect(items[2].json).toMatchObject({ model: 'betav4', request: { prompt: 'idea 2' }, taskType: 'image' });
		expect(context.sim.requests(IMAGE_CREATE)).toHaveLength(3);
	});

	it('Task → Delete takes the creation items as they are', async () => {
		const created = await runNode({
			parameters: betav4({ waitForCompletion: false }),
			items: ideas(2),
			credentials: context.credentials(),
		});
		const { output, error } = await runNode({
			parameters: { resource: 'task', operation: 'delete', combineItems: true },
			items: created.output,
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		const ids = created.output.map((item) => item.json.taskid);
		expect(output).toEqual([
			{
				json: {
					status: 'deleted',
					message: 'deleted 2 task(s) successfully',
					taskids: ids,
					taskType: 'image',
					deleted: ids,
					alreadyGone: [],
				},
				pairedItem: [{ item: 0 }, { item: 1 }],
			},
		]);
	});
});
