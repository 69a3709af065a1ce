/**
 * The node's promises as invariants, checked after every schedule against the servers' own records (world.ts),
 * never against what the node says about itself:
 *   1. every task the server created is named in what n8n keeps (output, error items, the stopping error, the
 *      node's log lines); a task whose id never reached the node is announced there as "may have been created";
 *   2. one item's request creates at most one task across all tries of one run, unless the API said that task
 *      failed, or the user allowed repeating an uncertain creation;
 *   3. every request ends within Request Timeout (plus slack) of its arrival, and the run within its bound;
 *   4. no connection to either host stays open after the run;
 *   5. every stored file is byte-identical to a complete body the host served; a completed item carries a file
 *      for each URL;
 *   6. output items pair with input items, none duplicated (when the run ended without stopping);
 *   7. the key reaches only the Base URL's origin, and appears in no output, error or log line, in any encoding;
 *   8–10. errors are bounded, a stored file is whole and what its name and type say, no whole file is refused
 *      (checks/bodies.ts);
 *  11. no item is lost (checks/items.ts);
 *  12–13. Task → Delete: what is reported deleted is gone, and a failure is never reported as deleted
 *      (checks/deletes.ts);
 *  14. never later than the grid (checks/grid.ts);
 *  15. the workflow's static data stays as it was; what the process learned is small and safe (checks/memory.ts);
 *  16. never more checks than the grid's and one (checks/grid.ts).
 */
