/**
 * What the benchmark's cases share: the figure type, the measuring helpers, and the raw anchor (the loop of
 * docs/performance.md written by hand over one keep-alive agent, no engine at all: the fastest anyone could write).
 */
import http from 'node:http';

import type { INodeExecutionData, INodeType } from 'n8n-workflow';

import { runWorkflow, type WorkflowRunOptions } from '../../test/harness';

import type { SimulatorProcess } from './simulator';

export const MB = 1024 * 1024;

/** Runs the anchor node `anchor` alone in a workflow in the harness, with the harness's MediaGen credential. */
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

/** `value` (shown with `digits` decimals, then `more`) held to at most `limit`. */
export const atMost = (name: string, value: number, limit: number, more = '', digits = 2): Figure => ({
	name,
	value: `${value.toFixed(digits)}${more}`,
	target: `≤ ${limit}`,
	pass: value <= limit,
});

/** A peak RSS growth of `bytes` (shown in MB, then `more`) held to at most `limitMb` MB. */
export const memory = (name: string, bytes: number, limitMb: number, more = ''): Figure => ({
	name,
	value: `${(bytes / MB).toFixed(1)} MB${more}`,
	target: `≤ ${limitMb} MB`,
	pass: bytes <= limitMb * MB,
});

/** Wall time `a` against `b` ("a ÷ b = ratio", then `more`), held to at most `limit`. */
export const ratio = (name: string, a: number, b: number, limit: number, more = ''): Figure => ({
	name,
	value: `${s(a)} ÷ ${s(b)} = ${(a / b).toFixed(2)}${more}`,
	target: `≤ ${limit}`,
	pass: a / b <= limit,
});

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

/** A POST to the simulator over the keep-alive agent: the answer's status and body; undefined if it failed. */
async function post(sim: SimulatorProcess, pathname: string, body: string, contentType: string) {
	const headers = {
		'content-type': contentType,
		authorization: sim.credentials.apiKey,
		'content-length': Buffer.byteLength(body),
	};
	return await new Promise<{ status: number; body: string }>((resolve, reject) => {
		const request = http.request(`${sim.url}${pathname}`, { method: 'POST', agent, headers }, (response) => {
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () =>
				resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
			);
			response.on('error', reject);
		});
		request.on('error', reject);
		request.end(body);
	}).catch(() => undefined);
}

/** `each` on every entry of `list` in turn (runs at once would share the machine), their results in one list. */
export async function inTurn<T, R>(list: readonly T[], each: (entry: T) => Promise<R[]>): Promise<R[]> {
	const all: R[] = [];
	for (const entry of list) all.push(...(await each(entry)));
	return all;
}

export const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The raw anchor: all creations at once, then rounds of "wait interval, poll all pending at once", for two minutes
 * at most. A creation that is refused (e.g. HTTP 429) is a failed item, as it is for an HTTP Request node.
 */
export async function anchorRun(
	sim: SimulatorProcess,
	count: number,
	intervalMs: number,
): Promise<{ wallMs: number; failed: number }> {
	const started = performance.now();
	const boundary = 'anchor-boundary-7d1c';
	const created = await Promise.all(
		Array.from({ length: count }, async (_, i) => {
			const body = `--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nanchor ${i}\r\n--${boundary}--\r\n`;
			const answer = await post(sim, '/v1/tlimages/betav4', body, `multipart/form-data; boundary=${boundary}`);
			if (answer?.status !== 200) return undefined;
			const envelope = JSON.parse(answer.body) as { code: number; data?: { taskid: string } };
			return envelope.code === 1000 ? envelope.data?.taskid : undefined;
		}),
	);
	let pending = created.filter((id): id is string => id !== undefined);
	const failed = count - pending.length;
	while (pending.length && performance.now() - started < 120_000) {
		await sleep(intervalMs);
		const done = await Promise.all(
			pending.map(async (taskid) => {
				const answer = await post(sim, '/v1/tlimages/infobytaskid', JSON.stringify({ taskid }), 'application/json');
				// Not 200: asked again next round.
				return (
					answer?.status === 200 &&
					Boolean((JSON.parse(answer.body) as { data?: { url?: string[] } }).data?.url?.length)
				);
			}),
		);
		pending = pending.filter((_, index) => !done[index]);
	}
	return { wallMs: performance.now() - started, failed: failed + pending.length };
}

export const ideas = (count: number) => Array.from({ length: count }, (_, i) => `idea ${i}`);

export const items = (count: number): INodeExecutionData[] => ideas(count).map((idea) => ({ json: { idea } }));

/** How many times a case repeats its runs: `BENCH_REPEATS`, or the case's own default. */
export const repeatsOr = (fallback: number) => Math.max(1, Number(process.env.BENCH_REPEATS ?? fallback));

export const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** RSS after a full GC: the base line a memory figure is measured from. */
export function settle(): number {
	global.gc?.();
	return process.memoryUsage().rss;
}
