/**
 * The benchmark's cases about results (scripts/bench.ts): the node at its defaults (Download Results on) against
 * the HTTP Request loop of bench-loop.ts, at a remote API's round trip, for many small files and for a few
 * huge ones.
 *
 * - spread: 500 images whose render times are spread over 3–7 s (in a mixed order, not sorted by item), Poll
 *   Interval 2 s, 150 ms added to every answer (API and files); with downloads (the default) and without. Each
 *   mode runs the loop and the node back to back several times (BENCH_REPEATS, default 3) and reports the
 *   median of the paired ratios: on a 2-core machine shared with other work one run can be off by a second. Then,
 *   reported beside them: when each created its last task, the raw keep-alive loop, and the same case with the
 *   render range shifted across one poll interval (one pair each), which averages out where the longest render
 *   happens to fall against each design's poll times.
 * - largeFiles: 20 results of 200 MB each, finished at the same time; wall time against the loop (median of
 *   two pairs), and the node's peak RSS growth in its first run, before any loop run (sampled every 10 ms during
 *   the run: the process's own peak would also hold the loop's).
 */
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';

import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode, runWorkflow } from '../../test/harness';
import { anchorRun, anchorWorkflowNode, MB, median, RTT_MS, s, settle, type Figure } from './bench-common';
import { HTTP_LOOP_TYPE, HttpRequestLoopNode, type LoopSettings } from './bench-loop';
import { resetSimulator, simulatorTasks, startSimulator, type SimulatorProcess } from './simulator';

const REPEATS = Math.max(1, Number(process.env.BENCH_REPEATS ?? 3));

/** Render times spread evenly over [from, to] seconds, in a stride order (item i is not the i-th shortest). */
function spreadPrompts(count: number, from: number, to: number): string[] {
	const stride = 263; // coprime with 500: every slot once, neighbours far apart
	return Array.from({ length: count }, (_, i) => {
		const slot = (i * stride) % count;
		const seconds = from + ((to - from) * slot) / Math.max(1, count - 1);
		return `[sim:seconds=${seconds.toFixed(3)}] idea ${i}`;
	});
}

const nodeParameters = (intervalSeconds: number, download: boolean): INodeParameters => ({
	resource: 'image',
	operation: 'betav4',
	prompt: '={{ $json.idea }}',
	waitForCompletion: true,
	// Everything else at its default; Download Results is on by default.
	options: { pollInterval: intervalSeconds, ...(download ? {} : { downloadResults: false }) },
});

async function nodeRun(
	sim: SimulatorProcess,
	prompts: string[],
	intervalMs: number,
	download: boolean,
): Promise<number> {
	const started = performance.now();
	const result = await runNode({
		parameters: nodeParameters(intervalMs / 1000, download),
		items: prompts.map((idea) => ({ json: { idea } })),
		credentials: sim.credentials,
	});
	const wallMs = performance.now() - started;
	const completed = result.output.filter(
		(item) => item.json.status === 'completed' && (!download || item.binary?.data),
	).length;
	if (result.error || completed !== prompts.length)
		throw new Error(`node run failed (${completed}/${prompts.length} completed): ${result.error?.message}`);
	return wallMs;
}

const loopNode = anchorWorkflowNode('loop', 'HTTP Request Loop', HTTP_LOOP_TYPE);

async function loopRun(
	sim: SimulatorProcess,
	prompts: string[],
	intervalMs: number,
	download: boolean,
): Promise<number> {
	const settings: LoopSettings = { prompts, intervalMs, download, maxWaitMs: 300_000 };
	const started = performance.now();
	const run = await runWorkflow(
		{ nodes: [loopNode], connections: {} },
		{
			credentials: sim.credentials,
			items: [{ json: settings as never }],
			extraNodeTypes: { [HTTP_LOOP_TYPE]: new HttpRequestLoopNode() },
		},
	);
	const wallMs = performance.now() - started;
	const output = (run.data.resultData.runData[loopNode.name]?.[0]?.data?.main?.[0] ?? []) as INodeExecutionData[];
	const summary = output[0]?.json as { failed?: number; completed?: number } | undefined;
	if (run.data.resultData.error || summary?.failed !== 0 || summary.completed !== prompts.length)
		throw new Error(`loop run failed (${JSON.stringify(summary)}): ${run.data.resultData.error?.message}`);
	return wallMs;
}

