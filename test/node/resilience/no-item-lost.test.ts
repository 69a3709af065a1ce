/**
 * No item is ever lost (issue 31, point 3): any exception of any step of any item comes out as that item's error
 * (or error-output item), with its pairedItem and its task id, under every On Error mode, with Retry On Fail and as
 * an AI Agent's tool. First the case that found it: a status check answered with an object nested 50,000 levels
 * deep (the answer's redaction overflowed the stack, the poll's error handling then threw a TypeError where nobody
 * waited for it, and the items vanished from a run that "succeeded"). Then every step made to throw on purpose (a
 * RangeError, a TypeError, a thrown string): hostile data reaches each step in its own way, and whatever it throws,
 * the item comes out.
 */
import type http from 'node:http';
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { loggedLines, runNode, type RunResult } from '../../harness';
import { HOSTILE_KEY, ideaItems, useHostileApi } from '../../support';
import * as api from '../../../nodes/MediaGen/transport/api';
import * as download from '../../../nodes/MediaGen/transport/download';
import * as prepare from '../../../nodes/MediaGen/request/prepare';
import * as taskState from '../../../nodes/MediaGen/waiting/taskState';
import * as items from '../../../nodes/MediaGen/output/items';
import * as resultFiles from '../../../nodes/MediaGen/output/resultFiles';
import * as badInput from '../../../nodes/MediaGen/helpers/badInput';

const { server, useApi, betav4 } = useHostileApi();

type OnError = 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';

async function run(
	parameters: ReturnType<typeof betav4>,
	count: number,
	settings: { onError?: OnError; maxTries?: number; asTool?: boolean } = {},
): Promise<RunResult> {
	return await runNode({
		parameters,
		items: ideaItems(count),
		credentials: { apiKey: HOSTILE_KEY, baseUrl: server.url },
		onError: settings.onError,
		retryOnFail: settings.maxTries ? { maxTries: settings.maxTries, waitBetweenTries: 0 } : undefined,
		asTool: settings.asTool,
	});
}

function paired(item: INodeExecutionData): number[] {
	const list = Array.isArray(item.pairedItem) ? item.pairedItem : [item.pairedItem];
	return list.map((entry) => (typeof entry === 'number' ? entry : entry!.item));
}

/** Every input item has exactly one item in the output and error output together, paired with it. */
function expectEveryItemOnce(result: RunResult, count: number): void {
	const items = [...result.output, ...result.errorOutput];
	expect(items.flatMap(paired).sort()).toEqual(Array.from({ length: count }, (_, index) => index));
}

/** The item of the output (or error output) paired with input item `index`, and its task fields. */
function itemFor(result: RunResult, index: number): { taskid: unknown; error: unknown; status: unknown } {
	const item = [...result.output, ...result.errorOutput].find((entry) => paired(entry).includes(index))!;
	const json = item.json as Record<string, unknown>;
	// On the error output the task's fields are inside `error` (output/items.ts, errorItem).
	const fields = (typeof json.error === 'object' && json.error ? json.error : json) as Record<string, unknown>;
	return { taskid: fields.taskid, error: json.error, status: fields.status };
}

