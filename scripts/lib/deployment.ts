/**
 * A running n8n deployment for test:queue and test:learning, as users run one: regular mode (`n8n start`, SQLite)
 * or queue mode (a main and `n8n worker` processes sharing Postgres and Redis), each process with its own user
 * folder and the packed package installed as a community package (as separate machines would). Its main is
 * suite.ts's MainProcess (startMain), as every real-n8n suite's is.
 */
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';

import { installCommunityPackage, type N8nInstall } from './installer';
import { n8nEnv, simulatorCredential, startListening } from './n8n';
import { freePort, removeNow, removeOnExit, stopProcess } from './process';
import { activateWorkflow, restJson, whileDatabaseNotReady, type RestSession } from './rest';
import { postgresQuery, type Service } from './services';
import { startMain, type MainProcess, type StartOptions } from './suite';

/**
 * The packed package (packPackage's tarball, removed here) installed once as n8n installs a community package, for
 * every process of every deployment to copy (its `.n8n` folder): it is the same whatever the n8n version.
 */
export function installedPackage(tarball: string): string {
	const folder = mkdtempSync(path.join(tmpdir(), 'mediagen-package-'));
	removeOnExit(folder);
	installCommunityPackage(folder, tarball);
	removeNow(path.dirname(tarball));
	return path.join(folder, '.n8n');
}

export interface DeploymentOptions extends Pick<StartOptions, 'webhookPaths'> {
	install: N8nInstall;
	/** installedPackage's folder. */
	packageFolder: string;
	simulatorUrl: string;
	/** Workflows to create, in order (a workflow that calls another after it); `publish`: the ids to publish. */
	workflows: Array<{ id: string; name: string }>;
	publish: string[];
	/** Credentials besides the simulator's, with the ids the workflows name. */
	credentials?: Array<{ id: string; name: string; type: string; data: object }>;
	logDir: string;
	/** Queue mode when set: Postgres, Redis, the `name` of its database and Bull prefix in them, how many workers. */
	queue?: { services: { postgres: Service; redis: Service; name: string }; workers: number };
}

/** A running deployment: its main (MainProcess in suite.ts: its restart leaves the workers running) and more. */
export interface Deployment extends MainProcess {
	install: N8nInstall;
	workerLogs: string[];
	/** Queue mode: the deployment's database on the Postgres server. */
	database?: string;
	/** The main process's user folder (regular mode: its SQLite database is `.n8n/database.sqlite` in it). */
	mainFolder: string;
	/** n8n's id of a workflow created with the requested id (n8n 1.x gives ids of its own). */
	idOf: (workflowId: string) => string;
	stop: () => Promise<void>;
}

/**
 * Creates the credentials and workflows through the REST API (each CLI import would boot n8n once more) and
 * publishes those to publish. n8n 1.x gives every new one an id of its own: ids that a later workflow names are
 * replaced by those. Returns n8n's id for each requested one.
 */
async function createWorkflows(session: RestSession, options: DeploymentOptions): Promise<Map<string, string>> {
	const actual = new Map<string, string>();
	const create = async (endpoint: string, body: object) =>
		(await whileDatabaseNotReady(async () => await restJson<{ id: string }>(session, endpoint, body))).id;
	for (const credential of [simulatorCredential(options.simulatorUrl), ...(options.credentials ?? [])])
		actual.set(credential.id, await create('/credentials', credential));
	for (const workflow of options.workflows) {
		let text = JSON.stringify(workflow);
		for (const [requested, id] of actual) text = text.split(JSON.stringify(requested)).join(JSON.stringify(id));
		actual.set(workflow.id, await create('/workflows', JSON.parse(text) as object));
	}
	for (const workflowId of options.publish)
		await whileDatabaseNotReady(async () => await activateWorkflow(session, actual.get(workflowId) ?? workflowId));
	return actual;
}

/** Starts a deployment, ready for webhook calls: its workflows created and published. */
export async function startDeployment(options: DeploymentOptions): Promise<Deployment> {
	const { install, queue } = options;
	const work = mkdtempSync(path.join(tmpdir(), 'mediagen-deployment-'));
	removeOnExit(work);
	let main: MainProcess | undefined;
	const workers: ChildProcess[] = [];
	const stop = async () => {
		await Promise.all(workers.map(async (child) => await stopProcess(child, 20_000)));
		await stopProcess(main?.server.child, 20_000);
		removeNow(work);
	};
	try {
		const folders = ['main', ...Array.from({ length: queue?.workers ?? 0 }, (_, index) => `worker-${index + 1}`)];
		for (const folder of folders) cpSync(options.packageFolder, path.join(work, folder, '.n8n'), { recursive: true });
		const database = queue && `n8n_${queue.services.name.replace(/\W/g, '_')}`;
		if (queue) postgresQuery(queue.services.postgres, `create database ${database}`);
		// What queue mode needs in every process's environment (main and workers alike).
		const modeEnv: Record<string, string> = queue
			? {
					EXECUTIONS_MODE: 'queue',
					DB_TYPE: 'postgresdb',
					DB_POSTGRESDB_HOST: '127.0.0.1',
					DB_POSTGRESDB_PORT: String(queue.services.postgres.port),
					DB_POSTGRESDB_DATABASE: database!,
					DB_POSTGRESDB_USER: 'postgres',
					DB_POSTGRESDB_PASSWORD: '',
					QUEUE_BULL_REDIS_HOST: '127.0.0.1',
					QUEUE_BULL_REDIS_PORT: String(queue.services.redis.port),
					QUEUE_BULL_PREFIX: `bull-${queue.services.name}`,
					N8N_LOG_LEVEL: 'info',
				}
			: {};
		const mainLog = path.join(options.logDir, 'main.log');
		const workerLogs = folders.slice(1).map((name) => path.join(options.logDir, `${name}.log`));
		// The workers start once the main is ready, that is its database migrated: n8n 1.x takes no migration lock,
		// and a worker migrating the same database at the same time breaks both.
		const mainFolder = path.join(work, 'main');
		let ids = new Map<string, string>();
		const mainEnv = await n8nEnv(install, mainFolder, modeEnv);
		main = await startMain(install, mainEnv, { ...options, logFile: mainLog }, async (session) => {
			ids = await createWorkflows(session, options);
		});
		// An `n8n worker` is ready when its health endpoint answers: there is no log line to wait for.
		const workerEnv = (name: string) => async (port: number) =>
			await n8nEnv(install, path.join(work, name), {
				...modeEnv,
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(port),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				// Unused by workers, but n8n reads it: keep every process off the default 5678.
				N8N_PORT: String(await freePort()),
			});
		await Promise.all(
			folders.slice(1).map(async (name, index) => {
				const args = ['worker', '--concurrency=10'];
				workers.push((await startListening(install, args, workerLogs[index], workerEnv(name), () => [])).child);
			}),
		);
		const idOf = (workflowId: string) => ids.get(workflowId) ?? workflowId;
		return Object.assign(main, { install, workerLogs, database, mainFolder, idOf, stop });
	} catch (error) {
		await stop();
		throw error;
	}
}
