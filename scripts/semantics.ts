/**
 * `npm run test:semantics`: n8n's own semantics around the node (On Error and error outputs, Stop, Retry On Fail,
 * loops, Retry execution, the durable example's loop, Task → Delete under Retry On Fail) in real n8n with the
 * packed tarball; docs/errors-and-n8n-settings.md says what it checks and how. Each workflow's webhook body carries
 * its items. MEDIAGEN_E2E_VERSIONS picks the versions (default "2.41.1,1.123.81").
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { NODE_TYPE } from '../test/nodeType';
import type { RecordedRequestSummary } from '../test/simulator/server';
import { checkRun, creationsOf, durableExample, sceneTask } from './lib/durable-example';
import { callWebhook, CREDENTIAL_REF, webhookNode, workflowOf, type Link, type NodeSpec } from './lib/n8n';
import { logFolder } from './lib/paths';
import { logSize, runMain, waitForLog } from './lib/process';
import { check, log } from './lib/report';
import { getExecution, listExecutions, outputOf, restJson, waitForExecution, type ExecutionSummary } from './lib/rest';
import { injectFault, simulatorRecord, simulatorTasks } from './lib/simulator';
import { runOnVersions, suiteVersions, withN8n, type RunningN8n } from './lib/suite';
import { waitFor } from './lib/wait';

const SCOPE = 'semantics';
const CREATE_PATH = '/v1/tlimages/betav4';
const isFinal = (status: string) => ['success', 'error', 'canceled', 'crashed'].includes(status);
/** Retry On Fail's tries of the node that the Stop check stops, and the tag of its prompts (its retry's too). */
const STOP_TRIES = 3;
const STOP_TAG = '(stop)';
const RETRY = { retryOnFail: true, maxTries: 3, waitBetweenTries: 1000 };
/** How many rounds the durable example's IF node allows in this suite (100 in the example). */
const DURABLE_ROUNDS = 3;
const LOOP_PROMPT = 'a lighthouse at dusk (loop)';

type Row = Record<string, unknown>;
let uuid = 0;
const nextId = () => `e0000000-0000-4000-8000-${String(++uuid).padStart(12, '0')}`;

/** Webhook → "Items" (Split Out of the body's `items`: each call brings its own) → `nodes`, wired by `links`. */
function caseWorkflow(id: string, name: string, nodes: NodeSpec[], links: Link[]) {
	const webhookPath = `mediagen-${id.toLowerCase()}`;
	const items = {
		name: 'Items',
		type: 'n8n-nodes-base.splitOut',
		parameters: { fieldToSplitOut: 'body.items', options: {} },
	};
	const all = [webhookNode(webhookPath, nextId()), items, ...nodes];
	const wired: Link[] = [['Webhook', 'Items'], ['Items', nodes[0].name], ...links];
	return { workflow: workflowOf(id, `MediaGen semantics: ${name}`, all, wired), path: webhookPath };
}

/** "Render", a beta v4 creation that waits; `options` go into its Options, `settings` onto the node (On Error, …). */
function render(options: Row, settings: Row = {}, prompt = '={{ $json.prompt }}') {
	return {
		name: 'Render',
		type: NODE_TYPE,
		parameters: {
			resource: 'image',
			operation: 'betav4',
			prompt,
			waitForCompletion: true,
			options: { pollInterval: 0.5, maxWait: 60, downloadResults: false, ...options },
		},
		credentials: CREDENTIAL_REF,
		...settings,
	};
}

const noOp = (name: string) => ({ name, type: 'n8n-nodes-base.noOp', parameters: {} });

/** A case whose Render node's outputs (0, then 1) lead to No Op nodes named `outputs`, the last one to `after`. */
function renderCase(id: string, name: string, node: NodeSpec, outputs: string[], after?: NodeSpec) {
	const links = outputs.map((output, index): Link => ['Render', output, index]);
	if (after) links.push([outputs[outputs.length - 1], after.name]);
	return caseWorkflow(id, name, [node, ...outputs.map(noOp), ...(after ? [after] : [])], links);
}

