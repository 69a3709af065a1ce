/**
 * The suites' one way to wait: a condition checked again and again until it holds or a deadline passes.
 *
 * The suites run on shared 2-core machines that may be busy with other work, where anything (a panel
 * re-rendering, n8n starting, an execution ending) can take several times longer than on an idle machine. So no
 * step waits for a fixed time or a fixed number of attempts: it waits for what it needs, up to a generous
 * deadline, and when the deadline passes the error says what was awaited and what the condition last saw.
 */

export interface WaitOptions {
	/** How long the condition may take to hold, in milliseconds. */
	deadline: number;
	/** What is awaited, as the error states it: "execution 12 to end", "the panel to show …". */
	describe: string;
	/** Pause between two checks, in milliseconds (default 250). */
	interval?: number;
}

/**
 * A condition: returns the awaited value once it holds, and otherwise undefined, null or false after telling
 * `see` what it saw (the error quotes the last thing seen). An error it throws ends the wait at once: catch
 * the ones that only mean "not yet" (e.g. a server that is not listening yet).
 */
export type Condition<T> = (
	see: (seen: string) => void,
) => Promise<T | undefined | null | false> | T | undefined | null | false;

/** What a condition returns once it holds. */
export type Held<T> = Exclude<T, undefined | null | false>;

/** The deadline of a waitFor passed: its message says what was awaited and what was there instead. */
export class WaitTimeout extends Error {
	constructor(describe: string, lastSeen: string | undefined, waitedMs: number) {
		super(`waited ${(waitedMs / 1000).toFixed(1)} s for ${describe}; last seen: ${lastSeen ?? 'nothing'}`);
		this.name = 'WaitTimeout';
	}
}

/**
 * Checks `condition` until it returns a value, and returns that value. Checks are never overlapped; one still
 * running when the deadline passes is not waited for (a hung request must not hang the suite).
 */
export async function waitFor<T>(condition: Condition<T>, options: WaitOptions): Promise<Held<T>> {
	const started = Date.now();
	const end = started + options.deadline;
	const interval = options.interval ?? 250;
	let lastSeen: string | undefined;
	const see = (seen: string) => (lastSeen = seen);
	for (;;) {
		const outcome = await beforeDeadline(Promise.resolve(condition(see)), end - Date.now());
		if (outcome === TIMED_OUT) {
			throw new WaitTimeout(
				options.describe,
				`${lastSeen ?? 'nothing'} (a check was still running)`,
				Date.now() - started,
			);
		}
		if (outcome !== undefined && outcome !== null && outcome !== false) return outcome as Held<T>;
		// Checked once more at or after the deadline: a slow machine that got there late still passes.
		if (Date.now() >= end) throw new WaitTimeout(options.describe, lastSeen, Date.now() - started);
		await new Promise((resolve) => setTimeout(resolve, Math.min(interval, Math.max(0, end - Date.now()))));
	}
}

const TIMED_OUT = Symbol('timed out');
const CHECK_GRACE = 10_000;

/**
 * The promise's value, or TIMED_OUT when it has not settled `ms` from now. A check that started before the
 * deadline gets CHECK_GRACE more: one slow answer on a busy machine is not a hung one.
 */
async function beforeDeadline<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
		timer = setTimeout(() => resolve(TIMED_OUT), Math.max(ms, 0) + CHECK_GRACE);
	});
	try {
		return await Promise.race([promise, timeout]);
	} finally {
		clearTimeout(timer);
	}
}
