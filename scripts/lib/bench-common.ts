/**
 * What the benchmark's cases share (scripts/bench.ts, scripts/lib/bench-results.ts): the figure type, the
 * measuring helpers and the raw anchor (a keep-alive HTTP client with no engine at all, the fastest loop anyone
 * could write by hand, kept as a reference next to the HTTP Request loop of bench-loop.ts).
 */
import http from 'node:http';

import type { INodeExecutionData, INodeType } from 'n8n-workflow';

import { runWorkflow, type WorkflowRunOptions } from '../../test/harness';

import type { SimulatorProcess } from './simulator';

export const MB = 1024 * 1024;

/** The editor description of a node the bench runs beside MediaGen as an anchor (one input, one output). */
export function anchorDescription(displayName: string, name: string, description: string): INodeType['description'] {
	return {
		displayName,
		name,
		group: ['transform'],
		version: 1,
		description,
		defaults: { name: displayName },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'mediaGenApi', required: true }],
		properties: [],
	} as unknown as INodeType['description'];
}

/**
 * Runs `anchor`, an anchor node of type `type`, alone in a workflow in the harness, with the MediaGen credential
 * the harness provides: its output items, and the run's error.
 */
export async function runAnchor(type: string, anchor: INodeType, options: WorkflowRunOptions) {
	const node = {
		id: type,
		name: anchor.description.displayName,
		type,
		typeVersion: 1,
		position: [0, 0] as [number, number],
		parameters: {},
		credentials: { mediaGenApi: { id: 'cred-1', name: 'MediaGen account' } },
	};
	const run = await runWorkflow({ nodes: [node], connections: {} }, { ...options, extraNodeTypes: { [type]: anchor } });
	const output: INodeExecutionData[] = run.data.resultData.runData[node.name]?.[0]?.data?.main?.[0] ?? [];
	return { output, error: run.data.resultData.error };
}

/** Added by the simulator to every answer (API and files): a remote service's round trip. */
export const RTT_MS = 150;

export interface Figure {
	name: string;
	value: string;
	target: string;
	pass: boolean | null;
}

/** A figure shown with no target. */
export const report = (name: string, value: string): Figure => ({ name, value, target: 'report', pass: null });

/** Wall time `a` against `b` ("a ÷ b = ratio", then `more`), held to at most `limit`. */
export const ratio = (name: string, a: number, b: number, limit: number, more = ''): Figure => ({
	name,
	value: `${s(a)} ÷ ${s(b)} = ${(a / b).toFixed(2)}${more}`,
	target: `≤ ${limit}`,
	pass: a / b <= limit,
});

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

async function raw(
	baseUrl: string,
	pathname: string,
	method: string,
	body?: string | Buffer,
	headers: http.OutgoingHttpHeaders = {},
): Promise<{ status: number; body: string }> {
	return await new Promise((resolve, reject) => {
		const request = http.request(
			`${baseUrl}${pathname}`,
			{ method, agent, headers: { ...headers, ...(body ? { 'content-length': Buffer.byteLength(body) } : {}) } },
			(response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('end', () =>
					resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
				);
				response.on('error', reject);
			},
		);
		request.on('error', reject);
		request.end(body);
	});
}

export const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The raw anchor: all creations at once, then rounds of "wait interval, poll all pending at once" over one
 * keep-alive agent, without n8n (no request helper, no binary storage). A creation that is refused (e.g. HTTP
 * 429) is a failed item, as it is for an HTTP Request node.
 */
export async function anchorRun(
	sim: SimulatorProcess,
	count: number,
	intervalMs: number,
	maxWaitMs = 120_000,
	prompts: string[] = Array.from({ length: count }, (_, i) => `anchor ${i}`),
	/** Also GET every finished task's files at once after each round (bodies read and dropped, not stored). */
	download = false,
): Promise<{ wallMs: number; failed: number }> {
	const started = performance.now();
	const boundary = 'anchor-boundary-7d1c';
	const created = await Promise.all(
		prompts.map(async (prompt) => {
			const body = `--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\n${prompt}\r\n--${boundary}--\r\n`;
			const answer = await raw(sim.url, '/v1/tlimages/betav4', 'POST', body, {
				'content-type': `multipart/form-data; boundary=${boundary}`,
				authorization: sim.credentials.apiKey,
			}).catch(() => undefined);
			if (answer?.status !== 200) return undefined;
			const envelope = JSON.parse(answer.body) as { code: number; data?: { taskid: string } };
			return envelope.code === 1000 ? envelope.data?.taskid : undefined;
		}),
	);
	let pending = created.filter((id): id is string => id !== undefined);
	const failed = count - pending.length;
	while (pending.length && performance.now() - started < maxWaitMs) {
		await sleep(intervalMs);
		const answers = await Promise.all(
			pending.map(async (taskid) => {
				const answer = await raw(sim.url, '/v1/tlimages/infobytaskid', 'POST', JSON.stringify({ taskid }), {
					'content-type': 'application/json',
					authorization: sim.credentials.apiKey,
				}).catch(() => undefined);
				if (answer?.status !== 200) return undefined; // try again next round
				const envelope = JSON.parse(answer.body) as { data?: { url?: string[] } };
				return envelope.data?.url?.length ? envelope.data.url : undefined;
			}),
		);
		pending = pending.filter((_, index) => !answers[index]);
		if (!download) continue;
		const urls = answers.flatMap((list) => list ?? []);
		await Promise.all(urls.map(async (url) => await raw(url, '', 'GET').catch(() => undefined)));
	}
	return { wallMs: performance.now() - started, failed: failed + pending.length };
}

export const items = (count: number): INodeExecutionData[] =>
	Array.from({ length: count }, (_, i) => ({ json: { idea: `idea ${i}` } }));

export const maxOf = (values: number[]) => values.reduce((max, value) => Math.max(max, value), -Infinity);
export const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Peak resident memory of this process since it started, in bytes. */
export function peakRss(): number {
	return process.resourceUsage().maxRSS * 1024;
}

/** RSS after a full GC: the base line a memory figure is measured from. */
export function settle(): number {
	global.gc?.();
	return process.memoryUsage().rss;
}