/** examples/durable-wait.json made quick (Waits of 1 s, DURABLE_ROUNDS rounds), its scenes from the webhook's body. */
function durableExampleCase() {
	const webhookPath = 'mediagen-mgsemdurable';
	const example = durableExample(webhookPath, { id: nextId(), webhookId: nextId() }, 1);
	const { scenes, taskWait, workflow } = example;
	example.bound.rightValue = DURABLE_ROUNDS;
	scenes.parameters = { ...scenes.parameters, jsonOutput: '={{ JSON.stringify({ scenes: $json.body.items }) }}' };
	const options = { ...(taskWait.parameters.options as object), pollInterval: 0.5, maxWait: 1 };
	taskWait.parameters = { ...taskWait.parameters, options };
	return {
		...example,
		workflow: { ...workflow, id: 'mgSemDurableLoop', name: 'MediaGen semantics: the durable example' },
		path: webhookPath,
	};
}

const CASES = {
	errorOutput: renderCase(
		'mgSemErrorOutput',
		'error output',
		render({ failedStatusCodes: '3' }, { onError: 'continueErrorOutput' }),
		['Rendered', 'Failed Renders'],
		{
			name: 'Failed Task Id',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			parameters: {
				mode: 'raw',
				jsonOutput: '={{ JSON.stringify({ failedTask: $json.error.taskid, scene: $json.scene }) }}',
				options: {},
			},
		},
	),
	continueRegular: renderCase(
		'mgSemContinue',
		'continue (regular output)',
		render({ failedStatusCodes: '3' }, { onError: 'continueRegularOutput' }),
		['All Renders'],
	),
	// Retry On Fail on: n8n calls a stopped node again after the wait between tries; it must create nothing.
	stop: renderCase('mgSemStop', 'stop', render({ pollInterval: 1, maxWait: 600 }, { ...RETRY, maxTries: STOP_TRIES }), [
		'Rendered',
	]),
	retryOnFail: renderCase('mgSemRetryOnFail', 'retry on fail', render({ downloadResults: true }, RETRY), ['Rendered']),
	retryContinue: renderCase(
		'mgSemRetryContinue',
		'retry on fail with the error output',
		render({ failedStatusCodes: '3' }, { onError: 'continueErrorOutput', ...RETRY }),
		['Rendered', 'Failed Renders'],
	),
	loop: caseWorkflow(
		'mgSemLoop',
		'loop',
		[
			// The same request in both rounds (a fixed prompt), and Retry On Fail on: only the run index differs.
			render({}, RETRY, LOOP_PROMPT),
			{
				name: 'Again?',
				type: 'n8n-nodes-base.if',
				parameters: { conditions: { number: [{ value1: '={{ $runIndex }}', operation: 'smaller', value2: 1 }] } },
			},
			noOp('Done'),
		],
		[
			['Render', 'Again?'],
			['Again?', 'Render'],
			['Again?', 'Done', 1],
		],
	),
	retryExecution: renderCase('mgSemRetryExec', 'retry execution', render({ downloadResults: true }), ['Rendered']),
	durableExample: durableExampleCase(),
	deleteRetry: caseWorkflow(
		'mgSemDeleteRetry',
		'delete, retry on fail',
		[
			{ ...render({}), name: 'Create', parameters: { ...render({}).parameters, waitForCompletion: false } },
			{
				name: 'Delete Tasks',
				type: NODE_TYPE,
				parameters: { resource: 'task', operation: 'delete', options: { maxConcurrency: 1, maxWait: 1 } },
				credentials: CREDENTIAL_REF,
				...RETRY,
			},
		],
		[['Create', 'Delete Tasks']],
	),
};

/** A test workflow and the production webhook that starts it. */
type Case = ReturnType<typeof caseWorkflow>;
/** n8n of one version, running every case; `stopped` is the execution the Stop check stopped (retried next). */
type Target = RunningN8n & { stopped?: string };
const json = (value: unknown) => JSON.stringify(value);

/** The final table's rows: what each check proved on each version, and how long it took. */
const proofs: Array<{ version: string; check: string; proved: string; seconds: number }> = [];

type Which = Parameters<typeof waitForExecution>[2]['which'];

/** Waits until execution `which` of a case's workflow has a status `wanted` (by default: it has ended). */
async function executionOf(target: Target, item: Case, which: Which, what: string, wanted = isFinal) {
	return await waitForExecution(() => target.session, item.workflow.id, { which, wanted, what });
}

