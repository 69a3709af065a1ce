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
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';

export const ROOT = path.join(__dirname, '..', '..');
export const CACHE = process.env.MEDIAGEN_E2E_CACHE ?? path.join(homedir(), '.cache', 'n8n-nodes-mediagen-e2e');
export const NODE_TYPE = 'n8n-nodes-mediagen.mediaGen';
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

export function log(scope: string, message: string): void {
	console.log(`[${scope}] ${new Date().toISOString().slice(11, 19)} ${message}`);
}

export function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): string {
	return execFileSync(command, args, {
		cwd: options.cwd ?? ROOT,
		env: options.env ?? process.env,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
		maxBuffer: 256 << 20,
		timeout: options.timeoutMs,
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
	return createHash('sha256').update(JSON.stringify({ recipe, platform: process.platform, arch: process.arch, installer: 2 })).digest('hex').slice(0, 16);
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
		const version = run(install.nodeBin, [install.n8nBin, '--version'], { cwd: install.dir, timeoutMs: 120_000, env: { ...process.env, ...install.recipe.env, N8N_USER_FOLDER: userFolder } }).trim();
		if (!version.split('\n').some((line) => line.trim() === install.recipe.n8n)) return `n8n --version printed "${version}", expected ${install.recipe.n8n}`;
	} catch (error) {
		return `n8n --version failed: ${firstLine(error)}`;
	} finally {
		rmSync(userFolder, { recursive: true, force: true });
	}
	return undefined;
}

function firstLine(error: unknown): string {
	const stderr = (error as { stderr?: string }).stderr;
	const text = stderr && stderr.trim() ? stderr : (error as Error).message;
	return text.trim().split('\n').slice(-3).join(' | ').slice(0, 400);
}

function rebuildNative(install: N8nInstall): void {
	const extra: Record<string, string> = {};
	if (install.recipe.node) {
		// Build against the headers of the Node that will load the binding (shipped in the node-<platform> package).
		extra.npm_config_nodedir = path.join(install.dir, 'node_modules', 'node', 'node_modules', `node-${process.platform}-${process.arch}`);
	}
	const env = npmEnv(extra);
	env.PATH = `${path.dirname(install.nodeBin)}${path.delimiter}${env.PATH}`;
	rmSync(path.join(install.dir, 'node_modules', 'sqlite3', 'build'), { recursive: true, force: true });
	run('npm', ['rebuild', 'sqlite3', '--ignore-scripts=false', '--foreground-scripts'], { cwd: install.dir, env });
}

function installFresh(install: N8nInstall, scope: string): void {
	const { recipe, dir } = install;
	log(scope, `installing n8n ${recipe.n8n}${recipe.node ? ` with Node ${recipe.node}` : ''} into ${dir} (first run only: about 4 minutes)`);
	mkdirSync(dir, { recursive: true });
	const dependencies: Record<string, string> = { n8n: recipe.n8n, ...(recipe.node ? { node: recipe.node } : {}) };
	writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'n8n-e2e-runtime', private: true, dependencies, overrides: recipe.overrides }, null, 2));
	// Scripts off for the bulk install: some optional native modules download binaries, which fails offline.
	// The ones n8n needs here are built explicitly below.
	run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, env: npmEnv({ npm_config_ignore_scripts: 'true' }) });
	if (recipe.node) {
		// The `node` package fetches its platform binary (from the same registry) in a preinstall script.
		run(process.execPath, ['installArchSpecificPackage'], { cwd: path.join(dir, 'node_modules', 'node'), env: npmEnv() });
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
	const marker = path.join(install.dir, '.ready');
	const hash = recipeHash(recipe);
	const started = Date.now();

	if (existsSync(marker) && readFileSync(marker, 'utf8').split('\n')[0] === hash) {
		const problem = checkInstall(install);
		if (!problem) return install;
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

function markReady(install: N8nInstall, hash: string, scope: string, started: number): N8nInstall {
	writeFileSync(path.join(install.dir, '.ready'), `${hash}\n${new Date().toISOString()}\n`);
	log(scope, `n8n ${install.recipe.n8n} ready in ${Math.round((Date.now() - started) / 1000)} s (verified: sqlite3 loads, n8n --version)`);
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
	run('npm', ['install', tarball, '--omit=dev', '--omit=peer', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: nodesDir, env: npmEnv() });
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
export async function n8nEnv(install: N8nInstall, userFolder: string, extra: Record<string, string> = {}): Promise<NodeJS.ProcessEnv> {
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

/** Starts a long-running n8n process (start, worker, webhook); its output goes to `logFile` if given. */
export function spawnN8n(install: N8nInstall, env: NodeJS.ProcessEnv, args: string[], logFile?: string): ChildProcess {
	const child = spawn(install.nodeBin, [install.n8nBin, ...args], { cwd: env.N8N_USER_FOLDER ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
	if (logFile) {
		const { createWriteStream } = require('node:fs') as typeof import('node:fs');
		const out = createWriteStream(logFile, { flags: 'a' });
		child.stdout!.pipe(out);
		child.stderr!.pipe(out);
	} else {
		child.stdout!.resume();
		child.stderr!.resume();
	}
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
export async function startN8nServer(install: N8nInstall, env: NodeJS.ProcessEnv, logFile?: string, timeoutMs = 240_000): Promise<N8nServer> {
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

/** The owner account that suites create on a fresh n8n (POST /rest/owner/setup). */
export const OWNER = { email: 'owner@mediagen.test', firstName: 'Media', lastName: 'Gen', password: 'MediaGen-e2e-1' };

/** Sets up the instance owner of a fresh n8n, so that the editor and REST API can be logged into. */
export async function setupOwner(url: string): Promise<void> {
	const response = await fetch(`${url}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(OWNER),
	});
	if (!response.ok) throw new Error(`owner setup answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
}

/** Polls `url` until it answers with an HTTP status below 500, or fails after `timeoutMs`. */
export async function waitForHttp(url: string, timeoutMs: number, child?: ChildProcess): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (child && child.exitCode !== null) throw new Error(`process exited with ${child.exitCode} before ${url} answered`);
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

/** Stops a child process: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopProcess(child: ChildProcess | undefined, graceMs = 10_000): Promise<void> {
	if (!child || child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	child.kill('SIGTERM');
	const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
	await exited;
	clearTimeout(timer);
}

export interface SimulatorProcess {
	child: ChildProcess;
	url: string;
}

/** The API simulator in its own process (test/simulator/cli.ts), on a free port. */
export async function startSimulator(env: Record<string, string> = {}): Promise<SimulatorProcess> {
	const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', path.join(ROOT, 'test', 'simulator', 'cli.ts')], {
		cwd: ROOT,
		env: { ...process.env, PORT: '0', TASK_SECONDS: '1', SIM_KEY, MAX_RENDERED_SIDE: '512', ...env },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
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
export async function simulatorRecord(url: string): Promise<Array<{ method: string; path: string; headers: Record<string, string>; status?: number; body?: unknown; fields?: unknown }>> {
	return JSON.parse(await (await fetch(`${url}/__sim/record`)).text());
}

/** Credential file for `n8n import:credentials` pointing at a simulator. */
export function writeCredentials(userFolder: string, baseUrl: string): string {
	const file = path.join(userFolder, 'credentials.json');
	writeFileSync(file, JSON.stringify([{ id: 'mediagen-cred', name: 'MediaGen account', type: 'mediaGenApi', data: { apiKey: SIM_KEY, baseUrl } }]));
	return file;
}

export const CREDENTIAL_REF = { mediaGenApi: { id: 'mediagen-cred', name: 'MediaGen account' } };

/** The scripts' common entry: runs `main`, prints the failure with the child's stderr tail, sets the exit code. */
export function runMain(scope: string, main: () => Promise<void>): void {
	main().catch((error: Error) => {
		console.error(`[${scope}] FAILED: ${error.stack ?? error.message}`);
		const stderr = (error as { stderr?: string }).stderr;
		if (stderr) console.error(stderr.slice(-4000));
		process.exit(1);
	});
}
