/**
 * `npm run test:queue`: the packed package in real n8n 2.41.1 in queue mode (Postgres and Redis from Debian's
 * packages, one main and two workers, each with its own user folder); docs/scaling-and-durable-waits.md ("Queue
 * mode") says what is checked. QUEUE_ITEMS webhook calls arrive at once (default 20), each creating an image,
 * waiting for it and downloading it.
 */
import { readFileSync } from 'node:fs';

import { NODE_TYPE } from '../test/nodeType';
import { startDeployment, type Deployment } from './lib/deployment';
import { ensureN8n } from './lib/installer';
import { startWorld } from './lib/learning-run';
import { CREDENTIAL_REF, postJson, webhookNode, workflowOf } from './lib/n8n';
import { logFolder } from './lib/paths';
import { runMain } from './lib/process';
import { check, log, printLogTail, stepTimer, since } from './lib/report';
import { getExecution, listExecutions, outputOf, readBinary } from './lib/rest';
import { postgresQuery, type Service } from './lib/services';
import { simulatorRecord } from './lib/simulator';

const VERSION = '2.41.1';
/** Concurrent executions (at most 100: one page of the executions list). */
const ITEMS = Math.min(100, Number(process.env.QUEUE_ITEMS ?? 20));
const WORKERS = 2;
/** Long enough that executions overlap on both workers; short enough to keep CI quick. */
const TASK_SECONDS = 6;
const WORKFLOW_ID = 'mgQueueScale';
const WEBHOOK_PATH = 'mediagen-queue';
const CREATE_NODE = 'Create, Wait And Download';

const WORKFLOW = workflowOf(
	WORKFLOW_ID,
	'MediaGen queue-mode scale test',
	[
		{
			...webhookNode(WEBHOOK_PATH, 'b0000000-0000-4000-8000-0000000000aa'),
			parameters: { httpMethod: 'POST', path: WEBHOOK_PATH, responseMode: 'lastNode', options: {} },
		},
		{
			name: CREATE_NODE,
			type: NODE_TYPE,
			credentials: CREDENTIAL_REF,
			parameters: {
				resource: 'image',
				operation: 'betav4',
				prompt: '={{ $json.body.prompt }}',
				additionalFields: { resolution: '4:3' },
				options: { pollInterval: 1, maxWait: 300, downloadResults: true },
			},
		},
	],
	[['Webhook', CREATE_NODE]],
);

/** ITEMS webhook calls at once, each a prompt of its own; every answer is a completed task. */
async function fireWebhooks(baseUrl: string): Promise<{ prompts: string[]; wall: number }> {
	const prompts = Array.from({ length: ITEMS }, (_, index) => `queue item ${index + 1}: a lighthouse at dusk`);
	log('queue', `sending ${ITEMS} webhook calls at once (task time ${TASK_SECONDS} s)`);
	const fireStarted = Date.now();
	const call = async (prompt: string) => await postJson(`${baseUrl}/webhook/${WEBHOOK_PATH}`, { prompt }, 600_000);
	const answers = (await Promise.all(prompts.map(call))).map((text) => JSON.parse(text) as Record<string, unknown>);
	const wall = (Date.now() - fireStarted) / 1000;
	check(
		answers.every((answer) => answer.status === 'completed' && typeof answer.taskid === 'string'),
		`every webhook answer is a completed task: ${JSON.stringify(answers.find((answer) => answer.status !== 'completed'))}`,
	);
	return { prompts, wall };
}

/** The executions as the main instance stores them, all succeeded; one creation per webhook call. */
async function checkExecutions(deployment: Deployment, simulatorUrl: string, prompts: string[]) {
	const executions = (await listExecutions(deployment.session, WORKFLOW_ID)).filter(
		(execution) => execution.mode === 'webhook',
	);
	check(executions.length === ITEMS, `${ITEMS} webhook executions stored, found ${executions.length}`);
	const notSucceeded = executions.filter((execution) => execution.status !== 'success');
	check(
		!notSucceeded.length,
		`every execution succeeded; not: ${notSucceeded.map((execution) => `${execution.id}=${execution.status}`).join(', ')}`,
	);

	const record = await simulatorRecord(simulatorUrl);
	const creations = record.filter((entry) => entry.method === 'POST' && entry.path === '/v1/tlimages/betav4');
	const created = (prompt: string) => creations.filter((entry) => entry.fields.prompt?.[0] === prompt).length;
	check(creations.length === ITEMS, `the API received ${ITEMS} creations, got ${creations.length}`);
	check(
		prompts.every((prompt) => created(prompt) === 1),
		'exactly one creation per webhook call',
	);
	return executions;
}