import { createHash } from 'node:crypto';
import type { IBinaryData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import { readBinary, type RunResult } from '../harness';
import type { NodeHistory } from '../../nodes/MediaGen/learning/history';
import { keyLeaks } from '../keyEncodings';
import { allText } from '../support';
import { checkErrorLengths, checkNoFileRefused, checkStoredFileKinds, storedUrl } from './checks/bodies';
import { checkDeletes } from './checks/deletes';
import { checkNeverLaterThanGrid, checkNoMoreChecksThanGrid } from './checks/grid';
import { checkItemsOut, pairedItems } from './checks/items';
import { checkMemory } from './checks/memory';
import type { Schedule } from './schedule';
import type { World, WorldTask } from './world';

export interface Observation {
	schedule: Schedule;
	world: World;
	apiKey: string;
	result?: RunResult;
	crashed?: unknown;
	logLines: string[];
	startedAt: number;
	endedAt: number;
	stoppedAt?: number;
	openSockets: { api: number; files: number; described: string[] };
	/** Requests to either host that a client of the process started after the run had ended. */
	startedAfterEnd: string[];
	/** Time the process lost to a blocked event loop during the run: added to every time bound's slack. */
	lagMs: number;
	/** Task → Delete: the ids each input item gave. */
	deleteIds?: string[][];
	/** The workflow's static data the run was handed (generators/memory.ts), as the run left it. */
	staticData?: IDataObject;
	/** Its JSON before the run. */
	staticBefore?: string;
	/** What the process learned for the schedule's node and API, after the run (nodes/MediaGen/learning/store.ts). */
	learned?: { own: NodeHistory; api: NodeHistory };
}

/** Lateness a request or a run may have beyond its bound: event-loop lag on a busy 2-core machine. */
const SLACK_MS = 2000;

/** The longest pause a creation may take between attempts in these schedules (Retry-After of at most 2 s). */
const CREATION_PAUSE_MS = 2500;

/** n8n's pause between two tries of Retry On Fail: it takes a Wait Between Tries of 0 as 1000 ms. */
const N8N_WAIT_BETWEEN_TRIES_MS = 1000;

/** The pauses n8n itself makes between tries. */
function retryPausesMs(schedule: Schedule): number {
	return ((schedule.maxTries ?? 1) - 1) * N8N_WAIT_BETWEEN_TRIES_MS;
}

/**
 * The run's bound: per try, Max Wait plus the last status check, the download and the creation queue (Task →
 * Delete sends its requests one after another); plus n8n's pauses between tries.
 */
export function runBoundMs(schedule: Schedule): number {
	const timeout = schedule.requestTimeoutS * 1000;
	if (schedule.deletes) return deleteBoundMs(schedule, schedule.deletes);
	const queue = Math.ceil(schedule.items / schedule.maxConcurrency) * (timeout + CREATION_PAUSE_MS);
	const perTry = schedule.maxWaitS * 1000 + 3 * timeout + queue + SLACK_MS;
	return perTry * (schedule.maxTries ?? 1) + retryPausesMs(schedule);
}

/**
 * Task → Delete's bound: its requests of up to 100 ids queue behind Max Concurrent Requests, and each is repeated
 * for at most Max Wait, then lasts at most Request Timeout; a chunk that meets ids the API does not know goes again
 * (the rest, or halves: at most 8 rounds for 100 ids).
 */
function deleteBoundMs(schedule: Schedule, plan: NonNullable<Schedule['deletes']>): number {
	const ids = plan.idsPerItem.reduce((sum, count) => sum + count, 0);
	const requests = plan.combine
		? Math.ceil(ids / 100)
		: plan.idsPerItem.reduce((sum, count) => sum + Math.ceil(count / 100), 0);
	const rounds = Math.ceil(requests / schedule.maxConcurrency) + 8;
	const perTry = rounds * (schedule.maxWaitS * 1000 + schedule.requestTimeoutS * 1000 + CREATION_PAUSE_MS) + SLACK_MS;
	return perTry * (schedule.maxTries ?? 1) + retryPausesMs(schedule);
}

export async function checkInvariants(observation: Observation): Promise<string[]> {
	const { schedule, result } = observation;
	const violations: string[] = [];
	const fail = (invariant: number) => (text: string) => violations.push(`invariant ${invariant}: ${text}`);
	if (observation.crashed !== undefined) {
		fail(3)(
			`the run did not end as n8n ends runs: ${String((observation.crashed as Error)?.message ?? observation.crashed)}`,
		);
	}
	const output = result?.output ?? [];
	const errorOutput = result?.errorOutput ?? [];
	const stopping = result?.error ? allText(result.error) : '';
	const kept = `${allText(output.map((item) => item.json))}\n${allText(errorOutput.map((item) => item.json))}\n${stopping}\n${observation.logLines.join('\n')}`;

	checkTasksKept(observation, kept, fail(1));
	checkNeverPaidTwice(observation, kept, fail(2));
	checkBounded(observation, fail(3));

	// 4. Released.
	const { api, files, described } = observation.openSockets;
	if (api || files)
		fail(4)(
			`${api} connection(s) to the API and ${files} to the file host are still open after the run (${described.join('; ')})`,
		);
	if (observation.startedAfterEnd.length)
		fail(4)(`requests started after the run ended: ${observation.startedAfterEnd.join('; ')}`);

	// 5. Files are what the host served whole, and what they claim.
	for (const item of [...output, ...errorOutput]) await checkFiles(observation, item, fail(5));

	// 6. Items pair.
	const stopped =
		observation.stoppedAt !== undefined || result?.error !== undefined || observation.crashed !== undefined;
	if (!stopped) checkPairing(schedule, output, errorOutput, fail(6));

	checkKeyStays(observation, kept, fail(7));

	// 8–10. Bodies: errors bounded, stored files whole and what they say, no whole file refused.
	checkErrorLengths(observation, fail(8));
	checkStoredFileKinds(observation, fail(9));
	checkNoFileRefused(observation, fail(10));
	// 11–13.
	for (const text of checkItemsOut(observation)) fail(11)(text);
	if (observation.deleteIds)
		for (const [invariant, text] of checkDeletes(observation, observation.deleteIds)) fail(invariant)(text);
	// 14–16.
	checkNeverLaterThanGrid(observation, fail(14));
	checkMemory(observation, fail(15));
	checkNoMoreChecksThanGrid(observation, fail(16));
	return violations;
}

/** The tasks the server created for the run (not those a schedule placed there before it). */
const createdTasks = (observation: Observation) =>
	[...observation.world.tasks.values()].filter((task) => !task.preexisting);

/** 1. Every paid task is kept (`kept`: all the text n8n keeps); one whose id never reached the node is announced. */
function checkTasksKept(observation: Observation, kept: string, fail: (text: string) => void): void {
	for (const task of createdTasks(observation)) {
		// The server may have sent the id after the node gave up waiting (no answer within Request Timeout): then
		// the node can only say that a task may have been created.
		if (task.named && !kept.includes(task.taskId) && !mayHaveCreatedNoted(observation, task.item)) {
			fail(
				`task ${task.taskId} (item ${task.item}, its creation answered "${task.answer}") is named nowhere n8n keeps`,
			);
		}
		if (!task.named && !mayHaveCreatedNoted(observation, task.item)) {
			fail(
				`item ${task.item}'s creation answered "${task.answer}" after the server created task ${task.taskId}, and nothing n8n keeps says a task may have been created for it`,
			);
		}
	}
}

/** 2. Never paid twice. A task an answer named beside the one its request created is that request's, not another. */
function checkNeverPaidTwice(observation: Observation, kept: string, fail: (text: string) => void): void {
	const byItem = new Map<number, WorldTask[]>();
	for (const task of createdTasks(observation).filter((entry) => !entry.alsoNamedWith))
		byItem.set(task.item, [...(byItem.get(task.item) ?? []), task]);
	for (const [item, tasks] of byItem) {
		for (const earlier of tasks.slice(0, -1)) {
			const uncertain = !earlier.named || (!kept.includes(earlier.taskId) && mayHaveCreatedNoted(observation, item));
			const allowed = earlier.reportedFailed || (observation.schedule.repeatUncertain && uncertain);
			if (!allowed) {
				fail(
					`item ${item} created ${tasks.length} tasks (${tasks.map((task) => `${task.taskId} after "${task.answer}"`).join(', ')}); ${earlier.taskId} had not failed, and ${uncertain ? 'repeating an uncertain creation is off' : 'its id had reached the node'}`,
				);
				break;
			}
		}
	}
}

/** 3. Bounded: every request within Request Timeout, the run within its bound, and after Stop. */
function checkBounded(observation: Observation, fail: (text: string) => void): void {
	const { schedule } = observation;
	const slack = SLACK_MS + observation.lagMs;
	const requestBound = schedule.requestTimeoutS * 1000 + slack;
	for (const request of observation.world.requests) {
		const lasted = (request.endedAt ?? Date.now()) - request.arrivedAt;
		if (lasted > requestBound) {
			fail(
				`${request.method} ${request.path} (${request.kind}, answered "${request.fault.answer}") lasted ${lasted} ms${request.endedAt ? '' : ' and is still open'}; Request Timeout is ${schedule.requestTimeoutS * 1000} ms`,
			);
		}
	}
	const lasted = observation.endedAt - observation.startedAt;
	const runBound = runBoundMs(schedule) + observation.lagMs;
	if (lasted > runBound) fail(`the run lasted ${lasted} ms; its bound is ${runBound} ms`);
	if (observation.stoppedAt !== undefined) {
		const afterStop = observation.endedAt - observation.stoppedAt;
		// Creations in flight outlive Stop (their answers carry paid ids), up to Request Timeout; n8n still pauses
		// between the tries that Retry On Fail makes after Stop (the node ends each at once).
		const bound = schedule.requestTimeoutS * 1000 + slack + retryPausesMs(schedule);
		if (afterStop > bound) fail(`the run ended ${afterStop} ms after Stop; its bound is ${bound} ms`);
	}
}

/** 7. The key stays at the Base URL, and appears nowhere n8n keeps (`kept`). */
function checkKeyStays(observation: Observation, kept: string, fail: (text: string) => void): void {
	const { apiKey } = observation;
	for (const request of observation.world.requests) {
		const carried =
			Object.values(request.headers).some((value) => String(value).includes(apiKey)) || request.path.includes(apiKey);
		if (request.host === 'files' && carried) fail(`the key reached the file host: ${request.method} ${request.path}`);
		if (request.host === 'files' && request.method !== 'GET')
			fail(`an API request followed a redirect to another origin: ${request.method} ${request.path}`);
	}
	// In every encoding a server may echo it in (generators/keys.ts).
	const leaks = keyLeaks(kept, apiKey);
	if (leaks.length) {
		const where = observation.logLines.some((line) => keyLeaks(line, apiKey).length)
			? 'a log line'
			: 'the output or an error';
		fail(`the key appears in ${where}, ${leaks.join(', ')}`);
	}
}

/** "may have been created" said for this item: in its error item, the stopping error, or a log line. */
function mayHaveCreatedNoted(observation: Observation, item: number): boolean {
	const says = (text: string) => /may have (been )?created/i.test(text);
	const { result } = observation;
	const items = [...(result?.output ?? []), ...(result?.errorOutput ?? [])];
	if (items.some((entry) => pairedItems(entry).includes(item) && says(allText(entry.json)))) return true;
	if (result?.error && says(allText(result.error)) && allText(result.error).includes(`[item ${item}]`)) return true;
	return observation.logLines.some((line) => says(line) && line.includes(`for item ${item} `));
}

async function checkFiles(
	observation: Observation,
	item: INodeExecutionData,
	fail: (text: string) => void,
): Promise<void> {
	const { schedule, world } = observation;
	const json = item.json;
	const urls = Array.isArray(json.urls) ? (json.urls as string[]) : [];
	for (const [property, binary] of Object.entries(item.binary ?? {})) {
		const url = storedUrl(schedule, json, property);
		const bytes = await readBinary(binary as IBinaryData);
		const hash = createHash('sha256').update(bytes).digest('hex');
		if (!world.servedBodies.get(url)?.has(hash)) {
			fail(
				`the file stored for ${url} (task ${String(json.taskid)}, ${bytes.length} bytes) is not a complete body the host served`,
			);
		}
	}
	// A completed task with Download Results on carries every file (the tool returns no files by design).
	if (schedule.download && !schedule.asTool && json.status === 'completed' && !('error' in json)) {
		const expected = schedule.split ? 1 : urls.length;
		const got = Object.keys(item.binary ?? {}).length;
		if (got !== expected) fail(`task ${String(json.taskid)} is "completed" with ${got} of ${expected} file(s)`);
	}
}

function checkPairing(
	schedule: Schedule,
	output: INodeExecutionData[],
	errorOutput: INodeExecutionData[],
	fail: (text: string) => void,
): void {
	const counts = new Map<number, number>();
	const results = new Set<string>();
	for (const entry of [...output, ...errorOutput]) {
		const paired = pairedItems(entry);
		// Task → Delete's Combine All Items outputs one item paired with all of its items.
		if (paired.length !== 1 && !schedule.deletes?.combine)
			fail(`an output item pairs with ${paired.length} input items: ${JSON.stringify(entry.pairedItem)}`);
		for (const index of paired) {
			if (!(index >= 0 && index < schedule.items))
				fail(`an output item pairs with input item ${index}, which does not exist`);
			counts.set(index, (counts.get(index) ?? 0) + 1);
			if (schedule.split && entry.json.resultIndex !== undefined) {
				const key = `${index}:${String(entry.json.resultIndex)}`;
				if (results.has(key)) fail(`result ${key} is in the output twice`);
				results.add(key);
			}
		}
	}
	for (let index = 0; index < schedule.items; index++) {
		const count = counts.get(index) ?? 0;
		// An item that did not come out is invariant 11's.
		if (count > 1 && !schedule.split) fail(`input item ${index} has ${count} output items`);
	}
}