function deepJson(levels: number): string {
	return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

describe('a status check answered with an object nested 50,000 levels deep', () => {
	const deepInfo = () =>
		useApi({
			info: (_request, response: http.ServerResponse, taskId) => {
				const text = `{"code":1000,"msg":"ok","data":{"taskid":"${taskId}","image_status":2,"url":[],"deep":${deepJson(50_000)}}}`;
				response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
				response.end(text);
			},
		});
	const creations = () => server.requestsTo('/v1/tlimages/betav4').length;

	it('Stop Workflow: the error names its item and every task this run created', async () => {
		deepInfo();
		const result = await run(betav4({ maxWait: 1 }), 2);
		expect(result.error?.message).toMatch(/task-0.*\[item 0\]$/);
		expect((result.error as { description?: string }).description).toMatch(/task-0 \(item 0\), task-1 \(item 1\)/);
	});

	it('Continue: both items come out, each with its task id and pairing', async () => {
		deepInfo();
		const result = await run(betav4({ maxWait: 1 }), 2, { onError: 'continueRegularOutput' });
		expect(result.error).toBeUndefined();
		expectEveryItemOnce(result, 2);
		expect([0, 1].map((index) => itemFor(result, index).taskid)).toEqual(['task-0', 'task-1']);
		for (const index of [0, 1]) {
			expect(itemFor(result, index).status).toBe('pending');
			expect(String(itemFor(result, index).error)).toMatch(new RegExp(`task-${index}.*\\[item ${index}\\]$`));
		}
	});

	it('Continue (using error output): both items leave by the error output with their task ids', async () => {
		deepInfo();
		const result = await run(betav4({ maxWait: 1 }), 2, { onError: 'continueErrorOutput' });
		expect(result.output).toHaveLength(0);
		expect(result.errorOutput).toHaveLength(2);
		expectEveryItemOnce(result, 2);
		expect([0, 1].map((index) => itemFor(result, index).taskid)).toEqual(['task-0', 'task-1']);
	});

	it('Retry On Fail resumes the same tasks (nothing is paid twice) and still names them', async () => {
		deepInfo();
		const result = await run(betav4({ maxWait: 1 }), 2, { maxTries: 3 });
		expect(creations()).toBe(2);
		expect((result.error as { description?: string }).description).toMatch(/task-0 \(item 0\), task-1 \(item 1\)/);
	});

	// The answer is read (kept down to 32 levels): done without URLs yet, so each task is still waited on.
	it('as an AI Agent’s tool: the model reads each item’s task id and how to wait for it', async () => {
		deepInfo();
		const result = await run(betav4({ maxWait: 1 }), 2, { asTool: true });
		expect(result.error).toBeUndefined();
		expect(result.output.map((item) => [paired(item), item.json.taskid, item.json.status])).toEqual([
			[[0], 'task-0', 'pending'],
			[[1], 'task-1', 'pending'],
		]);
		expect(String(result.output[0].json.hint)).toMatch(/waits for tasks with taskid "task-0"/);
	});
});

/**
 * A step of an item, made to throw for item 1 of 3 only: the module and function that the step calls, and how
 * to tell item 1's call from the others.
 */
interface Step {
	name: string;
	module: Record<string, unknown>;
	fn: string;
	isItem1: (args: unknown[]) => boolean;
	/** The options under which the step runs. */
	options?: INodeParameters;
	/** Item 1 has a task when the step throws (every step after its creation). */
	hasTask: boolean;
	/** What the model reads for item 1: a finished task whose file failed is still `completed`, with its URLs. */
	toolStatus?: string;
}

const contextItem = (position: number) => (args: unknown[]) =>
	(args[position] as { itemIndex?: number } | undefined)?.itemIndex === 1;
const taskItem = (args: unknown[]) => (args[0] as { itemIndex?: number }).itemIndex === 1;

const STEPS: Step[] = [
	{ name: 'read', module: prepare, fn: 'prepareRequest', isItem1: (args) => args[1] === 1, hasTask: false },
	{ name: 'create', module: api, fn: 'apiMultipartRequest', isItem1: contextItem(2), hasTask: false },
	{ name: 'poll', module: api, fn: 'apiJsonRequest', isItem1: contextItem(2), hasTask: true },
	{ name: 'judge', module: taskState, fn: 'decideTaskState', isItem1: taskItem, hasTask: true },
	{
		name: 'build the output',
		module: items,
		fn: 'completedOutcome',
		isItem1: taskItem,
		options: { downloadResults: false },
		hasTask: true,
	},
	{
		name: 'download',
		module: download,
		fn: 'downloadResultFile',
		isItem1: contextItem(1),
		options: { downloadResults: true },
		hasTask: true,
		toolStatus: 'completed',
	},
	{
		name: 'store the file',
		module: resultFiles,
		fn: 'storeResultFile',
		isItem1: contextItem(4),
		options: { downloadResults: true },
		hasTask: true,
		toolStatus: 'completed',
	},
];

const THROWN: Array<[string, () => unknown]> = [
	['a RangeError', () => new RangeError('Maximum call stack size exceeded')],
	['a TypeError', () => new TypeError("Cannot set properties of undefined (setting 'statusCheckFailed')")],
	['a thrown string', () => 'not an Error'],
];

/** Makes `step` throw `thrown()` for item 1; the other items' calls go through. */
function breakStep(step: Step, thrown: () => unknown): jest.SpyInstance {
	const original = step.module[step.fn] as (...args: unknown[]) => unknown;
	return jest.spyOn(step.module as never, step.fn as never).mockImplementation(function (
		this: unknown,
		...args: unknown[]
	) {
		if (step.isItem1(args)) throw thrown();
		return original.apply(this, args);
	} as never);
}

describe.each(STEPS)('an exception in step "$name" of item 1', (step) => {
	let spy: jest.SpyInstance | undefined;
	afterEach(() => spy?.mockRestore());
	const parameters = () => betav4(step.options ?? {});

	it.each(THROWN)('Continue, %s: every item comes out; item 1 with the error and its task', async (_name, thrown) => {
		useApi();
		spy = breakStep(step, thrown);
		const result = await run(parameters(), 3, { onError: 'continueRegularOutput' });
		expect(result.error).toBeUndefined();
		expectEveryItemOnce(result, 3);
		for (const index of [0, 2]) expect(itemFor(result, index)).toMatchObject({ status: 'completed', error: undefined });
		const broken = itemFor(result, 1);
		expect(String(broken.error)).toMatch(/\[item 1\]$/);
		if (step.hasTask) expect(broken.taskid).toMatch(/^task-\d+$/);
		if (step.hasTask) expect(String(broken.error)).toContain(String(broken.taskid));
		else expect(broken.taskid).toBeNull();
	});

	it('Stop Workflow: the error names item 1, and every task this run created', async () => {
		useApi();
		spy = breakStep(step, THROWN[0][1]);
		const result = await run(parameters(), 3);
		expect(result.error?.message).toMatch(/\[item 1\]$/);
		const created = server.requestsTo('/v1/tlimages/betav4').length;
		const description = (result.error as { description?: string }).description ?? '';
		for (let index = 0; index < created; index++) expect(description).toContain(`task-${index} (item `);
		if (step.name === 'create') expect(description).toMatch(/may have been created/);
	});

	it('Continue (using error output): item 1 leaves by the error output, the others by the output', async () => {
		useApi();
		spy = breakStep(step, THROWN[1][1]);
		const result = await run(parameters(), 3, { onError: 'continueErrorOutput' });
		expectEveryItemOnce(result, 3);
		expect(result.errorOutput.map(paired)).toEqual([[1]]);
		if (step.hasTask) expect(itemFor(result, 1).taskid).toMatch(/^task-\d+$/);
	});

	it('as an AI Agent’s tool: the model reads item 1’s failure, the others’ results', async () => {
		useApi();
		spy = breakStep(step, THROWN[2][1]);
		const result = await run(parameters(), 3, { asTool: true });
		expect(result.error).toBeUndefined();
		expect(result.output.map((item) => [paired(item), item.json.status])).toEqual([
			[[0], 'completed'],
			[[1], step.toolStatus ?? 'failed'],
			[[2], 'completed'],
		]);
		expect(String(result.output[1].json.message)).not.toBe('');
		if (step.hasTask) expect(result.output[1].json.taskid).toMatch(/^task-\d+$/);
	});
});

it('as a tool, writing a failure’s result throws: the model still reads item 1’s failure with its task id', async () => {
	useApi();
	// Item 1's status check fails; writing what the model reads about it (badInput.problemsOf) throws as well.
	const poll = breakStep(STEPS[2], THROWN[1][1]);
	const writing = jest.spyOn(badInput, 'problemsOf').mockImplementation(() => {
		throw new RangeError('Maximum call stack size exceeded');
	});
	try {
		const result = await run(betav4(), 3, { asTool: true });
		expect(result.error).toBeUndefined();
		expect(result.output.map((item) => [paired(item), item.json.status])).toEqual([
			[[0], 'completed'],
			[[1], 'failed'],
			[[2], 'completed'],
		]);
		expect(result.output[1].json.taskid).toBe('task-1');
		expect(String(result.output[1].json.message)).toMatch(/^MediaGen failed while writing its tool result: RangeError/);
	} finally {
		poll.mockRestore();
		writing.mockRestore();
	}
});

it('an item whose creation threw is not created again by Retry On Fail: it may have created a task', async () => {
	useApi();
	const since = loggedLines().length;
	const spy = breakStep(STEPS[1], THROWN[0][1]);
	try {
		const result = await run(betav4(), 3, { maxTries: 3 });
		// Items 0 and 2 were created once and resumed; item 1 never reached the server and is not sent again unasked.
		expect(server.requestsTo('/v1/tlimages/betav4')).toHaveLength(2);
		expect(spy.mock.calls.filter((args) => STEPS[1].isItem1(args))).toHaveLength(1);
		expect(result.error?.message).toMatch(/\[item 1\]$/);
		expect(loggedLines(since).some((line) => /may have created a image task for item 1 /.test(line))).toBe(true);
	} finally {
		spy.mockRestore();
	}
});
