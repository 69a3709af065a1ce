/**
 * The runs the benchmark's cases time (the node at its defaults but what a case sets, and the HTTP Request loop of
 * bench-loop.ts, each checked complete), the prompts they run, and the `largeFiles` case: 20 results of 200 MB,
 * node against the loop.
 */
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runNode } from '../../test/harness';
import { MB, memory, repeatsOr, runAnchor, RTT_MS, s, settle, type Figure } from './bench-common';
import { median } from './learning-measure';
import { HTTP_LOOP_TYPE, HttpRequestLoopNode, type LoopSettings } from './bench-loop';
import { resetSimulator, startSimulator, type SimulatorProcess } from './simulator';

/** Prompts of render times `seconds(slot)`, in a stride order (item i is not the i-th shortest). */
export const stridedPrompts = (count: number, seconds: (slot: number) => number) =>
	// 263 is coprime with 500: every slot once, neighbours far apart.
	Array.from({ length: count }, (_, i) => `[sim:seconds=${seconds((i * 263) % count).toFixed(3)}] idea ${i}`);

/** Render times spread evenly over [from, to] seconds, in a stride order. */
export const spreadPrompts = (count: number, from: number, to: number) =>
	stridedPrompts(count, (slot) => from + ((to - from) * slot) / Math.max(1, count - 1));

/**
 * MediaGen at its defaults but the Poll Interval, Download Results and `options` (the raw anchor's cases turn
 * downloads off: the anchor does not download, so they compare waiting alone).
 */
export const nodeParameters = (
	intervalSeconds: number,
	download: boolean,
	options: IDataObject = {},
): INodeParameters => ({
	resource: 'image',
	operation: 'betav4',
	prompt: '={{ $json.idea }}',
	waitForCompletion: true,
	options: { pollInterval: intervalSeconds, ...(download ? {} : { downloadResults: false }), ...options },
});

/** More options, and the harness's `learned` ("kept" for a workflow's later runs) and `workflowId`. */
export interface NodeRunExtras {
	options?: IDataObject;
	learned?: 'fresh' | 'kept';
	workflowId?: string;
}

export async function nodeRun(
	sim: SimulatorProcess,
	prompts: string[],
	intervalMs: number,
	download: boolean,
	extras: NodeRunExtras = {},
): Promise<number> {
	const started = performance.now();
	const result = await runNode({
		parameters: nodeParameters(intervalMs / 1000, download, extras.options ?? {}),
		items: prompts.map((idea) => ({ json: { idea } })),
		credentials: sim.credentials,
		learned: extras.learned,
		workflowId: extras.workflowId,
	});
	const wallMs = performance.now() - started;
	const completed = result.output.filter(
		(item) => item.json.status === 'completed' && (!download || item.binary?.data),
	).length;
	if (result.error || completed !== prompts.length)
		throw new Error(`node run failed (${completed}/${prompts.length} completed): ${result.error?.message}`);
	return wallMs;
}

export async function loopRun(
	sim: Pick<SimulatorProcess, 'credentials'>,
	prompts: string[],
	intervalMs: number,
	download: boolean,
): Promise<number> {
	const settings: LoopSettings = { prompts, intervalMs, download };
	const started = performance.now();
	const { output, error } = await runAnchor(HTTP_LOOP_TYPE, new HttpRequestLoopNode(), {
		credentials: sim.credentials,
		items: [{ json: settings as never }],
		// The loop learns nothing, and must not make the process forget what the node's runs learned.
		learned: 'kept',
	});
	const wallMs = performance.now() - started;
	const summary = output[0]?.json as { failed?: number; completed?: number } | undefined;
	if (error || summary?.failed !== 0 || summary.completed !== prompts.length)
		throw new Error(`loop run failed (${JSON.stringify(summary)}): ${error?.message}`);
	return wallMs;
}

/** Deletes the binary files the runs stored in n8n-core's filesystem store (a large-files run writes gigabytes). */
export function clearBinaryStorage(filesStored = true): void {
	const folder = path.join(process.env.N8N_USER_FOLDER ?? '', '.n8n', 'storage', 'workflows');
	if (filesStored && !existsSync(folder))
		throw new Error(`no binary storage at ${folder}: the bench would fill the disk`);
	rmSync(folder, { recursive: true, force: true });
}

/**
 * Runs `work` while sampling this process's RSS every 10 ms (the process's own peak would hold earlier runs), then
 * deletes the files it stored; returns its highest sample over the base line before it (settle).
 */
export async function peakGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growth: number }> {
	const before = settle();
	let peak = process.memoryUsage.rss();
	const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
	try {
		const result = await work();
		const growth = Math.max(peak, process.memoryUsage.rss()) - before;
		clearBinaryStorage();
		return { result, growth };
	} finally {
		clearInterval(timer);
	}
}

export async function largeFilesCase(): Promise<Figure[]> {
	const count = 20;
	const size = 200 * MB;
	const interval = 1000;
	const sim = await startSimulator({ taskDurationMs: 1000, latencyMs: RTT_MS, resultBlobBytes: size });
	const prompts = Array.from({ length: count }, (_, i) => `large ${i}`);
	await nodeRun(sim, prompts.slice(0, 1), interval, true);
	await loopRun(sim, prompts.slice(0, 1), interval, true);
	clearBinaryStorage();
	const pairs: Array<{ node: number; loop: number; growth: number; loopGrowth: number }> = [];
	for (let repeat = 0; repeat < Math.min(repeatsOr(3), 2); repeat++) {
		// The node first: its memory is measured from a base line that no earlier loop run has raised.
		await resetSimulator(sim.url);
		const node = await peakGrowth(async () => await nodeRun(sim, prompts, interval, true));
		await resetSimulator(sim.url);
		const loop = await peakGrowth(async () => await loopRun(sim, prompts, interval, true));
		pairs.push({ node: node.result, loop: loop.result, growth: node.growth, loopGrowth: loop.growth });
	}
	sim.child.kill();
	const ratio = median(pairs.map((pair) => pair.node / pair.loop));
	// The first runs only: later ones start from a base line the earlier runs raised.
	const { growth, loopGrowth } = pairs[0];
	const memoryName = '   … peak RSS growth during the node’s first run (the loop’s first run in brackets)';
	const runs = pairs.map((pair) => `${(pair.node / 1000).toFixed(1)}/${(pair.loop / 1000).toFixed(1)}`).join(' ');
	return [
		{
			name: 'Large files, 20 results × 200 MB, RTT 150 ms, defaults: wall node ÷ HTTP Request loop',
			value: `${s(median(pairs.map((pair) => pair.node)))} ÷ ${s(median(pairs.map((pair) => pair.loop)))} = ${ratio.toFixed(2)} (median of ${pairs.length}: ${runs} s)`,
			target: '≤ 1.1',
			pass: ratio <= 1.1,
		},
		memory(memoryName, growth, 64, ` (loop: ${(loopGrowth / MB).toFixed(1)} MB)`),
	];
}
