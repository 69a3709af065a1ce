/**
 * What Task → Get and Task → Delete send (the info and delete endpoints, moreTaskInfo, uid, one request per
 * item or combined) and the fields they return. Task → Wait is in ../waiting.test.ts.
 */
import { runNode } from '../../harness';
import { createTaskDirect, DEFAULT_SIM_KEY, useSimulator } from '../../support';

const context = useSimulator();

describe('Task → Get', () => {
	it('queries an image task with the raw key as Authorization and returns the data fields', async () => {
		const taskId = await createTaskDirect(context.sim.url, 'image');
		context.sim.resetRecord();
		const { output, error } = await runNode({
			parameters: { resource: 'task', operation: 'get', taskType: 'image', taskId },
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(output).toHaveLength(1);
		// The same shape as Create and Wait: taskid, status, urls, then the info fields.
		expect(Object.keys(output[0].json).slice(0, 3)).toEqual(['taskid', 'status', 'urls']);
		expect(output[0].json).toMatchObject({
			taskid: taskId,
			status: 'completed',
			image_status: 2,
			width: 1024,
			height: 1024,
			taskType: 'image',
		});
		expect(output[0].json.urls).toEqual([expect.stringMatching(new RegExp(`/files/${taskId}/0\\.png$`))]);
		expect(output[0].json.url).toBeUndefined();
		expect(output[0].pairedItem).toEqual({ item: 0 });
		const [request] = context.sim.requests();
		expect(request.path).toBe('/v1/tlimages/infobytaskid');
		expect(request.headers.authorization).toBe(DEFAULT_SIM_KEY);
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.json).toEqual({ taskid: taskId });
	});
});

describe('Task → Get (video)', () => {
	it('sends moreTaskInfo and returns the extended fields', async () => {
		const taskId = await createTaskDirect(context.sim.url, 'video');
		context.sim.resetRecord();
		const { output, error } = await runNode({
			parameters: { resource: 'task', operation: 'get', taskType: 'video', taskId, moreTaskInfo: true },
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({
			taskid: taskId,
			task_status: 2,
			source: 'api',
			imageurl: 'https://example.com/a.png',
		});
		expect(context.sim.requests()[0]).toMatchObject({
			path: '/v1/tlvideo/infobytaskid',
			json: { taskid: taskId, moreTaskInfo: true },
		});
	});

	it('sends moreTaskInfo false by default', async () => {
		const taskId = await createTaskDirect(context.sim.url, 'video');
		context.sim.resetRecord();
		const { output } = await runNode({
			parameters: { resource: 'task', operation: 'get', taskType: 'video', taskId },
			credentials: context.credentials(),
		});
		expect(output[0].json.source).toBeUndefined();
		expect(context.sim.requests()[0].json).toEqual({ taskid: taskId, moreTaskInfo: false });
	});
});

describe('Task → Delete', () => {
	it('deletes image tasks with uid, one request per item', async () => {
		const [a, b, c] = [
			await createTaskDirect(context.sim.url, 'image'),
			await createTaskDirect(context.sim.url, 'image'),
			await createTaskDirect(context.sim.url, 'image'),
		];
		context.sim.resetRecord();
		const { output, error } = await runNode({
			parameters: {
				resource: 'task',
				operation: 'delete',
				taskType: 'image',
				taskIds: '={{ $json.ids }}',
				uid: 'user-7',
			},
			items: [{ json: { ids: `${a}, ${b}` } }, { json: { ids: [c] } }],
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(context.sim.requests().map((r) => [r.path, r.json])).toEqual([
			['/v1/tlimages/deleteimagestask', { taskids: [a, b], uid: 'user-7' }],
			['/v1/tlimages/deleteimagestask', { taskids: [c], uid: 'user-7' }],
		]);
		expect(output.map((item) => item.json)).toEqual([
			{ status: 'deleted', message: 'deleted 2 task(s) successfully', taskids: [a, b], taskType: 'image' },
			{ status: 'deleted', message: 'deleted 1 task(s) successfully', taskids: [c], taskType: 'image' },
		]);
		expect(output.map((item) => item.pairedItem)).toEqual([[{ item: 0 }], [{ item: 1 }]]);
		expect(context.sim.tasks.get(a)?.deleted).toBe(true);
		expect(context.sim.tasks.get(c)?.uid).toBe('user-7');
	});

	it('combines all items into one video delete request without uid', async () => {
		const [a, b] = [await createTaskDirect(context.sim.url, 'video'), await createTaskDirect(context.sim.url, 'video')];
		context.sim.resetRecord();
		const { output, error } = await runNode({
			parameters: {
				resource: 'task',
				operation: 'delete',
				taskType: 'video',
				taskIds: '={{ $json.id }}',
				combineItems: true,
			},
			items: [{ json: { id: a } }, { json: { id: b } }, { json: { id: a } }],
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		const requests = context.sim.requests();
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({ path: '/v1/tlvideo/deletevideotask', json: { taskids: [a, b] } });
		expect(output).toHaveLength(1);
		expect(output[0].pairedItem).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});
});
