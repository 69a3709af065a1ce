/**
 * The one way this project installs and runs real n8n: e2e, browser (UI), queue-mode and durable-wait suites
 * all use this module.
 *
 * n8n is installed once per version into a cache folder outside the package (MEDIAGEN_E2E_CACHE, default
 * ~/.cache/n8n-nodes-mediagen-e2e). An install is trusted only after a check that runs under the Node that will
 * run n8n: the sqlite3 native binding loads, and n8n answers `--version`. A cache that fails the check (a run
 * killed half-way, a deleted binding, a recipe change) is repaired on the next run instead of failing forever.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
	chownSync,
	createWriteStream,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';

import type { RecordedRequestSummary } from '../../test/simulator/server';

export const ROOT = path.join(__dirname, '..', '..');
export const CACHE = process.env.MEDIAGEN_E2E_CACHE ?? path.join(homedir(), '.cache', 'n8n-nodes-mediagen-e2e');
export const SIM_KEY = 'e2e-sim-key-7d2a';

export interface Recipe {
	n8n: string;
	/** Version of the npm package `node` that supplies the Node.js n8n needs; unset runs on this machine's Node. */
	node?: string;
	overrides: Record<string, string>;
	/** Environment n8n needs at run time on this recipe. */
	env: Record<string, string>;
}

export const RECIPES: Record<string, Recipe> = {
	'2.41.1': { n8n: '2.41.1', node: '24.21.0', overrides: { linkedom: '0.18.13' }, env: {} },
	'1.123.81': { n8n: '1.123.81', overrides: { xlsx: '0.18.5' }, env: { N8N_EXPRESSION_ENGINE: 'legacy' } },
};

export interface N8nInstall {
	recipe: Recipe;
	dir: string;
	/** The Node.js binary that runs this n8n. */
	nodeBin: string;
	/** n8n's CLI entry point (run it with nodeBin). */
	n8nBin: string;
}

/** Step timings of a suite: `step(name)` closes the step that ran since the previous call; `summary()` prints them. */
export function stepTimer(): { step: (name: string) => void; summary: () => string } {
	const timings: Array<[string, number]> = [];
	let mark = Date.now();
	return {
		step: (name) => {
			timings.push([name, (Date.now() - mark) / 1000]);
			mark = Date.now();
		},
		summary: () =>
			`timings: ${timings.map(([name, seconds]) => `${name} ${seconds.toFixed(1)} s`).join('; ')}; total ${timings.reduce((sum, [, seconds]) => sum + seconds, 0).toFixed(0)} s`,
	};
}

export function log(scope: string, message: string): void {
	console.log(`[${scope}] ${new Date().toISOString().slice(11, 19)} ${message}`);
}

export interface CommandOptions {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	timeoutMs?: number;
	/** Run as this system user (we are root): Postgres refuses to run as root. */
	user?: SystemUser;
}

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

/**
 * The environment for npm commands that must run install scripts. `npm run` exports the project's
 * `.npmrc` (ignore-scripts=true) as npm_config_* variables; a child npm would inherit them and silently
 * build nothing, so drop every inherited npm setting and state the ones that matter explicitly.
 */
function npmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!/^npm_(config|package|lifecycle)_/i.test(key)) env[key] = value;
	}
	return { ...env, npm_config_ignore_scripts: 'false', ...extra };
}

function recipeHash(recipe: Recipe): string {
	return createHash('sha256')
		.update(JSON.stringify({ recipe, platform: process.platform, arch: process.arch, installer: 2 }))
		.digest('hex')
		.slice(0, 16);
}