/** Starts a case's workflow through its webhook and returns the new execution once it has ended. */
async function runCase(target: Target, item: Case, items: Row[], wanted = isFinal) {
	const known = new Set((await listExecutions(target.session, item.workflow.id)).map((execution) => execution.id));
	await callWebhook(target.server.url, item.path, { items });
	const fresh = (candidate: { id: string }) => !known.has(candidate.id);
	return await executionOf(target, item, fresh, `${item.workflow.name} (n8n ${target.version})`, wanted);
}

/** Runs a case that must succeed (`how`: e.g. " after a retry"); returns the execution with its data. */
async function runToSuccess(target: Target, item: Case, items: Row[], how = '') {
	const summary = await runCase(target, item, items);
	check(summary.status === 'success', `the execution succeeded${how} (status ${summary.status})`);
	return await getExecution(target.install, target.session, summary.id);
}

/** The execution that the editor's "Retry execution" of `id` (REST `/retry`) started, once its status is `wanted`. */
async function retryOf(target: Target, item: Case, id: string, wanted = isFinal) {
	const which = (candidate: { retryOf?: string | null }) => String(candidate.retryOf ?? '') === id;
	return await executionOf(target, item, which, `the retry of execution ${id}`, wanted);
}

/** How many creations the simulator saw whose prompt contains `tag`. */
const creationCount = async (target: Target, tag: string) =>
	(await creationsOf(target.simulator.url, CREATE_PATH, tag)).length;

/** The id of the one task the simulator created for each of `items`, found by its prompt. */
async function taskIds(target: Target, items: Array<{ prompt: string }>): Promise<string[]> {
	const tasks = await simulatorTasks(target.simulator.url);
	return items.map(({ prompt }) => {
		const matching = tasks.filter((task) => task.prompt === prompt);
		check(matching.length === 1, `one task for the prompt "${prompt}" (found ${matching.length})`);
		return matching[0].taskid;
	});
}

/** Checks that the creations tagged `tag` were one per item (`what` says what that shows); returns their ids. */
async function createdOnce(target: Target, tag: string, items: Array<{ prompt: string }>, what: string) {
	const count = await creationCount(target, tag);
	check(count === items.length, `${what} (${count} creations)`);
	return await taskIds(target, items);
}

/** How many of n8n's log lines say that node "Render" `did` ("created", "resumes") image task `id`. */
function logLines(target: Target, did: string, id: string, execution = '\\d+'): number {
	const line = `MediaGen node "Render" ${did} image task ${id} for item \\d .*\\(execution ${execution}\\)`;
	return readFileSync(target.logFile, 'utf8').match(new RegExp(line, 'g'))?.length ?? 0;
}

/**
 * Runs a case on three items tagged `tag`: one that completes, one the simulator fails, one it refuses; checks it
 * succeeded and created each once, and returns the items, the execution and the task ids.
 */
async function threeOutcomes(target: Target, item: Case, tag: string) {
	const items = [
		{ row: 1, scene: 'harbour', prompt: `a cat ${tag}` },
		{ row: 2, scene: 'beach', prompt: `a dog [sim:fail] ${tag}` },
		{ row: 3, scene: 'forest', prompt: `a fox [sim:refuse] ${tag}` },
	];
	const execution = await runToSuccess(target, item, items);
	return { items, execution, ids: await createdOnce(target, tag, items, 'three creations') };
}

/**
 * Runs the case `item` on `count` items tagged `tag` whose first result download is answered 404, then `resume`:
 * it takes that execution and returns the one that finished the work (the same after Retry On Fail's next try, or
 * a "Retry execution" of it). Checks that this one succeeded, that each task was created once (`once`: what that
 * shows) and came out of it in order, completed, with its file (`files`); returns how many of them n8n's log says
 * it resumed, and the two executions.
 */
