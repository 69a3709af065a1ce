/**
 * `npm run test:installer`: the shared n8n installer repairs a damaged cache instead of failing forever.
 * It deletes the sqlite3 native binding from a ready install, then runs the installer in a child process the
 * way the suites do (under `npm run`, whose environment carries ignore-scripts=true from the project's .npmrc),
 * and checks that the child noticed the damage, rebuilt the binding, and that the binding loads under the
 * Node that runs n8n. MEDIAGEN_INSTALLER_VERSION picks the n8n version (default 1.123.81, the quicker build).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

import { checkInstall, ensureN8n } from './lib/installer';
import { ROOT } from './lib/paths';
import { runMain } from './lib/process';
import { log } from './lib/report';

function findBindings(dir: string): string[] {
	const found: string[] = [];
	const walk = (folder: string) => {
		for (const entry of readdirSync(folder)) {
			const full = path.join(folder, entry);
			if (statSync(full).isDirectory()) walk(full);
			else if (entry.endsWith('.node')) found.push(full);
		}
	};
	if (existsSync(dir)) walk(dir);
	return found;
}

async function main(): Promise<void> {
	const version = process.env.MEDIAGEN_INSTALLER_VERSION ?? '1.123.81';
	const install = ensureN8n(version, 'installer');
	const sqliteDir = path.join(install.dir, 'node_modules', 'sqlite3');
	const bindings = findBindings(path.join(sqliteDir, 'build'));
	if (!bindings.length) throw new Error(`a ready install has no sqlite3 binding under ${sqliteDir}/build`);
	for (const file of bindings) rmSync(file);
	log('installer', `deleted ${bindings.map((file) => path.relative(install.dir, file)).join(', ')}`);
	const problem = checkInstall(install);
	if (!problem) throw new Error('the check did not notice the deleted binding');
	log('installer', `check reports: ${problem}`);

	// The next suite's run, as a child with the environment `npm run` gives it (ignore-scripts=true inherited).
	const output = execFileSync(
		process.execPath,
		[
			'-r',
			'ts-node/register/transpile-only',
			'-e',
			`require('./scripts/lib/installer').ensureN8n(${JSON.stringify(version)}, 'next-run')`,
		],
		{
			cwd: ROOT,
			env: { ...process.env, npm_config_ignore_scripts: 'true' },
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	process.stdout.write(output);
	if (!/damaged/.test(output)) throw new Error('the next run did not report the damaged cache');
	const after = checkInstall(install);
	if (after) throw new Error(`the next run did not repair the cache: ${after}`);
	log(
		'installer',
		`repaired: ${findBindings(path.join(sqliteDir, 'build'))
			.map((file) => path.relative(install.dir, file))
			.join(', ')} loads under ${install.nodeBin}`,
	);
	log('installer', 'passed');
}

runMain('installer', main);