function paths(recipe: Recipe): N8nInstall {
	const dir = path.join(CACHE, `n8n-${recipe.n8n}`);
	const nodeBin = recipe.node ? path.join(dir, 'node_modules', 'node', 'bin', 'node') : process.execPath;
	return { recipe, dir, nodeBin, n8nBin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n') };
}

/** Why this install cannot run n8n, or undefined when it can. Runs under the Node that will run n8n. */
export function checkInstall(install: N8nInstall): string | undefined {
	if (!existsSync(install.nodeBin)) return `Node.js binary missing: ${install.nodeBin}`;
	if (!existsSync(install.n8nBin)) return `n8n missing: ${install.n8nBin}`;
	const sqlite = path.join(install.dir, 'node_modules', 'sqlite3');
	try {
		// Opening a database proves the native binding loads (the error n8n gives otherwise is
		// "SQLite package has not been found installed").
		const script = `const s=require(${JSON.stringify(sqlite)});new s.Database(':memory:').close();`;
		run(install.nodeBin, ['-e', script], { cwd: install.dir, timeoutMs: 60_000 });
	} catch (error) {
		return `sqlite3 binding does not load under ${install.nodeBin}: ${firstLine(error)}`;
	}
	const userFolder = mkdtempSync(path.join(tmpdir(), 'mediagen-n8n-check-'));
	try {
		const version = run(install.nodeBin, [install.n8nBin, '--version'], {
			cwd: install.dir,
			timeoutMs: 120_000,
			env: { ...process.env, ...install.recipe.env, N8N_USER_FOLDER: userFolder },
		}).trim();
		if (!version.split('\n').some((line) => line.trim() === install.recipe.n8n))
			return `n8n --version printed "${version}", expected ${install.recipe.n8n}`;
	} catch (error) {
		return `n8n --version failed: ${firstLine(error)}`;
	} finally {
		rmSync(userFolder, { recursive: true, force: true });
	}
	return undefined;
}

/** The telling line of a failed command: its first line that names an error, else the last lines of its output. */
function firstLine(error: unknown): string {
	const stderr = (error as { stderr?: string }).stderr;
	const text = stderr && stderr.trim() ? stderr : (error as Error).message;
	const lines = text
		.trim()
		.split('\n')
		.map((line) => line.trim())
		.filter(Boolean);
	const telling = lines.find((line) => /\b(Error|error|ERR!)\b|not found|Cannot find/.test(line) && !/^at /.test(line));
	return (telling ?? lines.slice(-3).join(' | ')).slice(0, 400);
}

function rebuildNative(install: N8nInstall): void {
	const extra: Record<string, string> = {};
	if (install.recipe.node) {
		// Build against the headers of the Node that will load the binding (shipped in the node-<platform> package).
		extra.npm_config_nodedir = path.join(
			install.dir,
			'node_modules',
			'node',
			'node_modules',
			`node-${process.platform}-${process.arch}`,
		);
	}
	const env = npmEnv(extra);
	env.PATH = `${path.dirname(install.nodeBin)}${path.delimiter}${env.PATH}`;
	rmSync(path.join(install.dir, 'node_modules', 'sqlite3', 'build'), { recursive: true, force: true });
	run('npm', ['rebuild', 'sqlite3', '--ignore-scripts=false', '--foreground-scripts'], { cwd: install.dir, env });
}

function installFresh(install: N8nInstall, scope: string): void {
	const { recipe, dir } = install;
	log(
		scope,
		`installing n8n ${recipe.n8n}${recipe.node ? ` with Node ${recipe.node}` : ''} into ${dir} (first run only: about 4 minutes)`,
	);
	mkdirSync(dir, { recursive: true });
	const dependencies: Record<string, string> = { n8n: recipe.n8n, ...(recipe.node ? { node: recipe.node } : {}) };
	writeFileSync(
		path.join(dir, 'package.json'),
		JSON.stringify({ name: 'n8n-e2e-runtime', private: true, dependencies, overrides: recipe.overrides }, null, 2),
	);
	// Scripts off for the bulk install: some optional native modules download binaries, which fails offline.
	// The ones n8n needs here are built explicitly below.
	run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
		cwd: dir,
		env: npmEnv({ npm_config_ignore_scripts: 'true' }),
	});
	if (recipe.node) {
		// The `node` package fetches its platform binary (from the same registry) in a preinstall script.
		run(process.execPath, ['installArchSpecificPackage'], {
			cwd: path.join(dir, 'node_modules', 'node'),
			env: npmEnv(),
		});
	}
}

/**
 * Returns a working n8n of this version, installing or repairing it first. Safe to call from every suite:
 * a verified cache costs a few seconds of checks.
 */
export function ensureN8n(version: string, scope = 'n8n'): N8nInstall {
	const recipe = RECIPES[version];
	if (!recipe) throw new Error(`no recipe for n8n ${version}; known: ${Object.keys(RECIPES).join(', ')}`);
	const install = paths(recipe);
	const hash = recipeHash(recipe);
	if (isReady(install, hash) && !checkInstall(install)) return install;
	// Two suites (or two checkouts) may ask at once: one installs, the others wait and then reuse its work.
	return withCacheLock(install.dir, scope, () => repair(install, hash, scope));
}

