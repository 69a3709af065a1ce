/**
 * `npm run demo`: runs the example workflows through n8n's workflow engine with the built package.
 * Offline by default, against the bundled API simulator; with MEDIAGEN_API_KEY and MEDIAGEN_BASE_URL set
 * it runs against that API instead (and spends credits).
 */
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { harnessCanRun, readBinary, runWorkflow, type WorkflowDefinition } from '../test/harness';
import { NODE_TYPE } from '../test/nodeType';
import { DEFAULT_SIM_KEY, MediaGenSimulator } from '../test/simulator/server';
import { ROOT } from './lib/paths';
import { runMain } from './lib/process';
import { EXAMPLES, readExample } from './lib/suite';

const outputDir = path.join(ROOT, 'demo-output');

function newestMtime(dir: string): number {
	let newest = 0;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
	}
	return newest;
}

function buildIfNeeded(): void {
	const built = path.join(ROOT, 'dist', 'nodes', 'MediaGen', 'MediaGen.node.js');
	const sources = Math.max(newestMtime(path.join(ROOT, 'nodes')), newestMtime(path.join(ROOT, 'credentials')));
	if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
	console.log('Building the package (npm run build)…');
	execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' });
}

const HEADERS = {
	workflow: 'Workflow',
	node: 'Node',
	model: 'Model',
	taskId: 'Task ID',
	status: 'Status',
	files: 'Files',
	seconds: 'Seconds',
};
type Column = keyof typeof HEADERS;

/** A row of the summary; `createdOnly`: a creation with Wait for Completion off, whose expected result is "pending". */
type Row = Record<Column, string> & { createdOnly?: boolean };

function statusOf(operation: unknown, json: IDataObject): string {
	if (json.error) return 'error';
	if (operation === 'delete') return 'deleted';
	if (typeof json.status === 'string') return json.status;
	const code = json.image_status ?? json.task_status;
	return code !== undefined ? `status ${String(code)}` : 'created';
}

