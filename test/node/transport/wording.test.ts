/**
 * The rules by which Task → Delete and status checks read the API's words (nodes/MediaGen/transport/wording.ts), each
 * on its own: the table of docs/known-unknowns.md ("What a delete's answer says"), row by row. The same answers go
 * through n8n's engine in ../resilience/deletes.test.ts and ../resilience/status-checks.test.ts.
 */
import { mayMeanNotFound, notKnownIn, readStatusText } from '../../../nodes/MediaGen/transport/wording';

describe('readStatusText (code 1000)', () => {
	it.each([
		'success',
		'Success.',
		'OK',
		'deleted 3 task(s) successfully',
		'3 of 3 deleted',
		'Deleted',
		'tasks removed',
		'删除成功',
		'已删除',
		'Deletion completed',
	])('"%s" (3 ids sent) reads as success', (text) => expect(readStatusText(text, 3)).toBe('success'));

	it.each([
		'failed',
		'Deletion unsuccessful',
		'no tasks were deleted',
		'0 tasks deleted',
		'deleted 0',
		'删除不成功',
		'删除失败',
		'部分删除',
		'deleted 2 of 3',
		'not deleted',
		'Error: task is running',
		'unable to delete',
	])('"%s" reports a failure', (text) => expect(readStatusText(text, 3)).toBe('failure'));

	it.each([
		'Löschvorgang abgeschlossen',
		'削除しました',
		'request received',
		'will be deleted',
		'success?',
		'deleted, except the running ones',
		'deleted 1 task(s) successfully',
		'not all deleted',
		'',
		'   ',
	])('"%s" cannot be read as success, nor as a failure', (text) => expect(readStatusText(text, 3)).not.toBe('success'));

	it('no text at all cannot be read', () => expect(readStatusText(undefined, 1)).toBe('unreadable'));
});

describe('notKnownIn (code 9999)', () => {
	const ids = ['img-1', 'img-2', 'img-10'];

	it.each<[string, string[]]>([
		['task not found', []],
		['Task not found', []],
		['tasks not found', []],
		['task id not found', []],
		['Task does not exist', []],
		["task doesn't exist", []],
		['no such task', []],
		['unknown task ids: img-1, img-10', ['img-1', 'img-10']],
		['task img-2 not found', ['img-2']],
		['tasks "img-1", "img-2" do not exist', ['img-1', 'img-2']],
		['img-10 not found', ['img-10']],
		['not found: img-2', ['img-2']],
		['tasks already deleted', []],
		['任务不存在', []],
		['找不到任务', []],
	])('"%s" says the tasks are not known, naming %j', (message, named) =>
		expect(notKnownIn(message, ids)?.named.sort()).toEqual(named.sort()),
	);

	it.each([
		'Unknown error, please try again later',
		'unknown error',
		'user not found',
		'uid not found',
		'task not found for this user',
		'not found',
		'invalid API key',
		'Rate limit exceeded, task not found',
		'server busy',
		'用户不存在',
		'',
		'x'.repeat(70_000) + ' task not found',
	])('"%s" does not', (message) => expect(notKnownIn(message.slice(0, 80_000), ids)).toBeUndefined());

	it('an id that holds a word of another reason is not taken for one', () =>
		expect(notKnownIn('task user-1 not found', ['user-1'])).toEqual({ named: ['user-1'] }));

	it('a message about another task (an id that only starts like one of the request) says nothing of these', () =>
		expect(notKnownIn('task img-10 not found', ['img-1'])).toBeUndefined());
});

describe('mayMeanNotFound (a status check refused with code 9999)', () => {
	const ids = ['abc-1'];

	it.each(['task not found', 'Task abc-1 does not exist', 'no such task', 'task abc-1 not found'])(
		'"%s" may, and so does notKnownIn',
		(message) => {
			expect(mayMeanNotFound(message)).toBe(true);
			expect(notKnownIn(message, ids)).toBeDefined();
		},
	);

	// Looser than notKnownIn: a word that may mean "not found" keeps a status check from failing the task.
	it.each(['Unknown error, please try again later', 'user not found', 'no such user'])(
		'"%s" may, where notKnownIn says no',
		(message) => {
			expect(mayMeanNotFound(message)).toBe(true);
			expect(notKnownIn(message, ids)).toBeUndefined();
		},
	);

	// The two readings disagree the other way too (kept as they are: a status check takes these for the API's
	// verdict on the task, a delete for tasks that are gone).
	it.each(['任务不存在', 'task abc-1 already deleted', 'nonexistent task'])(
		'"%s" does not, where notKnownIn says the tasks are not known',
		(message) => {
			expect(mayMeanNotFound(message)).toBe(false);
			expect(notKnownIn(message, ids)).toBeDefined();
		},
	);

	it.each(['content violates the policy', undefined])('"%s" does not', (message) =>
		expect(mayMeanNotFound(message)).toBe(false),
	);
});