/**
 * Deletes the binary files the runs stored (a large-files run writes gigabytes into the temporary user folder):
 * n8n-core's filesystem store, `<user folder>/.n8n/storage/workflows/<workflow>/executions/…`.
 */
function clearBinaryStorage(filesStored = true): void {
	const folder = path.join(process.env.N8N_USER_FOLDER ?? '', '.n8n', 'storage', 'workflows');
	if (filesStored && !existsSync(folder))
		throw new Error(`no binary storage at ${folder}: the bench would fill the disk`);
	rmSync(folder, { recursive: true, force: true });
}

/** Runs `work` while sampling this process's RSS every 10 ms; returns the highest sample. */
async function sampledPeakRss<T>(work: () => Promise<T>): Promise<{ result: T; peak: number }> {
	let peak = process.memoryUsage.rss();
	const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
	try {
		const result = await work();
		return { result, peak: Math.max(peak, process.memoryUsage.rss()) };
	} finally {
		clearInterval(timer);
	}
}

/** One loop run and one node run on the same prompts; with when each created its last task (ms after its start). */
async function pairRun(
	sim: SimulatorProcess,
	prompts: string[],
	intervalMs: number,
	download: boolean,
): Promise<{ node: number; loop: number; nodeLastCreated: number; loopLastCreated: number }> {
	const lastCreated = async (since: number) =>
		Math.max(
			...(await simulatorTasks(sim.url)).filter((task) => task.createdAt >= since).map((task) => task.createdAt),
		) - since;
	await resetSimulator(sim.url);
	let since = Date.now();
	const loop = await loopRun(sim, prompts, intervalMs, download);
	const loopLastCreated = await lastCreated(since);
	clearBinaryStorage(download);
	await resetSimulator(sim.url);
	since = Date.now();
	const node = await nodeRun(sim, prompts, intervalMs, download);
	const nodeLastCreated = await lastCreated(since);
	clearBinaryStorage(download);
	return { node, loop, nodeLastCreated, loopLastCreated };
}

