import { runNode } from '../harness';
import { allText, createTaskDirect, DEFAULT_SIM_KEY, useSimulator } from '../support';

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
		expect(output[0].json).toMatchObject({ taskid: taskId, image_status: 2, width: 1024, height: 1024 });
		expect(output[0].json.url).toEqual([expect.stringMatching(new RegExp(`/files/${taskId}/0\\.png$`))]);
		expect(output[0].pairedItem).toEqual({ item: 0 });
		const [request] = context.sim.requests();
		expect(request.path).toBe('/v1/tlimages/infobytaskid');
		expect(request.headers.authorization).toBe(DEFAULT_SIM_KEY);
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.json).toEqual({ taskid: taskId });
	});
});
