/**
 * The one way this project installs real n8n (CONTRIBUTING.md, "Real n8n in tests: the shared installer", says
 * how and why), each version once into MEDIAGEN_E2E_CACHE; and the package under test: packPackage and
 * installCommunityPackage.
 */
import { createHash } from 'node:crypto';
import {
	copyFileSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';

import { errorSummary, run } from './process';
import { log, since } from './report';

export const CACHE = process.env.MEDIAGEN_E2E_CACHE ?? path.join(homedir(), '.cache', 'n8n-nodes-mediagen-e2e');

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

const NPM_QUIET = ['--no-audit', '--no-fund', '--loglevel=error'];

export interface N8nInstall {
	recipe: Recipe;
	dir: string;
	/** The Node.js binary that runs this n8n. */
	nodeBin: string;
	/** n8n's CLI entry point (run it with nodeBin). */
	n8nBin: string;
}

/**
 * The environment for npm commands that must run install scripts: without the npm_config_* variables that
 * `npm run` exports from the project's `.npmrc` (ignore-scripts=true), with which a child npm builds nothing.
 */
export function npmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!/^npm_(config|package|lifecycle)_/i.test(key)) env[key] = value;
	}
	return { ...env, npm_config_ignore_scripts: 'false', ...extra };
}

/**
 * What the `.ready` marker holds: a change of recipe or platform, or of `installer` (bumped when the install
 * steps change), makes an existing install count as incomplete, so the next run completes it.
 */
function recipeHash(recipe: Recipe): string {
	return createHash('sha256')
		.update(JSON.stringify({ recipe, platform: process.platform, arch: process.arch, installer: 2 }))
		.digest('hex')
		.slice(0, 16);
}

/** Where a recipe's install lives in a cache (CACHE unless told): <cache>/n8n-<version>, with its binaries. */
export function installPaths(recipe: Recipe, cache = CACHE): N8nInstall {
	const dir = path.join(cache, `n8n-${recipe.n8n}`);
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
		return `sqlite3 binding does not load under ${install.nodeBin}: ${errorSummary(error)}`;
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
		return `n8n --version failed: ${errorSummary(error)}`;
	} finally {
		rmSync(userFolder, { recursive: true, force: true });
	}
	return undefined;
}

/** Rebuilds sqlite3's native binding, with install scripts on, for the Node that will run n8n. */
function rebuildNative(install: N8nInstall, scope: string): void {
	// Build against the headers of the Node that will load the binding (shipped in the node-<platform> package).
	const headers = path.join(install.dir, 'node_modules/node/node_modules', `node-${process.platform}-${process.arch}`);
	const env = npmEnv(install.recipe.node ? { npm_config_nodedir: headers } : {});
	env.PATH = `${path.dirname(install.nodeBin)}${path.delimiter}${env.PATH}`;
	rmSync(path.join(install.dir, 'node_modules', 'sqlite3', 'build'), { recursive: true, force: true });
	const started = Date.now();
	run('npm', ['rebuild', 'sqlite3', '--ignore-scripts=false', '--foreground-scripts'], { cwd: install.dir, env });
	log(scope, `n8n ${install.recipe.n8n}: sqlite3 built in ${since(started)}`);
}

