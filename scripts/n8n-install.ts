/**
 * `npm run n8n:install`: installs (or checks) every n8n version the suites run, through the shared installer, before
 * any suite asks. `.ci/run` starts it in the background right after the project's own install, so that a cold
 * cache fills while lint, the tests and the demo run; a suite that asks meanwhile waits on the installer's lock.
 */
import { ensureN8n, RECIPES } from './lib/installer';
import { runMain } from './lib/process';
import { log, since } from './lib/report';

async function main(): Promise<void> {
	for (const version of Object.keys(RECIPES)) {
		const started = Date.now();
		const install = ensureN8n(version, 'n8n:install');
		log('n8n:install', `n8n ${version} ready in ${install.dir} (${since(started)})`);
	}
}

runMain('n8n:install', main);