function table(rows: Row[]): string {
	const keys = Object.keys(HEADERS) as Column[];
	const widths = keys.map((key) => Math.max(HEADERS[key].length, ...rows.map((row) => row[key].length)));
	const line = (row: Record<Column, string>) => keys.map((key, index) => row[key].padEnd(widths[index])).join('  ');
	return [line(HEADERS), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

/** The API the demo runs against: the one MEDIAGEN_API_KEY/MEDIAGEN_BASE_URL name, or the simulator. */
async function startApi() {
	if (process.env.MEDIAGEN_API_KEY && process.env.MEDIAGEN_BASE_URL) {
		const credentials = { apiKey: process.env.MEDIAGEN_API_KEY, baseUrl: process.env.MEDIAGEN_BASE_URL };
		console.log(`Running against ${credentials.baseUrl} (real API: this spends credits).`);
		return { credentials, simulator: undefined };
	}
	const simulator = new MediaGenSimulator({ taskDurationMs: 4000, videoTaskDurationMs: 7000, maxRenderedSide: 1024 });
	const credentials = { apiKey: DEFAULT_SIM_KEY, baseUrl: await simulator.start() };
	console.log(
		`No MEDIAGEN_API_KEY/MEDIAGEN_BASE_URL set: using the API simulator at ${credentials.baseUrl} (images take 4 s, videos 7 s).`,
	);
	return { credentials, simulator };
}

/** Why the harness cannot run a workflow: n8n's own nodes (Wait and IF, the chat trigger and the AI Agent, the MCP Server Trigger); real n8n runs it. */
function skipReason(workflow: WorkflowDefinition): string {
	const types = workflow.nodes.map((node) => node.type);
	return types.includes('@n8n/n8n-nodes-langchain.mcpTrigger')
		? "  skipped here: it needs n8n's MCP Server Trigger; `npm run test:mcp` runs it in real n8n"
		: types.some((type) => type.startsWith('@n8n/n8n-nodes-langchain.'))
			? "  skipped here: it needs n8n's Chat Trigger and AI Agent; `npm run test:agent` runs it in real n8n"
			: "  skipped here: it needs n8n's own Wait and IF nodes; `npm run test:durable` runs it in real n8n";
}

/** Prints every 2 s how long a run has taken and, on the simulator, how its tasks stand. */
function startTicker(simulator: MediaGenSimulator | undefined): () => void {
	const started = Date.now();
	const ticker = setInterval(() => {
		const seconds = ((Date.now() - started) / 1000).toFixed(0);
		if (!simulator) return console.log(`  … ${seconds} s`);
		const counts = { queued: 0, processing: 0, done: 0 };
		for (const task of simulator.tasks.values()) {
			if (task.createdAt < started || task.deleted) continue;
			const status = simulator.statusOf(task);
			if (status === 0) counts.queued++;
			else if (status === 1) counts.processing++;
			else counts.done++;
		}
		console.log(`  … ${seconds} s: ${counts.queued} queued, ${counts.processing} processing, ${counts.done} finished`);
	}, 2000);
	return () => clearInterval(ticker);
}

/** A row per MediaGen item of a run (and per node that failed), with its files written to demo-output/. */
async function rowsOf(
	name: string,
	workflow: WorkflowDefinition,
	run: Awaited<ReturnType<typeof runWorkflow>>,
): Promise<Row[]> {
	const rows: Row[] = [];
	for (const node of workflow.nodes.filter((candidate) => candidate.type === NODE_TYPE)) {
		const task = run.data.resultData.runData[node.name]?.[0];
		const items = (task?.data?.main?.[0] ?? []) as INodeExecutionData[];
		const seconds = ((task?.executionTime ?? 0) / 1000).toFixed(1);
		const row = { workflow: name, node: node.name, model: '-', taskId: '-', seconds: '-' };
		if (task?.error) rows.push({ ...row, status: 'error', files: task.error.message });
		for (const item of items) {
			const json = item.json;
			const written: string[] = [];
			for (const binary of Object.values(item.binary ?? {})) {
				const dir = path.join(outputDir, name);
				mkdirSync(dir, { recursive: true });
				// Downloaded files are already named after their task (`<taskid>-<n>.<ext>`).
				const target = path.join(dir, binary.fileName ?? `${String(json.taskid)}-file`);
				writeFileSync(target, await readBinary(binary));
				written.push(path.basename(target));
			}
			rows.push({
				...row,
				model: String(json.model ?? `task ${String(node.parameters.operation)}`),
				taskId: String(json.taskid ?? (json.taskids as string[] | undefined)?.join(',') ?? '-'),
				status: statusOf(node.parameters.operation, json),
				files: written.length ? written.join(' ') : '-',
				seconds,
				createdOnly: node.parameters.waitForCompletion === false,
			});
		}
		console.log(`  ✓ ${node.name}: ${items.length} item(s) in ${seconds} s`);
	}
	return rows;
}

async function main(): Promise<void> {
	buildIfNeeded();
	const { credentials, simulator } = await startApi();
	rmSync(outputDir, { recursive: true, force: true });
	const rows: Row[] = [];
	for (const file of EXAMPLES) {
		const workflow = readExample<WorkflowDefinition & { name: string }>(file);
		console.log(`\n▶ ${workflow.name}`);
		if (!harnessCanRun(workflow)) {
			console.log(skipReason(workflow));
			continue;
		}
		const stopTicker = startTicker(simulator);
		let run;
		try {
			run = await runWorkflow(workflow, { credentials, source: 'dist' });
		} finally {
			stopTicker();
		}
		if (run.data.resultData.error) console.log(`  ✗ ${run.data.resultData.error.message}`);
		rows.push(...(await rowsOf(file.replace(/\.json$/, ''), workflow, run)));
	}
	await simulator?.stop();
	console.log(`\nSummary (files written to ${path.relative(process.cwd(), outputDir) || outputDir}/<workflow>/)\n`);
	console.log(table(rows));
	const failed = rows.filter(
		(row) => row.status === 'error' || row.status === 'failed' || (row.status === 'pending' && !row.createdOnly),
	);
	console.log(
		failed.length ? `\n${failed.length} task(s) did not succeed.` : `\nAll ${rows.length} results succeeded.`,
	);
	process.exit(failed.length ? 1 : 0);
}

runMain('demo', main);
