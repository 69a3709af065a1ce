/** Task → Wait and Task → Get: the waiting engine on tasks that already exist (nothing is created). */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { ItemOutcome } from '../output/items';
import type { CreatedTask } from './taskState';
import { runEngine } from './engine';
import type { WaitingOptions } from './options';
import { failuresContinue } from '../tool/call';

/** Task → Get retries a failed status check until this long after the first try, then reports the last error. */
const CHECK_RETRY_WINDOW_MS = 60_000;

/** Task → Get's first pause before a retry (doubling per failure); it has no Poll Interval of its own. */
const CHECK_RETRY_PAUSE_MS = 500;

/** Task → Wait: polls every task until it finishes, fails or runs out of time; one outcome per task, in any order. */
export async function waitForTasks(
	this: IExecuteFunctions,
	tasks: CreatedTask[],
	options: WaitingOptions,
	checkOnly = false,
): Promise<ItemOutcome[]> {
	const continueOnFail = failuresContinue(this);
	return await runEngine.call(this, { creations: [], existing: tasks, options, continueOnFail, checkOnly });
}

/** Task → Get: one status check per task, with the engine's bound on requests in flight and its retries. */
export async function checkTasks(
	this: IExecuteFunctions,
	tasks: CreatedTask[],
	options: WaitingOptions,
): Promise<ItemOutcome[]> {
	// Without declared status codes only result URLs tell that a task is done (Task → Wait can use codes).
	const checkOptions: WaitingOptions = {
		...options,
		wait: true,
		download: false,
		split: false,
		succeededCodes: [],
		failedCodes: [],
		maxWaitMs: CHECK_RETRY_WINDOW_MS,
		pollIntervalMs: CHECK_RETRY_PAUSE_MS,
	};
	return await waitForTasks.call(this, tasks, checkOptions, true);
}
