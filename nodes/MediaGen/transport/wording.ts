/**
 * What the API's words say about tasks (it has no code for it): a delete's status text, whether a refusal says tasks
 * are not known; each read to err where a mistake costs less (docs/known-unknowns.md, "What a delete's answer says").
 */
import { replaceSpans } from './redaction';

export type StatusReading = 'success' | 'failure' | 'unreadable';

const FAILURE =
	/\b(?:fail(?:s|ed|ure|ing)?|errors?|unsuccessful(?:ly)?|unable|cannot|can't|could ?n[o']t|not (?:been )?(?:deleted|removed)|denied|refused|rejected|forbidden|invalid|partial(?:ly)?)\b|失败|错误|未删除|拒绝|无效|不成功|未成功|没有成功|部分/i;

const NOTHING_DELETED =
	/\b(?:no|none|nothing|zero|0)\b(?:\s+\S+){0,3}?\s+(?:deleted|removed)\b|\b(?:deleted|removed)\s+(?:no|none|nothing|zero|0)\b/i;

const SUCCESS = /\b(?:success(?:ful(?:ly)?)?|succeeded|ok(?:ay)?|deleted|removed|done|complete(?:d)?)\b|成功|已删除/i;

/** With a word that hedges or negates, a word of success does not make success ("not all deleted", "success?"). */
const HEDGE =
	/\b(?:not|no|none|nothing|never|without|zero|pending|queued|scheduled|will|later|processing|progress|partly|some|only|but|except|however|unless|un\w+)\b|\?|[不未没无待将]/i;

/** "2 of 3", "2/3": a count of the ids the request sent. */
const PART_OF = /\b(\d+)\s*(?:of|\/)\s*(\d+)\b/i;

/** "deleted 3 task(s)", "3 tasks": a count of tasks. */
const TASK_COUNT = /\b(\d+)\s*(?:tasks?|task\(s\)|items?|ids?|records?)\b/gi;

/** How a delete's code-1000 status text reads for a request of `sent` ids: never success by default. */
export function readStatusText(text: string | undefined, sent: number): StatusReading {
	if (text === undefined || !text.trim()) return 'unreadable';
	const part = PART_OF.exec(text);
	if (part && Number(part[1]) < Number(part[2])) return 'failure';
	if (FAILURE.test(text) || NOTHING_DELETED.test(text)) return 'failure';
	if (!SUCCESS.test(text) || HEDGE.test(text)) return 'unreadable';
	if (part && (Number(part[1]) !== sent || Number(part[2]) !== sent)) return 'unreadable';
	for (const [, count] of text.matchAll(TASK_COUNT)) if (Number(count) !== sent) return 'unreadable';
	return 'success';
}

/** Longest refusal message read for ids it names: the API's messages are short, 100 long ids are a few KB. */
const MAX_READ_MESSAGE = 64 * 1024;

/** Stands for one of the request's ids in a message, once the ids it names are found. */
const ID = '\u0001';

/** The request's ids, listed, quoted or bracketed. */
const IDS = `[\\s"'\`\\[(<]*${ID}[\\s"'\`\\])>]*(?:[,;，、]\\s*(?:and\\s+)?[\\s"'\`\\[(<]*${ID}[\\s"'\`\\])>]*)*`;

/** "task", "tasks", "task id", "task ids", "taskid", "task(s)", "task id(s)". */
const TASK = `task(?:\\s*ids?)?s?(?:\\(s\\))?`;

const TASK_NAMED = `\\b${TASK}(?:\\s*[:#=]?${IDS})?`;

const NOT_FOUND = `(?:(?:was|were|is|are|could|can)\\s+)?(?:not|n[o']t)\\s+(?:be(?:en)?\\s+)?found`;
const NOT_EXIST = `(?:(?:does|do|did)\\s*(?:not|n[o']t)|not)\\s+exists?`;
const GONE_ALREADY = `(?:(?:was|were|is|are|has|have)\\s+)?(?:already\\s+)(?:been\\s+)?(?:deleted|removed)`;

const NOT_KNOWN = new RegExp(
	[
		`\\b(?:unknown|no\\s+such|nonexistent|non-existent)\\s+${TASK}\\b`,
		`${TASK_NAMED}\\s*[:,-]?\\s*(?:${NOT_FOUND}|${NOT_EXIST}|${GONE_ALREADY})`,
		`${IDS}\\s*[:,-]?\\s*(?:${NOT_FOUND}|${NOT_EXIST}|${GONE_ALREADY})`,
		`\\b(?:not\\s+found|unknown)\\s*[:：]${IDS}`,
		`任务\\s*(?:id|ID)?\\s*[:：]?(?:${IDS})?\\s*(?:不存在|未找到|找不到|已删除|已被删除)`,
		`(?:找不到|未找到|不存在的?)(?:该|此|这些)?任务`,
	].join('|'),
	'i',
);

/** Another reason in the same message: then it is not (only) about unknown tasks. */
const OTHER_REASON =
	/\b(?:user|uid|account|owner|api\s*key|key|token|auth\w*|login|permission|denied|forbidden|credits?|balance|quota|rate|limit\w*|busy|timeout|timed\s+out|try\s+again|retry|later|internal|unavailable|maintenance)\b|用户|账号|账户|权限|余额|稍后|重试|繁忙|超时|内部/i;

const ID_CHARACTER = /[A-Za-z0-9_-]/;

/** Where `text` names `id` as a whole (not as part of a longer id). */
function positionsOf(text: string, id: string): number[] {
	const found: number[] = [];
	for (let at = text.indexOf(id); at >= 0; at = text.indexOf(id, at + id.length)) {
		const before = text[at - 1];
		const after = text[at + id.length];
		if ((!before || !ID_CHARACTER.test(before)) && (!after || !ID_CHARACTER.test(after))) found.push(at);
	}
	return found;
}

/** The message with every whole mention of one of `ids` replaced by ID, and the ids it names. */
function withIdsMarked(message: string, ids: readonly string[]): { text: string; named: string[] } {
	const spans: Array<[number, number]> = [];
	const named: string[] = [];
	// Longest first, so that an id inside a longer one of the request is not taken for it.
	for (const id of [...new Set(ids)].filter(Boolean).sort((a, b) => b.length - a.length)) {
		const at = positionsOf(message, id).filter((start) => !spans.some(([s, e]) => start < e && start + id.length > s));
		if (!at.length) continue;
		named.push(id);
		for (const start of at) spans.push([start, start + id.length]);
	}
	return { text: replaceSpans(message, spans, ID), named };
}

/** Whether a refusal (9999) says of tasks, and for no other reason, that they are not known; which `ids` it names. */
export function notKnownIn(message: string, ids: readonly string[]): { named: string[] } | undefined {
	if (!message || message.length > MAX_READ_MESSAGE) return undefined;
	const { text, named } = withIdsMarked(message, ids);
	if (!NOT_KNOWN.test(text)) return undefined;
	// The ids themselves may hold such words: look for another reason with them left out.
	if (OTHER_REASON.test(text.split(ID).join(' '))) return undefined;
	return { named };
}

/**
 * Whether a refusal may say, by any word, that a task does not exist: then a status check does not fail the task.
 * Looser than notKnownIn on purpose: a mistake there reports a live task gone, here it fails a task still running.
 */
export function mayMeanNotFound(message: string | undefined): boolean {
	return typeof message === 'string' && /not\s*found|unknown|no such|n[o']t exist/i.test(message);
}
