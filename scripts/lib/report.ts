/**
 * How a suite reports: one log line format (`[scope] hh:mm:ss message`), assertions that fail the run with
 * their message, step timings printed at the end, and n8n's log tail when a run failed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Prints one line of a suite's progress: `[scope] hh:mm:ss message` (UTC time). */
export function log(scope: string, message: string): void {
	console.log(`[${scope}] ${new Date().toISOString().slice(11, 19)} ${message}`);
}

/** How long since `started` (a Date.now() value), for a log line: "12 s", or "1.5 s" with `digits` 1. */
export const since = (started: number, digits = 0) => `${((Date.now() - started) / 1000).toFixed(digits)} s`;

/** Fails the run with `message` unless `condition` holds (and narrows its type for the code after it). */
export function check(condition: unknown, message: string): asserts condition {
	if (!condition) throw new Error(`assertion failed: ${message}`);
}

/** Step timings of a suite: `step(name)` closes the step that ran since the previous call; `summary()` prints them. */
export function stepTimer(): { step: (name: string) => void; summary: () => string } {
	const timings: Array<[string, number]> = [];
	let mark = Date.now();
	return {
		step: (name) => {
			timings.push([name, (Date.now() - mark) / 1000]);
			mark = Date.now();
		},
		summary: () =>
			`timings: ${timings.map(([name, seconds]) => `${name} ${seconds.toFixed(1)} s`).join('; ')}; total ${timings.reduce((sum, [, seconds]) => sum + seconds, 0).toFixed(0)} s`,
	};
}

/** Prints the last lines of n8n's log after a failed run (nothing when n8n never started). */
export function printLogTail(logFile: string, lines = 60): void {
	try {
		const tail = readFileSync(logFile, 'utf8').split('\n').slice(-lines).join('\n');
		console.error(`--- ${path.basename(logFile)} (tail; the whole log: ${logFile})\n${tail}`);
	} catch {
		// not started
	}
}
