/**
 * The one lifecycle of the real-n8n suites, so that each suite's main reads as its own steps: the packed tarball
 * on each version (`runOnVersions`); the install check, the simulator, a user folder with the package installed
 * as n8n installs community packages and the workflows imported (`withN8nFolder`); then `n8n start`, the owner set
 * up and the workflows published (`withN8n`). However it ends (a failed check, Ctrl-C through runMain's exit
 * hook), n8n's log tail is printed if it failed, and n8n, the simulator and the folder go.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { ensureN8n, installCommunityPackage, packPackage, type N8nInstall } from './installer';
import { n8nEnv, simulatorCredential, startN8nServer, waitForTrigger, type N8nServer } from './n8n';
import { ROOT } from './paths';
import { removeNow, removeOnExit, run, stopProcess } from './process';
import { log, printLogTail, stepTimer } from './report';
import { activateWorkflow, signInOwner, whileDatabaseNotReady, type RestSession } from './rest';
import { startSimulator, type SimulatorProcess } from './simulator';

/** The n8n versions a suite runs on: `variable` (comma-separated) or 2.41.1 and 1.123.81. */
export function suiteVersions(variable: string): string[] {
	return (process.env[variable] ?? '2.41.1,1.123.81')
		.split(',')
		.map((version) => version.trim())
		.filter(Boolean);
}

/** The workflows of examples/, by file name. */
export const EXAMPLES = readdirSync(path.join(ROOT, 'examples'))
	.filter((name) => name.endsWith('.json'))
	.sort();

/** A workflow of examples/, as JSON. */
export function readExample<Workflow>(file: string): Workflow {
	return JSON.parse(readFileSync(path.join(ROOT, 'examples', file), 'utf8')) as Workflow;
}

/** Runs a suite on each n8n version, one after another, from one packed tarball, which is removed at the end. */
export async function runOnVersions(
	scope: string,
	versions: string[],
	runVersion: (version: string, tarball: string) => Promise<void>,
): Promise<void> {
	const tarball = packPackage();
	removeOnExit(path.dirname(tarball));
	log(scope, `packed ${path.basename(tarball)}`);
	try {
		for (const version of versions) await runVersion(version, tarball);
	} finally {
		removeNow(path.dirname(tarball));
	}
	log(scope, `passed on n8n ${versions.join(' and ')}`);
}

export interface N8nOptions {
	scope: string;
	version: string;
	tarball: string;
	simulator?: Parameters<typeof startSimulator>[0];
	/** Credentials besides the simulator's (which every suite gets, as simulatorCredential). */
	credentials?: object[];
	/** Workflows to import (each with its id, kept by n8n). */
	workflows?: Array<{ id: string }>;
	/** Environment besides n8nEnv's. */
	env?: Record<string, string>;
}

/** What withN8n starts: `n8n start` and its log; the workflows to publish and the triggers to wait for. */
export interface StartOptions extends N8nOptions {
	/** n8n's log (kept after the run, in the suite's .e2e folder). */
	logFile: string;
	/** A port chosen beforehand (a workflow imported before the start names its own URL). */
	port?: number;
	/** Workflow ids to publish (default: every imported one), then the triggers to wait for. */
	publish?: string[];
	webhookPaths?: string[];
	chats?: string[];
}

/** An installed, imported n8n of one version (not started) and the simulator its credential points at. */
export interface N8nFolder {
	version: string;
	install: N8nInstall;
	env: NodeJS.ProcessEnv;
	userFolder: string;
	simulator: SimulatorProcess;
	/** Runs an n8n CLI command on this folder and returns its stdout. */
	cli(...args: string[]): string;
	/** Closes a step of the version's timings (printed at the end). */
	step(name: string): void;
}

/** A running `n8n start` on the folder: its address, the owner's session and its current log. */
export type RunningN8n = N8nFolder & MainProcess;

