/**
 * `npm run test:e2e`: the packed package inside the real n8n application, installed the way n8n installs
 * community packages, executing the example workflows against the API simulator (`n8n execute`). n8n comes from
 * scripts/lib/installer.ts (cached per version in MEDIAGEN_E2E_CACHE); MEDIAGEN_E2E_VERSIONS picks the versions.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { NODE_TYPE } from '../test/nodeType';
import type { Workflow, WorkflowNode } from './lib/n8n';
import { runMain } from './lib/process';
import { check, log } from './lib/report';
import type { ExecutionItem, ExecutionRecord } from './lib/rest';
import { SIM_KEY, simulatorRecord } from './lib/simulator';
import { EXAMPLES, readExample, runOnVersions, suiteVersions, withN8nFolder, type N8nFolder } from './lib/suite';

type Binary = NonNullable<ExecutionItem['binary']>[string];

function verifyFile(userFolder: string, binary: Binary, json: Record<string, unknown>): string {
	// Each version's default binary mode: files under the user folder (2.x) or base64 in the output (1.x).
	let bytes: Buffer;
	let file = binary.fileName;
	if (binary.id) {
		const relative = binary.id.split(':')[1];
		const candidates = ['storage', 'binaryData'].map((folder) => path.join(userFolder, '.n8n', folder, relative));
		file = candidates.find((candidate) => existsSync(candidate)) ?? candidates[0];
		bytes = readFileSync(file);
	} else {
		check(binary.data, `binary ${binary.fileName} has data`);
		bytes = Buffer.from(binary.data, 'base64');
	}
	if (binary.mimeType === 'image/png') {
		check(bytes.subarray(1, 4).toString('ascii') === 'PNG', `${file} is a PNG`);
		const [width, height] = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
		if (typeof json.width === 'number' && typeof json.height === 'number') {
			// The simulator renders the delivered size scaled to fit MAX_RENDERED_SIDE (512).
			const scale = Math.min(1, 512 / Math.max(json.width, json.height));
			const expected = `${Math.round(json.width * scale)}x${Math.round(json.height * scale)}`;
			check(`${width}x${height}` === expected, `${binary.fileName} is ${width}x${height}, expected ${expected}`);
		}
		return `${binary.fileName} PNG ${width}x${height}`;
	}
	check(binary.mimeType === 'video/mp4' && bytes.subarray(4, 8).toString('ascii') === 'ftyp', `${file} is an MP4`);
	return `${binary.fileName} MP4 ${bytes.length} bytes`;
}

/**
 * The examples as `n8n execute` can run them: a Wait node of 65 s or more parks the execution in the database
 * for the running n8n's wait tracker, which `n8n execute` does not have; there it waits 1 s (the durable
 * pattern itself is tested with a real restart by `npm run test:durable`).
 */
function examplesForExecute(): Workflow[] {
	return EXAMPLES.map((file) => {
		const workflow = readExample<Workflow>(file);
		for (const node of workflow.nodes.filter((candidate) => candidate.type === 'n8n-nodes-base.wait')) {
			node.parameters = { ...node.parameters, amount: 1, unit: 'seconds' };
		}
		return workflow;
	});
}

/** Checks what one MediaGen node of an example returned over all its runs; returns the line that says so. */
function checkNode(n8n: N8nFolder, file: string, node: WorkflowNode, runs: RunsOf): string {
	const at = `${file}: "${node.name}"`;
	// A node inside a loop (examples/durable-wait.json) runs more than once: check every run's items.
	check(
		runs.length > 0 && runs.every((run) => !run.error),
		`${file}: node "${node.name}" ran without error (${runs.find((run) => run.error)?.error?.message})`,
	);
	const items = runs.flatMap((run) => run.data!.main[0]!);
	check(items.length > 0, `${file}: node "${node.name}" produced items`);
	const details: string[] = [];
	const waited =
		node.parameters.operation !== 'get' &&
		node.parameters.operation !== 'delete' &&
		node.parameters.waitForCompletion !== false;
	const returnsPending = (node.parameters.options as { onTimeout?: string } | undefined)?.onTimeout === 'returnPending';
	const completedIds = new Set(
		items.filter((item) => item.json.status === 'completed').map((item) => item.json.taskid),
	);
	for (const item of items) {
		check(typeof item.json.taskid === 'string' || Array.isArray(item.json.taskids), `${at} output keeps the task id`);
		// One output shape (docs/waiting-and-output.md, "Output"): status completed/pending/failed, urls, taskType; Delete says "deleted".
		if (node.parameters.operation === 'delete') {
			check(item.json.status === 'deleted', `${at} status is "deleted"`);
		} else {
			check(
				['completed', 'pending'].includes(String(item.json.status)) && Array.isArray(item.json.urls),
				`${at} has status and urls`,
			);
			check(item.json.taskType === 'image' || item.json.taskType === 'video', `${at} has taskType`);
		}
		if (waited && returnsPending && item.json.status === 'pending') {
			check(
				completedIds.has(item.json.taskid),
				`${at} pending task ${String(item.json.taskid)} completed in a later run`,
			);
		} else if (waited) {
			check(item.json.status === 'completed', `${at} task completed`);
			check(
				Array.isArray(item.json.urls) && (item.json.urls as string[]).every((url) => url.startsWith(n8n.simulator.url)),
				`${at} result URLs`,
			);
		}
		for (const binary of Object.values(item.binary ?? {})) {
			check(
				binary.fileName?.startsWith(`${String(item.json.taskid)}-`),
				`${at} file ${binary.fileName} is named after its task`,
			);
			details.push(verifyFile(n8n.userFolder, binary, item.json));
		}
	}
	const ids = items.map((item) => String(item.json.taskid ?? (item.json.taskids as string[]).join(','))).join(', ');
	return `${file}: node type ${NODE_TYPE} executed "${node.name}" (${String(node.parameters.resource)}/${String(node.parameters.operation)}) → task ${ids}${details.length ? `; files: ${details.join('; ')}` : ''}`;
}