async function resumeAfter404(
	target: Target,
	[item, tag, count]: [Case, string, number],
	resume: (first: ExecutionSummary) => Promise<ExecutionSummary>,
	[once, files]: [string, string],
) {
	const items = Array.from({ length: count }, (_, index) => ({ row: index + 1, prompt: `a kite ${index + 1} ${tag}` }));
	await injectFault(target.simulator.url, {
		pathPattern: '^/files/',
		times: 1,
		action: { type: 'status', status: 404 },
	});
	const first = await runCase(target, item, items);
	const last = await resume(first);
	const finisher = last.id === first.id ? 'the execution, after a retry,' : `the retry ${last.id}`;
	check(last.status === 'success', `${finisher} succeeded (status ${last.status}, mode ${last.mode})`);
	const ids = await createdOnce(target, tag, items, once);
	const output = outputOf(await getExecution(target.install, target.session, last.id), 'Render');
	check(
		json(output.map((item) => [item.json.taskid, item.json.status, Boolean(item.binary?.data)])) ===
			json(ids.map((id) => [id, 'completed', true])),
		`${files}: ${json(output.map((item) => item.json))}`,
	);
	return { first, last, resumed: ids.filter((id) => logLines(target, 'resumes', id, last.id) > 0).length };
}

async function errorOutput(target: Target): Promise<string> {
	const { items, execution, ids } = await threeOutcomes(target, CASES.errorOutput, '(error output)');
	const [cat, dog, fox] = ids;
	const succeeded = outputOf(execution, 'Render', 0);
	check(
		succeeded.length === 1 && succeeded[0].json.taskid === cat && succeeded[0].json.status === 'completed',
		`the success output holds the completed task ${cat} only: ${json(succeeded.map((item) => item.json))}`,
	);
	check(outputOf(execution, 'Rendered').length === 1, 'the success branch ran with one item');
	const failed = outputOf(execution, 'Render', 1);
	check(failed.length === 2, `two items on the error output (${failed.length})`);
	for (const [item, id, input, cause] of [
		[failed[0], dog, items[1], /failed with status 3/],
		[failed[1], fox, items[2], /content moderation/],
	] as const) {
		const error = item.json.error as Row | undefined;
		check(error?.taskid === id, `$json.error.taskid is the created id ${id}: ${json(item.json)}`);
		check(
			error.status === 'failed' && error.taskType === 'image' && error.model === 'betav4',
			`error holds status, taskType and model: ${json(error)}`,
		);
		check(cause.test(String(item.json.message)) && cause.test(String(error.message)), `message: ${json(item.json)}`);
		check(
			item.json.row === input.row && item.json.scene === input.scene && item.json.prompt === input.prompt,
			`n8n merged the input item's fields into the error item: ${json(item.json)}`,
		);
	}
	check(outputOf(execution, 'Failed Renders').length === 2, 'the error branch ran with both failed items');
	const read = outputOf(execution, 'Failed Task Id').map((item) => item.json);
	check(
		json(read) === json([1, 2].map((index) => ({ failedTask: ids[index], scene: items[index].scene }))),
		`an expression on the error branch reads {{ $json.error.taskid }}: ${json(read)}`,
	);
	return `success output [${cat} completed]; error output [${dog} status 3, ${fox} refused] with $json.error.taskid, input fields row/scene/prompt merged in; Set on the error branch read ${dog}, ${fox}`;
}

async function continueRegular(target: Target): Promise<string> {
	const { execution, ids } = await threeOutcomes(target, CASES.continueRegular, '(continue)');
	const output = outputOf(execution, 'Render', 0);
	check(
		json(output.map((item) => [item.json.taskid, item.json.status])) ===
			json(ids.map((id, index) => [id, ['completed', 'failed', 'failed'][index]])),
		`one output, in item order, failed ones with their taskid and status "failed": ${json(output.map((item) => item.json))}`,
	);
	check(outputOf(execution, 'Render', 1).length === 0, 'nothing on a second output');
	for (const item of output.slice(1)) {
		check(
			typeof item.json.error === 'string' &&
				typeof item.json.errorDescription === 'string' &&
				item.json.taskType === 'image' &&
				item.json.model === 'betav4' &&
				(item.json.request as Row | undefined)?.prompt !== undefined,
			`flat error item: ${json(item.json)}`,
		);
		check(item.json.row === undefined, `a Continue error item is kept as the node returned it: ${json(item.json)}`);
	}
	check(outputOf(execution, 'All Renders').length === 3, 'the next node got all three items');
	return `one output: ${ids[0]} completed, ${ids[1]} failed, ${ids[2]} failed (flat: taskid, status, taskType, model, request, error, errorDescription; input fields not merged)`;
}