function isReady(install: N8nInstall, hash: string): boolean {
	const marker = path.join(install.dir, '.ready');
	return existsSync(marker) && readFileSync(marker, 'utf8').split('\n')[0] === hash;
}

function repair(install: N8nInstall, hash: string, scope: string): N8nInstall {
	const version = install.recipe.n8n;
	const marker = path.join(install.dir, '.ready');
	const started = Date.now();
	if (isReady(install, hash)) {
		const problem = checkInstall(install);
		if (!problem) return install; // repaired by whoever held the lock before us
		log(scope, `cache for n8n ${version} is damaged (${problem}); repairing`);
	} else if (existsSync(install.dir)) {
		log(scope, `cache for n8n ${version} is incomplete or from another recipe; completing it`);
	}
	rmSync(marker, { force: true });

	// Cheapest repair first: the packages are there and only the native build is missing or broken.
	if (existsSync(install.n8nBin) && existsSync(install.nodeBin)) {
		try {
			rebuildNative(install);
			if (!checkInstall(install)) return markReady(install, hash, scope, started);
		} catch (error) {
			log(scope, `rebuild failed (${firstLine(error)}); reinstalling`);
		}
	}
	// npm install is idempotent over a half-finished tree; only a tree it cannot fix is wiped.
	try {
		installFresh(install, scope);
	} catch (error) {
		log(scope, `install over the old tree failed (${firstLine(error)}); starting from an empty folder`);
		rmSync(install.dir, { recursive: true, force: true });
		installFresh(install, scope);
	}
	rebuildNative(install);
	const problem = checkInstall(install);
	if (problem) throw new Error(`n8n ${version} installed but cannot run: ${problem}`);
	return markReady(install, hash, scope, started);
}

function pause(ms: number): void {
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function processAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/**
 * A lock folder beside the install (mkdir is atomic). A holder that died (its pid is gone, or it never wrote
 * one within a minute) leaves a stale lock, which the next caller removes.
 */
function withCacheLock<T>(dir: string, scope: string, work: () => T): T {
	const lock = `${dir}.lock`;
	const owner = path.join(lock, 'pid');
	mkdirSync(path.dirname(dir), { recursive: true });
	const deadline = Date.now() + 45 * 60_000;
	let announced = false;
	for (;;) {
		try {
			mkdirSync(lock);
			writeFileSync(owner, String(process.pid));
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
		}
		const pid = existsSync(owner) ? Number(readFileSync(owner, 'utf8')) : 0;
		const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
		if (since === undefined) continue; // released just now
		const stale = pid ? !processAlive(pid) : Date.now() - since > 60_000;
		if (stale) {
			log(scope, `removing a stale install lock ${lock}${pid ? ` (process ${pid} is gone)` : ''}`);
			rmSync(lock, { recursive: true, force: true });
			continue;
		}
		if (!announced) log(scope, `another process (${pid || 'starting'}) is installing into ${dir}; waiting for it`);
		announced = true;
		if (Date.now() > deadline) throw new Error(`gave up waiting for the install lock ${lock}`);
		pause(2000);
	}
	try {
		return work();
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
}

function markReady(install: N8nInstall, hash: string, scope: string, started: number): N8nInstall {
	writeFileSync(path.join(install.dir, '.ready'), `${hash}\n${new Date().toISOString()}\n`);
	log(
		scope,
		`n8n ${install.recipe.n8n} ready in ${Math.round((Date.now() - started) / 1000)} s (verified: sqlite3 loads, n8n --version)`,
	);
	return install;
}

/** Builds and packs the package: what n8n installs is the tarball, not the source tree. */
export function packPackage(): string {
	run('npm', ['run', '-s', 'build']);
	const destination = mkdtempSync(path.join(tmpdir(), 'mediagen-pack-'));
	run('npm', ['pack', '--pack-destination', destination, '--loglevel=error']);
	const tarball = readdirSync(destination).find((file) => file.endsWith('.tgz'));
	if (!tarball) throw new Error('npm pack produced no tarball');
	return path.join(destination, tarball);
}

/** As n8n installs a community package: into <user folder>/.n8n/nodes, without dev or peer dependencies. */
export function installCommunityPackage(userFolder: string, tarball: string): void {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	mkdirSync(nodesDir, { recursive: true });
	writeFileSync(path.join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true }));
	run(
		'npm',
		[
			'install',
			tarball,
			'--omit=dev',
			'--omit=peer',
			'--ignore-scripts',
			'--no-audit',
			'--no-fund',
			'--loglevel=error',
		],
		{ cwd: nodesDir, env: npmEnv() },
	);
	const installed = readdirSync(path.join(nodesDir, 'node_modules'));
	if (!installed.includes('n8n-nodes-mediagen')) throw new Error(`package not installed: ${installed.join(', ')}`);
	if (installed.includes('n8n-workflow')) throw new Error('a peer dependency was installed next to the package');
}

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

