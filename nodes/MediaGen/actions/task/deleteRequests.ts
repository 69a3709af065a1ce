/**
 * Task → Delete through the waiting engine's creations' lane: the same bound on requests in flight, holds and retry
 * queue. Each request group goes out in chunks of distinct ids, and what became of every id is kept
 * (docs/errors-and-n8n-settings.md, "Task → Delete: repeated safely"; the rules: docs/known-unknowns.md).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { ItemError } from '../../output/itemFailure';
import { shorten, SHOWN } from '../../helpers/shorten';
import { DELETE_PATH, type TaskType } from '../../models/endpoints';
import { deleteJson, sortedIds, type DeleteFate, type ItemOutcome } from '../../output/items';
import {
	apiJsonRequest,
	notKnownIn,
	readStatusText,
	factsOf,
	RESPONSE_CODE,
	type ApiSession,
	type StatusReading,
} from '../../transport';
import { runEngine, type RequestJob } from '../../waiting/engine';
import type { WaitingOptions } from '../../waiting/options';

/** Ids per delete request: the API documents no maximum; 100 keeps a body at a few kilobytes (docs/known-unknowns.md). */
export const DELETE_CHUNK_SIZE = 100;

export interface DeleteItem {
	itemIndex: number;
	taskType: TaskType;
	taskIds: string[];
	uid: string;
	notFoundHint: string;
}

interface DeleteGroup extends Pick<DeleteItem, 'taskType' | 'uid' | 'notFoundHint'> {
	/** Its items, each with its own distinct ids. */
	members: Array<{ itemIndex: number; taskIds: string[] }>;
	/** Every distinct id of the group, in the order given. */
	ids: string[];
	fates: Map<string, DeleteFate>;
	texts: Set<string>;
	/** The first failure: the group's items end with it. */
	error?: ItemError;
}

/** The groups of the items: one per item, or one per Task Type and User ID with Combine All Items. */
function groupsOf(items: DeleteItem[], combine: boolean): DeleteGroup[] {
	const groups = new Map<string, DeleteGroup>();
	for (const { itemIndex, taskType, taskIds, uid, notFoundHint } of items) {
		const key = combine ? `${taskType}\u0000${uid}` : String(itemIndex);
		const group: DeleteGroup = groups.get(key) ?? {
			taskType,
			uid,
			notFoundHint,
			members: [],
			ids: [],
			fates: new Map(),
			texts: new Set(),
		};
		groups.set(key, group);
		group.members.push({ itemIndex, taskIds: [...new Set(taskIds)] });
	}
	for (const group of groups.values()) group.ids = [...new Set(group.members.flatMap((member) => member.taskIds))];
	return [...groups.values()];
}

/**
 * What a refusal that says tasks are not known means for a chunk: the ids it names are gone and the rest go again;
 * one that names none leaves each id to stand alone (halves), and a lone id is gone.
 */
function notKnown(group: DeleteGroup, ids: string[], named: string[]): string[][] {
	if (named.length) {
		for (const id of named) group.fates.set(id, 'gone');
		const rest = ids.filter((id) => group.fates.get(id) !== 'gone');
		return rest.length ? [rest] : [];
	}
	if (ids.length === 1) {
		group.fates.set(ids[0], 'gone');
		return [];
	}
	const half = Math.ceil(ids.length / 2);
	return [ids.slice(0, half), ids.slice(half)];
}

function chunkJob(this: IExecuteFunctions, group: DeleteGroup, ids: string[]): RequestJob {
	const itemIndex = group.members[0].itemIndex;
	const path = DELETE_PATH[group.taskType];
	const again = (chunks: string[][]) => chunks.map((chunk) => chunkJob.call(this, group, chunk));
	return {
		itemIndex,
		send: async (session: ApiSession, timeout: number) => {
			const body: IDataObject = { taskids: ids };
			if (group.taskType === 'image' && group.uid) body.uid = group.uid;
			let unknown: { named: string[] } | undefined;
			const data = await apiJsonRequest
				.call(this, path, body, { itemIndex, notFoundHint: group.notFoundHint, timeout, session })
				.catch((error: unknown) => {
					// The API says it does not know (some of) these tasks: not a failure of the request. Any other answer
					// is the engine's (repeated when it may pass, else the ids failed).
					const { refusal } = factsOf(error);
					unknown = refusal?.code === RESPONSE_CODE.failure ? notKnownIn(refusal.message, ids) : undefined;
					return unknown ? undefined : Promise.reject(error);
				});
			if (unknown) return again(notKnown(group, ids, unknown.named));
			const text = typeof data?.status === 'string' ? data.status : undefined;
			const reading = readStatusText(text, ids.length);
			if (reading !== 'success') {
				// Unreadable: the API may have deleted them; either way, not confirmed (and safe to send again).
				if (reading === 'unreadable') for (const id of ids) group.fates.set(id, 'uncertain');
				throw notConfirmed.call(this, path, text, reading, ids, itemIndex);
			}
			for (const id of ids) group.fates.set(id, 'deleted');
			if (text) group.texts.add(text);
			return [];
		},
		failed: (error) => {
			for (const id of ids) if (!group.fates.has(id)) group.fates.set(id, 'failed');
			group.error ??= error;
		},
	};
}

