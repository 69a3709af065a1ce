/**
 * Generator "deletes": what Task → Delete is given and how the API answers it, in the API's words. Per schedule, from
 * its own stream: Combine All Items, how many ids each item lists (most one, some a few, a few items beyond the
 * node's requests of 100), which of them are gone before the run (deleted earlier, or never tasks), and how the API
 * treats ids it does not know (it refuses the whole request saying so and naming them, as the simulator does;
 * refuses saying so without naming them; or deletes the others and answers success). Per request, from the request's
 * first id and its attempt: the words of each answer, drawn from the API's contract (code 1000 success with a status
 * text, 9999 failure, 9000 no credits) and read by what they say, not by a word in them:
 * - a code-1000 status text that reports success (in several wordings and languages), a failure (the server deleted
 *   nothing: "Deletion unsuccessful", "no tasks were deleted", "删除不成功", …), or neither that can be read
 *   (another language, a text about something else, no text: the server deleted the ids or not, drawn);
 * - a refusal for ids it does not know, in one of several wordings, naming them or not;
 * - a refusal for another reason (9999 "Unknown error, please try again later", "user not found", …; 9000): the
 *   server did nothing;
 * and whether a server whose answer then failed (5xx, a dropped connection, no answer, a cut or foreign body) had
 * deleted the ids first. HTTP 429 with Retry-After and the other transport faults come from generator "faults".
 */
import { Random } from '../random';
import type { Schedule } from '../schedule';
import type { AnswerClass } from './faults';

/** How the API answers a delete that names ids it does not know. */
export type UnknownIds = 'refuse-listing' | 'refuse-bare' | 'ignore';

export interface DeletePlan {
	combine: boolean;
	/** How many ids each item lists. */
	idsPerItem: number[];
	/** The chance that an id is gone before the run: deleted earlier (or, a tenth of those, never a task). */
	goneBefore: number;
	unknownIds: UnknownIds;
}

export function deletePlan(seed: number, items: number): DeletePlan {
	const random = Random.stream(seed, 'deletes');
	// Over 100 ids (the node's requests hold up to 100) only on one or two items: the explorer's runs stay short.
	const many = items <= 2 && random.chance(0.3);
	return {
		combine: random.chance(0.3),
		idsPerItem: Array.from({ length: items }, () =>
			many
				? random.int(101, 170)
				: random.weighted([
						[6, 1],
						[3, random.int(2, 6)],
					]),
		),
		goneBefore: random.weighted([
			[4, 0],
			[3, 0.1],
			[2, 0.5],
			[1, 1],
		]),
		unknownIds: random.weighted<UnknownIds>([
			[5, 'refuse-listing'],
			[3, 'refuse-bare'],
			[2, 'ignore'],
		]),
	};
}

/** Whether id `index` of item `item` is gone before the run: deleted earlier, never a task, or not gone. */
export function goneBefore(
	schedule: Schedule,
	plan: DeletePlan,
	item: number,
	index: number,
): 'deleted' | 'never' | undefined {
	const random = Random.stream(schedule.seed, 'deletes', 'gone', item, index);
	if (!random.chance(plan.goneBefore)) return undefined;
	return random.chance(0.1) ? 'never' : 'deleted';
}

/** A number that stands for a delete request in generator "faults"' draws: its first id's own. */
export function requestKey(schedule: Schedule, firstId: string): number {
	return Random.stream(schedule.seed, 'deletes', 'key', firstId).int(0, 2 ** 30);
}

/** What a delete answer says of its ids, by the API's contract (the world records it per id). */
export type DeleteReading = 'success' | 'failure' | 'unreadable' | 'not-known' | 'refused';

/** How the API answers one delete request, beyond its transport fault. */
export interface DeleteAnswer {
	/** The status text of a code-1000 answer (undefined: the answer has none). */
	text?: string;
	/** What that text says: success, a failure (the server deleted nothing), or neither that can be read. */
	reading: 'success' | 'failure' | 'unreadable';
	/** A text that cannot be read: whether the server deleted the ids anyway. */
	deletes: boolean;
	/** A refusal for another reason than unknown ids: its code and message (the server did nothing). */
	refusal?: { code: number; msg: string };
	/** After a transport fault that need not be a refusal: the server deleted the ids before answering so. */
	acted: boolean;
}

