/**
 * The output of Task → Delete: what became of every task id a request group (an input item, or with Combine All
 * Items every item of one Task Type and User ID) asked to delete.
 *
 *   { status: "deleted", message: <the API's status text>, taskids, taskType, deleted, alreadyGone[, warning] }
 *
 * `deleted`: the API confirmed the delete; `alreadyGone`: the API said it does not know the id (deleted before, by
 * an earlier run or try, or not a task of this Task Type). An item whose ids were not all deleted is an error item
 * (output/errorItem.ts) with `status: "failed"`, the same lists and `failed`: the ids whose delete was not
 * confirmed (refused, failed, not sent because the run stopped, or uncertain), plus `uncertain` when some were: the
 * ids whose answer (code 1000) had a status text the node cannot read, which may or may not have been deleted. Its
 * message is the error's.
 */
import type { IDataObject } from 'n8n-workflow';

import type { TaskType } from '../models/endpoints';

/**
 * What became of one id: deleted, already gone, uncertain (an answer that may have deleted it did not say), or
 * failed (unset: not sent, the run stopped first).
 */
export type DeleteFate = 'deleted' | 'gone' | 'uncertain' | 'failed';

export interface DeleteResult {
	taskType: TaskType;
	taskIds: string[];
	fates: ReadonlyMap<string, DeleteFate>;
	/** The status texts of the API's success answers. */
	texts: ReadonlySet<string>;
	/** Said when the API found none of the ids. */
	warning?: string;
}

/** Distinct status texts a message quotes; the rest are counted. */
const MAX_TEXTS = 3;

function message(texts: ReadonlySet<string>): string | null {
	if (!texts.size) return null;
	const shown = [...texts].slice(0, MAX_TEXTS).join('; ');
	return texts.size > MAX_TEXTS ? `${shown}; … (${texts.size} different texts)` : shown;
}

/** The ids of a result by fate, in the order they were given. */
export function sortedIds(result: Pick<DeleteResult, 'taskIds' | 'fates'>) {
	const deleted: string[] = [];
	const alreadyGone: string[] = [];
	const failed: string[] = [];
	const uncertain: string[] = [];
	for (const id of result.taskIds) {
		const fate = result.fates.get(id);
		if (fate === 'deleted') deleted.push(id);
		else if (fate === 'gone') alreadyGone.push(id);
		else failed.push(id);
		if (fate === 'uncertain') uncertain.push(id);
	}
	return { deleted, alreadyGone, failed, uncertain };
}

export function buildDeleteJson(result: DeleteResult): IDataObject {
	const { deleted, alreadyGone, failed, uncertain } = sortedIds(result);
	const ids = { taskids: result.taskIds, taskType: result.taskType, deleted, alreadyGone };
	// An error item's message is the error's (on the error output n8n reads `message` as it): no status text there.
	if (failed.length) return { status: 'failed', ...ids, failed, ...(uncertain.length ? { uncertain } : {}) };
	return {
		status: 'deleted',
		message: message(result.texts),
		...ids,
		...(result.warning ? { warning: result.warning } : {}),
	};
}
