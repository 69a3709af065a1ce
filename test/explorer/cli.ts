/**
 * The fault explorer: runs many seeded schedules (schedule.ts) through n8n's real executor and checks the node's
 * promises after each (invariants.ts). `npm run test:faults` runs CI's budget; a failing schedule prints its seed,
 * the schedule in words and the command that replays it.
 *
 *   npm run test:faults                          2,000 schedules from seed 1, two worker processes
 *   npm run test:faults -- --replay 1234         one schedule, with every request it met
 *   npm run test:faults -- --from 5000 --count 300
 *   MEDIAGEN_FAULTS_LONG=1 npm run test:faults   100,000 schedules from a random seed (hours)
 *
 * Runs with `--expose-gc`: schedules call `global.gc()` during waits.
 */
import { fork } from 'node:child_process';

import { runSchedule, type ScheduleResult } from './explore';
import { describeSchedule } from './schedule';

const CI_SCHEDULES = 2000;
const LONG_SCHEDULES = 100_000;
/** The time CI gives the explorer (issue 23): 2,000 schedules within 5 minutes on 2 cores. */
const CI_BUDGET_S = 300;
/** Schedules one worker runs at once: most of a schedule's time is spent waiting on sockets and timeouts. */
const PER_WORKER = 8;

interface Args {
	replay?: number;
	from: number;
	count: number;
	workers: number;
	worker?: boolean;
}

function parseArgs(argv: string[]): Args {
	const value = (name: string) => {
		const index = argv.indexOf(`--${name}`);
		return index >= 0 ? Number(argv[index + 1]) : undefined;
	};
	const long = process.env.MEDIAGEN_FAULTS_LONG === '1';
	const seedFromEnv = process.env.MEDIAGEN_FAULTS_SEED ? Number(process.env.MEDIAGEN_FAULTS_SEED) : undefined;
	return {
		replay: value('replay'),
		from: value('from') ?? seedFromEnv ?? (long ? Math.floor(Math.random() * 1e9) : 1),
		count: value('count') ?? (long ? LONG_SCHEDULES : CI_SCHEDULES),
		workers: value('workers') ?? 2,
		worker: argv.includes('--worker'),
	};
}

function replayCommand(seed: number): string {
	return `npm run test:faults -- --replay ${seed}`;
}

function report(result: ScheduleResult): string {
	return [
		`FAIL seed ${result.schedule.seed} (${result.durationMs} ms)`,
		describeSchedule(result.schedule).replace(/^/gm, '  '),
		...result.violations.map((violation) => `  ✗ ${violation}`),
		'  requests, in the order they arrived:',
		...result.trace.map((line) => `    ${line}`),
		`  replay: ${replayCommand(result.schedule.seed)}`,
	].join('\n');
}

/** Runs seeds from..from+count-1, `PER_WORKER` at a time; hands each result to `done`. */
async function runRange(from: number, count: number, done: (result: ScheduleResult) => void): Promise<void> {
	let next = from;
	const end = from + count;
	// The first schedule runs alone: loading n8n's engine and the node blocks the process for seconds, which would
	// make the first schedules' servers answer long after their clients gave up.
	if (next < end) done(await runSchedule(next++));
	const lane = async () => {
		while (next < end) {
			const seed = next++;
			done(await runSchedule(seed));
		}
	};
	await Promise.all(Array.from({ length: Math.min(PER_WORKER, count) }, lane));
}

async function replay(seed: number): Promise<number> {
	const result = await runSchedule(seed);
	console.log(`seed ${seed}:\n${describeSchedule(result.schedule).replace(/^/gm, '  ')}`);
	console.log(`ran ${result.durationMs} ms, ${result.requests} requests, ${result.faults} met a fault`);
	for (const line of result.trace) console.log(`  ${line}`);
	if (!result.violations.length) {
		console.log('every invariant held');
		return 0;
	}
	console.log(report(result));
	return 1;
}

/** A worker process: runs its range and sends each result to the parent. */
async function worker(args: Args): Promise<void> {
	// The request trace travels only with a failure: the parent prints it.
	await runRange(args.from, args.count, (result) =>
		process.send!({ ...result, trace: result.violations.length ? result.trace : [] }),
	);
}

async function main(): Promise<number> {
	const args = parseArgs(process.argv.slice(2));
	if (args.worker) {
		await worker(args);
		return 0;
	}
	if (args.replay !== undefined) return await replay(args.replay);
	if (!(globalThis as { gc?: unknown }).gc)
		console.log('note: run with --expose-gc (npm run test:faults does) to collect garbage during waits');
	const startedAt = Date.now();
	const failures: ScheduleResult[] = [];
	let finished = 0;
	let requests = 0;
	let faults = 0;
	const onResult = (result: ScheduleResult) => {
		finished++;
		requests += result.requests;
		faults += result.faults;
		if (result.violations.length) {
			failures.push(result);
			console.log(report(result));
		}
		if (finished % 250 === 0)
			console.log(`… ${finished}/${args.count} schedules, ${Math.round((Date.now() - startedAt) / 1000)} s`);
	};
	console.log(
		`fault explorer: ${args.count} schedules from seed ${args.from}, ${args.workers} worker(s) × ${PER_WORKER} at a time`,
	);
	const share = Math.ceil(args.count / args.workers);
	const workers = Array.from({ length: args.workers }, (_, index) => {
		const from = args.from + index * share;
		const count = Math.max(0, Math.min(share, args.from + args.count - from));
		return new Promise<void>((resolve, reject) => {
			if (!count) return resolve();
			const child = fork(__filename, ['--worker', '--from', String(from), '--count', String(count)], {
				execArgv: process.execArgv,
				stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
			});
			child.on('message', (message) => onResult(message as ScheduleResult));
			child.on('exit', (code) =>
				code === 0 ? resolve() : reject(new Error(`worker for seeds ${from}… exited with ${code}`)),
			);
		});
	});
	await Promise.all(workers);
	const seconds = (Date.now() - startedAt) / 1000;
	console.log(
		`fault explorer: ${finished} schedules, ${requests} requests, ${faults} met a fault, in ${seconds.toFixed(1)} s`,
	);
	if (args.count === CI_SCHEDULES) {
		console.log(
			`budget: ${CI_SCHEDULES} schedules in ${seconds.toFixed(0)} s (target ≤ ${CI_BUDGET_S} s on 2 cores): ${seconds <= CI_BUDGET_S ? 'PASS' : 'OVER'}`,
		);
	}
	if (failures.length) {
		console.log(`seeds that broke an invariant: ${failures.map((result) => result.schedule.seed).join(', ')}`);
	}
	console.log(`${finished - failures.length} passed, ${failures.length} failed`);
	return failures.length ? 1 : 0;
}

main().then(
	(code) => process.exit(code),
	(error: Error) => {
		console.error(error);
		process.exit(2);
	},
);
