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
		// The items' requests go out side by side: in any order.
		expect(context.sim.requests().map((r) => [r.path, r.json])).toEqual(
			expect.arrayContaining([
				['/v1/tlimages/deleteimagestask', { taskids: [a, b], uid: 'user-7' }],
				['/v1/tlimages/deleteimagestask', { taskids: [c], uid: 'user-7' }],
			]),
		);
		expect(context.sim.requests()).toHaveLength(2);
		expect(output.map((item) => item.json)).toEqual([
			{
				status: 'deleted',
				message: 'deleted 2 task(s) successfully',
				taskids: [a, b],
				taskType: 'image',
				deleted: [a, b],
				alreadyGone: [],
			},
			{
				status: 'deleted',
				message: 'deleted 1 task(s) successfully',
				taskids: [c],
				taskType: 'image',
				deleted: [c],
				alreadyGone: [],
			},
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

describe('a task of the other type: "not found" says to check Task Type (issue 18, point 11)', () => {
	it.each([
		['Task → Get', 'get', {}],
		['Task → Wait', 'wait', { options: { pollInterval: 0.1, maxWait: 2 } }],
	])('%s of an image task with Task Type Video: the error says to choose Image', async (_name, operation, extra) => {
		const taskId = await createTaskDirect(context.sim.url, 'image');
		const { error } = await runNode({
			parameters: { resource: 'task', operation, taskType: 'video', taskId, ...extra },
			credentials: context.credentials(),
		});
		expect(error?.message).toBe(
			`The MediaGen API refused the request: task ${taskId} not found (task ${taskId}) [item 0]`,
		);
		expect((error as { description?: string }).description).toMatch(
			/Task Type is Video: if this is an image task, choose Task Type Image/,
		);
	});

	it('Task → Get with Task Type From Input Item names the item’s taskType', async () => {
		const taskId = await createTaskDirect(context.sim.url, 'video');
		const { error } = await runNode({
			parameters: { resource: 'task', operation: 'get', taskType: 'fromInput', taskId },
			items: [{ json: { taskid: taskId, taskType: 'image' } }],
			credentials: context.credentials(),
		});
		expect((error as { description?: string }).description).toMatch(
			/Task Type is "From Input Item" and the item's taskType is "image": if this is a video task, choose Task Type Video/,
		);
	});

	it('Task → Delete of an image task as a video task: not found counts as gone, and the warning says to choose Image', async () => {
		// The API answers "unknown task ids" alike for an id deleted before and for a task of the other type: deleting
		// is done either way (a second try must not fail on what a first one deleted), and the warning says both.
		const taskId = await createTaskDirect(context.sim.url, 'image');
		const { output, error } = await runNode({
			parameters: { resource: 'task', operation: 'delete', taskType: 'video', taskIds: taskId },
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ status: 'deleted', deleted: [], alreadyGone: [taskId] });
		expect(output[0].json.warning).toMatch(/found none of these task IDs.*choose Task Type Image/);
		expect(context.sim.tasks.get(taskId)?.deleted).toBeFalsy();
	});

	it('a task a creation just made is not second-guessed: its failed poll names no Task Type', async () => {
		context.sim.inject({
			path: '/v1/tlimages/infobytaskid',
			action: { type: 'status', status: 200, body: JSON.stringify({ code: 9999, msg: 'task not found' }) },
		});
		const { error } = await runNode({
			parameters: { resource: 'image', operation: 'betav4', prompt: 'a lighthouse', options: { pollInterval: 0.1 } },
			credentials: context.credentials(),
		});
		expect(error?.message).toMatch(/task not found/);
		expect((error as { description?: string }).description).not.toMatch(/Task Type/);
	});
});