async function stop(target: Target): Promise<string> {
	const items = [1, 2, 3].map((row) => ({ row, prompt: `render ${row} [sim:never] ${STOP_TAG}` }));
	const running = await runCase(target, CASES.stop, items, (status) => status === 'running');
	// Stop while the node polls: every task has been created and polled at least once.
	let ids: string[] = [];
	const isPoll = (entry: RecordedRequestSummary) =>
		entry.path.includes('infobytaskid') && ids.includes(String((entry.json as Row | undefined)?.taskid));
	const polling = { deadline: 120_000, describe: 'each of the three tasks to be created and polled' };
	await waitFor(async (see) => {
		const tasks = (await simulatorTasks(target.simulator.url)).filter((task) => task.prompt?.includes(STOP_TAG));
		ids = tasks.map((task) => task.taskid);
		const polled = new Set(
			(await simulatorRecord(target.simulator.url)).filter(isPoll).map((entry) => json(entry.json)),
		);
		see(`${ids.length} tasks created, ${polled.size} of them polled`);
		return polled.size >= 3;
	}, polling);
	ids = await taskIds(target, items);
	const logFrom = logSize(target.logFile);
	const stoppedAt = Date.now();
	await restJson(target.session, `/executions/${running.id}/stop`, {}); // the editor's Stop button
	// n8n has aborted the execution when it answers the Stop (however long a busy machine took to get there).
	const stopAnswered = Date.now();
	const ended = await executionOf(target, CASES.stop, running.id, `stopped execution ${running.id}`);
	const endedIn = (Date.now() - stoppedAt) / 1000;
	check(ended.status === 'canceled', `the stopped execution is "canceled" (status ${ended.status})`);
	// Retry On Fail runs the stopped node again, each try after the wait between tries, in the background of
	// the canceled execution: it is over once n8n's debug log shows every try ended (n8n-core's WorkflowExecute
	// logs 'Running node "<name>" finished with error' at the end of each failed try), and only then can the
	// record below prove that nothing was created or polled after the Stop.
	const tryEnded = 'Running node "Render" finished with error[\\s\\S]*?';
	await waitForLog(target.logFile, new RegExp(`(?:${tryEnded}){${STOP_TRIES}}`), 120_000, undefined, logFrom);
	const record = await simulatorRecord(target.simulator.url);
	const polledBefore = record.filter((entry) => entry.at <= stoppedAt && isPoll(entry)).length;
	check(polledBefore >= 3, `the tasks were being polled before the Stop (${polledBefore} polls)`);
	const createdInAll = await creationCount(target, STOP_TAG);
	check(createdInAll === 3, `nothing was created after the Stop (${createdInAll} creations in all)`);
	// Polls in flight when n8n answered the Stop may still be recorded after it, at most one per task; a node
	// that went on polling (or a try that polled) would add at least one more round.
	const after = record.filter((entry) => entry.at > stopAnswered && isPoll(entry));
	check(after.length <= ids.length, `no poll round started after the Stop: ${after.length} polls recorded after it`);
	for (const id of ids)
		check(
			logLines(target, 'created', id, running.id) > 0,
			`n8n's log has the line "created image task ${id}" for execution ${running.id}`,
		);
	const saved = await getExecution(target.install, target.session, running.id);
	const { runData, error } = saved.data.resultData;
	const kept = Object.entries(runData).map(([node, runs]) => {
		const failed = runs.find((run) => run.error)?.error;
		return `${node} ×${runs.length}${failed ? ` (error: ${failed.message})` : ''}`;
	});
	const holds = `runData {${kept.join(', ')}}; resultData.error ${error ? `${error.name ?? ''} "${error.message}"` : 'none'}; status ${saved.status}, finished ${saved.finished}`;
	log(SCOPE, `n8n ${target.version}: the stopped execution ${running.id} as saved: ${holds}`);
	target.stopped = running.id;
	return `canceled ${endedIn.toFixed(1)} s after the REST Stop; log lines for all 3 created tasks (${ids.join(', ')}); ${polledBefore} polls before the Stop, ${after.length} in flight at it; saved: ${holds}`;
}