/** The environment every suite runs n8n with: isolated user folder, quiet, its own task-broker port. */
export async function n8nEnv(
	install: N8nInstall,
	userFolder: string,
	extra: Record<string, string> = {},
): Promise<NodeJS.ProcessEnv> {
	const env = npmEnv();
	return {
		...env,
		...install.recipe.env,
		PATH: `${path.dirname(install.nodeBin)}${path.delimiter}${env.PATH}`,
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: 'mediagen-e2e-encryption-key',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_PYTHON_ENABLED: 'false',
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		DB_SQLITE_POOL_SIZE: '1',
		...extra,
	};
}

/** Runs an n8n CLI command to completion and returns its stdout. */
export function n8nCommand(install: N8nInstall, env: NodeJS.ProcessEnv, ...args: string[]): string {
	return run(install.nodeBin, [install.n8nBin, ...args], { env });
}

/**
 * Starts a long-running n8n process (start, worker, webhook); its output goes to `logFile` if given. It runs
 * in its own process group with the task runners it starts, so that signalProcess/stopProcess reach them all
 * (a SIGKILL to the group is what a crashed container looks like).
 */
export function spawnN8n(install: N8nInstall, env: NodeJS.ProcessEnv, args: string[], logFile?: string): ChildProcess {
	const child = track(
		spawn(install.nodeBin, [install.n8nBin, ...args], {
			cwd: env.N8N_USER_FOLDER ?? ROOT,
			env,
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		}),
		true,
	);
	pipeOutput(child, logFile);
	return child;
}

/** A running `n8n start`: its process and editor/REST address. */
export interface N8nServer {
	child: ChildProcess;
	url: string;
}

/**
 * Starts `n8n start` on a free port of 127.0.0.1 and waits until it is healthy. `env` comes from n8nEnv;
 * plain-HTTP cookies are allowed, since the editor runs on http://127.0.0.1.
 */
export async function startN8nServer(
	install: N8nInstall,
	env: NodeJS.ProcessEnv,
	logFile?: string,
	timeoutMs = 240_000,
): Promise<N8nServer> {
	const port = await freePort();
	const url = `http://127.0.0.1:${port}`;
	const serverEnv: NodeJS.ProcessEnv = {
		...env,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `${url}/`,
		WEBHOOK_URL: `${url}/`,
		N8N_SECURE_COOKIE: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
	};
	const child = spawnN8n(install, serverEnv, ['start'], logFile);
	try {
		await waitForHttp(`${url}/healthz/readiness`, timeoutMs, child);
	} catch (error) {
		await stopProcess(child);
		throw error;
	}
	return { child, url };
}

/**
 * Waits until a log file contains `pattern` (e.g. n8n's "Editor is now accessible": its HTTP server answers
 * before it has activated the published workflows and registered their webhooks).
 */
export async function waitForLog(
	file: string,
	pattern: RegExp,
	timeoutMs: number,
	child?: ChildProcess,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (existsSync(file) && pattern.test(readFileSync(file, 'utf8'))) return;
		if (child && (child.exitCode !== null || child.signalCode !== null))
			throw new Error(`process exited before ${path.basename(file)} showed ${pattern}`);
		if (Date.now() > deadline)
			throw new Error(`${path.basename(file)} did not show ${pattern} within ${timeoutMs / 1000} s`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/**
 * Waits until a published workflow's production webhook is registered. n8n 2.x activates published workflows
 * in the background after its HTTP server is up; a GET to a POST-only webhook tells the two states apart
 * without starting an execution ("not registered for GET requests" once the POST webhook exists).
 */
export async function waitForWebhook(baseUrl: string, webhookPath: string, timeoutMs: number): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const text = await fetch(`${baseUrl}/webhook/${webhookPath}`)
			.then(async (response) => await response.text())
			.catch(() => '');
		if (/not registered for GET requests/.test(text)) return;
		if (Date.now() > deadline)
			throw new Error(
				`webhook ${webhookPath} not registered within ${timeoutMs / 1000} s (last answer: ${text.slice(0, 200)})`,
			);
		await new Promise((resolve) => setTimeout(resolve, 1000));
	}
}