type RunsOf = ExecutionRecord['data']['resultData']['runData'][string];

/**
 * The JSON value `text` starts with: n8n may print a line after `--rawOutput`'s JSON (a busy machine's warning),
 * which JSON.parse reports by the position where the value ended.
 */
function leadingJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch (error) {
		const end = /after JSON at position (\d+)/.exec((error as Error).message);
		if (!end) throw error;
		return JSON.parse(text.slice(0, Number(end[1])));
	}
}

/** Runs one example with `n8n execute` and checks every MediaGen node in it. */
function runExample(n8n: N8nFolder, file: string): void {
	const workflow = readExample<Workflow>(file);
	// `n8n execute` starts a workflow only from a manual trigger: the chat example (examples/agent-images.json)
	// and the MCP server (examples/mcp-server.json) run under `n8n start`, in npm run test:agent and test:mcp.
	if (!workflow.nodes.some((node) => node.type === 'n8n-nodes-base.manualTrigger')) {
		const suite = workflow.nodes.some((node) => node.type.endsWith('.mcpTrigger')) ? 'test:mcp' : 'test:agent';
		log('e2e', `${file}: no manual trigger, not run here (npm run ${suite} runs it)`);
		return;
	}
	const raw = n8n.cli('execute', `--id=${workflow.id}`, '--rawOutput');
	const lines = raw.split('\n');
	const start = lines.findIndex((line) => line === '{');
	check(start >= 0, `${file}: execute printed JSON`);
	const result = leadingJson(lines.slice(start).join('\n')) as Pick<ExecutionRecord, 'data'>;
	const { runData, error } = result.data.resultData;
	check(!error, `${file}: workflow error ${error?.message}`);
	for (const node of workflow.nodes.filter((candidate) => candidate.type === NODE_TYPE))
		log('e2e', checkNode(n8n, file, node, runData[node.name] ?? []));
}

/** What the API saw over all the examples: downloads without the key, every API call with it. */
async function checkRecord(n8n: N8nFolder): Promise<void> {
	const record = await simulatorRecord(n8n.simulator.url);
	const downloads = record.filter((entry) => entry.method === 'GET' && entry.path.startsWith('/files/'));
	check(downloads.length > 0, 'result files were downloaded');
	check(
		downloads.every((entry) => entry.headers.authorization === undefined),
		'no Authorization header on result downloads',
	);
	check(
		record.filter((entry) => entry.method === 'POST').every((entry) => entry.headers.authorization === SIM_KEY),
		'every API call carried the raw key',
	);
	log(
		'e2e',
		`n8n ${n8n.version}: all example workflows passed (${record.length} requests; ${downloads.length} downloads without Authorization)`,
	);
}

async function runVersion(version: string, tarball: string): Promise<void> {
	const options = { scope: 'e2e', version, tarball, workflows: examplesForExecute() };
	await withN8nFolder(options, async (n8n) => {
		for (const file of EXAMPLES) runExample(n8n, file);
		await checkRecord(n8n);
		n8n.step('examples');
	});
}

runMain('e2e', async () => await runOnVersions('e2e', suiteVersions('MEDIAGEN_E2E_VERSIONS'), runVersion));
