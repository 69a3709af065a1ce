/** Shared test plumbing: a simulator per test file and a raw client that does not go through the node. */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';
import FormData from 'form-data';
import http from 'node:http';

import { DEFAULT_SIM_KEY, MediaGenSimulator, type SimulatorOptions } from './simulator/server';

export { DEFAULT_SIM_KEY };

/** Starts a simulator before the file's tests and stops it after; the record is cleared before each test. */
export function useSimulator(options: SimulatorOptions = {}): {
	sim: MediaGenSimulator;
	credentials: () => { apiKey: string; baseUrl: string };
} {
	const holder = { sim: new MediaGenSimulator(options) };
	beforeAll(async () => {
		await holder.sim.start();
	});
	afterAll(async () => {
		await holder.sim.stop();
	});
	beforeEach(() => {
		holder.sim.resetRecord();
		holder.sim.clearFaults();
		holder.sim.taskDurationMs = options.taskDurationMs ?? 0;
		holder.sim.taskOutcome = options.taskOutcome ?? (() => 'succeed');
		holder.sim.latencyMs = options.latencyMs ?? 0;
		holder.sim.rateLimitPerSecond = options.rateLimitPerSecond;
	});
	return {
		get sim() {
			return holder.sim;
		},
		credentials: () => ({ apiKey: DEFAULT_SIM_KEY, baseUrl: holder.sim.url }),
	};
}

export interface RawResponse {
	status: number;
	body: { code: number; msg: string; data?: Record<string, unknown> };
}

/** POSTs multipart with the independent `form-data` package. */
export async function postForm(
	baseUrl: string,
	path: string,
	fields: Array<[string, string | { data: Buffer; filename: string; contentType: string }]>,
	key: string | null = DEFAULT_SIM_KEY,
): Promise<RawResponse> {
	const form = new FormData();
	for (const [name, value] of fields) {
		if (typeof value === 'string') form.append(name, value);
		else form.append(name, value.data, { filename: value.filename, contentType: value.contentType });
	}
	const body = form.getBuffer();
	return await post(baseUrl, path, body, { ...form.getHeaders(), ...(key ? { authorization: key } : {}) });
}

export async function postJson(
	baseUrl: string,
	path: string,
	json: unknown,
	key: string | null = DEFAULT_SIM_KEY,
): Promise<RawResponse> {
	return await post(baseUrl, path, Buffer.from(JSON.stringify(json)), {
		'content-type': 'application/json',
		...(key ? { authorization: key } : {}),
	});
}

async function post(
	baseUrl: string,
	path: string,
	body: Buffer,
	headers: http.OutgoingHttpHeaders,
): Promise<RawResponse> {
	return await new Promise((resolve, reject) => {
		const request = http.request(
			`${baseUrl}${path}`,
			{ method: 'POST', headers: { ...headers, 'content-length': body.length } },
			(response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('end', () => {
					try {
						resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
					} catch (error) {
						reject(error);
					}
				});
			},
		);
		request.on('error', reject);
		request.end(body);
	});
}

/** Creates a task directly on the simulator (not through the node) and returns its id. */
export async function createTaskDirect(baseUrl: string, kind: 'image' | 'video'): Promise<string> {
	const response =
		kind === 'image'
			? await postForm(baseUrl, '/v1/tlimages/betav4', [['prompt', 'a lighthouse']])
			: await postForm(baseUrl, '/v1/tlvideo/alphav15pro', [['imageUrl', 'https://example.com/a.png']]);
	if (response.body.code !== 1000) throw new Error(`could not create a ${kind} task: ${response.body.msg}`);
	return String(response.body.data?.taskid);
}

/** Every string in an output or error, flattened, to check that the API key never appears. */
export function allText(value: unknown): string {
	return JSON.stringify(value, (_key, inner) =>
		inner instanceof Error ? { ...inner, message: inner.message, stack: inner.stack } : inner,
	);
}

/** Input items whose `idea` field feeds the `={{ $json.idea }}` prompt of the parameter builders below. */
export function ideaItems(count: number): INodeExecutionData[] {
	return Array.from({ length: count }, (_, i) => ({ json: { idea: `idea ${i}` } }));
}

/** A beta v4 creation with the prompt from each item; `options` over the suite's own defaults. */
export function betav4Parameters(
	defaults: INodeParameters,
	options: INodeParameters = {},
	wait = true,
): INodeParameters {
	return {
		resource: 'image',
		operation: 'betav4',
		prompt: '={{ $json.idea }}',
		waitForCompletion: wait,
		options: { ...defaults, ...options },
	};
}

/** A creation without waiting, for tests of what is sent. */
export function createParameters(
	resource: 'image' | 'video',
	operation: string,
	parameters: INodeParameters = {},
): INodeParameters {
	return { resource, operation, waitForCompletion: false, ...parameters };
}