/** "Retry execution" of the stopped execution: n8n saved too little to resume (2.x no run data, 1.x no stack). */
async function retryStopped(target: Target): Promise<string> {
	const stopped = target.stopped;
	check(stopped, 'the Stop check left a stopped execution');
	const before = await creationCount(target, STOP_TAG);
	// n8n answers the retry request when the retried execution ends: do not wait for the answer here.
	const answer = restJson(target.session, `/executions/${stopped}/retry`, { loadWorkflow: false }).then(
		() => 'answered',
		(error: Error) => `refused (${error.message.split('\n')[0].slice(0, 120)})`,
	);
	const retried = await retryOf(target, CASES.stop, stopped, () => true);
	// n8n 2.x runs the workflow again and the node creates its 3 tasks anew (then waits for them: the test stops
	// it); n8n 1.x ends the retry at once. Whichever happens first ends the wait.
	const wait = { deadline: 120_000, describe: `the retry ${retried.id} to end or to create its tasks anew` };
	const { status } = await waitFor(async (see) => {
		const now = await creationCount(target, STOP_TAG);
		const listed = await listExecutions(target.session, CASES.stop.workflow.id);
		const status = listed.find((candidate) => candidate.id === retried.id)?.status ?? 'not listed';
		see(`retry ${retried.id} with status "${status}", ${now - before} new creations`);
		return (isFinal(status) || now >= before + 3) && { status };
	}, wait);
	if (!isFinal(status)) {
		await restJson(target.session, `/executions/${retried.id}/stop`, {});
		await executionOf(target, CASES.stop, retried.id, `stopping the retry ${retried.id}`);
	}
	const answered = await answer;
	const ran = Object.keys((await getExecution(target.install, target.session, retried.id)).data.resultData.runData);
	const after = await creationCount(target, STOP_TAG);
	if (Number(target.version.split('.')[0]) >= 2) {
		check(
			after === before + 3,
			`n8n ${target.version} runs a stopped execution again from its trigger: the node created its 3 tasks anew (${after - before})`,
		);
		return `retry ${retried.id} ran the workflow again from the trigger and created the 3 tasks anew (${before} → ${after} creations; stopped by the test); the REST call ${answered}`;
	}
	check(
		status === 'success' && !ran.includes('Render') && after === before,
		`n8n ${target.version} ends the retry of a stopped execution at once without running the node (status ${status}, ran ${ran.join(', ')}, ${after - before} new creations)`,
	);
	return `retry ${retried.id} ended at once "${status}" with run data of [${ran.join(', ')}] only: the node did not run, nothing created, nothing fetched; the REST call ${answered}`;
}

async function retryOnFail(target: Target): Promise<string> {
	const { resumed } = await resumeAfter404(target, [CASES.retryOnFail, '(retry on fail)', 3], async (first) => first, [
		'exactly one creation per item',
		'three completed items with their files',
	]);
	const record = await simulatorRecord(target.simulator.url);
	const refused = record.filter((entry) => entry.path.startsWith('/files/') && entry.status === 404);
	check(refused.length === 1, `the first download was answered 404 (${refused.length})`);
	check(resumed >= 1, `n8n's log says a later try resumed the tasks (${resumed})`);
	return `first try failed on a 404 download after creating 3 tasks; the retry resumed ${resumed} of them (log "resumes image task"); execution success with 3 files; 3 creations in all`;
}

/**
 * Retry On Fail also re-runs a node whose first output item holds `json.error` (n8n-core's WorkflowExecute), as an
 * error item does: each try resumes the good task and creates the failed one anew, until the tries run out.
 */
async function retryContinue(target: Target): Promise<string> {
	const tag = '(retry on fail, error output)';
	const items = [
		{ row: 1, prompt: `a dog [sim:fail] ${tag}` },
		{ row: 2, prompt: `a cat ${tag}` },
	];
	const execution = await runToSuccess(target, CASES.retryContinue, items);
	const [dogs, cats] = await Promise.all(items.map(async (item) => await creationCount(target, item.prompt)));
	const tasks = await simulatorTasks(target.simulator.url);
	const [dogIds, [catId]] = items.map((item) =>
		tasks.filter((task) => task.prompt === item.prompt).map((task) => task.taskid),
	);
	const failed = outputOf(execution, 'Render', 1);
	const succeeded = outputOf(execution, 'Render', 0);
	const resumedCat = logLines(target, 'resumes', catId);
	check(dogs === 3 && cats === 1, `3 tries: the failed item created 3 times, the good one once (${dogs}, ${cats})`);
	check(resumedCat === 2, `the good task was resumed by tries 2 and 3 (${resumedCat})`);
	check(
		failed.length === 1 && (failed[0].json.error as Row).taskid === dogIds[2],
		`the error output holds the last try's failed task ${dogIds[2]}: ${json(failed.map((item) => item.json))}`,
	);
	check(succeeded.length === 1 && succeeded[0].json.taskid === catId, 'the success output holds the good task');
	return `first item failed → n8n re-ran the node 3 times: the failed item was created 3 times (${dogIds.join(', ')}), the good task ${catId} once and resumed twice; error output: ${dogIds[2]}`;
}