/** A folder under the repository (.e2e/<name>, git-ignored) for a suite's logs, emptied at the start of a run. */
export function logFolder(name: string): string {
	const folder = path.join(ROOT, '.e2e', name);
	rmSync(folder, { recursive: true, force: true });
	mkdirSync(folder, { recursive: true });
	return folder;
}

/** Polls `url` until it answers with an HTTP status below 500, or fails after `timeoutMs`. */
export async function waitForHttp(url: string, timeoutMs: number, child?: ChildProcess): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (child && child.exitCode !== null)
			throw new Error(`process exited with ${child.exitCode} before ${url} answered`);
		try {
			const response = await fetch(url);
			if (response.status < 500) return;
		} catch {
			// not listening yet
		}
		if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

function pipeOutput(child: ChildProcess, logFile: string | undefined): void {
	if (logFile) {
		const out = createWriteStream(logFile, { flags: 'a' });
		child.stdout?.pipe(out);
		child.stderr?.pipe(out);
	} else {
		child.stdout?.resume();
		child.stderr?.resume();
	}
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

export interface SimulatorProcess {
	child: ChildProcess;
	url: string;
}

/** The API simulator in its own process (test/simulator/cli.ts), on a free port. */
export async function startSimulator(env: Record<string, string> = {}): Promise<SimulatorProcess> {
	const child = track(
		spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', path.join(ROOT, 'test', 'simulator', 'cli.ts')], {
			cwd: ROOT,
			env: { ...process.env, PORT: '0', TASK_SECONDS: '1', SIM_KEY, MAX_RENDERED_SIDE: '512', ...env },
			stdio: ['ignore', 'pipe', 'inherit'],
		}),
	);
	const url = await new Promise<string>((resolve, reject) => {
		let text = '';
		child.stdout!.on('data', (chunk: Buffer) => {
			text += chunk.toString();
			const match = /listening on (http:\/\/\S+)/.exec(text);
			if (match) resolve(match[1]);
		});
		child.on('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
	});
	child.stdout!.resume();
	return { child, url };
}

/** The simulator's record of every request it received. */
export async function simulatorRecord(url: string): Promise<RecordedRequestSummary[]> {
	return JSON.parse(await (await fetch(`${url}/__sim/record`)).text()) as RecordedRequestSummary[];
}

/** Credential file for `n8n import:credentials` pointing at a simulator. */
export function writeCredentials(userFolder: string, baseUrl: string): string {
	const file = path.join(userFolder, 'credentials.json');
	writeFileSync(
		file,
		JSON.stringify([
			{ id: 'mediagen-cred', name: 'MediaGen account', type: 'mediaGenApi', data: { apiKey: SIM_KEY, baseUrl } },
		]),
	);
	return file;
}

export const CREDENTIAL_REF = { mediaGenApi: { id: 'mediagen-cred', name: 'MediaGen account' } };

/** The scripts' common entry: runs `main`, prints the failure with the child's stderr tail, sets the exit code. */
export function runMain(scope: string, main: () => Promise<void>): void {
	// Interrupted (Ctrl-C, CI cancel): exit, and the exit hook below kills every child still running.
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

// ---------------------------------------------------------------------------------------------------------
// Child processes, system services (Postgres, Redis) and n8n's REST API, for the queue-mode and durable suites.

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
		if (groups.delete(child) && child.pid) {
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {
				// nothing left
			}
		}
	});
	return child;
}

/** Sends a signal to a child, or to its whole process group when it leads one. */
export function signalProcess(child: ChildProcess, signal: NodeJS.Signals): void {
	if (groups.has(child) && child.pid) {
		try {
			process.kill(-child.pid, signal);
			return;
		} catch {
			// the group is gone already
		}
	}
	if (child.exitCode === null && child.signalCode === null) child.kill(signal);
}

process.once('exit', () => {
	for (const child of children) signalProcess(child, 'SIGKILL');
	for (const dir of leftovers) rmSync(dir, { recursive: true, force: true });
});

export interface SystemUser {
	name: string;
	uid: number;
	gid: number;
}