/** Prepares n8n `version` (install, simulator, package, imports), runs `body`, and tears it all down. */
export async function withN8nFolder(
	options: N8nOptions,
	body: (n8n: N8nFolder) => Promise<void>,
	/** Logs to print the tail of when `body` fails. */
	logs: () => string[] = () => [],
): Promise<void> {
	const { scope, version } = options;
	const { step, summary } = stepTimer();
	const install = ensureN8n(version, scope);
	step('n8n install');
	const userFolder = mkdtempSync(path.join(tmpdir(), `mediagen-${scope}-${version}-`));
	removeOnExit(userFolder);
	let simulator: SimulatorProcess | undefined;
	let passed = false;
	try {
		simulator = await startSimulator(options.simulator);
		installCommunityPackage(userFolder, options.tarball);
		const env = await n8nEnv(install, userFolder, options.env);
		const cli = (...args: string[]) => run(install.nodeBin, [install.n8nBin, ...args], { env });
		// ensureN8n checked that `n8n --version` prints `version`.
		log(scope, `n8n ${version} on Node ${run(install.nodeBin, ['--version']).trim()}`);
		const credentials = [simulatorCredential(simulator.url), ...(options.credentials ?? [])];
		const credentialsFile = path.join(userFolder, 'credentials.json');
		writeFileSync(credentialsFile, JSON.stringify(credentials));
		cli('import:credentials', `--input=${credentialsFile}`);
		const workflowsFolder = path.join(userFolder, 'workflows');
		if (options.workflows?.length) {
			mkdirSync(workflowsFolder);
			for (const workflow of options.workflows)
				writeFileSync(path.join(workflowsFolder, `${workflow.id}.json`), JSON.stringify(workflow));
			cli('import:workflow', '--separate', `--input=${workflowsFolder}`);
		}
		step('simulator, package and import');
		await body({ version, install, env, userFolder, simulator, cli, step });
		passed = true;
	} finally {
		if (!passed) for (const file of logs()) printLogTail(file);
		await stopProcess(simulator?.child);
		removeNow(userFolder);
		step('shutdown');
		log(scope, `n8n ${version}: ${summary()}`);
	}
}

/**
 * As withN8nFolder, with `n8n start` running for `body`: the owner set up, the workflows published as the
 * editor's Publish (2.x) / Activate (1.x) does, and their webhooks and chats registered.
 */
export async function withN8n(options: StartOptions, body: (n8n: RunningN8n) => Promise<void>): Promise<void> {
	let main: MainProcess | undefined;
	const publish = options.publish ?? (options.workflows ?? []).map((workflow) => workflow.id);
	await withN8nFolder(
		options,
		async (folder) => {
			try {
				main = await startMain(folder.install, folder.env, options, async (session) => {
					for (const id of publish) await activateWorkflow(session, id);
				});
				folder.step('n8n started, workflows published');
				// One object: restart updates the server and log that the body reads.
				await body(Object.assign(main, folder));
			} finally {
				await stopProcess(main?.server.child, 20_000);
			}
		},
		() => [main?.logFile ?? options.logFile],
	);
}

/**
 * A running main. `restart` stops it with `signal` (SIGTERM as a deploy does; SIGKILL as a crash, its task runner
 * going too), calls `whileDown`, and starts it again on its port as startMain did, logging to `logFile`.
 */
export interface MainProcess {
	server: N8nServer;
	session: RestSession;
	logFile: string;
	restart(signal: NodeJS.Signals, logFile: string, whileDown?: () => Promise<void> | void): Promise<void>;
}

/**
 * The main `n8n start` of a suite or a deployment: the owner set up (after a restart logged in again, the same
 * session object updated), `setUp` run (the workflows created or published), the webhooks and chats registered.
 */
export async function startMain(
	install: N8nInstall,
	env: NodeJS.ProcessEnv,
	options: Pick<StartOptions, 'logFile' | 'port' | 'webhookPaths' | 'chats'>,
	setUp: (session: RestSession) => Promise<void>,
): Promise<MainProcess> {
	const server = await startN8nServer(install, env, options.logFile, options.port);
	const registered = async () => {
		for (const webhookPath of options.webhookPaths ?? []) await waitForTrigger(server.url, webhookPath, 120_000);
		for (const chat of options.chats ?? []) await waitForTrigger(server.url, chat, 120_000, 'chat');
	};
	const session = await whileDatabaseNotReady(async () => await signInOwner(server.url, 'setup'));
	await setUp(session);
	await registered();
	const main: MainProcess = {
		server,
		session,
		logFile: options.logFile,
		restart: async (signal, logFile, whileDown) => {
			await stopProcess(main.server.child, 20_000, signal);
			await whileDown?.();
			main.server = await startN8nServer(install, env, logFile, Number(new URL(server.url).port));
			main.logFile = logFile;
			Object.assign(session, await whileDatabaseNotReady(async () => await signInOwner(server.url, 'login')));
			await registered();
		},
	};
	return main;
}
