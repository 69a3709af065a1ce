/**
 * `npm run bench`: what users feel, measured side by side in one run. Each case runs in its own Node
 * process (so memory peaks do not mix); the API simulator runs in-process where its clock is needed
 * (task done times) and in a separate process where its own memory or CPU would blur the figure.
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode, storeBinary } from '../test/harness';
import { DEFAULT_SIM_KEY, MediaGenSimulator } from '../test/simulator/server';

const root = path.join(__dirname, '..');
const MB = 1024 * 1024;

interface Figure {
	name: string;
	value: string;
	target: string;
	pass: boolean | null;
}

async function startChildSimulator(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; key: string }> {
	const key = 'bench-key';
	const child = fork(path.join(root, 'test', 'simulator', 'cli.ts'), [], {
		execArgv: ['-r', 'ts-node/register/transpile-only'],
		env: { ...process.env, PORT: '0', SIM_KEY: key, ...env },
		stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
	});
	process.on('exit', () => child.kill());
	const url = await new Promise<string>((resolve) => child.once('message', (message: { url: string }) => resolve(message.url)));
	return { child, url, key };
}

/** Peak resident memory of this process since it started, in bytes. */
function peakRss(): number {
	return process.resourceUsage().maxRSS * 1024;
}

function settle(): number {
	global.gc?.();
	return process.memoryUsage().rss;
}