/** A code-1000 answer whose status text reports a failure or cannot be read: the ids are not confirmed deleted. */
function notConfirmed(
	this: IExecuteFunctions,
	path: string,
	text: string | undefined,
	reading: Exclude<StatusReading, 'success'>,
	ids: string[],
	itemIndex: number,
) {
	const shown = text === undefined ? undefined : `"${shorten(text, SHOWN.echo, { sayLength: true })}"`;
	const did = reading === 'failure' ? 'did not delete' : 'did not confirm that it deleted';
	const message = `The MediaGen API ${did} the tasks: ${shown ?? 'no status text'} [item ${itemIndex}]`;
	const answered = `POST ${path} answered code 1000 with ${shown ? `the status text ${shown}` : 'no status text'}`;
	const description =
		reading === 'failure'
			? `${answered}, which reports a failure: the ${ids.length} task ID(s) of this request count as not deleted.`
			: `${answered}, which the node cannot read as success (the API reports a successful delete in its status text; which texts count is in docs/known-unknowns.md): the ${ids.length} task ID(s) of this request may or may not have been deleted, so they count as not deleted, and the item's uncertain field lists them.`;
	return new NodeApiError(this.getNode(), { message, code: 1000 } as never, { message, description, itemIndex });
}

/** Up to this many ids an error names; the item's `failed` field lists them all. */
const MAX_NAMED_IDS = 10;

/** What became of a failed group's ids, for its error: counts, some ids, and that deleting again is safe. */
function summary(group: DeleteGroup): string {
	const { deleted, alreadyGone, failed, uncertain } = sortedIds({ taskIds: group.ids, fates: group.fates });
	const shown = failed.slice(0, MAX_NAMED_IDS).join(', ');
	const more = failed.length > MAX_NAMED_IDS ? `, … (${failed.length - MAX_NAMED_IDS} more)` : '';
	const unsure = uncertain.length
		? `; ${uncertain.length} of them may have been deleted (the API's status text did not say), the item's uncertain field lists them`
		: '';
	const were = (count: number) => `${count} ${count === 1 ? 'was' : 'were'}`;
	return `Of the ${group.ids.length} task ID(s) of this request, ${were(deleted.length)} deleted, ${were(alreadyGone.length)} already gone and ${were(failed.length)} not deleted (${shown}${more})${unsure}; the item's deleted, alreadyGone and failed fields list them. Deleting is safe to repeat: ids already gone count as deleted, so running the node again (or Retry On Fail) deletes the rest.`;
}

/** The outcomes of a group: one item paired with all its items, or an error per item; none if it never finished. */
function groupOutcomes(group: DeleteGroup): ItemOutcome[] {
	const { taskType, fates, texts, error } = group;
	if (error) {
		error.description = error.description ? `${error.description} ${summary(group)}` : summary(group);
		return group.members.map(({ itemIndex, taskIds }) => ({
			itemIndex,
			error,
			json: deleteJson({ taskType, taskIds, fates, texts }),
		}));
	}
	if (group.ids.some((id) => !fates.has(id))) return []; // the run stopped or was cancelled first
	const none = group.ids.every((id) => fates.get(id) === 'gone');
	const warning = none
		? `The API found none of these task IDs: they were deleted already (by an earlier run or try), or they are not ${taskType} tasks. ${group.notFoundHint}`
		: undefined;
	const json = deleteJson({ taskType, taskIds: group.ids, fates, texts, warning });
	const pairedItem = group.members.map(({ itemIndex }) => ({ item: itemIndex }));
	return [{ itemIndex: group.members[0].itemIndex, items: [{ json, pairedItem }] }];
}

/** Deletes the items' ids: see the top of this file. One or more outcomes per item, in any order. */
export async function deleteTasks(
	this: IExecuteFunctions,
	items: DeleteItem[],
	combine: boolean,
	options: WaitingOptions,
	continueOnFail: boolean,
): Promise<ItemOutcome[]> {
	const groups = groupsOf(items, combine);
	const requests: RequestJob[] = [];
	for (const group of groups) {
		for (let start = 0; start < group.ids.length; start += DELETE_CHUNK_SIZE) {
			const ids = group.ids.slice(start, start + DELETE_CHUNK_SIZE);
			requests.push(chunkJob.call(this, group, ids));
		}
	}
	const outcomes = await runEngine.call(this, { creations: [], existing: [], requests, options, continueOnFail });
	for (const group of groups) for (const outcome of groupOutcomes(group)) outcomes.push(outcome);
	return outcomes;
}