const SUCCESS_TEXTS = [
	'success',
	'deleted {n} task(s) successfully',
	'OK',
	'删除成功',
	'Success.',
	'{n} of {n} deleted',
	'Deleted',
	'已删除',
];
const FAILURE_TEXTS = [
	'failed',
	'delete failed',
	'Failure: task is running',
	'删除失败',
	'error: not deleted',
	'Deletion unsuccessful',
	'no tasks were deleted',
	'删除不成功',
	'0 tasks deleted',
];
/** Texts that neither report success nor a failure that can be read; undefined stands for no status text. */
const UNREADABLE_TEXTS = [
	'Löschvorgang abgeschlossen',
	'request received',
	'削除しました',
	'will be deleted',
	// A count that is not the ids sent (one more): "deleted 1 task(s)" for a request of one id reports its success.
	'deleted {more} task(s)',
	undefined,
];
/** Refusals for another reason than unknown ids: the server did nothing. */
const OTHER_REFUSALS: Array<{ code: number; msg: string }> = [
	{ code: 9999, msg: 'Unknown error, please try again later' },
	{ code: 9999, msg: 'user not found' },
	{ code: 9999, msg: 'unknown error' },
	{ code: 9999, msg: 'system busy, try again later' },
	{ code: 9999, msg: 'task not found for this user' },
	{ code: 9000, msg: 'insufficient credits' },
];

/** How the API words a refusal of ids it does not know: naming them ({ids}), or not. */
const NOT_KNOWN_LISTING = [
	'unknown task ids: {ids}',
	'task {ids} not found',
	'tasks {ids} do not exist',
	'{ids} not found',
];
const NOT_KNOWN_BARE = ['task not found', 'Task does not exist', 'no such task', '任务不存在', 'tasks already deleted'];

/** The words of a refusal of `unknown` ids (those of the request the API does not know). */
export function notKnownMessage(
	schedule: Schedule,
	plan: DeletePlan,
	firstId: string,
	attempt: number,
	unknown: string[],
): string {
	const random = Random.stream(schedule.seed, 'deletes', 'not-known', firstId, attempt);
	if (plan.unknownIds !== 'refuse-listing') return random.pick(NOT_KNOWN_BARE);
	return random.pick(NOT_KNOWN_LISTING).replace('{ids}', unknown.join(', '));
}

/** Transport faults after which the server cannot have deleted anything: it refused, or never read the request. */
const REFUSALS: ReadonlySet<AnswerClass> = new Set(['400', '401', '403', '404', '429']);

/** The answer to attempt `attempt` (0-based, across tries) of the request whose first id is `firstId`. */
export function deleteAnswer(
	schedule: Schedule,
	firstId: string,
	attempt: number,
	fault: AnswerClass,
	ids: number,
): DeleteAnswer {
	const random = Random.stream(schedule.seed, 'deletes', firstId, attempt);
	const fails = random.chance(0.1);
	const text = random.pick(fails ? FAILURE_TEXTS : SUCCESS_TEXTS).replace(/\{n\}/g, String(ids));
	const acted = !REFUSALS.has(fault) && random.chance(0.5);
	// The words of the contract beyond success and failure, from a stream of their own: the draws above stay.
	const words = Random.stream(schedule.seed, 'deletes', 'words', firstId, attempt);
	const refusal = words.chance(0.06) ? words.pick(OTHER_REFUSALS) : undefined;
	if (!fails && words.chance(0.06)) {
		const unreadable = words.pick(UNREADABLE_TEXTS)?.replace('{more}', String(ids + 1));
		return { text: unreadable, reading: 'unreadable', deletes: words.chance(0.5), refusal, acted };
	}
	return { text, reading: fails ? 'failure' : 'success', deletes: !fails, refusal, acted };
}

/** The plan in words, for a failing schedule's report. */
export function describeDeletes(plan: DeletePlan): string {
	const ids = plan.idsPerItem.reduce((sum, count) => sum + count, 0);
	return `Task → Delete: ${ids} ids (${Math.min(...plan.idsPerItem)}–${Math.max(...plan.idsPerItem)} per item), Combine All Items ${plan.combine ? 'on' : 'off'}, ${Math.round(plan.goneBefore * 100)}% gone before the run, unknown ids: ${plan.unknownIds}; answers in the API's words (success, failure, unreadable texts; not-known and other refusals)`;
}