const cases: Record<string, () => Promise<Figure[]>> = {
	async concurrent() {
		const D = 2000;
		const interval = 0.5;
		const sim = new MediaGenSimulator({ taskDurationMs: D });
		const credentials = { apiKey: DEFAULT_SIM_KEY, baseUrl: await sim.start() };
		const parameters: INodeParameters = { resource: 'image', operation: 'betav4', prompt: '={{ $json.idea }}', waitForCompletion: true, options: { pollInterval: interval, maxWait: 60, downloadResults: false } };
		const items = (count: number, offset = 0): INodeExecutionData[] => Array.from({ length: count }, (_, i) => ({ json: { idea: `idea ${offset + i}` } }));
		await runNode({ parameters, items: items(2), credentials }); // warm-up

		sim.resetRecord();
		const since = Date.now();
		const started = performance.now();
		const ours = await runNode({ parameters, items: items(50), credentials });
		const wall = performance.now() - started;
		const returnedAt = Date.now();
		if (ours.error || ours.output.length !== 50) throw new Error(`concurrent run failed: ${ours.error?.message}`);
		const tasks = [...sim.tasks.values()].filter((task) => task.createdAt >= since);
		const infoCalls = new Map<string, number>();
		for (const request of sim.requests('/v1/tlimages/infobytaskid')) {
			const id = (request.json as { taskid: string }).taskid;
			infoCalls.set(id, (infoCalls.get(id) ?? 0) + 1);
		}
		const calls = [...infoCalls.values()];
		const latencies = tasks.map((task) => (task.firstReportedDoneAt ?? Infinity) - (task.createdAt + task.durationMs));
		const lastDone = Math.max(...tasks.map((task) => task.createdAt + task.durationMs));

		const baselineStarted = performance.now();
		for (let i = 0; i < 50; i++) {
			const one = await runNode({ parameters, items: items(1, i), credentials });
			if (one.error) throw new Error(`baseline failed: ${one.error.message}`);
		}
		const baseline = performance.now() - baselineStarted;
		await sim.stop();
		const limit = 1.3 * (D + interval * 1000);
		const maxCalls = Math.ceil(D / (interval * 1000)) + 1;
		return [
			{ name: '1. Concurrent wait: wall time, 50 items, D = 2 s, interval 0.5 s', value: `${(wall / 1000).toFixed(2)} s = ${(wall / D).toFixed(2)} × D`, target: `≤ 1.3 × (D + interval) = ${(limit / 1000).toFixed(2)} s`, pass: wall <= limit },
			{ name: '   … vs sequential create-then-wait per item (same process)', value: `${(baseline / 1000).toFixed(1)} s: ours is ${(baseline / wall).toFixed(1)}× faster`, target: 'report', pass: null },
			{ name: '2. Polling cost: info requests per task (max / mean)', value: `${Math.max(...calls)} / ${(calls.reduce((a, b) => a + b, 0) / calls.length).toFixed(2)}`, target: `≤ ceil(D / interval) + 1 = ${maxCalls}`, pass: Math.max(...calls) <= maxCalls },
			{ name: '   Detection latency (done on server → seen by node), max / mean', value: `${Math.max(...latencies).toFixed(0)} / ${(latencies.reduce((a, b) => a + b, 0) / latencies.length).toFixed(0)} ms`, target: `≤ interval + 100 ms = ${interval * 1000 + 100} ms`, pass: Math.max(...latencies) <= interval * 1000 + 100 },
			{ name: '   Node returned after the last task was done', value: `${returnedAt - lastDone} ms`, target: 'report', pass: null },
		];
	},

	async download() {
		const size = 256 * MB;
		const sim = await startChildSimulator({ TASK_SECONDS: '0', RESULT_BLOB_BYTES: String(size) });
		const credentials = { apiKey: sim.key, baseUrl: sim.url };
		const parameters: INodeParameters = { resource: 'image', operation: 'betav4', prompt: 'x', waitForCompletion: true, options: { pollInterval: 0.1, downloadResults: true, requestTimeout: 300 } };
		await runNode({ parameters: { ...parameters, waitForCompletion: false }, credentials }); // warm-up, no download
		const before = settle();
		const started = performance.now();
		const result = await runNode({ parameters, credentials });
		const seconds = (performance.now() - started) / 1000;
		sim.child.kill();
		const binary = result.output[0]?.binary?.data;
		if (result.error || !binary) throw new Error(`download failed: ${result.error?.message}`);
		if (Number(binary.bytes) !== size) throw new Error(`downloaded ${binary.bytes} bytes, expected ${size}`);
		const growth = peakRss() - before;
		return [
			{ name: '3. Download memory: 256 MB result into filesystem binary mode, peak RSS growth', value: `${(growth / MB).toFixed(1)} MB (${(size / MB / seconds).toFixed(0)} MB/s)`, target: '≤ 64 MB', pass: growth <= 64 * MB },
		];
	},

	async upload() {
		const sim = await startChildSimulator({ TASK_SECONDS: '0' });
		const credentials = { apiKey: sim.key, baseUrl: sim.url };
		const binary: INodeExecutionData['binary'] = {};
		for (let i = 0; i < 16; i++) binary[`ref${i}`] = await storeBinary(randomBytes(8 * MB), `ref${i}.png`, 'image/png');
		const payload = 16 * 8 * MB;
		const parameters: INodeParameters = { resource: 'image', operation: 'proimage', model: 'proimg-2', prompt: 'edit', imageInput: 'all', waitForCompletion: false, options: { requestTimeout: 300 } };
		await runNode({ parameters: { ...parameters, imageInput: 'none' }, credentials }); // warm-up, no files
		const before = settle();
		const started = performance.now();
		const result = await runNode({ parameters, items: [{ json: {}, binary }], credentials });
		const seconds = (performance.now() - started) / 1000;
		sim.child.kill();
		if (result.error || !result.output[0]?.json.taskid) throw new Error(`upload failed: ${result.error?.message}`);
		const growth = peakRss() - before;
		return [
			{ name: '4. Upload memory: 16 references × 8 MB, peak RSS growth / payload', value: `${(growth / MB).toFixed(0)} MB / 128 MB = ${(growth / payload).toFixed(2)}×`, target: '≤ 2.5×', pass: growth / payload <= 2.5 },
			{ name: '   Upload time (128 MB over loopback)', value: `${seconds.toFixed(2)} s`, target: 'report', pass: null },
		];
	},

	async overhead() {
		const sim = await startChildSimulator({ TASK_SECONDS: '0' });
		const credentials = { apiKey: sim.key, baseUrl: sim.url };
		const parameters: INodeParameters = { resource: 'image', operation: 'betav4', prompt: '={{ $json.idea }}', waitForCompletion: false };
		const items = Array.from({ length: 500 }, (_, i) => ({ json: { idea: `idea ${i}` } }));
		await runNode({ parameters, items: items.slice(0, 20), credentials }); // warm-up
		const cpu = process.cpuUsage();
		const started = performance.now();
		const result = await runNode({ parameters, items, credentials });
		const seconds = (performance.now() - started) / 1000;
		const used = process.cpuUsage(cpu);
		sim.child.kill();
		if (result.error || result.output.length !== 500) throw new Error(`overhead run failed: ${result.error?.message}`);
		const perSecond = 500 / seconds;
		return [
			{ name: '5. Per-item overhead: 500 items create-only through the engine', value: `${perSecond.toFixed(0)} items/s`, target: '≥ 200 items/s', pass: perSecond >= 200 },
			{ name: '   CPU per item (node process, simulator excluded)', value: `${((used.user + used.system) / 1000 / 500).toFixed(2)} ms`, target: 'report', pass: null },
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
	const figures: Figure[] = [];
	for (const name of Object.keys(cases)) {
		console.log(`running ${name}…`);
		const result = spawnSync(process.execPath, ['--expose-gc', '-r', 'ts-node/register/transpile-only', __filename, name], {
			cwd: root,
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
	console.log(`\nMediaGen node benchmarks (${new Date().toISOString()}, Node ${process.version}, ${require('node:os').cpus().length} cores)\n`);
	for (const figure of figures) {
		const verdict = figure.pass === null ? '' : figure.pass ? 'PASS' : 'FAIL';
		console.log(`${figure.name.padEnd(width)}  ${figure.value.padEnd(valueWidth)}  ${figure.target.padEnd(36)}  ${verdict}`);
	}
	const failed = figures.filter((figure) => figure.pass === false).length;
	console.log(failed ? `\n${failed} figure(s) missed their target.` : '\nEvery figure reached its target.');
	process.exit(failed ? 1 : 0);
}

const name = process.argv[2];
if (name) void child(name);
else parent();
