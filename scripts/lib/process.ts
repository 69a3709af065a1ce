/**
 * Child processes for the suites: commands run to completion, long-running children that never outlive the
 * script (nor do its temporary folders), waits for them to be ready, and the scripts' common entry (`runMain`).
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

import { ROOT } from './paths';
import { waitFor } from './wait';

/** A system account a command or service runs as (see systemUser in services.ts). */
export interface SystemUser {
	name: string;
	uid: number;
	gid: number;
}

export interface CommandOptions {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	timeoutMs?: number;
	/** Run as this system user (we are root): Postgres refuses to run as root. */
	user?: SystemUser;
}

/** Runs a command to completion and returns its stdout; throws (with its stderr) when it fails. */
export function run(command: string, args: string[], options: CommandOptions = {}): string {
	return execFileSync(command, args, {
		cwd: options.cwd ?? ROOT,
		env: options.env ?? process.env,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
		maxBuffer: 256 << 20,
		timeout: options.timeoutMs,
		...(options.user ? { uid: options.user.uid, gid: options.user.gid } : {}),
	});
}

/** The telling line of a failed command: its first line that names an error, else the last lines of its output. */
export function errorSummary(error: unknown): string {
	const stderr = (error as { stderr?: string }).stderr;
	const text = stderr && stderr.trim() ? stderr : (error as Error).message;
	const lines = text.split('\n').map((line) => line.trim());
	const telling = lines.find((line) => /\b(Error|error|ERR!)\b|not found|Cannot find/.test(line) && !/^at /.test(line));
	return (telling ?? lastLines(text)).slice(0, 400);
}

const children = new Set<ChildProcess>();
/** Children that lead their own process group (spawned detached): signals go to the whole group. */
const groups = new Set<ChildProcess>();
const leftovers = new Set<string>();

/**
 * Remembers a child so that it never outlives the script: a script that crashes, is interrupted or forgets to
 * stop something still kills it on exit (SIGKILL, synchronously) and removes the temporary folders left behind.
 */
export function track<T extends ChildProcess>(child: T, processGroup = false): T {
	children.add(child);
	if (processGroup) groups.add(child);
	child.once('exit', () => {
		children.delete(child);
		// Whatever the group leader left behind (e.g. a task runner) goes with it, while the group id is still
		// theirs; then forget the group, so that a reused process id is never signalled.
		if (groups.delete(child) && child.pid) signalGroup(child.pid, 'SIGKILL');
	});
	return child;
}

/** Sends a signal to a child, or to its whole process group when it leads one. */
export function signalProcess(child: ChildProcess, signal: NodeJS.Signals): void {
	if (groups.has(child) && child.pid && signalGroup(child.pid, signal)) return;
	if (child.exitCode === null && child.signalCode === null) child.kill(signal);
}

/** Sends a signal to a process group; false when the group is gone already. */
function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
	try {
		process.kill(-pid, signal);
		return true;
	} catch {
		return false;
	}
}

// Signals reach this too: runMain turns them into process.exit.
process.once('exit', () => {
	for (const child of children) signalProcess(child, 'SIGKILL');
	for (const dir of leftovers) rmSync(dir, { recursive: true, force: true });
});

/** Removes `dir` when the script exits, unless removeNow removed it before. */
export function removeOnExit(dir: string): void {
	leftovers.add(dir);
}

export function removeNow(dir: string): void {
	rmSync(dir, { recursive: true, force: true });
	leftovers.delete(dir);
}

