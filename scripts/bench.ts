/**
 * `npm run bench`: what users feel, each figure with a target it can miss, beside the loop an n8n user builds by
 * hand (docs/performance.md: the anchors, the method, the figures). This file holds the cases of the raw anchor
 * (lib/bench-common.ts) and of memory and CPU, and runs every case in a Node process of its own, so that memory
 * peaks do not mix (the simulator too, so that neither its CPU nor its memory counts for the node); the other
 * cases are in lib/bench-*.ts, each of which says what it measures.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode, storeBinary } from '../test/harness';
import {
	anchorRun,
	atMost,
	ideas,
	items,
	MB,
	memory,
	ratio,
	report,
	RTT_MS,
	runAnchor,
	s,
	settle,
	sleep,
	type Figure,
} from './lib/bench-common';
import { HTTP_FLOOR_TYPE, HttpFloorNode } from './lib/bench-loop';
import { acrossRunsCase, FIXED, fixedDurationsCase, neverWorseCase } from './lib/bench-polling';
import { coldBatchCase, spreadCase } from './lib/bench-spread';
import { renderDropCase } from './lib/bench-render-drop';
import { queueModeCase } from './lib/bench-queue';
import { downloadsCase } from './lib/bench-downloads';
import { envelopeCase } from './lib/bench-envelope';
import { largeFilesCase, nodeParameters, nodeRun } from './lib/bench-results';
import { singleItemBenchCase } from './lib/bench-single';
import { mean, taskRecords } from './lib/learning-measure';
import { ROOT } from './lib/paths';
import { injectFault, resetSimulator, simulatorRecord, startSimulator, type SimulatorProcess } from './lib/simulator';

/** `run` on a fresh simulator record whose eleventh info answer comes 20 s late (the head-of-line case). */
async function withStall<T>(sim: SimulatorProcess, run: () => Promise<T>): Promise<T> {
	await resetSimulator(sim.url);
	await injectFault(sim.url, {
		path: '/v1/tlimages/infobytaskid',
		skip: 10,
		times: 1,
		action: { type: 'delay', ms: 20_000 },
	});
	return await run();
}

/** One node run: its result, seconds, and this process's peak RSS since it started over the base line before it. */
async function memoryRun(options: Parameters<typeof runNode>[0]) {
	const before = settle();
	const started = performance.now();
	const result = await runNode(options);
	const peak = process.resourceUsage().maxRSS * 1024;
	return { result, seconds: (performance.now() - started) / 1000, growth: peak - before };
}

