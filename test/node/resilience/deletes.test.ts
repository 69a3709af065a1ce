/**
 * Task → Delete at scale, and safe to repeat (issue 31, point 4), against a purpose-built API on 127.0.0.1 that
 * keeps the ids it holds and refuses, as the simulator does, a request naming an id it does not know ("unknown task
 * ids: …", nothing deleted). Each case is a row of the issue: many items side by side within the bound on requests
 * in flight, 300,000 ids combined, Retry On Fail after a 502, a 429 with Retry-After, a failure in a code-1000
 * answer; then the honesty of partial results.
 */
import type http from 'node:http';
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode, type RunResult } from '../../harness';
import { sendJson, type HostileRequest } from '../../hostile-server';
import { HOSTILE_KEY, useHostileApi } from '../../support';

const DELETE = '/v1/tlimages/deleteimagestask';

const { server } = useHostileApi();

type Answer = (request: HostileRequest, response: http.ServerResponse, ids: string[]) => unknown;

/** The API's tasks, and what it answered. */
interface DeleteApi {
	existing: Set<string>;
	/** Ids the API deleted, in order. */
	deleted: string[];
	inFlight: number;
	peak: number;
}

/**
 * A delete endpoint over `ids`: `answer` may answer a request itself (return true); otherwise the API deletes the
 * ids, or refuses the whole request when it does not know one of them.
 */
function useDeleteApi(ids: string[], answer?: Answer, delayMs = 0): DeleteApi {
	const api: DeleteApi = { existing: new Set(ids), deleted: [], inFlight: 0, peak: 0 };
	server.requests.length = 0;
	server.setHandler(async (request, response) => {
		api.inFlight++;
		api.peak = Math.max(api.peak, api.inFlight);
		if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
		api.inFlight--;
		const requested = (request.json?.taskids as string[]) ?? [];
		if (answer?.(request, response, requested)) return;
		const unknown = requested.filter((id) => !api.existing.has(id));
		if (unknown.length) return sendJson(response, { code: 9999, msg: `unknown task ids: ${unknown.join(', ')}` });
		deleteIds(api, requested);
		sendJson(response, {
			code: 1000,
			msg: 'success',
			data: { status: `deleted ${requested.length} task(s) successfully` },
		});
	});
	return api;
}

function deleteIds(api: DeleteApi, ids: string[]): void {
	for (const id of ids) if (api.existing.delete(id)) api.deleted.push(id);
}

