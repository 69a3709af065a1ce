import { NodeHelpers } from 'n8n-workflow';

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

describe('a Base URL the paths cannot be appended to is refused before anything is sent (issue 18, point 11)', () => {
	const credential = new MediaGenApi();
	const notice = credential.properties.find((property) => property.name === 'baseUrlNotice')!;
	const malformed = (port: string): Array<[string, string, RegExp]> => [
		['a query string', `http://127.0.0.1:${port}?tenant=1`, /must not contain a query string/],
		['a query string after /v1', `http://127.0.0.1:${port}/v1?tenant=1`, /must not contain a query string/],
		['a fragment', `http://127.0.0.1:${port}#api`, /must not contain a fragment/],
		['no scheme', `127.0.0.1:${port}`, /must be an absolute address that starts with http:\/\/ or https:\/\//],
		['a host name only', 'api.example.com', /must be an absolute address that starts with http:\/\/ or https:\/\//],
		[
			'another scheme',
			`ftp://127.0.0.1:${port}`,
			/must be an absolute address that starts with http:\/\/ or https:\/\//,
		],
	];

	it.each(malformed('PORT'))(
		'Base URL with %s: the node refuses it, naming the field, value and rule',
		async (_name, pattern, rule) => {
			const baseUrl = pattern.replace('PORT', new URL(context.sim.url).port);
			const { error } = await runNode({
				parameters: { resource: 'image', operation: 'betav4', prompt: 'a lighthouse', waitForCompletion: false },
				credentials: { apiKey: DEFAULT_SIM_KEY, baseUrl },
			});
			expect(error?.name).toBe('NodeOperationError');
			expect(error?.message).toMatch(/^Item 0: "Credential › Base URL" /);
			expect(error?.message).toMatch(rule);
			expect(error?.message).toContain(`got ${JSON.stringify(baseUrl)}`);
			expect((error as { description?: string }).description).toBe(
				'Correct the Base URL field of the MediaGen API credential. Nothing was sent to the API for this item.',
			);
			expect(context.sim.requests()).toHaveLength(0);
		},
	);

	it.each([
		['a query string', '?tenant=1'],
		['a fragment', '#api'],
	])('the credential test with %s sends nothing (not the key to the API’s root) and fails', async (_name, suffix) => {
		const result = await testCredential({ apiKey: DEFAULT_SIM_KEY, baseUrl: `${context.sim.url}${suffix}` });
		expect(result.status).toBe('Error');
		expect(context.sim.requests()).toHaveLength(0);
	});

	it('the credential shows a notice under a Base URL the node would refuse, and none under a usable one', () => {
		const shown = (baseUrl: string) => NodeHelpers.displayParameter({ baseUrl }, notice, null, null);
		for (const [, baseUrl] of malformed('8080')) expect([baseUrl, shown(baseUrl)]).toEqual([baseUrl, true]);
		for (const baseUrl of ['', 'https://api.example.com', ' https://api.example.com/v1/ ', 'http://127.0.0.1:8080'])
			expect([baseUrl, shown(baseUrl)]).toEqual([baseUrl, false]);
	});
});