/** A system account (e.g. postgres, redis), or undefined when it does not exist. */
export function systemUser(name: string): SystemUser | undefined {
	try {
		const [, , uid, gid] = run('getent', ['passwd', name]).trim().split(':');
		return { name, uid: Number(uid), gid: Number(gid) };
	} catch {
		return undefined;
	}
}

function executable(candidates: string[]): string | undefined {
	return candidates.find((candidate) => existsSync(candidate));
}

/** Directory of the newest installed PostgreSQL server binaries (Debian: /usr/lib/postgresql/<major>/bin). */
function postgresBinDir(): string | undefined {
	const base = '/usr/lib/postgresql';
	if (!existsSync(base)) return undefined;
	const majors = readdirSync(base).filter((major) => existsSync(path.join(base, major, 'bin', 'postgres')));
	majors.sort((a, b) => Number(b) - Number(a));
	return majors.length ? path.join(base, majors[0], 'bin') : undefined;
}

function redisServerBin(): string | undefined {
	return executable(['/usr/bin/redis-server', '/usr/local/bin/redis-server']);
}

/**
 * Installs the Debian packages a suite needs when they are missing (CI machines start empty). Only the
 * packages are installed: their services are never used, each suite starts its own instances.
 */
export function ensureDebianPackages(scope: string, packages: Array<{ name: string; present: () => boolean }>): void {
	const missing = packages.filter((entry) => !entry.present()).map((entry) => entry.name);
	if (!missing.length) return;
	const started = Date.now();
	// Root installs directly; another user (e.g. a CI runner) through passwordless sudo, or gets told what to run.
	const asRoot = process.getuid?.() === 0;
	const apt = (args: string[], timeoutMs: number) => {
		const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
		if (asRoot) return run('apt-get', args, { env, timeoutMs });
		try {
			return run('sudo', ['-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args], { env, timeoutMs });
		} catch (error) {
			throw new Error(
				`missing system packages: ${missing.join(', ')}; install them (sudo apt-get install -y ${missing.join(' ')}): ${firstLine(error)}`,
			);
		}
	};
	log(scope, `installing ${missing.join(', ')} with apt-get`);
	apt(['update', '-qq'], 900_000);
	apt(['install', '-y', '-qq', '--no-install-recommends', ...missing], 1_800_000);
	const still = packages.filter((entry) => !entry.present()).map((entry) => entry.name);
	if (still.length) throw new Error(`apt-get did not provide ${still.join(', ')}`);
	log(scope, `installed ${missing.join(', ')} in ${Math.round((Date.now() - started) / 1000)} s`);
}

export const POSTGRES_PACKAGE = { name: 'postgresql', present: () => postgresBinDir() !== undefined };
export const REDIS_PACKAGE = { name: 'redis-server', present: () => redisServerBin() !== undefined };

export interface Service {
	child: ChildProcess;
	port: number;
	/** Temporary folder holding the service's data and log. */
	dir: string;
	log: string;
	stop(): Promise<void>;
}

/** A temporary folder owned by `user`, removed on exit even if the script forgets. */
function serviceDir(prefix: string, user: SystemUser | undefined): string {
	const dir = mkdtempSync(path.join(tmpdir(), prefix));
	if (user) chownSync(dir, user.uid, user.gid);
	leftovers.add(dir);
	return dir;
}

function serviceStopper(child: ChildProcess, dir: string, signal: NodeJS.Signals): () => Promise<void> {
	return async () => {
		await stopProcess(child, 20_000, signal);
		rmSync(dir, { recursive: true, force: true });
		leftovers.delete(dir);
	};
}

async function until(
	what: string,
	timeoutMs: number,
	child: ChildProcess,
	logFile: string,
	probe: () => Promise<boolean>,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await probe())) {
		if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
			const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2000) : '';
			throw new Error(`${what} did not start (${child.exitCode ?? child.signalCode ?? 'timeout'}): ${tail}`);
		}
		await new Promise((resolve) => setTimeout(resolve, 300));
	}
}

/**
 * A throw-away PostgreSQL server: `initdb` into a temporary folder and `postgres` on a free port of 127.0.0.1,
 * both as the `postgres` system user (the server refuses to run as root), trust authentication, durability off
 * (test data). Creates `database`. Stop with SIGINT (fast shutdown).
 */
