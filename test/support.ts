/**
 * Shared test plumbing: a simulator per test file, a raw client that does not go through the node, parameter
 * and item builders, and the purpose-built servers of the misbehaving-API tests.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import FormData from 'form-data';
import http from 'node:http';

import type { RunResult } from './harness';
import { HostileServer, sendJson, type HostileRequest } from './hostile-server';
import { makePng } from './simulator/png';
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

/** The wire paths most tests watch: the beta v4 creation and the image info call. */
export const BETAV4_PATH = '/v1/tlimages/betav4';
export const INFO_PATH = '/v1/tlimages/infobytaskid';

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

// The builders below load the harness (and with it n8n-core) only when called, so that the simulator's own
// tests, which use this file too, do not pay for loading n8n's engine.

/** An item with one PNG per binary property, of the given width and height, named `<property>.png`. */
export async function pngItem(
	properties: Record<string, [number, number]>,
	json: IDataObject = {},
): Promise<INodeExecutionData> {
	const { storeBinary } = await import('./harness');
	const binary: INodeExecutionData['binary'] = {};
	for (const [name, [width, height]] of Object.entries(properties)) {
		binary[name] = await storeBinary(makePng(width, height), `${name}.png`, 'image/png');
	}
	return { json, binary };
}

/** An item with `count` 32x18 PNG frames in the binary properties frame0, frame1, … (video source images). */
export async function framesItem(count: number): Promise<INodeExecutionData> {
	const { storeBinary } = await import('./harness');
	const binary: INodeExecutionData['binary'] = {};
	for (let i = 0; i < count; i++)
		binary[`frame${i}`] = await storeBinary(makePng(32, 18), `frame${i}.png`, 'image/png');
	return { json: {}, binary };
}

/** The Binary Property Names of the first `count` frames of {@link framesItem}: "frame0,frame1,…". */
export const frameNames = (count: number): string => Array.from({ length: count }, (_, i) => `frame${i}`).join(',');

/** The key the hostile API servers are called with (not the simulator's). */
export const HOSTILE_KEY = 'Zq9kHostileKey-0123456789abcdef';

export interface ApiBehaviour {
	/** Answers creation number `index` (0-based, in arrival order). */
	create?: (request: HostileRequest, response: http.ServerResponse, index: number) => unknown;
	info?: (request: HostileRequest, response: http.ServerResponse, taskId: string) => unknown;
	file?: (request: HostileRequest, response: http.ServerResponse, name: string) => unknown;
}

/**
 * Purpose-built servers for misbehaving-API tests: `server` is the Base URL, `other` a second host (a redirect
 * target). Both start before the tests of the file (or describe block) that calls this and stop after them.
 */
export function useHostileApi(): {
	server: HostileServer;
	other: HostileServer;
	/** A well-behaved API by default: tasks `task-<n>`, done at once, one PNG result each; `behaviour` overrides parts. */
	useApi: (behaviour?: ApiBehaviour) => void;
	/** Runs the node on `count` idea items against `server`, with {@link HOSTILE_KEY}. */
	run: (parameters: INodeParameters, count?: number, continueOnFail?: boolean) => Promise<RunResult>;
	/** A beta v4 creation with short waits, one request at a time. */
	betav4: (options?: INodeParameters, wait?: boolean) => INodeParameters;
} {
	const server = new HostileServer(() => {});
	const other = new HostileServer(() => {});

	beforeAll(async () => {
		await server.start();
		await other.start();
	});
	afterAll(async () => {
		await server.stop();
		await other.stop();
	});

	function useApi(behaviour: ApiBehaviour = {}): void {
		let created = 0;
		server.requests.length = 0;
		other.requests.length = 0;
		server.setHandler((request, response) => {
			if (request.path.startsWith('/v1/tl') && !request.path.endsWith('infobytaskid')) {
				const index = created++;
				if (behaviour.create) return behaviour.create(request, response, index);
				return sendJson(response, { code: 1000, msg: 'ok', data: { taskid: `task-${index}` } });
			}
			if (request.path.endsWith('infobytaskid')) {
				const taskId = String(request.json?.taskid ?? '');
				if (behaviour.info) return behaviour.info(request, response, taskId);
				if (!/^task-\d+$/.test(taskId)) return sendJson(response, { code: 9999, msg: 'task not found' });
				return sendJson(response, {
					code: 1000,
					msg: 'ok',
					data: { taskid: taskId, image_status: 2, url: [`${server.url}/files/${taskId}.png`] },
				});
			}
			if (request.path.startsWith('/files/')) {
				const name = request.path.slice('/files/'.length);
				if (behaviour.file) return behaviour.file(request, response, name);
				const png = makePng(8, 8);
				response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
				return response.end(png);
			}
			response.writeHead(404);
			return response.end();
		});
	}

	const betav4 = (options: INodeParameters = {}, wait = true): INodeParameters =>
		betav4Parameters({ pollInterval: 0.05, maxWait: 5, maxConcurrency: 1, requestTimeout: 5 }, options, wait);

	async function run(parameters: INodeParameters, count = 1, continueOnFail = false): Promise<RunResult> {
		const { runNode } = await import('./harness');
		return await runNode({
			parameters,
			items: ideaItems(count),
			credentials: { apiKey: HOSTILE_KEY, baseUrl: server.url },
			continueOnFail,
		});
	}

	return { server, other, useApi, run, betav4 };
}

/** A hostile-server handler that answers `status` with a Location header pointing at `target()`. */
export const redirectTo =
	(target: () => string, status = 307) =>
	(_request: HostileRequest, response: http.ServerResponse) => {
		response.writeHead(status, { location: target() });
		response.end();
	};

/** A stopping error's message and description, one per line. */
export function errorText(result: RunResult): string {
	const error = result.error as { message?: string; description?: string } | undefined;
	return `${error?.message ?? ''}\n${error?.description ?? ''}`;
}

/**
 * The longest the test process could not run while a measurement ran (sampled every 10 ms): on a machine loaded by
 * other work, a check or an answer is late by that much whatever the node does, so timing bounds add it.
 */
export function loopStalls(): { stop: () => number } {
	const sampleMs = 10;
	let last = Date.now();
	let longest = 0;
	const timer = setInterval(() => {
		const now = Date.now();
		longest = Math.max(longest, now - last - sampleMs);
		last = now;
	}, sampleMs);
	return {
		stop: () => {
			clearInterval(timer);
			return Math.max(0, longest);
		},
	};
}

/**
 * The workflow's static data after a run is what it was before (`before`: its JSON then), and n8n was not told it
 * changed (n8n saves the whole column only when a node changed it). Reading it makes n8n add an empty `global`
 * entry, unmarked: that is n8n's, not a change.
 */
export function expectStaticDataAsItWas(staticData: IDataObject, before: string): void {
	const { global, ...rest } = staticData;
	const read = global !== undefined && JSON.stringify(global) === '{}' && !JSON.parse(before).global;
	expect(JSON.stringify(read ? rest : staticData)).toBe(before);
	expect((staticData as { __dataChanged?: boolean }).__dataChanged).toBe(false);
}
