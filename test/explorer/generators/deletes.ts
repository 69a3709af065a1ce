/**
 * Generator "deletes": what Task → Delete is given and how the API answers it. Per schedule, from its own stream:
 * Combine All Items, how many ids each item lists (most one, some a few, a few items beyond the node's requests of
 * 100), which of them are gone before the run (deleted earlier, or never tasks), and how the API treats ids it does
 * not know (it refuses the whole request naming them, as the simulator does; refuses naming none; or deletes the
 * others and answers success). Per request, from the request's first id and its attempt: the status text of a
 * code-1000 answer (success in several wordings, or a failure in code 1000) and whether a server whose answer then
 * failed (5xx, a dropped connection, no answer, a cut or foreign body) had deleted the ids first. HTTP 429 with
 * Retry-After and the other transport faults come from generator "faults", as for every request.
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

/** How the API answers one delete request, beyond its transport fault. */
export interface DeleteAnswer {
	/** The status text of a code-1000 answer. */
	text: string;
	/** The text reports a failure: the server deleted nothing. */
	fails: boolean;
	/** After a transport fault that need not be a refusal: the server deleted the ids before answering so. */
	acted: boolean;
}

const SUCCESS_TEXTS = ['success', 'deleted {n} task(s) successfully', 'OK', '删除成功', 'Success.'];
const FAILURE_TEXTS = ['failed', 'delete failed', 'Failure: task is running', '删除失败', 'error: not deleted'];

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
	const text = random.pick(fails ? FAILURE_TEXTS : SUCCESS_TEXTS).replace('{n}', String(ids));
	return { text, fails, acted: !REFUSALS.has(fault) && random.chance(0.5) };
}

/** The plan in words, for a failing schedule's report. */
export function describeDeletes(plan: DeletePlan): string {
	const ids = plan.idsPerItem.reduce((sum, count) => sum + count, 0);
	return `Task → Delete: ${ids} ids (${Math.min(...plan.idsPerItem)}–${Math.max(...plan.idsPerItem)} per item), Combine All Items ${plan.combine ? 'on' : 'off'}, ${Math.round(plan.goneBefore * 100)}% gone before the run, unknown ids: ${plan.unknownIds}`;
}