export async function startPostgres(
	scope: string,
	database: string,
): Promise<Service & { user: string; database: string }> {
	const bin = postgresBinDir();
	if (!bin) throw new Error('PostgreSQL is not installed (ensureDebianPackages with POSTGRES_PACKAGE)');
	const isRoot = process.getuid?.() === 0;
	const user = isRoot ? systemUser('postgres') : undefined;
	if (isRoot && !user) throw new Error('running as root, but there is no postgres system user to run PostgreSQL');
	const dir = serviceDir('mediagen-postgres-', user);
	const data = path.join(dir, 'data');
	const logFile = path.join(dir, 'postgres.log');
	const env = { ...process.env, LC_ALL: 'C' };
	run(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync'], {
		cwd: dir,
		env,
		user,
		timeoutMs: 300_000,
	});
	const port = await freePort();
	const settings = [
		'listen_addresses=127.0.0.1',
		`unix_socket_directories=${dir}`,
		'fsync=off',
		'synchronous_commit=off',
		'full_page_writes=off',
		'max_connections=200',
	];
	const child = track(
		spawn(
			path.join(bin, 'postgres'),
			['-D', data, '-p', String(port), ...settings.flatMap((setting) => ['-c', setting])],
			{
				cwd: dir,
				env,
				stdio: ['ignore', 'pipe', 'pipe'],
				...(user ? { uid: user.uid, gid: user.gid } : {}),
			},
		),
	);
	pipeOutput(child, logFile);
	const psql = (sql: string) =>
		run(
			path.join(bin, 'psql'),
			['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-v', 'ON_ERROR_STOP=1', '-qAtc', sql],
			{ cwd: dir, env, timeoutMs: 60_000 },
		);
	await until('postgres', 120_000, child, logFile, async () => {
		try {
			psql('select 1');
			return true;
		} catch {
			return false;
		}
	});
	psql(`create database ${database}`);
	log(
		scope,
		`postgres (${path.basename(path.dirname(bin))}) on 127.0.0.1:${port} as user ${user?.name ?? 'current'}, data in ${data}`,
	);
	return { child, port, dir, log: logFile, user: 'postgres', database, stop: serviceStopper(child, dir, 'SIGINT') };
}

/** Runs SQL against a server from startPostgres and returns psql's unaligned output. */
export function postgresQuery(service: { port: number; dir: string; database: string }, sql: string): string {
	const bin = postgresBinDir()!;
	return run(
		path.join(bin, 'psql'),
		[
			'-h',
			'127.0.0.1',
			'-p',
			String(service.port),
			'-U',
			'postgres',
			'-d',
			service.database,
			'-v',
			'ON_ERROR_STOP=1',
			'-qAtc',
			sql,
		],
		{ cwd: service.dir, timeoutMs: 60_000 },
	);
}

/** Sends one inline Redis command and returns the first reply line. */
async function redisCommand(port: number, command: string): Promise<string> {
	return await new Promise((resolve, reject) => {
		const socket = connect(port, '127.0.0.1');
		socket.setTimeout(3000, () => socket.destroy(new Error('redis timeout')));
		socket.on('error', reject);
		socket.on('connect', () => socket.write(`${command}\r\n`));
		socket.on('data', (chunk) => {
			resolve(chunk.toString().split('\r\n')[0]);
			socket.end();
		});
	});
}

/** A throw-away Redis on a free port of 127.0.0.1, without persistence, as the `redis` user when it exists. */
export async function startRedis(scope: string): Promise<Service> {
	const bin = redisServerBin();
	if (!bin) throw new Error('redis-server is not installed (ensureDebianPackages with REDIS_PACKAGE)');
	const user = process.getuid?.() === 0 ? systemUser('redis') : undefined;
	const dir = serviceDir('mediagen-redis-', user);
	const logFile = path.join(dir, 'redis.log');
	const port = await freePort();
	const args = [
		'--port',
		String(port),
		'--bind',
		'127.0.0.1',
		'--dir',
		dir,
		'--save',
		'',
		'--appendonly',
		'no',
		'--daemonize',
		'no',
	];
	const child = track(
		spawn(bin, args, {
			cwd: dir,
			stdio: ['ignore', 'pipe', 'pipe'],
			...(user ? { uid: user.uid, gid: user.gid } : {}),
		}),
	);
	pipeOutput(child, logFile);
	await until(
		'redis',
		60_000,
		child,
		logFile,
		async () => (await redisCommand(port, 'PING').catch(() => '')) === '+PONG',
	);
	log(scope, `redis on 127.0.0.1:${port} as user ${user?.name ?? 'current'}`);
	return { child, port, dir, log: logFile, stop: serviceStopper(child, dir, 'SIGTERM') };
}

