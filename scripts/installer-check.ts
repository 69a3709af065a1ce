/**
 * `npm run test:installer`: the shared n8n installer repairs a damaged cache instead of failing forever. It
 * deletes the sqlite3 native binding from a ready install, runs the installer in a child process with the
 * environment `npm run` gives the suites (ignore-scripts=true from the project's .npmrc), and checks that the
 * child noticed the damage and rebuilt a binding that loads under the Node that runs n8n.
 * MEDIAGEN_INSTALLER_VERSION picks the n8n version (default 1.123.81, the quicker build).
 *
 * The damaged install is a copy of the shared one in a cache folder of its own, every file hard-linked (seconds,
 * no disk) except what the check or the repair writes, so that it can run while other suites use the shared
 * install (`.ci/run` runs it in a lane); at the end the shared binding must be the same file and still load.
 */
import {
	copyFileSync,
	cpSync,
	existsSync,
	linkSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readlinkSync,
	rmSync,
	symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { checkInstall, ensureN8n, installPaths } from './lib/installer';
import { removeOnExit, run, runMain } from './lib/process';
import { log, since } from './lib/report';

/** What the check or the repair writes, relative to the install folder: copied, never hard-linked. */
const WRITTEN = new Set([path.join('node_modules', 'sqlite3'), path.join('node_modules', '.package-lock.json')]);

/** The sqlite3 native bindings (`.node` files) of an install, sorted. */
function findBindings(installDir: string): string[] {
	const dir = path.join(installDir, 'node_modules', 'sqlite3', 'build');
	if (!existsSync(dir)) return [];
	const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.node'));
	return files.sort().map((file) => path.join(dir, file));
}

/**
 * Copies the install folder `from` to `to`: folders made anew, symlinks as they are, files hard-linked (copied
 * where the file system cannot link), except the files directly in the install folder and the paths in WRITTEN,
 * which are copied. Returns how many files were copied rather than linked.
 */
function copyInstall(from: string, to: string, relative = ''): number {
	let copied = 0;
	mkdirSync(path.join(to, relative), { recursive: true });
	for (const entry of readdirSync(path.join(from, relative), { withFileTypes: true })) {
		const name = path.join(relative, entry.name);
		const source = path.join(from, name);
		const target = path.join(to, name);
		if (WRITTEN.has(name) || (relative === '' && entry.isFile())) {
			cpSync(source, target, { recursive: true, verbatimSymlinks: true });
			copied++;
		} else if (entry.isDirectory()) {
			copied += copyInstall(from, to, name);
		} else if (entry.isSymbolicLink()) {
			symlinkSync(readlinkSync(source), target);
		} else {
			try {
				linkSync(source, target);
			} catch {
				copyFileSync(source, target);
				copied++;
			}
		}
	}
	return copied;
}

/** A file's identity and content stamp: the same inode, size and modification time mean the same file. */
function stamp(file: string): string {
	const info = lstatSync(file);
	return `${info.ino}:${info.size}:${info.mtimeMs}`;
}

async function main(): Promise<void> {
	const version = process.env.MEDIAGEN_INSTALLER_VERSION ?? '1.123.81';
	const shared = ensureN8n(version, 'installer');
	const sharedBindings = findBindings(shared.dir);
	const sharedStamps = sharedBindings.map(stamp);

	const cache = mkdtempSync(path.join(tmpdir(), 'mediagen-installer-check-'));
	removeOnExit(cache);
	const started = Date.now();
	const install = installPaths(shared.recipe, cache);
	const copied = copyInstall(shared.dir, install.dir);
	log(
		'installer',
		`copied ${shared.dir} to ${install.dir} in ${since(started, 1)} (${copied} entries copied, the rest hard-linked)`,
	);
	const before = checkInstall(install);
	if (before) throw new Error(`the copy of a ready install does not work: ${before}`);
	const bindings = findBindings(install.dir);
	if (!bindings.length) throw new Error(`a ready install has no sqlite3 binding in ${install.dir}`);
	for (const file of bindings) rmSync(file);
	const names = (files: string[]) => files.map((file) => path.relative(install.dir, file)).join(', ');
	log('installer', `deleted ${names(bindings)}`);
	const problem = checkInstall(install);
	if (!problem) throw new Error('the check did not notice the deleted binding');
	log('installer', `check reports: ${problem}`);

	// The next suite's run, as a child with the environment `npm run` gives it (ignore-scripts=true inherited).
	const nextRun = `require('./scripts/lib/installer').ensureN8n(${JSON.stringify(version)}, 'next-run')`;
	const output = run(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', nextRun], {
		env: { ...process.env, MEDIAGEN_E2E_CACHE: cache, npm_config_ignore_scripts: 'true' },
	});
	process.stdout.write(output);
	if (!/damaged/.test(output)) throw new Error('the next run did not report the damaged cache');
	const after = checkInstall(install);
	if (after) throw new Error(`the next run did not repair the cache: ${after}`);
	log('installer', `repaired: ${names(findBindings(install.dir))} loads under ${install.nodeBin}`);
	// The shared install was not touched: its binding is the same file as before, and it still works.
	const now = findBindings(shared.dir);
	if (now.join() !== sharedBindings.join() || now.map(stamp).join() !== sharedStamps.join())
		throw new Error(`the shared install's sqlite3 binding changed under ${shared.dir}`);
	const sharedProblem = checkInstall(shared);
	if (sharedProblem) throw new Error(`the shared install stopped working: ${sharedProblem}`);
	log('installer', `the shared install ${shared.dir} is untouched and works`);
	log('installer', 'passed');
}

runMain('installer', main);