const cases: Record<string, () => Promise<Figure[]>> = {
	async latency() {
		const D = 5000;
		const interval = 2000;
		const sim = await startSimulator({ taskDurationMs: D, latencyMs: RTT_MS });
		// One small run through creation and waiting, so that lazily loaded code is not timed.
		await nodeRun(sim, ideas(4), 500, false);
		const figures: Figure[] = [];
		for (const count of [50, 500]) {
			await resetSimulator(sim.url);
			const anchor = await anchorRun(sim, count, interval);
			await resetSimulator(sim.url);
			const since = Date.now();
			const wall = await nodeRun(sim, ideas(count), interval, false);
			figures.push(
				ratio(`Wall time, ${count} items, D = 5 s, interval 2 s, RTT 150 ms: node ÷ anchor`, wall, anchor.wallMs, 1.1),
			);
			if (count !== 500) continue;
			// Created after `since`: the node's tasks, none of the anchor's.
			const tasks = (await taskRecords(sim.url)).filter((task) => task.createdAt >= since);
			const firstPollRatio = mean(tasks.map((task) => (task.checks[0] ?? Infinity) - task.createdAt)) / interval;
			const detection = tasks.map((task) => (task.seenAt ?? Infinity) - task.doneAt);
			const calls = tasks.map((task) => task.checks.length);
			const maxCalls = Math.ceil(D / interval) + 1;
			figures.push(
				atMost('Mean delay creation → first poll ÷ Poll Interval (500 items)', firstPollRatio, 1.2),
				{
					name: 'Detection latency, done on server → seen (max / mean)',
					value: `${Math.max(...detection).toFixed(0)} / ${mean(detection).toFixed(0)} ms`,
					target: `≤ interval + 2 × RTT = ${interval + 2 * RTT_MS} ms`,
					pass: Math.max(...detection) <= interval + 2 * RTT_MS,
				},
				{
					name: 'Info calls per task (max / mean)',
					value: `${Math.max(...calls)} / ${mean(calls).toFixed(2)}`,
					target: `≤ ceil(D / interval) + 1 = ${maxCalls}`,
					pass: Math.max(...calls) <= maxCalls,
				},
			);
		}
		sim.child.kill();
		return figures;
	},

	spread: spreadCase,
	coldBatch: coldBatchCase,
	renderDrop: renderDropCase,
	acrossRuns: acrossRunsCase,
	fixedDurations: fixedDurationsCase,
	neverWorse: neverWorseCase,
	singleItem: singleItemBenchCase,
	largeFiles: largeFilesCase,
	downloads: downloadsCase,
	envelope: envelopeCase,
	queueMode: queueModeCase,

	async headOfLine() {
		const interval = 1000;
		const sim = await startSimulator({ taskDurationMs: 3000, latencyMs: RTT_MS });
		await nodeRun(sim, ideas(4), 500, false);
		await resetSimulator(sim.url);
		const clean = await nodeRun(sim, ideas(50), interval, false);
		const stalled = await withStall(sim, async () => await nodeRun(sim, ideas(50), interval, false));
		const stalledFixed = await withStall(sim, async () => await nodeRun(sim, ideas(50), interval, false, FIXED));
		const anchor = await withStall(sim, async () => await anchorRun(sim, 50, interval));
		sim.child.kill();
		return [
			ratio('Head of line: 50 items, one info answer stalled 20 s: wall ÷ wall without', stalled, clean, 1.2),
			ratio('   … the same stall, Poll Schedule learned ÷ fixed', stalled, stalledFixed, 1.05),
			report('   … the anchor with the same stall', s(anchor.wallMs)),
		];
	},

	async rateLimit() {
		const count = 500;
		const rate = 20;
		const sim = await startSimulator({ taskDurationMs: 5000, latencyMs: RTT_MS, rateLimitPerSecond: rate });
		const anchor = await anchorRun(sim, count, 2000);
		// Each run starts from a quiet second and a fresh record: the rate limit's window is behind it.
		const run = async (options?: IDataObject) => {
			await sleep(1500);
			await resetSimulator(sim.url);
			const started = performance.now();
			const outcome = await runNode({
				parameters: nodeParameters(2, false, options),
				items: items(count),
				credentials: sim.credentials,
			});
			return { ...outcome, wall: performance.now() - started, record: await simulatorRecord(sim.url) };
		};
		const result = await run();
		const fixed = await run(FIXED.options);
		sim.child.kill();
		if (fixed.error) throw new Error(`fixed-grid run failed: ${fixed.error.message}`);
		const completed = result.output.filter((item) => item.json.status === 'completed').length;
		// A client can do no better than one creation and one successful info call per item at the allowed rate.
		const floor = ((2 * count) / rate) * 1000;
		const refused = result.record.filter((request) => request.status === 429).length;
		return [
			{
				name: `Rate limit (429 above ${rate} req/s, Retry-After), ${count} items: completed`,
				value: `${completed} (anchor: ${anchor.failed} failed items)`,
				target: `${count}`,
				pass: completed === count && !result.error,
			},
			ratio(
				'   wall ÷ rate-limit floor (2 requests per item at 20/s)',
				result.wall,
				floor,
				1.3,
				` (${refused} answers were 429)`,
			),
			ratio('   … Poll Schedule learned ÷ fixed, same rate limit', result.wall, fixed.wall, 1.05),
		];
	},

	async upload() {
		const sim = await startSimulator({ taskDurationMs: 0 });
		const binary: INodeExecutionData['binary'] = {};
		const fileSize = 32 * MB;
		// One buffer stored 16 times: the set-up must not raise the peak that is measured afterwards.
		const bytes = randomBytes(fileSize);
		for (let i = 0; i < 16; i++) binary[`ref${i}`] = await storeBinary(bytes, `ref${i}.png`, 'image/png');
		const payload = 16 * fileSize;
		const parameters: INodeParameters = {
			resource: 'image',
			operation: 'proimage',
			model: 'proimg-2',
			prompt: 'edit',
			imageInput: 'all',
			waitForCompletion: false,
			options: { requestTimeout: 300 },
		};
		await runNode({ parameters: { ...parameters, imageInput: 'none' }, credentials: sim.credentials }); // warm-up, no files
		const { result, seconds, growth } = await memoryRun({
			parameters,
			items: [{ json: {}, binary }],
			credentials: sim.credentials,
		});
		sim.child.kill();
		if (result.error || !result.output[0]?.json.taskid) throw new Error(`upload failed: ${result.error?.message}`);
		return [
			{
				name: 'Upload of 16 references × 32 MB: peak RSS growth ÷ payload',
				value: `${(growth / MB).toFixed(0)} MB ÷ 512 MB = ${(growth / payload).toFixed(2)} (${seconds.toFixed(1)} s)`,
				target: '≤ 0.5',
				pass: growth / payload <= 0.5,
			},
		];
	},

	async download() {
		const size = 1024 * MB;
		const sim = await startSimulator({ taskDurationMs: 0, resultBlobBytes: size });
		const parameters: INodeParameters = {
			resource: 'image',
			operation: 'betav4',
			prompt: 'x',
			waitForCompletion: true,
			options: { pollInterval: 0.1, downloadResults: true, requestTimeout: 300 },
		};
		await runNode({ parameters: { ...parameters, waitForCompletion: false }, credentials: sim.credentials }); // warm-up, no download
		const { result, seconds, growth } = await memoryRun({ parameters, credentials: sim.credentials });
		sim.child.kill();
		const binary = result.output[0]?.binary?.data;
		if (result.error || !binary) throw new Error(`download failed: ${result.error?.message}`);
		if (Number(binary.bytes) !== size) throw new Error(`downloaded ${binary.bytes} bytes, expected ${size}`);
		const speed = ` (${(size / MB / seconds).toFixed(0)} MB/s)`;
		return [memory('Download of one 1 GB result into binary storage: peak RSS growth', growth, 32, speed)];
	},

	async overhead() {
		const count = 20_000;
		const sim = await startSimulator({ taskDurationMs: 0 });
		const parameters: INodeParameters = {
			resource: 'image',
			operation: 'betav4',
			prompt: '={{ $json.idea }}',
			waitForCompletion: false,
		};
		const floorRun = async (list: INodeExecutionData[]) => {
			const { output, error } = await runAnchor(HTTP_FLOOR_TYPE, new HttpFloorNode(), {
				credentials: sim.credentials,
				items: list,
			});
			if (error || output.filter((item) => item.json.taskid).length !== list.length)
				throw new Error(`floor run failed: ${error?.message}`);
		};
		// Warm-ups: both paths compiled and connected before anything is counted.
		await runNode({ parameters, items: items(200), credentials: sim.credentials });
		await floorRun(items(200));
		const measure = async <T>(work: () => Promise<T>) => {
			const cpu = process.cpuUsage();
			const started = performance.now();
			const result = await work();
			const used = process.cpuUsage(cpu);
			const perItem = (used.user + used.system) / 1000 / count;
			return { result, perItem, seconds: (performance.now() - started) / 1000 };
		};
		const node = await measure(
			async () => await runNode({ parameters, items: items(count), credentials: sim.credentials }),
		);
		const floor = await measure(async () => await floorRun(items(count)));
		sim.child.kill();
		const created = node.result.output.filter((item) => item.json.taskid).length;
		if (node.result.error || created !== count)
			throw new Error(`overhead run failed (${created}/${count}): ${node.result.error?.message}`);
		return [
			{
				name: `${count} items create-only: CPU per item (node process)`,
				value: `${node.perItem.toFixed(2)} ms (${(count / node.seconds).toFixed(0)} items/s)`,
				target: '≤ 1 ms',
				pass: node.perItem <= 1,
			},
			report(
				"   … n8n's request helper alone, same items (floor)",
				`${floor.perItem.toFixed(2)} ms; the node adds ${(node.perItem - floor.perItem).toFixed(2)} ms`,
			),
		];
	},
};