/** A logged-in session on a running n8n's REST API (the editor's API): owner set up, auth cookie kept. */
export interface RestSession {
	baseUrl: string;
	cookie: string;
}

/** The instance owner that setupOwner creates (the browser test signs in with it). */
export const OWNER = { email: 'owner@mediagen.test', password: 'Mediagen-e2e-1' };

async function authenticate(baseUrl: string, route: string, body: object): Promise<RestSession> {
	const response = await fetch(`${baseUrl}/rest${route}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	if (!response.ok)
		throw new Error(`POST /rest${route}: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`);
	const cookie = response.headers
		.getSetCookie()
		.map((entry) => entry.split(';')[0])
		.find((entry) => entry.startsWith('n8n-auth='));
	if (!cookie) throw new Error(`POST /rest${route} set no n8n-auth cookie`);
	return { baseUrl, cookie };
}

/** Sets up the instance owner on a fresh n8n and returns its session. */
export async function setupOwner(baseUrl: string): Promise<RestSession> {
	return await authenticate(baseUrl, '/owner/setup', {
		email: OWNER.email,
		firstName: 'Test',
		lastName: 'Owner',
		password: OWNER.password,
	});
}

/** Logs the owner from setupOwner in again (e.g. after a restart). */
export async function loginOwner(baseUrl: string): Promise<RestSession> {
	return await authenticate(baseUrl, '/login', { emailOrLdapLoginId: OWNER.email, password: OWNER.password });
}

export async function restRequest(
	session: RestSession,
	pathAndQuery: string,
	init: RequestInit = {},
): Promise<Response> {
	const response = await fetch(`${session.baseUrl}/rest${pathAndQuery}`, {
		...init,
		headers: { cookie: session.cookie, ...(init.headers ?? {}) },
	});
	if (!response.ok)
		throw new Error(
			`${init.method ?? 'GET'} /rest${pathAndQuery}: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`,
		);
	return response;
}

export async function restJson<T>(session: RestSession, pathAndQuery: string): Promise<T> {
	const body = (await (await restRequest(session, pathAndQuery)).json()) as { data: T };
	return body.data;
}

export interface ExecutionItem {
	json: Record<string, unknown>;
	binary?: Record<string, { id?: string; data?: string; mimeType: string; fileName?: string; fileSize?: string }>;
	pairedItem?: unknown;
}

export interface ExecutionRecord {
	id: string;
	status: string;
	finished: boolean;
	mode: string;
	waitTill?: string | null;
	startedAt?: string;
	stoppedAt?: string;
	data: {
		resultData: {
			error?: { message: string };
			lastNodeExecuted?: string;
			runData: Record<string, Array<{ data?: { main: Array<ExecutionItem[] | null> }; error?: { message: string } }>>;
		};
	};
}

/** An execution with its run data, as the editor reads it (the stored data is "flatted" JSON). */
export async function getExecution(install: N8nInstall, session: RestSession, id: string): Promise<ExecutionRecord> {
	const execution = await restJson<Omit<ExecutionRecord, 'data'> & { data: unknown }>(session, `/executions/${id}`);
	const flatted = createRequire(path.join(install.dir, 'package.json'))('flatted') as {
		parse: (text: string) => unknown;
	};
	const data = typeof execution.data === 'string' ? flatted.parse(execution.data) : execution.data;
	return { ...execution, data: data as ExecutionRecord['data'] };
}

/** Executions of a workflow (newest first), without their data. */
export async function listExecutions(
	session: RestSession,
	workflowId: string,
): Promise<Array<Omit<ExecutionRecord, 'data'>>> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const page = await restJson<{ results: Array<Omit<ExecutionRecord, 'data'>> }>(
		session,
		`/executions?filter=${filter}&limit=100`,
	);
	return page.results;
}

/** The bytes of a binary data id, read through n8n's REST binary-data endpoint (whatever the storage mode). */
export async function readBinary(session: RestSession, binaryId: string): Promise<Buffer> {
	const response = await restRequest(session, `/binary-data?id=${encodeURIComponent(binaryId)}&action=download`);
	return Buffer.from(await response.arrayBuffer());
}
