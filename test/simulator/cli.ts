/**
 * Starts the simulator in a process of its own: `npm run simulator`, or as a child of a script through
 * scripts/lib/simulator.ts (startSimulator), which waits for the "listening on <url>" line. Settings come from
 * the environment: PORT, SIM_KEY, SIM_CREDITS, TASK_SECONDS, MAX_RENDERED_SIDE, RESULT_BLOB_BYTES, LATENCY_MS,
 * RATE_LIMIT.
 */
import { DEFAULT_SIM_KEY, MediaGenSimulator } from './server';

async function main(): Promise<void> {
	const key = process.env.SIM_KEY ?? DEFAULT_SIM_KEY;
	const simulator = new MediaGenSimulator({
		port: Number(process.env.PORT ?? 0),
		taskDurationMs: Number(process.env.TASK_SECONDS ?? 5) * 1000,
		keys: { [key]: Number(process.env.SIM_CREDITS ?? 1_000_000) },
		maxRenderedSide: Number(process.env.MAX_RENDERED_SIDE ?? 1024),
		resultBlobBytes: process.env.RESULT_BLOB_BYTES ? Number(process.env.RESULT_BLOB_BYTES) : undefined,
		latencyMs: Number(process.env.LATENCY_MS ?? 0),
		rateLimitPerSecond: process.env.RATE_LIMIT ? Number(process.env.RATE_LIMIT) : undefined,
	});
	const url = await simulator.start();
	console.log(`MediaGen API simulator listening on ${url}`);
	console.log(`  Base URL: ${url}`);
	console.log(`  API key:  ${key}`);
	console.log(
		`  Tasks finish after ${simulator.taskDurationMs / 1000} s. Status values: 0 queued, 1 processing, 2 succeeded, 3 failed.`,
	);
	const shutdown = () => void simulator.stop().then(() => process.exit(0));
	process.on('SIGINT', shutdown);
	process.on('SIGTERM', shutdown);
}

void main();
