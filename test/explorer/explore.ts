/**
 * Runs one schedule: starts its world, runs the node through n8n-core's WorkflowExecute (the test harness) with
 * the schedule's settings, waits for every connection to settle, and checks the invariants (invariants.ts).
 */
import diagnostics from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { forgetLearned, learnedFor, onLoggedLine, runNode, type RunResult } from '../harness';
import { apiKeyOf, keyOwner } from './generators/keys';
import { memoryFor } from './generators/memory';
import { checkInvariants, type Observation } from './invariants';
import { drawSchedule, type Schedule } from './schedule';
import { stripQuery, World } from './world';

export interface ScheduleResult {
	schedule: Schedule;
	violations: string[];
	durationMs: number;
	/** Requests the servers saw, by kind and answer, for the explorer's summary. */
	requests: number;
	faults: number;
	/** Every request in words, in the order it arrived: "+120 ms create item 3 → 5xx (acted, names the task)". */
	trace: string[];
}

function parameters(schedule: Schedule, world: World): INodeParameters {
	const options: INodeParameters = {
		requestTimeout: schedule.requestTimeoutS,
		pollInterval: schedule.pollIntervalS,
		maxWait: schedule.maxWaitS,
		maxConcurrency: schedule.maxConcurrency,
		downloadResults: schedule.download,
		splitIntoItems: schedule.split,
		...(schedule.failingTasks ? { failedStatusCodes: '3' } : {}),
		...(schedule.repeatUncertain ? { repeatUncertainCreations: true } : {}),
		...(schedule.pollSchedule === 'fixed' ? { pollSchedule: 'fixed' } : {}),
	};
	switch (schedule.operation) {
		case 'betav4':
			return {
				resource: 'image',
				operation: 'betav4',
				prompt: '={{ $json.idea }}',
				waitForCompletion: schedule.wait,
				options,
			};
		case 'alphav15pro':
			return {
				resource: 'video',
				operation: 'alphav15pro',
				prompt: '={{ $json.idea }}',
				// The source image by URL only: the items carry no binary data.
				imageInput: 'none',
				imageUrls: `${world.filesUrl}/source.png`,
				waitForCompletion: schedule.wait,
				options,
			};
		case 'taskWait':
			return { resource: 'task', operation: 'wait', taskType: 'image', taskId: '={{ $json.taskid }}', options };
		case 'taskDelete':
			return {
				resource: 'task',
				operation: 'delete',
				taskType: 'image',
				taskIds: '={{ $json.ids }}',
				combineItems: schedule.deletes!.combine,
				options: {
					requestTimeout: schedule.requestTimeoutS,
					maxWait: schedule.maxWaitS,
					maxConcurrency: schedule.maxConcurrency,
				},
			};
	}
}

function inputItems(schedule: Schedule, world: World): INodeExecutionData[] {
	if (schedule.deletes) return world.deleteTargets(schedule.deletes).map((ids) => ({ json: { ids } }));
	return Array.from({ length: schedule.items }, (_, item) =>
		schedule.operation === 'taskWait'
			? { json: { taskid: world.preexisting(item, 'image') } }
			: { json: { idea: `idea ${item}` } },
	);
}

/** How long a connection left open without a request is given to show one (invariant 4's message). */
const UNREAD_MS = 2000;
/**
 * The servers share this process's event loop with the node: on a starved machine they read the requests the node
 * had aborted (its side closed) long after the run. Invariant 4's wait goes on while they still open, read or close
 * connections, until they have been quiet this long, and not past MAX_DRAIN_MS (plus time the loop lost).
 */
const DRAIN_QUIET_MS = 1000;
const MAX_DRAIN_MS = 60_000;

/**
 * How long connections may take to close after the run: creations in flight outlive Stop by up to Request Timeout,
 * and a busy machine delays the servers' own bookkeeping. A connection the node never closes stays open for the
 * world's stall cap (20 s), well past this.
 */
function settleMs(schedule: Schedule): number {
	return schedule.requestTimeoutS * 1000 + 8000;
}

/**
 * Time this process lost to a blocked event loop, summed: the schedules of a worker share one loop with their
 * servers, and on a busy machine a timer or an answer can be late by that much through no fault of the node.
 */
const LAG_SAMPLE_MS = 50;
let lostMs = 0;
let lastTick = Date.now();
setInterval(() => {
	const now = Date.now();
	lostMs += Math.max(0, now - lastTick - LAG_SAMPLE_MS);
	lastTick = now;
}, LAG_SAMPLE_MS).unref();

/**
 * Waits for `condition` up to `ms`, plus whatever time a blocked event loop takes from the wait meanwhile, and
 * while `busyAt` (when something last happened) is under DRAIN_QUIET_MS old, up to MAX_DRAIN_MS in all.
 */
