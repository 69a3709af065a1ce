/**
 * A fault schedule: n8n's node settings, drawn here from the seed, and what the generators (generators/) draw from
 * the same seed: how the servers answer every request (faults.ts), what each task does (tasks.ts), what a result
 * file's body is (files.ts), the shape of a success answer (answers.ts). Every generator
 * draws from streams of its own (`Random.stream(seed, <generator>, …)`): per schedule, or per request by what the
 * request is (its kind, its item, its attempt), never by the order requests arrive in, so that the same seed gives
 * the same schedule however the requests interleave, and a new generator leaves every other draw as it was. A
 * generator is a module with its part's type, its draw and its words for a failing schedule's report: faults.ts,
 * tasks.ts, renders.ts (how long renders take, and what earlier runs saw), memory.ts (the workflow's static data).
 */
import { deletePlan, describeDeletes, type DeletePlan } from './generators/deletes';
import { describeAnswers } from './generators/answers';
import type { RequestKind } from './generators/faults';
import { describeFiles } from './generators/files';
import { describeKeys } from './generators/keys';
import { memoryFor } from './generators/memory';
import { describeRenders, rendersFor } from './generators/renders';
import { Random } from './random';

export type { AnswerClass, Fault, RequestKind } from './generators/faults';

export type Operation = 'betav4' | 'alphav15pro' | 'taskWait' | 'taskDelete';

export interface Schedule {
	seed: number;
	operation: Operation;
	items: number;
	onError: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
	/** n8n's Retry On Fail: Max Tries (n8n clamps it to 2–5); undefined when off. */
	maxTries?: number;
	asTool: boolean;
	wait: boolean;
	download: boolean;
	split: boolean;
	/** The node's option that allows creating again after an answer that may have created a task. */
	repeatUncertain: boolean;
	/** Failed Status Codes is set, and some tasks fail on the server with that status. */
	failingTasks: boolean;
	requestTimeoutS: number;
	pollIntervalS: number;
	maxWaitS: number;
	maxConcurrency: number;
	/** Press Stop this long after the start; undefined: no Stop. */
	stopAtMs?: number;
	/** Garbage collections at these times after the start. */
	gcAtMs: number[];
	/** The chance that a request of each kind meets a fault. */
	faultRate: Record<RequestKind, number>;
	/** Poll Schedule; what the workflow remembers is generators/memory.ts's draw. */
	pollSchedule: 'learned' | 'fixed';
	/** Task → Delete: what the items list and how the API answers (generators/deletes.ts). */
	deletes?: DeletePlan;
}

export function drawSchedule(seed: number): Schedule {
	const random = new Random(seed);
	const operation = random.weighted<Operation>([
		[6, 'betav4'],
		[2, 'alphav15pro'],
		[1, 'taskWait'],
		[1, 'taskDelete'],
	]);
	const items = random.weighted([
		[5, () => random.int(1, 3)],
		[3, () => random.int(4, 12)],
		[2, () => random.int(13, 50)],
	])();
	const creates = operation === 'betav4' || operation === 'alphav15pro';
	const rate = () =>
		random.weighted([
			[2, 0],
			[3, 0.1],
			[3, 0.3],
			[2, 0.7],
		]);
	const requestTimeoutS = random.pick([0.4, 0.6, 1]);
	const schedule: Schedule = {
		seed,
		operation,
		items,
		onError: random.pick(['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'] as const),
		maxTries: random.chance(0.5) ? random.int(1, 5) : undefined,
		asTool: operation !== 'taskDelete' && random.chance(0.15),
		wait: operation === 'taskWait' || (creates && random.chance(0.8)),
		download: random.chance(0.6),
		split: random.chance(0.3),
		repeatUncertain: creates && random.chance(0.2),
		failingTasks: random.chance(0.3),
		requestTimeoutS,
		pollIntervalS: 0.05,
		maxWaitS: random.pick([0.5, 1, 2]),
		maxConcurrency: random.pick([1, 4, 64, 256]),
		stopAtMs: random.chance(0.2) ? random.int(0, 1500) : undefined,
		gcAtMs: Array.from({ length: random.int(0, 2) }, () => random.int(0, 1500)),
		faultRate: { create: rate(), status: rate(), download: rate(), delete: rate() },
		pollSchedule: 'learned',
	};
	// Drawn last, so that the draws above (and every seed's schedule before Poll Schedule existed) stay as they were.
	if (random.chance(0.3)) schedule.pollSchedule = 'fixed';
	// A coarser grid in some schedules, from a stream of its own: there rules 2 and 4 may place checks closer
	// together than a Poll Interval, which invariant 16 holds to the grid's count and one.
	if (Random.stream(seed, 'interval').chance(0.3)) schedule.pollIntervalS = 0.2;
	// From generator "deletes"' own stream: no other draw moves.
	if (operation === 'taskDelete') schedule.deletes = deletePlan(seed, items);
	// The tool reads JSON: downloads are off unless switched on, and it waits (As a tool the node waits by default).
	if (!schedule.wait) schedule.download = false;
	if (schedule.maxTries === 1) schedule.maxTries = undefined;
	return schedule;
}

/** The schedule in words, for a failing seed's report. */
export function describeSchedule(schedule: Schedule): string {
	const rates = Object.entries(schedule.faultRate)
		.map(([kind, value]) => `${kind} ${Math.round(value * 100)}%`)
		.join(', ');
	return [
		`${schedule.operation} on ${schedule.items} item(s)${schedule.asTool ? ' as an AI Agent tool' : ''}`,
		`On Error ${schedule.onError}, Retry On Fail ${schedule.maxTries ? `${schedule.maxTries} tries` : 'off'}`,
		`Wait ${schedule.wait ? 'on' : 'off'}, Download ${schedule.download ? 'on' : 'off'}, Split ${schedule.split ? 'on' : 'off'}, Repeat Uncertain ${schedule.repeatUncertain ? 'on' : 'off'}`,
		`Request Timeout ${schedule.requestTimeoutS} s, Poll Interval ${schedule.pollIntervalS} s, Max Wait ${schedule.maxWaitS} s, Max Concurrent ${schedule.maxConcurrency}`,
		`Poll Schedule ${schedule.pollSchedule}, static data: ${memoryFor(schedule, rendersFor(schedule)).kind}; ${describeRenders(rendersFor(schedule))}`,
		`tasks that fail on the server: ${schedule.failingTasks ? 'some' : 'none'}; Stop: ${schedule.stopAtMs === undefined ? 'none' : `at ${schedule.stopAtMs} ms`}; GC at: ${schedule.gcAtMs.join(', ') || 'never'}`,
		`fault rates: ${rates}`,
		...(schedule.deletes ? [describeDeletes(schedule.deletes)] : []),
		describeFiles(schedule),
		describeAnswers(schedule),
		describeKeys(schedule),
	].join('\n');
}