async function durableLoop(target: Target): Promise<string> {
	const example = CASES.durableExample;
	const tag = '(durable example)';
	const items = [
		{ prompt: `The boat sails out ${tag}`, image: 'https://example.com/harbour.png' },
		{ prompt: `Waves roll in [sim:refuse] ${tag}`, image: 'https://example.com/beach.png' },
		{ prompt: `Fog that never lifts [sim:never] ${tag}`, image: 'https://example.com/fog.png' },
	];
	const execution = await runToSuccess(target, example, items);
	const run = await checkRun(target.simulator.url, execution, example, [items.length, items[1].prompt, tag]);
	const [good, never] = [items[0], items[2]].map((item) => sceneTask(run.created, item.prompt));
	const done = run.done.map((item) => `${item.json.taskid} ${item.json.status}`);
	check(
		json(done.sort()) === json([`${good} completed`, `${never} pending`].sort()),
		`the completed render and, after the bound, the never-ending one (still pending) reached the end: ${json(done)}`,
	);
	const conditionRuns = execution.data.resultData.runData[example.condition.name]?.length ?? 0;
	check(
		conditionRuns === DURABLE_ROUNDS + 1,
		`the IF node ran ${DURABLE_ROUNDS} rounds back plus the last one (${conditionRuns})`,
	);
	return `3 renders: ${good} completed; ${run.refusedId} refused → error output after ${run.refusedChecks} checks, loop ended; ${never} left pending by the IF bound after ${conditionRuns} IF runs ($runIndex < ${DURABLE_ROUNDS})`;
}

async function loop(target: Target): Promise<string> {
	const execution = await runToSuccess(target, CASES.loop, [{ row: 1 }, { row: 2 }]);
	const runs = execution.data.resultData.runData.Render?.length ?? 0;
	check(runs === 2, `the node ran twice (run index 0 and 1): ${runs}`);
	const count = await creationCount(target, LOOP_PROMPT);
	check(count === 4, `each run created its own tasks: 2 items × 2 runs = 4 creations (${count})`);
	const ids = new Set(outputOf(execution, 'Render').map((item) => item.json.taskid));
	check(ids.size === 4, `four distinct task ids over the two runs (${ids.size})`);
	check(outputOf(execution, 'Done').length === 2, 'the loop ended with both items');
	return 'the same request in a loop (run index 0 and 1, Retry On Fail on): 4 creations, 4 distinct ids';
}

/** "Retry execution" of a failed execution, with the original (`loadWorkflow` false) or the current workflow. */
async function retryExecutionCase(target: Target, loadWorkflow: boolean): Promise<string> {
	const tag = loadWorkflow ? '(retry execution, current workflow)' : '(retry execution, original workflow)';
	let stored: string[] = [];
	const retry = async (failed: ExecutionSummary) => {
		check(failed.status === 'error', `the execution failed on the 404 download (status ${failed.status})`);
		const before = await creationCount(target, tag);
		check(before === 2, `two creations before the retry (${before})`);
		const failedData = await getExecution(target.install, target.session, failed.id);
		stored = Object.keys(failedData.data.executionData?.contextData ?? {});
		await restJson(target.session, `/executions/${failed.id}/retry`, { loadWorkflow });
		return await retryOf(target, CASES.retryExecution, failed.id);
	};
	const { first, last, resumed } = await resumeAfter404(target, [CASES.retryExecution, tag, 2], retry, [
		'the retry created nothing',
		"the retry output has the first execution's tasks, completed, with files",
	]);
	check(resumed === 2, `n8n's log says the retry resumed both tasks (${resumed})`);
	return `execution ${first.id} failed (404) after 2 creations, its saved context holds [${stored.join(', ')}]; retry ${last.id} (mode ${last.mode}) resumed both, success, no new creation`;
}