export async function spreadCase(): Promise<Figure[]> {
	const count = 500;
	const interval = 2000;
	const sim = await startSimulator({ taskDurationMs: 5000, latencyMs: RTT_MS });
	const prompts = spreadPrompts(count, 3, 7);
	// Warm-ups: both paths, downloads included, so that lazily loaded code is not timed.
	const warm = spreadPrompts(8, 0.2, 0.4);
	await nodeRun(sim, warm, 500, true);
	await loopRun(sim, warm, 500, true);
	const figures: Figure[] = [];
	const raw: string[] = [];
	const created: string[] = [];
	for (const download of [true, false]) {
		const pairs: Array<Awaited<ReturnType<typeof pairRun>>> = [];
		for (let repeat = 0; repeat < REPEATS; repeat++) pairs.push(await pairRun(sim, prompts, interval, download));
		const ratio = median(pairs.map((pair) => pair.node / pair.loop));
		const runs = pairs.map((pair) => `${(pair.node / 1000).toFixed(1)}/${(pair.loop / 1000).toFixed(1)}`).join(' ');
		figures.push({
			name: `500 items, D 3–7 s, interval 2 s, RTT 150 ms, ${download ? 'defaults (downloads on)' : 'Download Results off'}: node ÷ HTTP Request loop`,
			value: `${s(median(pairs.map((pair) => pair.node)))} ÷ ${s(median(pairs.map((pair) => pair.loop)))} = ${ratio.toFixed(2)} (median of ${REPEATS}: ${runs} s)`,
			target: '≤ 1.0',
			pass: ratio <= 1.0,
		});
		created.push(
			`${s(median(pairs.map((pair) => pair.nodeLastCreated)))} / ${s(median(pairs.map((pair) => pair.loopLastCreated)))}`,
		);
		await resetSimulator(sim.url);
		const anchor = await anchorRun(sim, count, interval, 120_000, prompts, download);
		raw.push(`${s(anchor.wallMs)} (node ÷ it ${(median(pairs.map((pair) => pair.node)) / anchor.wallMs).toFixed(2)})`);
	}
	figures.push(
		{
			name: '   … last task created, node / loop (medians), with / without downloads',
			value: created.join('; '),
			target: 'report',
			pass: null,
		},
		{
			name: '   … the raw keep-alive loop without n8n (no helper, no storage), with / without downloads',
			value: raw.join(' / '),
			target: 'report',
			pass: null,
		},
	);
	// The node sees a task at its first poll on its grid (creation + k × 2 s) after the render ends; the loop at its
	// first round after it, rounds drifting by their own length. Where the longest render falls against these
	// grids decides the figures above; shifting the range across one interval shows the designs, not the phase.
	const shifted: Array<{ shift: number; ratio: number }> = [];
	for (const shift of [0, 0.5, 1, 1.5]) {
		const pair = await pairRun(sim, spreadPrompts(count, 3 + shift, 7 + shift), interval, true);
		shifted.push({ shift, ratio: pair.node / pair.loop });
	}
	figures.push({
		name: '   … defaults, render range shifted across one interval (3–7, 3.5–7.5, 4–8, 4.5–8.5 s): mean node ÷ loop',
		value: `${(shifted.reduce((sum, entry) => sum + entry.ratio, 0) / shifted.length).toFixed(2)} (${shifted.map((entry) => entry.ratio.toFixed(2)).join(', ')})`,
		target: 'report',
		pass: null,
	});
	sim.child.kill();
	return figures;
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
	for (let repeat = 0; repeat < Math.min(REPEATS, 2); repeat++) {
		// The node first: its memory is measured from a base line that no earlier loop run has raised.
		await resetSimulator(sim.url);
		let before = settle();
		const node = await sampledPeakRss(async () => await nodeRun(sim, prompts, interval, true));
		const growth = node.peak - before;
		clearBinaryStorage();
		await resetSimulator(sim.url);
		before = settle();
		const loop = await sampledPeakRss(async () => await loopRun(sim, prompts, interval, true));
		clearBinaryStorage();
		pairs.push({ node: node.result, loop: loop.result, growth, loopGrowth: loop.peak - before });
	}
	sim.child.kill();
	const ratio = median(pairs.map((pair) => pair.node / pair.loop));
	// The first runs only: later ones start from a base line the earlier runs raised.
	const { growth, loopGrowth } = pairs[0];
	const runs = pairs.map((pair) => `${(pair.node / 1000).toFixed(1)}/${(pair.loop / 1000).toFixed(1)}`).join(' ');
	return [
		{
			name: 'Large files, 20 results × 200 MB, RTT 150 ms, defaults: wall node ÷ HTTP Request loop',
			value: `${s(median(pairs.map((pair) => pair.node)))} ÷ ${s(median(pairs.map((pair) => pair.loop)))} = ${ratio.toFixed(2)} (median of ${pairs.length}: ${runs} s)`,
			target: '≤ 1.1',
			pass: ratio <= 1.1,
		},
		{
			name: '   … peak RSS growth during the node’s first run (the loop’s first run in brackets)',
			value: `${(growth / MB).toFixed(1)} MB (loop: ${(loopGrowth / MB).toFixed(1)} MB)`,
			target: '≤ 64 MB',
			pass: growth <= 64 * MB,
		},
	];
}