async function child(name: string): Promise<void> {
	const figures = await cases[name]().catch((error: Error) => {
		console.error(error);
		process.exit(1);
	});
	process.stdout.write(`\n@@BENCH${JSON.stringify(figures)}\n`);
	process.exit(0);
}

function parent(): void {
	const only = process.env.BENCH_CASES?.split(',').filter(Boolean);
	const figures: Figure[] = [];
	for (const name of Object.keys(cases).filter((entry) => !only || only.includes(entry))) {
		console.log(`running ${name}…`);
		const args = ['--expose-gc', '-r', 'ts-node/register/transpile-only', __filename, name];
		const result = spawnSync(process.execPath, args, {
			cwd: ROOT,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'inherit'],
			maxBuffer: 16 * MB,
		});
		const line = result.stdout.split('\n').find((text) => text.startsWith('@@BENCH'));
		if (!line) {
			figures.push({ name, value: `crashed (exit ${result.status})`, target: '-', pass: false });
			continue;
		}
		figures.push(...(JSON.parse(line.slice(7)) as Figure[]));
	}
	const width = Math.max(...figures.map((figure) => figure.name.length));
	const valueWidth = Math.max(...figures.map((figure) => figure.value.length));
	console.log(
		`\nMediaGen node benchmarks (${new Date().toISOString()}, Node ${process.version}, ${os.cpus().length} cores)\n`,
	);
	for (const figure of figures) {
		const verdict = figure.pass === null ? '' : figure.pass ? 'PASS' : 'FAIL';
		console.log(
			`${figure.name.padEnd(width)}  ${figure.value.padEnd(valueWidth)}  ${figure.target.padEnd(32)}  ${verdict}`,
		);
	}
	const failed = figures.filter((figure) => figure.pass === false).length;
	console.log(failed ? `\n${failed} figure(s) missed their target.` : '\nEvery figure reached its target.');
	process.exit(failed ? 1 : 0);
}

const name = process.argv[2];
if (name) void child(name);
else parent();
