/**
 * `npm run test:durable`: the durable-wait pattern (examples/durable-wait.json) survives an n8n crash.
 *
 * Real n8n 2.41.1 (`n8n start`, sqlite) with the packed package runs the example against the API simulator,
 * whose renders take longer than n8n's 65 s threshold for keeping a Wait node in memory, so the execution is
 * parked in the database (status "waiting"). While it waits, n8n is killed with SIGKILL (process group, task
 * runner included) and started again on the same user folder. Asserted: the same execution resumes and
 * succeeds; every scene but one has its completed task (status, urls, a video file readable through n8n); the
 * loop went round (a pending check sent the items back to the Wait node); the one scene whose render the API
 * refuses (`[sim:refuse]`: its info is answered 9999) leaves by Task → Wait's error output with its task id and
 * is never checked again (the loop ends for it), while the others go on; the simulator saw exactly one creation
 * per scene; no other execution exists.
 *
 * Three changes to the example keep it testable and quick, and leave its pattern as it is: a Webhook trigger
 * replaces the Manual Trigger (a running n8n starts it), the Wait node waits 70 s (just above 65 s) instead of
 * 2 minutes, and a third scene is added whose render is refused.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';

import { NODE_TYPE } from '../test/nodeType';
import { ensureN8n, installCommunityPackage, packPackage } from './lib/installer';
import { n8nCommand, n8nEnv, spawnN8n, waitForWebhook, writeCredentials } from './lib/n8n';
import { logFolder, ROOT } from './lib/paths';
import { freePort, runMain, signalProcess, stopProcess, waitForHttp, waitForLog } from './lib/process';
import { check, log, stepTimer } from './lib/report';
import {
	getExecution,
	listExecutions,
	loginOwner,
	readBinary,
	setupOwner,
	waitForExecution,
	type ExecutionItem,
	type ExecutionRecord,
} from './lib/rest';
import { simulatorRecord, startSimulator, type SimulatorProcess } from './lib/simulator';

const VERSION = '2.41.1';
/** Longer than the Wait node's in-memory limit (65 s) and than the first check, so the loop goes round. */
const TASK_SECONDS = 110;
const WAIT_SECONDS = 70;
const WEBHOOK_PATH = 'mediagen-durable';
/** The scene the test adds: the simulator refuses its render once it is done (an info answer 9999). */
const REFUSED_SCENE = {
	prompt: 'The lighthouse beam sweeps through the fog [sim:refuse]',
	image: 'https://example.com/fog.png',
};

interface WorkflowNode {
	name: string;
	type: string;
	parameters: Record<string, unknown>;
	[key: string]: unknown;
}
interface WorkflowFile {
	id: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<string, { main: Array<Array<{ node: string; type: string; index: number }>> }>;
	[key: string]: unknown;
}

/**
 * The example, started by a webhook instead of by hand, with the shortest Wait that is still parked in the
 * database and one more scene, whose render is refused.
 */