async function deleteRetry(target: Target): Promise<string> {
	const tag = '(delete, retry on fail)';
	const items = [1, 2].map((row) => ({ row, prompt: `a kite ${row} ${tag}` }));
	const deletePath = '/v1/tlimages/deleteimagestask';
	// The first delete goes through; the next two are answered 502: longer than Max Wait, the first try fails.
	await injectFault(target.simulator.url, {
		path: deletePath,
		skip: 1,
		times: 2,
		action: { type: 'status', status: 502, body: json({ code: 9999, msg: 'Bad Gateway' }) },
	});
	const execution = await runToSuccess(target, CASES.deleteRetry, items, ' after a retry');
	const [first, second] = await taskIds(target, items);
	const firstId = (entry: RecordedRequestSummary) => (entry.json as { taskids?: string[] } | undefined)?.taskids?.[0];
	const deletes = (await simulatorRecord(target.simulator.url)).filter(
		(entry) => entry.path === deletePath && [first, second].includes(String(firstId(entry))),
	);
	const ofFirst = deletes.filter((entry) => firstId(entry) === first);
	check(ofFirst.length === 2, `the first item's task was sent twice, once per try (${ofFirst.length})`);
	check(
		deletes.filter((entry) => entry.status === 502).length === 2,
		`two deletes were answered 502: ${json(deletes)}`,
	);
	const output = outputOf(execution, 'Delete Tasks').map((item) => item.json);
	check(
		json(output.map((item) => [item.status, item.deleted, item.alreadyGone])) ===
			json([
				['deleted', [], [first]],
				['deleted', [second], []],
			]),
		`the first item's task counts as already gone, the second's as deleted: ${json(output)}`,
	);
	return `the first try deleted ${first}, then got 502 twice for ${second}; the second try found ${first} gone (alreadyGone) and deleted ${second}: success`;
}

/** Every check, in order, on one n8n version. */
const CHECKS: Array<[string, (target: Target) => Promise<string>]> = [
	['error output', errorOutput],
	['continue (regular output)', continueRegular],
	['stop → canceled', stop],
	['retry execution of a stopped one', retryStopped],
	['retry on fail resumes', retryOnFail],
	['retry on fail + error output', retryContinue],
	['loop creates anew', loop],
	['durable example loop', durableLoop],
	['retry execution (original workflow)', async (target) => await retryExecutionCase(target, false)],
	['retry execution (current workflow)', async (target) => await retryExecutionCase(target, true)],
	['delete: retry on fail after a 502', deleteRetry],
];

async function runVersion(version: string, tarball: string, logDir: string): Promise<void> {
	const cases = Object.values(CASES);
	const options = {
		scope: SCOPE,
		version,
		tarball,
		logFile: path.join(logDir, `n8n-${version}.log`),
		// Simulated renders take 1 s unless a prompt says otherwise.
		simulator: { taskDurationMs: 1000 },
		// Debug level: the Stop check waits for n8n-core's line that ends each try of the stopped node.
		env: { N8N_LOG_LEVEL: 'debug' },
		workflows: cases.map((item) => item.workflow),
		webhookPaths: cases.map((item) => item.path),
	};
	await withN8n(options, async (target: Target) => {
		log(SCOPE, `n8n ${version} started at ${target.server.url} (log ${path.relative(process.cwd(), target.logFile)})`);
		for (const [name, body] of CHECKS) {
			const started = Date.now();
			const proved = await body(target);
			const seconds = (Date.now() - started) / 1000;
			proofs.push({ version, check: name, proved, seconds });
			log(SCOPE, `n8n ${version}: ${name}: PASS (${seconds.toFixed(1)} s): ${proved}`);
		}
		target.step('checks');
	});
}

async function main(): Promise<void> {
	const logDir = logFolder(SCOPE);
	try {
		const versions = suiteVersions('MEDIAGEN_E2E_VERSIONS');
		await runOnVersions(SCOPE, versions, async (version, tarball) => await runVersion(version, tarball, logDir));
	} finally {
		if (proofs.length) {
			console.log('\n| n8n | check | s | proved |\n|---|---|---|---|');
			for (const proof of proofs)
				console.log(`| ${proof.version} | ${proof.check} | ${proof.seconds.toFixed(1)} | ${proof.proved} |`);
			console.log('');
		}
	}
}

runMain(SCOPE, main);
