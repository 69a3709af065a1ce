/**
 * Runs the learning cases in real n8n, for the suite (scripts/learning.ts) and the bench's queue-mode row
 * (bench-queue.ts): one world for everything (startWorld), and per n8n version one deployment per plan (regular or
 * queue mode), started side by side, whose cases run all at once.
 */
import { ensureN8n, packPackage } from './installer';
import { installedPackage, startDeployment, type Deployment, type DeploymentOptions } from './deployment';
import { startFeedServer } from './feed-server';
import { taskRecords, type TaskRecord } from './learning-measure';
import { tagged, withStalls, type Row } from './learning-rows';
import { SQLITE_PACKAGE, staticDataDb, type StaticDataDb } from './learning-static';
import { MEDIAGEN, type Workflow } from './learning-workflows';
import { startModelServer, type ModelScript } from './model-server';
import { logFolder } from './paths';
import { stopProcess } from './process';
import { log, since } from './report';
import { ensureDebianPackages, POSTGRES_PACKAGE, REDIS_PACKAGE, startPostgres, startRedis } from './services';
import { startSimulator } from './simulator';

/** Added by the simulator to every answer: a remote API's round trip. */
export const RTT_MS = 100;

export interface CaseResult {
	version: string;
	mode: 'regular' | 'queue';
	name: string;
	rows: Row[];
}

/** What one deployment runs: its workflows, those to publish, and its cases (started all at once). */
export interface Plan {
	mode: 'regular' | 'queue';
	workflows: Workflow[];
	publish: string[];
	/** Credentials besides the simulator's (deployment.ts). */
	credentials?: DeploymentOptions['credentials'];
	cases: (deployment: Deployment, world: DeploymentWorld) => Array<[name: string, rows: Promise<Row[]>]>;
}

type World = Awaited<ReturnType<typeof startWorld>>;

/** What a plan's cases get besides their deployment: the world, and the saved static data of its workflows. */
export type DeploymentWorld = World & { db: StaticDataDb };

/**
 * What every deployment shares: the simulator, Postgres and Redis (and SQLite's command line to read the regular
 * deployments' databases), an RSS feed, the installed package; with `model`, a scripted model server at `modelUrl`.
 */
export async function startWorld(
	scope: string,
	versions: string[],
	renderMs: number,
	model?: ModelScript,
	latencyMs = RTT_MS,
) {
	ensureDebianPackages(scope, [POSTGRES_PACKAGE, REDIS_PACKAGE, SQLITE_PACKAGE]);
	for (const version of versions) ensureN8n(version, scope);
	const packageFolder = installedPackage(packPackage());
	const simulator = await startSimulator({ taskDurationMs: renderMs, latencyMs });
	const postgres = await startPostgres(scope);
	const redis = await startRedis(scope);
	const modelServer = model ? await startModelServer() : undefined;
	if (model) modelServer?.setScript(model);
	const feed = await startFeedServer();
	return {
		packageFolder,
		simulatorUrl: simulator.url,
		modelUrl: modelServer?.baseUrl,
		services: { postgres, redis },
		feed,
		stop: async () => {
			await feed.close();
			await modelServer?.close();
			await redis.stop();
			await postgres.stop();
			await stopProcess(simulator.child);
		},
	};
}

/** The tasks of `workflows` that poll on the grid (Fixed Interval), each workflow's with its Poll Interval. */
function gridsOf(workflows: Workflow[], tasks: TaskRecord[]) {
	return workflows.flatMap((workflow) => {
		const options = workflow.nodes.find((node) => node.name === MEDIAGEN)?.parameters.options as
			| { pollSchedule?: string; pollInterval: number }
			| undefined;
		return options?.pollSchedule === 'fixed'
			? [{ tasks: tagged(tasks, workflow.id), intervalMs: options.pollInterval * 1000 }]
			: [];
	});
}

/** Starts one deployment per plan for `version`, runs every case of every plan at once, stops the deployments. */
export async function runPlans(scope: string, version: string, plans: Plan[], world: World): Promise<CaseResult[]> {
	const install = ensureN8n(version, scope);
	const deployments = await Promise.all(
		plans.map(
			async (plan) =>
				await startDeployment({
					install,
					packageFolder: world.packageFolder,
					simulatorUrl: world.simulatorUrl,
					workflows: plan.workflows,
					publish: plan.publish,
					credentials: plan.credentials,
					webhookPaths: plan.workflows
						.filter((workflow) => workflow.webhookPath && plan.publish.includes(workflow.id))
						.map((workflow) => workflow.webhookPath!),
					logDir: logFolder(`${scope}-${version}-${plan.mode}`),
					queue:
						plan.mode === 'queue'
							? { services: { ...world.services, name: `${scope}${version.replace(/\W/g, '')}` }, workers: 1 }
							: undefined,
				}),
		),
	);
	try {
		log(
			scope,
			`n8n ${version}: ${plans.map((plan, index) => `${plan.mode} mode at ${deployments[index].server.url}`).join(', ')}`,
		);
		const started = Date.now();
		const running = plans.flatMap((plan, index) =>
			plan
				.cases(deployments[index], { ...world, db: staticDataDb(deployments[index], world.services.postgres) })
				.map(async ([name, rows]): Promise<CaseResult> => {
					const result = { version, mode: plan.mode, name, rows: await rows };
					log(scope, `n8n ${version} ${plan.mode} ${name}: done ${since(started)} after the cases started`);
					return result;
				}),
		);
		const results = await Promise.all(running);
		const tasks = await taskRecords(world.simulatorUrl);
		const witnesses = new Map(plans.map((plan) => [plan.mode, gridsOf(plan.workflows, tasks)]));
		return results.map((result) => ({ ...result, rows: withStalls(result.rows, witnesses.get(result.mode)!) }));
	} finally {
		await Promise.all(deployments.map(async (deployment) => await deployment.stop()));
	}
}
