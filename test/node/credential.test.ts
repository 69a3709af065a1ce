import { MediaGenApi } from '../../credentials/MediaGenApi.credentials';
import { runNode, testCredential } from '../harness';
import { createTaskDirect, DEFAULT_SIM_KEY, useSimulator } from '../support';

const context = useSimulator();

describe('MediaGen API credential', () => {
	const credential = new MediaGenApi();

	it('authenticates with the raw key in Authorization', () => {
		expect(credential.authenticate).toEqual({
			type: 'generic',
			properties: { headers: { Authorization: '={{$credentials.apiKey}}' } },
		});
	});

	it.each(['', '/', '//', '/v1', '/v1/', '/V1'])(
		'its test passes with the right key and Base URL + "%s" (run by n8n-core’s RoutingNode)',
		async (suffix) => {
			const result = await testCredential({ apiKey: DEFAULT_SIM_KEY, baseUrl: `${context.sim.url}${suffix}` });
			expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
			const [request] = context.sim.requests();
			expect(request).toMatchObject({ path: '/v1/tlimages/infobytaskid', json: { taskid: 'n8n-credential-test' } });
			expect(request.headers.authorization).toBe(DEFAULT_SIM_KEY);
			expect(context.sim.tasks.size).toBe(0); // harmless: nothing created
		},
	);

	it('a wrong key fails the test with a message that says what to fix, not only "Unauthorized"', async () => {
		const result = await testCredential({ apiKey: 'not-the-key', baseUrl: context.sim.url });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The API refused this API key \(HTTP 401 Unauthorized\)\. Check the API Key/);
		expect(result.message).not.toContain('not-the-key');
	});

	it('a Base URL that points elsewhere on the host fails with a Base URL hint (HTTP 404)', async () => {
		const result = await testCredential({ apiKey: DEFAULT_SIM_KEY, baseUrl: `${context.sim.url}/api` });
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^Nothing answers at this Base URL \(HTTP 404/),
		});
	});

	it.each(['/v1', '/v1/'])('every node request uses the same normalised Base URL (Base URL + "%s")', async (suffix) => {
		const taskId = await createTaskDirect(context.sim.url, 'image');
		context.sim.resetRecord();
		const { output, error } = await runNode({
			parameters: { resource: 'task', operation: 'get', taskType: 'image', taskId },
			credentials: { apiKey: DEFAULT_SIM_KEY, baseUrl: `${context.sim.url}${suffix}` },
		});
		expect(error).toBeUndefined();
		expect(output[0].json.taskid).toBe(taskId);
		expect(context.sim.requests().map((request) => request.path)).toEqual(['/v1/tlimages/infobytaskid']);
	});

	it('a Base URL with a trailing slash still reaches the API', async () => {
		const taskId = await createTaskDirect(context.sim.url, 'image');
		const { error } = await runNode({
			parameters: { resource: 'task', operation: 'get', taskType: 'image', taskId },
			credentials: { apiKey: DEFAULT_SIM_KEY, baseUrl: `${context.sim.url}/` },
		});
		expect(error).toBeUndefined();
	});
});
