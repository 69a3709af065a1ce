import { MediaGenApi } from '../../credentials/MediaGenApi.credentials';
import { DEFAULT_SIM_KEY, postJson, useSimulator } from '../support';

const context = useSimulator();

/** Evaluates a `={{ … }}` expression of the credential with `$credentials`, as n8n does for the test request. */
function resolve(expression: string, credentials: Record<string, string>): string {
	const body = /^=\{\{(.*)\}\}$/s.exec(expression)?.[1];
	if (!body) return expression;
	return new Function('$credentials', `return (${body});`)(credentials) as string;
}

describe('MediaGen API credential', () => {
	const credential = new MediaGenApi();

	it('authenticates with the raw key in Authorization', () => {
		expect(credential.authenticate).toEqual({ type: 'generic', properties: { headers: { Authorization: '={{$credentials.apiKey}}' } } });
	});

	it('its test request passes with the right key and fails with a wrong one, against the simulator', async () => {
		const request = credential.test.request;
		const baseUrl = resolve(String(request.baseURL), { baseUrl: `${context.sim.url}//`, apiKey: DEFAULT_SIM_KEY });
		expect(baseUrl).toBe(context.sim.url);
		const right = await postJson(baseUrl, String(request.url), request.body, DEFAULT_SIM_KEY);
		expect(right.status).toBe(200);
		const wrong = await postJson(baseUrl, String(request.url), request.body, 'not-the-key');
		expect(wrong.status).toBe(401);
		expect(wrong.body.msg).toMatch(/invalid or missing API key/);
		expect(context.sim.requests().map((r) => r.path)).toEqual(['/v1/tlimages/infobytaskid', '/v1/tlimages/infobytaskid']);
		expect(context.sim.tasks.size).toBe(0); // harmless: nothing created
	});
});