function testVariant(example: WorkflowFile): {
	workflow: WorkflowFile;
	waitNode: string;
	createNode: string;
	checkNode: string;
	doneNode: string;
	failedNode: string;
	scenes: number;
} {
	const workflow = JSON.parse(JSON.stringify(example)) as WorkflowFile;
	const manual = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger');
	const wait = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.wait');
	const create = workflow.nodes.find((node) => node.type === NODE_TYPE && node.parameters.waitForCompletion === false);
	const taskWait = workflow.nodes.find(
		(node) => node.type === NODE_TYPE && node.parameters.resource === 'task' && node.parameters.operation === 'wait',
	);
	const condition = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.if');
	check(
		manual && wait && create && taskWait && condition,
		'the example has a manual trigger, a creation without waiting, a Wait node, a Task → Wait node and an IF node',
	);
	const done = workflow.connections[condition.name].main[1]?.[0]?.node;
	check(done, 'the IF node has a "done" (false) branch');
	check(
		workflow.connections[condition.name].main[0]?.[0]?.node === wait.name,
		'the IF node sends pending items back to the Wait node',
	);
	const options = taskWait.parameters.options as Record<string, unknown>;
	check(options.onTimeout === 'returnPending', 'Task → Wait returns pending tasks instead of failing');
	check(taskWait.onError === 'continueErrorOutput', 'Task → Wait sends failed tasks to its error output');
	const failed = workflow.connections[taskWait.name].main[1]?.[0]?.node;
	check(failed && failed !== wait.name, 'the error output of Task → Wait leads out of the loop');
	const ifParameters = condition.parameters.conditions as {
		combinator: string;
		conditions: Array<{ leftValue: string; rightValue: unknown; operator: { type: string; operation: string } }>;
	};
	check(
		ifParameters.combinator === 'and' &&
			ifParameters.conditions.some(
				(entry) =>
					/\$runIndex/.test(entry.leftValue) &&
					entry.operator.operation === 'lt' &&
					typeof entry.rightValue === 'number',
			),
		'the IF node bounds the rounds: status is pending AND {{ $runIndex }} < a number',
	);
	const scenesNode = workflow.nodes.find((node) => typeof node.parameters.jsonOutput === 'string');
	check(scenesNode, 'the example has a Scenes node with its scenes as JSON');
	const data = JSON.parse(scenesNode.parameters.jsonOutput as string) as { scenes: object[] };
	data.scenes.push(REFUSED_SCENE);
	scenesNode.parameters = { ...scenesNode.parameters, jsonOutput: JSON.stringify(data, null, 2) };

	const webhook: WorkflowNode = {
		parameters: { httpMethod: 'POST', path: WEBHOOK_PATH, responseMode: 'onReceived', options: {} },
		id: 'd0000000-0000-4000-8000-000000000001',
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: manual.position,
		webhookId: 'd0000000-0000-4000-8000-0000000000aa',
	};
	workflow.nodes = workflow.nodes.map((node) => (node === manual ? webhook : node));
	workflow.connections[webhook.name] = workflow.connections[manual.name];
	delete workflow.connections[manual.name];
	wait.parameters = { ...wait.parameters, amount: WAIT_SECONDS, unit: 'seconds' };
	return {
		workflow,
		waitNode: wait.name,
		createNode: create.name,
		checkNode: taskWait.name,
		doneNode: done,
		failedNode: failed,
		scenes: data.scenes.length,
	};
}

function items(execution: ExecutionRecord, node: string, output = 0): ExecutionItem[] {
	return (execution.data.resultData.runData[node] ?? []).flatMap((run) => run.data?.main[output] ?? []);
}

