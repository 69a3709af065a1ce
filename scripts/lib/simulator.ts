/**
 * The API simulator (test/simulator) in its own process, for the suites that run real n8n: startSimulator
 * launches test/simulator/cli.ts on a free port; simulatorRecord reads what it received.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

import type { RecordedRequestSummary } from '../../test/simulator/server';
import { ROOT } from './paths';
import { track } from './process';

export const SIM_KEY = 'e2e-sim-key-7d2a';

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