/** Stops a child process: `signal` (SIGTERM), then SIGKILL after `graceMs`. */
export async function stopProcess(
	child: ChildProcess | undefined,
	graceMs = 10_000,
	signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
	if (!child || child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	signalProcess(child, signal);
	const timer = setTimeout(() => signalProcess(child, 'SIGKILL'), graceMs);
	await exited;
	clearTimeout(timer);
}

/**
 * Spawns a long-running child, tracked, its stdout and stderr appended to `logFile` (or discarded when there is
 * none). A detached child leads its own process group, which its signals then reach whole.
 */
export function spawnLogged(command: string, args: string[], options: SpawnOptions, logFile?: string): ChildProcess {
	const child = track(spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] }), options.detached);
	if (logFile) {
		const out = createWriteStream(logFile, { flags: 'a' });
		child.stdout?.pipe(out);
		child.stderr?.pipe(out);
	} else {
		child.stdout?.resume();
		child.stderr?.resume();
	}
	return child;
}

/** A TCP port of 127.0.0.1 that is free right now. */
export async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = createServer();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

/** Waits until `url` answers with an HTTP status below 500; fails at once if `child` exits first. */
export async function waitForHttp(url: string, timeoutMs: number, child?: ChildProcess): Promise<void> {
	await waitFor(
		async (see) => {
			if (child && (child.exitCode !== null || child.signalCode !== null))
				throw new Error(`process exited (${child.exitCode ?? child.signalCode}) before ${url} answered`);
			try {
				const response = await fetch(url);
				see(`HTTP ${response.status}`);
				return response.status < 500;
			} catch (error) {
				see(`no answer (${causeOf(error)})`);
				return false;
			}
		},
		{ deadline: timeoutMs, describe: `${url} to answer`, interval: 500 },
	);
}

/** The reason a fetch failed, as short as it can be said ("ECONNREFUSED"). */
export function causeOf(error: unknown): string {
	const cause = (error as { cause?: { code?: string; message?: string } }).cause;
	return cause?.code ?? cause?.message ?? (error as Error).message;
}

/**
 * Waits until a log file contains `pattern`. `from` skips what the file held before (a byte offset, see logSize),
 * to wait for a line that comes after a given moment.
 */
export async function waitForLog(
	file: string,
	pattern: RegExp,
	timeoutMs: number,
	child?: ChildProcess,
	from = 0,
): Promise<string> {
	return await waitFor(
		(see) => {
			const text = logSince(file, from);
			const match = pattern.exec(text);
			if (match) return match[0];
			if (child && (child.exitCode !== null || child.signalCode !== null))
				throw new Error(
					`process exited before ${path.basename(file)} showed ${pattern}; its last lines: ${lastLines(text)}`,
				);
			see(existsSync(file) ? `its last lines: ${lastLines(text)}` : 'no log file yet');
			return undefined;
		},
		{ deadline: timeoutMs, describe: `${path.basename(file)} to show ${pattern}`, interval: 500 },
	);
}

/** What a log file holds after its first `from` bytes ('' when there is none). */
export function logSince(file: string, from: number): string {
	return existsSync(file) ? readFileSync(file).subarray(from).toString('utf8') : '';
}

/** How many bytes a log file holds now (0 when there is none): the `from` of a later waitForLog. */
export function logSize(file: string): number {
	return statSync(file, { throwIfNoEntry: false })?.size ?? 0;
}

/** The last few non-empty lines of a log text, on one line, for an error message. */
export function lastLines(text: string, count = 3): string {
	const lines = text
		.split('\n')
		.map((line) => line.trim())
		.filter(Boolean);
	return lines.length ? lines.slice(-count).join(' | ').slice(-600) : '(empty)';
}

/** The scripts' common entry: runs `main`, prints the failure with the child's stderr tail, sets the exit code. */
export function runMain(scope: string, main: () => Promise<void>): void {
	// Interrupted (Ctrl-C, CI cancel): exit, and the exit hook above kills every child still running.
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.once(signal, () => {
			console.error(`[${scope}] interrupted by ${signal}`);
			process.exit(130);
		});
	}
	main().catch((error: Error) => {
		console.error(`[${scope}] FAILED: ${error.stack ?? error.message}`);
		const stderr = (error as { stderr?: string }).stderr;
		if (stderr) console.error(stderr.slice(-4000));
		process.exit(1);
	});
}
