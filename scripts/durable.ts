/**
 * `npm run test:durable`: the durable-wait pattern (examples/durable-wait.json) survives a SIGKILL of n8n 2.41.1
 * while its execution is parked in the database; docs/scaling-and-durable-waits.md ("Durable waits") says what is
 * checked and how the test's variant of the example differs (renders of 110 s, a Wait of 70 s, a refused scene).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { checkRun, creationsOf, durableExample } from './lib/durable-example';
import { callWebhook, type Workflow } from './lib/n8n';
import { logFolder } from './lib/paths';
import { runMain } from './lib/process';
import { check, log, since } from './lib/report';
import { getExecution, listExecutions, outputOf, readBinary, waitForExecution, type ExecutionItem } from './lib/rest';
import { simulatorRecord } from './lib/simulator';
import { runOnVersions, withN8n, type RunningN8n } from './lib/suite';

const SCOPE = 'durable';
const say = (message: string) => log(SCOPE, message);
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

/** The example with one more scene, whose render is refused. */
function testVariant() {
	const example = durableExample(
		WEBHOOK_PATH,
		{ id: 'd0000000-0000-4000-8000-000000000001', webhookId: 'd0000000-0000-4000-8000-0000000000aa' },
		WAIT_SECONDS,
	);
	const data = JSON.parse(example.scenes.parameters.jsonOutput as string) as { scenes: object[] };
	data.scenes.push(REFUSED_SCENE);
	example.scenes.parameters = { ...example.scenes.parameters, jsonOutput: JSON.stringify(data, null, 2) };
	return { ...example, count: data.scenes.length };
}

/** Starts the workflow and waits until its execution is parked in the database (status waiting). */
async function triggerAndPark(n8n: RunningN8n, workflow: Workflow): Promise<string> {
	await callWebhook(n8n.server.url, WEBHOOK_PATH, {});
	const parked = await waitForExecution(() => n8n.session, workflow.id, {
		wanted: (status) => status === 'waiting',
		what: 'execution parked in the database',
	});
	const creationsBefore = await creationsOf(n8n.simulator.url);
	say(
		`execution ${parked.id} is waiting (status "${parked.status}", waitTill ${parked.waitTill}); ${creationsBefore.length} renders created so far; renders take ${TASK_SECONDS} s`,
	);
	return parked.id;
}

/** The renders at the loop's end (every other one, checkRun says): completed, with their videos readable through n8n. */
async function checkCompleted(n8n: RunningN8n, results: ExecutionItem[]): Promise<string[]> {
	const files: string[] = [];
	for (const item of results) {
		const task = String(item.json.taskid);
		check(item.json.status === 'completed', `task ${task} completed`);
		check(
			Array.isArray(item.json.urls) && (item.json.urls as string[]).every((url) => url.startsWith(n8n.simulator.url)),
			`task ${task} has result urls`,
		);
		const binary = item.binary?.data;
		check(binary?.id, `task ${task} has its video as a stored binary file`);
		const bytes = await readBinary(n8n.session, binary.id);
		check(bytes.subarray(4, 8).toString('ascii') === 'ftyp', `task ${task}: the stored file is an MP4`);
		files.push(`${task} → ${binary.fileName} (${bytes.length} bytes, ${binary.id.split(':')[0]})`);
	}
	return files;
}

/** Waits for the parked execution to end after the restart: it succeeded, resumed by the restarted n8n. */
async function resumed(n8n: RunningN8n, workflow: Workflow, parkedId: string, createdAt: number) {
	const finished = await waitForExecution(() => n8n.session, workflow.id, {
		which: parkedId,
		deadline: (TASK_SECONDS + 4 * WAIT_SECONDS + 240) * 1000,
		what: `execution ${parkedId} finished`,
	});
	const secondLog = readFileSync(n8n.logFile, 'utf8');
	const wasResumed = new RegExp(`Resuming execution ${parkedId}\\b`).test(secondLog);
	say(
		`execution ${finished.id} ended with status "${finished.status}" ${since(createdAt)} after the trigger; the restarted n8n logged "Resuming execution ${parkedId}": ${wasResumed ? 'yes' : 'no'}`,
	);
	check(finished.status === 'success', `the resumed execution succeeded (status ${finished.status})`);
	check(wasResumed, 'the restarted n8n resumed the parked execution');
	return finished;
}

async function runVersion(version: string, tarball: string): Promise<void> {
	const example = testVariant();
	const { workflow, wait, create, taskWait, done, failed: failedNode } = example;
	const logDir = logFolder(SCOPE);
	const logs = [path.join(logDir, 'n8n-before-kill.log'), path.join(logDir, 'n8n-after-restart.log')];
	const options = {
		scope: SCOPE,
		version,
		tarball,
		logFile: logs[0],
		simulator: { taskDurationMs: TASK_SECONDS * 1000 },
		// Debug level: the wait tracker logs "Resuming execution <id>" only there.
		env: { N8N_LOG_LEVEL: 'debug' },
		workflows: [workflow],
		webhookPaths: [WEBHOOK_PATH],
	};
	await withN8n(options, async (n8n) => {
		const createdAt = Date.now();
		const parkedId = await triggerAndPark(n8n, workflow);
		n8n.step('triggered and parked');
		// The crash: no graceful shutdown, the task runner goes too; then n8n starts again on the same user folder.
		const killedPid = n8n.server.child.pid;
		const restartedAt = Date.now();
		await n8n.restart('SIGKILL', logs[1]);
		say(
			`RESTART: killed n8n (pid ${killedPid}) with SIGKILL ${((restartedAt - createdAt) / 1000).toFixed(0)} s after the trigger, while execution ${parkedId} waits; it started again (pid ${n8n.server.child.pid}) in ${since(restartedAt)} on the same user folder`,
		);
		n8n.step('kill and restart');
		const finished = await resumed(n8n, workflow, parkedId, createdAt);
		n8n.step('resumed execution finished');

		const execution = await getExecution(n8n.install, n8n.session, finished.id);
		const runs = (node: string) => execution.data.resultData.runData[node]?.length ?? 0;
		const checks = outputOf(execution, taskWait.name);
		say(
			`runs per node: ${[create.name, wait.name, taskWait.name, done, failedNode].map((node) => `"${node}" ${runs(node)}`).join(', ')}; Task → Wait outputs: ${checks.map((item) => item.json.status).join(', ')}`,
		);
		const run = await checkRun(n8n.simulator.url, execution, example, [example.count, REFUSED_SCENE.prompt]);
		const { created, done: results, refusedId, refusedChecks, creations } = run;
		check(
			checks.some((item) => item.json.status === 'pending'),
			'a check found a render still pending and the loop sent it back to the Wait node',
		);
		const files = await checkCompleted(n8n, results);
		const record = await simulatorRecord(n8n.simulator.url);
		const polls = record.filter((entry) => entry.path === '/v1/tlvideo/infobytaskid').length;
		const all = await listExecutions(n8n.session, workflow.id);
		check(all.length === 1, `one execution of the workflow, found ${all.length}`);
		say(`results: ${files.join('; ')}`);
		say(
			`PASS: execution ${finished.id} survived a SIGKILL of n8n while waiting and finished after the restart; ${created.length} renders (${results.length} completed, ${refusedId} refused and out by the error output after ${refusedChecks} checks), ${creations} creations, ${polls} status checks`,
		);
	});
}

runMain(SCOPE, async () => await runOnVersions(SCOPE, [VERSION], runVersion));