/** npm install of the recipe into its folder (scripts off), then the `node` package's platform binary. */
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
	const started = Date.now();
	run('npm', ['install', '--ignore-scripts', ...NPM_QUIET], {
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
	log(scope, `n8n ${recipe.n8n}: packages installed in ${since(started)}`);
}

/**
 * Returns a working n8n of this version, installing or repairing it first. Safe to call from every suite:
 * a verified cache costs a few seconds of checks.
 */
export function ensureN8n(version: string, scope = 'n8n'): N8nInstall {
	const recipe = RECIPES[version];
	if (!recipe) throw new Error(`no recipe for n8n ${version}; known: ${Object.keys(RECIPES).join(', ')}`);
	const install = installPaths(recipe);
	const hash = recipeHash(recipe);
	if (isReady(install, hash) && !checkInstall(install)) return install;
	// Two suites (or two checkouts) may ask at once: one installs, the others wait and then reuse its work.
	return withCacheLock(install.dir, scope, () => repair(install, hash, scope));
}

function isReady(install: N8nInstall, hash: string): boolean {
	const marker = path.join(install.dir, '.ready');
	return existsSync(marker) && readFileSync(marker, 'utf8').split('\n')[0] === hash;
}

/** Under the lock: makes the install work, cheapest repair first, then marks it ready (or throws why not). */
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
			rebuildNative(install, scope);
			if (!checkInstall(install)) return markReady(install, hash, scope, started);
		} catch (error) {
			log(scope, `rebuild failed (${errorSummary(error)}); reinstalling`);
		}
	}
	// npm install is idempotent over a half-finished tree; only a tree it cannot fix is wiped.
	try {
		installFresh(install, scope);
	} catch (error) {
		log(scope, `install over the old tree failed (${errorSummary(error)}); starting from an empty folder`);
		rmSync(install.dir, { recursive: true, force: true });
		installFresh(install, scope);
	}
	rebuildNative(install, scope);
	const problem = checkInstall(install);
	if (problem) throw new Error(`n8n ${version} installed but cannot run: ${problem}`);
	return markReady(install, hash, scope, started);
}

/**
 * The pause between two looks at the install lock, without returning to the event loop: ensureN8n is
 * synchronous, so the lock wait cannot use waitFor (scripts/lib/wait.ts); it is a condition wait all the same.
 */
function pause(ms: number): void {
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Whether a process with this id exists (EPERM: it does, but belongs to another user). */
function processAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** How long a caller waits for another process's install (two cold installs under load fit in it). */
const LOCK_DEADLINE_MS = 45 * 60_000;

/**
 * A lock folder beside the install (mkdir is atomic). A holder that died (its pid is gone, or it never wrote
 * one within a minute) leaves a stale lock, which the next caller removes.
 */
function withCacheLock<T>(dir: string, scope: string, work: () => T): T {
	const lock = `${dir}.lock`;
	const owner = path.join(lock, 'pid');
	mkdirSync(path.dirname(dir), { recursive: true });
	const deadline = Date.now() + LOCK_DEADLINE_MS;
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
		if (Date.now() > deadline)
			throw new Error(
				`waited ${LOCK_DEADLINE_MS / 60_000} min for the install lock ${lock}; last seen: held by process ${pid || '(no pid written)'} since ${new Date(since).toISOString()}`,
			);
		pause(2000);
	}
	try {
		return work();
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
}

/** Writes the `.ready` marker (hash, then time) after a successful check. */
function markReady(install: N8nInstall, hash: string, scope: string, started: number): N8nInstall {
	writeFileSync(path.join(install.dir, '.ready'), `${hash}\n${new Date().toISOString()}\n`);
	log(scope, `n8n ${install.recipe.n8n} ready in ${since(started)} (verified: sqlite3 loads, n8n --version)`);
	return install;
}

/**
 * Builds and packs the package: what n8n installs is the tarball, not the source tree. `MEDIAGEN_PACKED` names a
 * tarball packed once for several suites (`.ci/run` does so): each suite gets a copy in a folder of its own, which
 * it removes when it ends.
 */
export function packPackage(): string {
	const destination = mkdtempSync(path.join(tmpdir(), 'mediagen-pack-'));
	const packed = process.env.MEDIAGEN_PACKED;
	if (packed && existsSync(packed)) {
		const copy = path.join(destination, path.basename(packed));
		copyFileSync(packed, copy);
		return copy;
	}
	run('npm', ['run', '-s', 'build']);
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
	run('npm', ['install', tarball, '--omit=dev', '--omit=peer', '--ignore-scripts', ...NPM_QUIET], {
		cwd: nodesDir,
		env: npmEnv(),
	});
	const installed = readdirSync(path.join(nodesDir, 'node_modules'));
	if (!installed.includes('n8n-nodes-mediagen')) throw new Error(`package not installed: ${installed.join(', ')}`);
	if (installed.includes('n8n-workflow')) throw new Error('a peer dependency was installed next to the package');
}
