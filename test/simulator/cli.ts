/**
 * Starts the simulator in a process of its own: `npm run simulator`, or as a child of a script through
 * scripts/lib/simulator.ts (startSimulator), which waits for the "listening on <url>" line. Settings come from
 * the environment (docs/simulator.md): PORT, SIM_KEY, SIM_CREDITS, TASK_SECONDS, VIDEO_TASK_SECONDS,
 * SIM_FAIL_EVERY, SIM_REFUSE_EVERY, SIM_NEVER_EVERY, MAX_RENDERED_SIDE, RESULT_BLOB_BYTES, LATENCY_MS, RATE_LIMIT.
 */
import { DEFAULT_SIM_KEY, MediaGenSimulator, type TaskOutcome } from './server';

/** Every n-th task (counting from 1) fails, is refused or never finishes, when SIM_<…>_EVERY=n is set. */
function outcomeByCount(index: number): TaskOutcome {
	const every = (name: string) => {
		const n = Number(process.env[name] ?? 0);
		return n >= 1 && (index + 1) % n === 0;
	};
	if (every('SIM_FAIL_EVERY')) return 'fail';
	if (every('SIM_REFUSE_EVERY')) return 'infoError';
	if (every('SIM_NEVER_EVERY')) return 'never';
	return 'succeed';
}

async function main(): Promise<void> {
	const key = process.env.SIM_KEY ?? DEFAULT_SIM_KEY;
	const simulator = new MediaGenSimulator({
		port: Number(process.env.PORT ?? 0),
		taskDurationMs: Number(process.env.TASK_SECONDS ?? 5) * 1000,
		videoTaskDurationMs: process.env.VIDEO_TASK_SECONDS ? Number(process.env.VIDEO_TASK_SECONDS) * 1000 : undefined,
		taskOutcome: ({ index }) => outcomeByCount(index),
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
	console.log('  Prompt markers: [sim:fail] [sim:refuse] [sim:never] [sim:empty] [sim:credits] [sim:seconds=N]');
	const shutdown = () => void simulator.stop().then(() => process.exit(0));
	process.on('SIGINT', shutdown);
	process.on('SIGTERM', shutdown);
}

void main();
