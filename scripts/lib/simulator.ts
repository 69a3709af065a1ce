/**
 * The API simulator (test/simulator) in its own process: the one launcher for every script that needs it (the
 * real-n8n suites, whose n8n calls it over HTTP, and the benchmark, which keeps the simulator's CPU and memory
 * out of its figures), and clients of its control routes (/__sim/...).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

import type {
	InjectedFault,
	RecordedRequestSummary,
	SimTaskSummary,
	SimulatorOptions,
} from '../../test/simulator/server';
import { ROOT } from './paths';
import { track } from './process';
import { jsonPost } from './rest';

/** The API key the simulator accepts (and simulatorCredential stores in n8n). */
export const SIM_KEY = 'e2e-sim-key-7d2a';

export interface SimulatorProcess {
	child: ChildProcess;
	url: string;
	/** Credential data for it, as the harness and the MediaGen credential take it. */
	credentials: { apiKey: string; baseUrl: string };
}

/**
 * Starts test/simulator/cli.ts on a free port of 127.0.0.1 and waits until it listens. The options are the
 * simulator's own (test/simulator/server.ts), passed through the CLI's environment. It is killed on exit anyway.
 */
export async function startSimulator(
	options: Pick<
		SimulatorOptions,
		'taskDurationMs' | 'maxRenderedSide' | 'latencyMs' | 'rateLimitPerSecond' | 'resultBlobBytes'
	> = {},
	/** More of the CLI's settings, by their environment names (e.g. SIM_FAIL_EVERY). */
	settings: Record<string, string> = {},
): Promise<SimulatorProcess> {
	const env: NodeJS.ProcessEnv = {
		...process.env,
		...settings,
		PORT: '0',
		SIM_KEY,
		TASK_SECONDS: String((options.taskDurationMs ?? 1000) / 1000),
		MAX_RENDERED_SIDE: String(options.maxRenderedSide ?? 512),
	};
	if (options.latencyMs !== undefined) env.LATENCY_MS = String(options.latencyMs);
	if (options.rateLimitPerSecond !== undefined) env.RATE_LIMIT = String(options.rateLimitPerSecond);
	if (options.resultBlobBytes !== undefined) env.RESULT_BLOB_BYTES = String(options.resultBlobBytes);
	const child = track(
		spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', path.join(ROOT, 'test', 'simulator', 'cli.ts')], {
			cwd: ROOT,
			env,
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
	return { child, url, credentials: { apiKey: SIM_KEY, baseUrl: url } };
}

/** The simulator's record of every request it received (since the last reset). */
export const simulatorRecord = async (url: string) =>
	(await (await fetch(`${url}/__sim/record`)).json()) as RecordedRequestSummary[];

/** Every task the simulator created, with its timing. */
export const simulatorTasks = async (url: string) =>
	(await (await fetch(`${url}/__sim/tasks`)).json()) as SimTaskSummary[];

/** Clears the simulator's record and its pending faults (its tasks stay). */
export async function resetSimulator(url: string): Promise<void> {
	await control(url, '/__sim/reset', {});
}

/** Applies a fault to the simulator's next matching request(s). */
export async function injectFault(url: string, fault: InjectedFault): Promise<void> {
	await control(url, '/__sim/inject', fault);
}

async function control(url: string, pathname: string, body: object): Promise<void> {
	const response = await fetch(`${url}${pathname}`, jsonPost(body));
	if (!response.ok) throw new Error(`POST ${pathname}: HTTP ${response.status} ${await response.text()}`);
}