async function until(condition: () => boolean, ms: number, busyAt: () => number = () => 0): Promise<void> {
	const startedAt = Date.now();
	const lostBefore = lostMs;
	const waiting = () => {
		const now = Date.now();
		const lost = lostMs - lostBefore;
		if (now < startedAt + ms + lost) return true;
		return now - busyAt() < DRAIN_QUIET_MS && now < startedAt + MAX_DRAIN_MS + lost;
	};
	while (!condition() && waiting()) {
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}

/**
 * The requests a client of this process started to any of `hosts` (host:port) from now on, when they started and
 * the key they carried: the schedules beside this one send theirs to their own worlds' ports.
 */
function clientRequestsTo(hosts: string[]): { seen: Array<{ at: number; text: string }>; stop: () => void } {
	const seen: Array<{ at: number; text: string }> = [];
	const listener = (message: unknown) => {
		const { request } = message as { request: ClientRequest };
		const host = String(request.getHeader('host') ?? '');
		if (!hosts.includes(host)) return;
		const text = `${request.method} ${stripQuery(request.path)}${keyOwner(request.getHeader('authorization'))}`;
		seen.push({ at: Date.now(), text });
	};
	diagnostics.subscribe('http.client.request.start', listener);
	return { seen, stop: () => diagnostics.unsubscribe('http.client.request.start', listener) };
}

/** Runs the node once with the schedule's settings; how the run ended, or what it threw. */
async function runInWorld(
	schedule: Schedule,
	world: World,
	run: Pick<Parameters<typeof runNode>[0], 'items' | 'credentials' | 'name' | 'staticData' | 'workflowId'>,
): Promise<{ result?: RunResult; crashed?: unknown; stoppedAt?: number }> {
	let stoppedAt: number | undefined;
	try {
		const result = await runNode({
			parameters: parameters(schedule, world),
			...run,
			onError: schedule.onError,
			retryOnFail: schedule.maxTries ? { maxTries: schedule.maxTries, waitBetweenTries: 0 } : undefined,
			asTool: schedule.asTool,
			cancelAfterMs: schedule.stopAtMs,
			onCancel: (at) => (stoppedAt = at),
			learned: 'kept',
		});
		return { result, stoppedAt };
	} catch (error) {
		return { crashed: error, stoppedAt };
	}
}

/**
 * Waits for the world's connections to close after the run; returns those still open (they fail invariant 4). One
 * whose request was not read yet is given a moment to show it, for the message: whose key it carries says which
 * schedule's node opened it.
 */
async function settledSockets(schedule: Schedule, world: World): Promise<ReturnType<World['openSockets']>> {
	await until(
		() => {
			const open = world.openSockets();
			return open.api.length + open.files.length === 0;
		},
		settleMs(schedule),
		() => world.activeAt,
	);
	const open = world.openSockets();
	await until(() => world.unread(open) === 0, UNREAD_MS);
	return open;
}

/** One request in words, for the trace: "+120 ms create item 3 POST … → 5xx (the server acted, names the task), 80 ms". */
function traceLine(request: World['requests'][number], startedAt: number): string {
	const { answer, acted, namesTask } = request.fault;
	const notes = [
		request.kind === 'create' ? (acted ? 'the server acted' : 'nothing done') : '',
		namesTask ? 'names the task' : '',
		request.shape && request.shape !== 'plain' ? `shaped: ${request.shape}` : '',
		request.body ?? '',
	]
		.filter(Boolean)
		.join(', ');
	const lasted = request.endedAt === undefined ? 'still open' : `${request.endedAt - request.arrivedAt} ms`;
	return `+${request.arrivedAt - startedAt} ms ${request.kind} item ${request.item ?? '-'} ${request.method} ${request.path} → ${answer}${notes ? ` (${notes})` : ''}, ${lasted}`;
}

export async function runSchedule(seed: number): Promise<ScheduleResult> {
	const schedule = drawSchedule(seed);
	const apiKey = apiKeyOf(seed);
	const world = new World(schedule, apiKey);
	await world.start();
	const logLines: string[] = [];
	// The node's log lines name it: a name per schedule tells this run's lines from those of the runs beside it.
	const nodeName = `MediaGen ${seed}`;
	const unsubscribe = onLoggedLine((line) => {
		if (line.includes(`"${nodeName}"`) || line.includes(`T${seed}-`) || line.includes(apiKey)) logLines.push(line);
	});
	const items = inputItems(schedule, world);
	const { staticData } = memoryFor(schedule, world.renders);
	const staticBefore = JSON.stringify(staticData ?? null);
	// What the process learns is kept per workflow and per API: each schedule has its own, forgotten once checked
	// (a later schedule's server may get this one's port).
	const workflowId = `explorer-${seed}`;
	const startedAt = Date.now();
	const lostBefore = lostMs;
	const requests = clientRequestsTo(world.hosts);
	const { result, crashed, stoppedAt } = await runInWorld(schedule, world, {
		items,
		credentials: { apiKey, baseUrl: world.apiUrl },
		name: nodeName,
		staticData,
		workflowId,
	});
	const endedAt = Date.now();
	const open = await settledSockets(schedule, world);
	requests.stop();
	const observation: Observation = {
		schedule,
		world,
		apiKey,
		result,
		crashed,
		logLines,
		startedAt,
		endedAt,
		stoppedAt,
		openSockets: { api: open.api.length, files: open.files.length, described: world.describe(open) },
		startedAfterEnd: requests.seen
			.filter((request) => request.at > endedAt)
			.map((request) => `${request.text} ${request.at - endedAt} ms after`),
		lagMs: lostMs - lostBefore,
		deleteIds: schedule.deletes ? items.map((item) => item.json.ids as string[]) : undefined,
		staticData,
		staticBefore,
		learned: learnedFor(workflowId, 'mediagen-node', world.apiUrl),
	};
	let violations: string[];
	try {
		violations = await checkInvariants(observation);
	} finally {
		forgetLearned(workflowId, 'mediagen-node', world.apiUrl);
		unsubscribe();
		await world.stop();
	}
	return {
		schedule,
		violations,
		durationMs: endedAt - startedAt,
		requests: world.requests.length,
		faults: world.requests.filter((request) => request.fault.answer !== 'ok').length,
		trace: [
			`the event loop lost ${observation.lagMs} ms during the run`,
			...world.requests.map((request) => traceLine(request, startedAt)),
			...logLines.map((line) => `log: ${line}`),
		],
	};
}