/** Every file, read through the main instance from queue mode's binary data mode, equals the API's. */
async function checkFiles(
	deployment: Deployment,
	pg: Service,
	executions: Awaited<ReturnType<typeof checkExecutions>>,
) {
	const { install, session } = deployment;
	const modes = new Set<string>();
	let bytesRead = 0;
	const taskIds = new Set<string>();
	for (const execution of executions) {
		const at = `execution ${execution.id}:`;
		const full = await getExecution(install, session, execution.id);
		check(!full.data.resultData.error, `${at} ${full.data.resultData.error?.message}`);
		const [item] = outputOf(full, CREATE_NODE);
		check(item, `execution ${execution.id} has the MediaGen output item`);
		check(item.json.status === 'completed' && Array.isArray(item.json.urls), `${at} task completed with urls`);
		taskIds.add(String(item.json.taskid));
		const binary = item.binary?.data;
		check(binary?.id, `${at} the item has a stored binary file (id), got ${JSON.stringify(item.binary)}`);
		modes.add(binary.id.split(':')[0]);
		const viaMain = await readBinary(session, binary.id);
		const original = Buffer.from(await (await fetch((item.json.urls as string[])[0])).arrayBuffer());
		check(viaMain.subarray(1, 4).toString('ascii') === 'PNG', `${at} the file read through the main instance is a PNG`);
		check(
			viaMain.equals(original),
			`${at} the file read through the main instance equals the API's file (${viaMain.length} vs ${original.length} bytes)`,
		);
		bytesRead += viaMain.length;
	}
	check(taskIds.size === ITEMS, `${ITEMS} distinct task ids, got ${taskIds.size}`);
	check(
		modes.size === 1 && modes.has('database'),
		`binary data stored in database mode (queue mode's default in n8n 2.x), got ${[...modes].join(', ')}`,
	);
	const storedFiles = Number(
		postgresQuery({ ...pg, database: deployment.database! }, 'select count(*) from binary_data').trim(),
	);
	check(storedFiles >= ITEMS, `Postgres holds the files (binary_data rows: ${storedFiles})`);
	return { modes, bytesRead, storedFiles };
}

/** Each execution ran once, on a worker (never on the main), and both workers ran some. */
function checkWorkers(deployment: Deployment, executions: Awaited<ReturnType<typeof checkExecutions>>): string[][] {
	// Which worker ran which execution: each worker logs "Worker started execution <id> (job <n>)".
	const ids = new Set(executions.map((execution) => execution.id));
	const perWorker = deployment.workerLogs.map((file) =>
		[...readFileSync(file, 'utf8').matchAll(/Worker started execution (\S+) \(job/g)]
			.map((match) => match[1])
			.filter((id) => ids.has(id)),
	);
	const ran = perWorker.flat();
	check(
		ran.length === ITEMS && new Set(ran).size === ITEMS,
		`each execution started exactly once on a worker (${ran.length} starts for ${ITEMS} executions)`,
	);
	const mainRan = [...readFileSync(deployment.logFile, 'utf8').matchAll(/Worker started execution (\S+)/g)].length;
	check(mainRan === 0, 'the main instance ran no execution itself');
	perWorker.forEach((list, index) => log('queue', `worker-${index + 1} ran ${list.length} executions`));
	check(
		perWorker.every((list) => list.length > 0),
		`both workers ran executions (${perWorker.map((list) => list.length).join(' + ')})`,
	);
	return perWorker;
}

async function main(): Promise<void> {
	const { step, summary } = stepTimer();
	// No round trip added to the simulator's answers: nothing here is timed.
	const world = await startWorld('queue', [VERSION], TASK_SECONDS * 1000, undefined, 0);
	step('system packages, n8n install, the package, simulator, postgres, redis');
	let deployment: Deployment | undefined;
	let passed = false;
	try {
		deployment = await startDeployment({
			install: ensureN8n(VERSION, 'queue'),
			packageFolder: world.packageFolder,
			simulatorUrl: world.simulatorUrl,
			workflows: [WORKFLOW],
			publish: [WORKFLOW_ID],
			webhookPaths: [WEBHOOK_PATH],
			// Logs outlive the run (CI keeps them as artifacts): the per-worker counts are read from them.
			logDir: logFolder('queue'),
			queue: { services: { ...world.services, name: 'queue' }, workers: WORKERS },
		});
		step(`main and ${WORKERS} workers ready, workflow created and published`);

		const { prompts, wall } = await fireWebhooks(deployment.server.url);
		step(`${ITEMS} executions (create, wait, download) through the queue`);
		const executions = await checkExecutions(deployment, world.simulatorUrl, prompts);
		const { modes, bytesRead, storedFiles } = await checkFiles(deployment, world.services.postgres, executions);
		step('assertions (execution data, binary files through the main instance, simulator record)');
		const perWorker = checkWorkers(deployment, executions);

		log(
			'queue',
			`PASS: ${ITEMS} concurrent executions in queue mode: all succeeded in ${wall.toFixed(1)} s wall; ` +
				`per worker: ${perWorker.map((list, index) => `worker-${index + 1}=${list.length}`).join(', ')}; ` +
				`${ITEMS} creations for ${ITEMS} calls; ${ITEMS} files (${bytesRead} bytes) read back through the main instance from binary data mode "${[...modes][0]}" (${storedFiles} rows in Postgres)`,
		);
		passed = true;
	} finally {
		if (!passed && deployment)
			for (const file of [deployment.logFile, ...deployment.workerLogs]) printLogTail(file, 40);
		const stopStarted = Date.now();
		await deployment?.stop();
		await world.stop();
		log('queue', `stopped workers, main, redis, postgres, feed and simulator in ${since(stopStarted, 1)}`);
		step('shutdown');
		log('queue', summary());
	}
}

runMain('queue', main);
