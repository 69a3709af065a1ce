/**
 * How the engine's loop sleeps without timers of its own: until a time, or `wake()` (a request ended, a cancel). A
 * wake while the loop is not sleeping makes the next sleep return at once, so no event is missed.
 */
import * as workflow from 'n8n-workflow';

/**
 * A pause that the loop can cut short without leaving its timer behind. n8n-workflow 2.x's `sleep` takes a
 * signal; 1.x's ignores it and offers `sleepWithAbort` instead (the node runs on the n8n-workflow of the host).
 */
function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
	const withAbort = (workflow as unknown as { sleepWithAbort?: (ms: number, signal: AbortSignal) => Promise<void> })
		.sleepWithAbort;
	return withAbort ? withAbort(ms, signal) : workflow.sleep(ms, signal);
}

/**
 * Timers take at most 2^31 - 1 ms (about 24.8 days); a longer one fires after 1 ms, which would turn a long Poll
 * Interval or Max Wait into a busy loop. A longer wait is several sleeps.
 */
const MAX_SLEEP_MS = 2 ** 31 - 1;

export function earliest(...times: Array<number | undefined>): number | undefined {
	const known = times.filter((time): time is number => time !== undefined);
	return known.length ? Math.min(...known) : undefined;
}

export class WakeableSleep {
	/** Resolves the current sleep; set while the loop sleeps. */
	private wakeUp: (() => void) | undefined;

	private woken = false;

	wake(): void {
		const wakeUp = this.wakeUp;
		this.wakeUp = undefined;
		if (wakeUp) wakeUp();
		else this.woken = true;
	}

	/** Sleeps until `at` (a Date.now() time) or a wake; without `at`, until a wake only. */
	async sleepUntil(at: number | undefined): Promise<void> {
		if (this.woken) {
			this.woken = false;
			return;
		}
		const woken = new Promise<void>((resolve) => (this.wakeUp = resolve));
		if (at === undefined) {
			await woken;
		} else {
			const ms = at - Date.now();
			const sleep = Number.isNaN(ms) ? MAX_SLEEP_MS : Math.min(MAX_SLEEP_MS, Math.max(0, Math.ceil(ms)));
			const timer = new AbortController();
			await Promise.race([abortableSleep(sleep, timer.signal).catch(() => undefined), woken]);
			timer.abort();
		}
		this.wakeUp = undefined;
		this.woken = false;
	}
}