const idsOf = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}-${index}x`);

async function runDelete(
	items: INodeExecutionData[],
	parameters: INodeParameters = {},
	settings: { onError?: 'continueRegularOutput' | 'continueErrorOutput'; maxTries?: number } = {},
): Promise<RunResult> {
	return await runNode({
		parameters: {
			resource: 'task',
			operation: 'delete',
			taskType: 'image',
			taskIds: '={{ $json.ids }}',
			...parameters,
		},
		items,
		credentials: { apiKey: HOSTILE_KEY, baseUrl: server.url },
		onError: settings.onError,
		retryOnFail: settings.maxTries ? { maxTries: settings.maxTries, waitBetweenTries: 0 } : undefined,
	});
}

const sentIds = () => server.requestsTo(DELETE).flatMap((request) => request.json?.taskids as string[]);

describe('Delete of 500 items: side by side, within Max Concurrent Requests', () => {
	const items = idsOf('img', 500).map((id) => ({ json: { ids: id } }));

	it('500 items answered in 20 ms each go out many at a time, each item paired with its output', async () => {
		const api = useDeleteApi(idsOf('img', 500), undefined, 20);
		const { output, error } = await runDelete(items);
		expect(error).toBeUndefined();
		// One after another, this took 500 round trips (12.2 s at 20 ms each); the server now sees many at once.
		expect(api.peak).toBeGreaterThanOrEqual(32);
		expect(api.existing.size).toBe(0);
		expect(output.map((item) => item.pairedItem)).toEqual(items.map((_, item) => [{ item }]));
		expect(output.every((item) => item.json.status === 'deleted')).toBe(true);
	});

	it('Max Concurrent Requests bounds them', async () => {
		const api = useDeleteApi(idsOf('img', 500), undefined, 5);
		const { error } = await runDelete(items.slice(0, 60), { options: { maxConcurrency: 4 } });
		expect(error).toBeUndefined();
		expect(api.peak).toBeLessThanOrEqual(4);
		expect(api.deleted).toHaveLength(60);
	});
});

describe('Delete with 300,000 ids', () => {
	const ids = idsOf('img', 300_000);

	it('combined from two items: requests of at most 100 ids, each id once, one item paired with both', async () => {
		const api = useDeleteApi(ids);
		const { output, error } = await runDelete(
			[{ json: { ids: ids.slice(0, 150_000) } }, { json: { ids: ids.slice(150_000) } }],
			{
				combineItems: true,
			},
		);
		expect(error).toBeUndefined();
		const requests = server.requestsTo(DELETE);
		expect(requests.every((request) => (request.json?.taskids as string[]).length <= 100)).toBe(true);
		expect(sentIds().sort()).toEqual([...ids].sort());
		expect(api.existing.size).toBe(0);
		expect(output).toHaveLength(1);
		expect(output[0].pairedItem).toEqual([{ item: 0 }, { item: 1 }]);
		expect((output[0].json.deleted as string[]).length).toBe(300_000);
	}, 120_000);
});

describe('Retry On Fail after a 502 on the second delete', () => {
	it('the second try counts the ids the first try deleted as gone, and does not fail on them', async () => {
		const first = idsOf('first', 3);
		const second = idsOf('second', 3);
		let failures = 0;
		// The server deletes item 1's ids, then answers 502 (a proxy timing out), twice: longer than Max Wait.
		const api = useDeleteApi([...first, ...second], (_request, response, requested) => {
			if (!requested.includes(second[0]) || failures >= 2) return false;
			failures++;
			deleteIds(api, requested);
			sendJson(response, { code: 9999, msg: 'Bad Gateway' }, 502);
			return true;
		});
		const { output, error } = await runDelete(
			[{ json: { ids: first } }, { json: { ids: second } }],
			{
				options: { maxWait: 1 },
			},
			{ maxTries: 3 },
		);
		expect(error).toBeUndefined();
		// The first try deleted item 0's ids; a later try sent them again and found them gone.
		expect(
			server.requestsTo(DELETE).filter((request) => (request.json?.taskids as string[])[0] === first[0]),
		).toHaveLength(2);
		expect(api.existing.size).toBe(0);
		expect(output.map((item) => [item.json.status, item.json.alreadyGone])).toEqual([
			['deleted', first],
			['deleted', second],
		]);
	});
});

describe('a 429 with Retry-After on a delete', () => {
	it('is waited out, then the delete goes through', async () => {
		let refused = 0;
		const api = useDeleteApi(idsOf('img', 2), (_request, response) => {
			if (refused++) return false;
			response.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
			response.end(JSON.stringify({ code: 9999, msg: 'too many requests' }));
			return true;
		});
		const { output, error } = await runDelete([{ json: { ids: idsOf('img', 2) } }]);
		expect(error).toBeUndefined();
		const [refusal, retry] = server.requestsTo(DELETE);
		expect(retry).toBeDefined();
		expect(output[0].json).toMatchObject({ status: 'deleted', deleted: idsOf('img', 2) });
		expect(api.existing.size).toBe(0);
		expect(refusal).toBeDefined();
	});

	it('a Retry-After beyond Max Wait is not waited: the item fails with the 429, its ids not deleted', async () => {
		useDeleteApi(idsOf('img', 2), (_request, response) => {
			response.writeHead(429, { 'retry-after': '30', 'content-type': 'application/json' });
			response.end(JSON.stringify({ code: 9999, msg: 'too many requests' }));
			return true;
		});
		const startedAt = Date.now();
		const { output } = await runDelete(
			[{ json: { ids: idsOf('img', 2) } }],
			{ options: { maxWait: 2 } },
			{
				onError: 'continueRegularOutput',
			},
		);
		expect(Date.now() - startedAt).toBeLessThan(10_000);
		expect(output[0].json).toMatchObject({ status: 'failed', failed: idsOf('img', 2), deleted: [] });
		expect(String(output[0].json.error)).toMatch(/HTTP 429/);
	});
});

describe('code 1000 with a status text', () => {
	const answering =
		(status: string): Answer =>
		(_request, response) => {
			sendJson(response, { code: 1000, msg: 'success', data: { status } });
			return true;
		};

	it.each(['delete failed', 'Failure: task is running', '删除失败', 'not deleted', 'partially deleted'])(
		'"%s" reports a failure: the item fails, its ids are not output as deleted',
		async (status) => {
			useDeleteApi(idsOf('img', 2), answering(status));
			const { output, error } = await runDelete(
				[{ json: { ids: idsOf('img', 2) } }],
				{},
				{ onError: 'continueRegularOutput' },
			);
			expect(error).toBeUndefined();
			expect(output[0].json).toMatchObject({ status: 'failed', deleted: [], failed: idsOf('img', 2) });
			expect(String(output[0].json.error)).toBe(`The MediaGen API did not delete the tasks: "${status}" [item 0]`);
		},
	);

	it('Stop Workflow: the error quotes the text and says what was and was not deleted', async () => {
		useDeleteApi(idsOf('img', 1), answering('delete failed'));
		const { error } = await runDelete([{ json: { ids: idsOf('img', 1) } }]);
		expect(error?.message).toBe('The MediaGen API did not delete the tasks: "delete failed" [item 0]');
		expect((error as { description?: string }).description).toMatch(
			/0 were deleted, 0 were already gone and 1 was not deleted \(img-0x\)/,
		);
	});

	it.each(['deleted 2 task(s) successfully', 'success', 'OK', '删除成功'])('"%s" is a success', async (status) => {
		useDeleteApi(idsOf('img', 2), answering(status));
		const { output, error } = await runDelete([{ json: { ids: idsOf('img', 2) } }]);
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ status: 'deleted', message: status, deleted: idsOf('img', 2) });
	});
});

describe('partial results are honest', () => {
	it('ids the API does not know are already gone; the others are deleted', async () => {
		const ids = idsOf('img', 250);
		const api = useDeleteApi(ids.filter((_, index) => index % 50 !== 7));
		const { output, error } = await runDelete([{ json: { ids } }]);
		expect(error).toBeUndefined();
		const gone = ids.filter((_, index) => index % 50 === 7);
		expect(output[0].json).toMatchObject({
			status: 'deleted',
			alreadyGone: gone,
			deleted: ids.filter((id) => !gone.includes(id)),
		});
		expect(new Set(api.deleted)).toEqual(new Set(output[0].json.deleted as string[]));
		expect(new Set([...(output[0].json.deleted as string[]), ...gone])).toEqual(new Set(ids));
	});

	it('a "not found" that names no id: the chunk is split until each id stands alone', async () => {
		const ids = idsOf('img', 8);
		const api = useDeleteApi(ids.slice(1), (_request, response, requested) => {
			if (requested.every((id) => api.existing.has(id))) return false;
			sendJson(response, { code: 9999, msg: 'task not found' });
			return true;
		});
		const { output, error } = await runDelete([{ json: { ids } }]);
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ alreadyGone: [ids[0]], deleted: ids.slice(1) });
		expect(api.existing.size).toBe(0);
	});

	it('one chunk refused for good: its ids failed, the others deleted, and the error says which', async () => {
		const ids = idsOf('img', 250);
		useDeleteApi(ids, (_request, response, requested) => {
			if (!requested.includes(ids[100])) return false;
			sendJson(response, { code: 9999, msg: 'permission denied' });
			return true;
		});
		const { output, errorOutput } = await runDelete([{ json: { ids } }], {}, { onError: 'continueErrorOutput' });
		expect(output).toHaveLength(0);
		expect(errorOutput).toHaveLength(1);
		const failure = errorOutput[0].json.error as Record<string, unknown>;
		expect(failure).toMatchObject({
			status: 'failed',
			taskids: ids,
			deleted: [...ids.slice(0, 100), ...ids.slice(200)],
			alreadyGone: [],
			failed: ids.slice(100, 200),
		});
		expect(failure.message).toBe('The MediaGen API refused the request: permission denied [item 0]');
		expect(failure.description).toMatch(
			/150 were deleted, 0 were already gone and 100 were not deleted \(img-100x, img-101x,/,
		);
	});
});

/**
 * An outcome is read from what the API says, not from words that happen to appear: an id is
 * already gone only when a refusal says that these tasks are not known, by the rules of docs/known-unknowns.md; any
 * other refusal fails them with the API's message; a code-1000 status text that does not read as success is not
 * output as deleted.
 */
describe('what a delete answer says, not the words in it', () => {
	const ids = idsOf('img', 3);
	const refusing =
		(body: unknown, status = 200): Answer =>
		(_request, response) => {
			sendJson(response, body, status);
			return true;
		};

	it.each<[string, unknown, number, RegExp]>([
		[
			'9999 "Unknown error, please try again later"',
			{ code: 9999, msg: 'Unknown error, please try again later' },
			200,
			/^The MediaGen API refused the request: Unknown error, please try again later \[item 0\]$/,
		],
		[
			'9999 "user not found" (a wrong User ID)',
			{ code: 9999, msg: 'user not found' },
			200,
			/^The MediaGen API refused the request: user not found \[item 0\]$/,
		],
		[
			'9999 "task not found for this user" (the task may be another user\'s)',
			{ code: 9999, msg: 'task not found for this user' },
			200,
			/refused the request: task not found for this user/,
		],
		['9000 (no credits)', { code: 9000, msg: 'insufficient credits' }, 200, /^Insufficient credits \[item 0\]$/],
		['HTTP 401 (a refused key)', { code: 9999, msg: 'task not found' }, 401, /^The MediaGen API answered HTTP 401/],
		['9999 with no message', { code: 9999 }, 200, /refused the request: no message given/],
	])(
		"%s: every id failed with the API's message, none already gone, none deleted",
		async (_name, body, status, message) => {
			const api = useDeleteApi(ids, refusing(body, status));
			const { output, error } = await runDelete(
				[{ json: { ids } }],
				{ uid: 'user-7' },
				{ onError: 'continueRegularOutput' },
			);
			expect(error).toBeUndefined();
			expect(output[0].json).toMatchObject({ status: 'failed', deleted: [], alreadyGone: [], failed: ids });
			expect(String(output[0].json.error)).toMatch(message);
			// Not about unknown tasks: no advice to check the Task Type.
			expect(String(output[0].json.errorDescription ?? '')).not.toMatch(/Task Type/);
			expect(api.existing.size).toBe(3);
			// One request: a refusal for another reason is not split in halves id by id.
			expect(server.requestsTo(DELETE)).toHaveLength(1);
		},
	);

	it.each([
		'task not found',
		'Task does not exist',
		'tasks already deleted',
		'任务不存在',
		'No such task',
		`task ${ids[0]} not found`,
		`unknown task ids: ${ids[0]}`,
		`${ids[0]} does not exist`,
	])('a refusal that says the tasks are not known ("%s") marks the unknown id already gone', async (msg) => {
		const api = useDeleteApi(ids.slice(1), (_request, response, requested) => {
			if (!requested.includes(ids[0])) return false;
			sendJson(response, { code: 9999, msg });
			return true;
		});
		const { output, error } = await runDelete([{ json: { ids } }]);
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ status: 'deleted', alreadyGone: [ids[0]], deleted: ids.slice(1) });
		expect(api.existing.size).toBe(0);
	});

	it.each(['Deletion unsuccessful', 'no tasks were deleted', '删除不成功', '0 tasks deleted', 'deleted 2 of 3'])(
		'code 1000 with "%s" reports a failure: the ids are not output as deleted',
		async (text) => {
			useDeleteApi(ids, (_request, response) => {
				sendJson(response, { code: 1000, msg: 'success', data: { status: text } });
				return true;
			});
			const { output } = await runDelete([{ json: { ids } }], {}, { onError: 'continueRegularOutput' });
			expect(output[0].json).toMatchObject({ status: 'failed', deleted: [], failed: ids });
			expect(output[0].json.uncertain).toBeUndefined();
			expect(String(output[0].json.error)).toBe(`The MediaGen API did not delete the tasks: "${text}" [item 0]`);
		},
	);

	it.each<[string, Record<string, unknown> | undefined]>([
		['a text in another language', { status: 'Löschvorgang abgeschlossen' }],
		['a text about something else', { status: 'request received' }],
		['success in words that hedge it', { status: 'will be deleted successfully' }],
		['a count that is not the ids sent', { status: 'deleted 1 task(s) successfully' }],
		['no status text', {}],
		['no data', undefined],
	])(
		'code 1000 with %s is uncertain: not deleted, the text quoted, and deleting again is safe',
		async (_name, data) => {
			let answered = 0;
			const api = useDeleteApi(ids, (_request, response, requested) => {
				if (answered++) return false;
				// The API deleted them, but its answer does not say so in words the node can read.
				deleteIds(api, requested);
				sendJson(response, { code: 1000, msg: 'success', ...(data === undefined ? {} : { data }) });
				return true;
			});
			const first = await runDelete([{ json: { ids } }], {}, { onError: 'continueRegularOutput' });
			const text = typeof data?.status === 'string' ? `"${data.status}"` : 'no status text';
			expect(first.output[0].json).toMatchObject({ status: 'failed', deleted: [], failed: ids, uncertain: ids });
			expect(String(first.output[0].json.error)).toBe(
				`The MediaGen API did not confirm that it deleted the tasks: ${text} [item 0]`,
			);
			expect(String(first.output[0].json.errorDescription)).toMatch(/may or may not have been deleted/);
			// Run again: the API now says it does not know them, and they count as gone.
			const again = await runDelete([{ json: { ids } }]);
			expect(again.error).toBeUndefined();
			expect(again.output[0].json).toMatchObject({ status: 'deleted', alreadyGone: ids });
		},
	);
});