async function main(): Promise<void> {
	const { step, summary } = stepTimer();

	const install = ensureN8n(VERSION, 'durable');
	step('n8n install');
	const tarball = packPackage();
	step('build and pack');
	const example = JSON.parse(readFileSync(path.join(ROOT, 'examples', 'durable-wait.json'), 'utf8')) as WorkflowFile;
	const { workflow, waitNode, createNode, checkNode, doneNode, failedNode, scenes } = testVariant(example);

	const userFolder = mkdtempSync(path.join(tmpdir(), 'mediagen-durable-'));
	const logDir = logFolder('durable');
	const logs = [path.join(logDir, 'n8n-before-kill.log'), path.join(logDir, 'n8n-after-restart.log')];
	let simulator: SimulatorProcess | undefined;
	let n8nProcess: ChildProcess | undefined;
	let passed = false;
	try {
		simulator = await startSimulator({ taskDurationMs: TASK_SECONDS * 1000 });
		installCommunityPackage(userFolder, tarball);
		const port = await freePort();
		// Debug level: the wait tracker logs "Resuming execution <id>" only there.
		const env = await n8nEnv(install, userFolder, {
			N8N_PORT: String(port),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_SECURE_COOKIE: 'false',
			N8N_LOG_LEVEL: 'debug',
		});
		const n8n = (...args: string[]) => n8nCommand(install, env, ...args);
		const workflowFile = path.join(userFolder, 'durable-wait.json');
		writeFileSync(workflowFile, JSON.stringify(workflow));
		n8n('import:credentials', `--input=${writeCredentials(userFolder, simulator.url)}`);
		n8n('import:workflow', `--input=${workflowFile}`);
		n8n('publish:workflow', `--id=${workflow.id}`);
		step('simulator, package, import and publish');

		const baseUrl = `http://127.0.0.1:${port}`;
		n8nProcess = spawnN8n(install, env, ['start'], logs[0]);
		await waitForHttp(`${baseUrl}/healthz/readiness`, 240_000, n8nProcess);
		await waitForWebhook(baseUrl, WEBHOOK_PATH, 240_000);
		let session = await setupOwner(baseUrl);
		step(`n8n started (pid ${n8nProcess.pid})`);

		const triggered = await fetch(`${baseUrl}/webhook/${WEBHOOK_PATH}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{}',
		});
		check(triggered.ok, `webhook answered HTTP ${triggered.status}`);
		const createdAt = Date.now();
		const parked = await waitForExecution(
			() => session,
			workflow.id,
			undefined,
			(status) => status === 'waiting',
			120_000,
			'execution parked in the database',
		);
		const creationsBefore = (await simulatorRecord(simulator.url)).filter(
			(entry) => entry.method === 'POST' && entry.path.startsWith('/v1/tlvideo/alpha'),
		);
		log(
			'durable',
			`execution ${parked.id} is waiting (status "${parked.status}", waitTill ${parked.waitTill}); ${creationsBefore.length} renders created so far; renders take ${TASK_SECONDS} s`,
		);
		step('triggered and parked');

		// The crash: no graceful shutdown, the task runner goes too.
		const killedPid = n8nProcess.pid;
		const exited = new Promise((resolve) => n8nProcess!.once('exit', resolve));
		signalProcess(n8nProcess, 'SIGKILL');
		await exited;
		log(
			'durable',
			`RESTART: killed n8n (pid ${killedPid}) with SIGKILL ${((Date.now() - createdAt) / 1000).toFixed(0)} s after the trigger, while execution ${parked.id} waits`,
		);
		const restartedAt = Date.now();
		n8nProcess = spawnN8n(install, env, ['start'], logs[1]);
		await waitForHttp(`${baseUrl}/healthz/readiness`, 240_000, n8nProcess);
		await waitForLog(logs[1], /Editor is now accessible/, 240_000, n8nProcess);
		session = await loginOwner(baseUrl);
		log(
			'durable',
			`RESTART: n8n started again (pid ${n8nProcess.pid}) in ${((Date.now() - restartedAt) / 1000).toFixed(0)} s on the same user folder`,
		);
		step('kill and restart');

		const finished = await waitForExecution(
			() => session,
			workflow.id,
			parked.id,
			(status) => !['waiting', 'running', 'new'].includes(status),
			(TASK_SECONDS + 4 * WAIT_SECONDS + 240) * 1000,
			`execution ${parked.id} finished`,
		);
		step('resumed execution finished');
		const secondLog = readFileSync(logs[1], 'utf8');
		const resumed = new RegExp(`Resuming execution ${parked.id}\\b`).test(secondLog);
		log(
			'durable',
			`execution ${finished.id} ended with status "${finished.status}" ${((Date.now() - createdAt) / 1000).toFixed(0)} s after the trigger; the restarted n8n logged "Resuming execution ${parked.id}": ${resumed ? 'yes' : 'no'}`,
		);
		check(finished.status === 'success', `the resumed execution succeeded (status ${finished.status})`);
		check(resumed, 'the restarted n8n resumed the parked execution');

		const execution = await getExecution(install, session, finished.id);
		const runs = (node: string) => execution.data.resultData.runData[node]?.length ?? 0;
		const created = items(execution, createNode);
		const results = items(execution, doneNode);
		const failed = items(execution, failedNode);
		const checks = items(execution, checkNode);
		log(
			'durable',
			`runs per node: ${[createNode, waitNode, checkNode, doneNode, failedNode].map((node) => `"${node}" ${runs(node)}`).join(', ')}; Task → Wait outputs: ${checks.map((item) => item.json.status).join(', ')}`,
		);
		check(created.length === scenes, `one render per scene was created (${created.length} of ${scenes})`);
		check(
			checks.some((item) => item.json.status === 'pending'),
			'a check found a render still pending and the loop sent it back to the Wait node',
		);

		// The refused render: out by the error output with its task id, never checked again.
		const refusedId = String(
			created.find((item) => (item.json.request as { prompt?: string } | undefined)?.prompt === REFUSED_SCENE.prompt)
				?.json.taskid,
		);
		check(failed.length === 1, `one render left by the error output (${failed.length})`);
		const failure = failed[0].json as {
			error?: Record<string, unknown>;
			message?: string;
			taskid?: unknown;
			status?: unknown;
		};
		check(
			failure.error?.taskid === refusedId &&
				failure.error.status === 'failed' &&
				/content moderation/.test(String(failure.message)),
			`the refused render ${refusedId} is on the error output as failed, with its task id at $json.error.taskid: ${JSON.stringify(failure)}`,
		);
		// n8n merges the item that went into Task → Wait (the pending one) into the error item.
		check(
			failure.taskid === refusedId && failure.status === 'pending',
			`the error item also carries the input item's taskid and status: ${JSON.stringify(failure)}`,
		);
		const record = await simulatorRecord(simulator.url);
		const refusedPolls = record.filter(
			(entry) =>
				entry.path === '/v1/tlvideo/infobytaskid' &&
				(entry.json as { taskid?: string } | undefined)?.taskid === refusedId,
		);
		check(
			refusedPolls.at(-1)?.code === 9999 && refusedPolls.filter((entry) => entry.code === 9999).length === 1,
			`the loop ended for the refused render: its refusal was the last status check of it (${refusedPolls.map((entry) => entry.code).join(', ')})`,
		);
		check(
			results.length === created.length - 1 && results.every((item) => item.json.taskid !== refusedId),
			`every other render reached the end (${results.length} of ${created.length - 1})`,
		);
		const createdIds = created
			.map((item) => String(item.json.taskid))
			.filter((id) => id !== refusedId)
			.sort();
		const resultIds = results.map((item) => String(item.json.taskid)).sort();
		check(
			JSON.stringify(createdIds) === JSON.stringify(resultIds),
			`the results are the created tasks (${resultIds.join(', ')} vs ${createdIds.join(', ')})`,
		);
		const files: string[] = [];
		for (const item of results) {
			check(item.json.status === 'completed', `task ${String(item.json.taskid)} completed`);
			check(
				Array.isArray(item.json.urls) && (item.json.urls as string[]).every((url) => url.startsWith(simulator!.url)),
				`task ${String(item.json.taskid)} has result urls`,
			);
			const binary = item.binary?.data;
			check(binary?.id, `task ${String(item.json.taskid)} has its video as a stored binary file`);
			const bytes = await readBinary(session, binary.id);
			check(
				bytes.subarray(4, 8).toString('ascii') === 'ftyp',
				`task ${String(item.json.taskid)}: the stored file is an MP4`,
			);
			files.push(
				`${String(item.json.taskid)} → ${binary.fileName} (${bytes.length} bytes, ${binary.id.split(':')[0]})`,
			);
		}

		const creations = record.filter((entry) => entry.method === 'POST' && entry.path.startsWith('/v1/tlvideo/alpha'));
		const prompts = creations.map((entry) => entry.fields.prompt?.[0]);
		check(
			creations.length === created.length && new Set(prompts).size === creations.length,
			`exactly one creation per scene (${creations.length} creations for ${created.length} scenes)`,
		);
		const polls = record.filter((entry) => entry.path === '/v1/tlvideo/infobytaskid').length;
		const all = await listExecutions(session, workflow.id);
		check(all.length === 1, `one execution of the workflow, found ${all.length}`);
		log('durable', `results: ${files.join('; ')}`);
		log(
			'durable',
			`PASS: execution ${finished.id} survived a SIGKILL of n8n while waiting and finished after the restart; ${created.length} renders (${results.length} completed, ${refusedId} refused and out by the error output after ${refusedPolls.length} checks), ${creations.length} creations, ${polls} status checks`,
		);
		passed = true;
	} finally {
		if (!passed) {
			for (const file of logs) {
				try {
					console.error(
						`--- ${path.basename(file)} (tail)\n${readFileSync(file, 'utf8').split('\n').slice(-40).join('\n')}`,
					);
				} catch {
					// not started
				}
			}
		}
		await stopProcess(n8nProcess, 20_000);
		await stopProcess(simulator?.child);
		rmSync(userFolder, { recursive: true, force: true });
		rmSync(path.dirname(tarball), { recursive: true, force: true });
		step('shutdown');
		log('durable', summary());
	}
}

runMain('durable', main);
