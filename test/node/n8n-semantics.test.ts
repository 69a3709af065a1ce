/**
 * n8n's own semantics, which users build on: On Error (Stop, Continue, Continue using error output), Stop (the
 * execution ends canceled), Retry On Fail (it resumes the tasks it already paid for) and a node that runs again
 * in a loop (it creates anew). Everything runs through n8n-core's WorkflowExecute and is asserted on the
 * simulator's record.
 */
import type { IExecuteFunctions, INodeExecutionData, INodeParameters, INodeType } from 'n8n-workflow';

import { loggedLines, runNode, runWorkflow } from '../harness';
import { NODE_TYPE } from '../nodeType';
import { BETAV4_PATH, betav4Parameters, useSimulator } from '../support';

const context = useSimulator({ taskDurationMs: 200 });

const betav4 = (options: INodeParameters = {}): INodeParameters =>
	betav4Parameters({ pollInterval: 0.1, maxWait: 20, downloadResults: false }, options);

/** Items whose prompts carry the simulator's markers, e.g. "[sim:fail]". */
const prompts = (...ideas: string[]): INodeExecutionData[] =>
	ideas.map((idea, index) => ({ json: { idea, row: index } }));

describe('On Error', () => {
	it('"Continue (using error output)": failed and refused tasks leave by the error output with their task ids, successes by the success output', async () => {
		const { output, errorOutput, error } = await runNode({
			parameters: betav4({ failedStatusCodes: '3' }),
			items: prompts('a cat', 'a dog [sim:fail]', 'a fox [sim:refuse]'),
			credentials: context.credentials(),
			onError: 'continueErrorOutput',
		});
		expect(error).toBeUndefined();
		const created = context.sim.requests(BETAV4_PATH).map((request) => request.fields.prompt[0]);
		expect(created).toHaveLength(3);
		const idOf = (prompt: string) =>
			[...context.sim.tasks.values()].find((task) => task.fields.prompt[0] === prompt)!.taskid;

		expect(output).toHaveLength(1);
		expect(output[0]).toMatchObject({ json: { taskid: idOf('a cat'), status: 'completed' }, pairedItem: { item: 0 } });

		expect(errorOutput.map((item) => item.pairedItem)).toEqual([{ item: 1 }, { item: 2 }]);
		// The task's fields are under `error` ($json.error.taskid); in a workflow n8n also merges in the item the
		// failure came from (here the node is the first one, so there is none: npm run test:semantics shows it).
		expect(errorOutput[0].json).toEqual({
			message: expect.stringMatching(/failed with status 3/),
			error: expect.objectContaining({
				message: expect.stringMatching(/failed with status 3/),
				description: expect.any(String),
				taskid: idOf('a dog [sim:fail]'),
				taskType: 'image',
				status: 'failed',
				model: 'betav4',
			}),
		});
		expect(errorOutput[1].json).toMatchObject({
			message: expect.stringMatching(/content moderation/),
			error: { taskid: idOf('a fox [sim:refuse]'), taskType: 'image', status: 'failed' },
		});
	});

	it('"Continue": one flat error item per failure, with its task id, taskType and status "failed" (a refused task is not pending)', async () => {
		const { output, errorOutput, error } = await runNode({
			parameters: betav4({ failedStatusCodes: '3' }),
			items: prompts('a cat', 'a dog [sim:fail]', 'a fox [sim:refuse]', 'a hen [sim:credits]'),
			credentials: context.credentials(),
			onError: 'continueRegularOutput',
		});
		expect(error).toBeUndefined();
		expect(errorOutput).toHaveLength(0);
		expect(output.map((item) => item.json.status)).toEqual(['completed', 'failed', 'failed', 'failed']);
		for (const item of output.slice(1, 3)) {
			expect(item.json).toEqual(
				expect.objectContaining({
					taskid: expect.stringMatching(/^img-/),
					taskType: 'image',
					model: 'betav4',
					request: expect.objectContaining({ prompt: expect.any(String) }),
					error: expect.any(String),
				}),
			);
		}
		// A creation refused for credits created nothing: the same shape, with taskid null.
		expect(output[3].json).toEqual(
			expect.objectContaining({
				taskid: null,
				taskType: 'image',
				status: 'failed',
				model: 'betav4',
				request: expect.objectContaining({ prompt: 'a hen [sim:credits]' }),
				error: 'Insufficient credits [item 3]',
				errorDescription: expect.any(String),
			}),
		);
	});

	it('"Stop": the run ends within seconds of the first failure and lists every task it created', async () => {
		const started = Date.now();
		const { error } = await runNode({
			parameters: betav4({ failedStatusCodes: '3', maxWait: 60 }),
			items: prompts('a dog [sim:fail] [sim:seconds=0.3]', 'a cat [sim:never]', 'a fox [sim:never]'),
			credentials: context.credentials(),
		});
		expect(Date.now() - started).toBeLessThan(5000);
		expect(error?.message).toMatch(/failed with status 3 \[item 0\]$/);
		const ids = [...context.sim.tasks.values()].filter((task) => task.createdAt >= started).map((task) => task.taskid);
		expect(ids).toHaveLength(3);
		for (const id of ids) expect((error as { description?: string }).description).toContain(id);
	});
});

describe('Stop', () => {
	it("ends the execution canceled; its error and n8n's log name every task the run created", async () => {
		const logged = loggedLines().length;
		const started = Date.now();
		const { run, error } = await runNode({
			parameters: betav4(),
			items: prompts('a cat [sim:never]', 'a dog [sim:never]', 'a fox [sim:never]'),
			credentials: context.credentials(),
			cancelAfterMs: 800,
		});
		expect(run.status).toBe('canceled');
		const ids = [...context.sim.tasks.values()].filter((task) => task.createdAt >= started).map((task) => task.taskid);
		expect(ids).toHaveLength(3);
		expect(error?.name).toBe('ExecutionCancelledError');
		for (const id of ids) {
			expect(error?.message).toContain(id);
			expect(loggedLines(logged).some((line) => line.includes(`created image task ${id}`))).toBe(true);
		}
	});
});

/** Sends its items back to MediaGen once (output 0), then on (output 1): MediaGen runs twice, run index 0 and 1. */
class LoopOnce implements INodeType {
	description = {
		displayName: 'Loop Once',
		name: 'loopOnce',
		group: ['transform'],
		version: 1,
		description: 'Test loop',
		defaults: { name: 'Loop Once' },
		inputs: ['main'],
		outputs: ['main', 'main'],
		properties: [],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData().map((_item, index) => ({
			json: { idea: `again ${index}` },
			pairedItem: { item: index },
		}));
		return this.getWorkflowDataProxy(0).$runIndex === 0 ? [items, []] : [[], items];
	}
}

describe('Retry On Fail', () => {
	const retry = { maxTries: 3, waitBetweenTries: 0 };

	it('a result download failing once: the next try resumes the three tasks instead of paying for three more', async () => {
		context.sim.inject({ path: /^\/files\//, times: 1, action: { type: 'status', status: 404 } });
		const logged = loggedLines().length;
		const { output, error } = await runNode({
			parameters: betav4({ downloadResults: true }),
			items: prompts('a cat', 'a dog', 'a fox'),
			credentials: context.credentials(),
			retryOnFail: retry,
		});
		expect(error).toBeUndefined();
		expect(context.sim.requests(BETAV4_PATH)).toHaveLength(3);
		expect(output.map((item) => item.json.status)).toEqual(['completed', 'completed', 'completed']);
		expect(output.every((item) => item.binary?.data)).toBe(true);
		expect(loggedLines(logged).filter((line) => /resumes image task/.test(line)).length).toBeGreaterThanOrEqual(1);
	});

	it('a wait running out once: the next try waits on the same two tasks again', async () => {
		const { output, error } = await runNode({
			parameters: betav4({ maxWait: 1 }),
			items: prompts('a cat [sim:seconds=2]', 'a dog [sim:seconds=2]'),
			credentials: context.credentials(),
			retryOnFail: retry,
		});
		expect(error).toBeUndefined();
		expect(context.sim.requests(BETAV4_PATH)).toHaveLength(2);
		expect(output.map((item) => item.json.status)).toEqual(['completed', 'completed']);
	});

	it('a task that failed is created anew by the next try (that is what retrying it means)', async () => {
		let created = 0;
		context.sim.taskOutcome = () => (created++ === 0 ? 'fail' : 'succeed');
		const { output, error } = await runNode({
			parameters: betav4({ failedStatusCodes: '3' }),
			items: prompts('a cat'),
			credentials: context.credentials(),
			retryOnFail: retry,
		});
		expect(error).toBeUndefined();
		expect(context.sim.requests(BETAV4_PATH)).toHaveLength(2);
		expect(output[0].json.status).toBe('completed');
	});

	it('a node that runs again in a loop (a new run index) creates anew, Retry On Fail or not', async () => {
		const node = {
			id: 'mediagen-node',
			name: 'MediaGen',
			type: NODE_TYPE,
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters: betav4(),
			credentials: { mediaGenApi: { id: 'cred-1', name: 'MediaGen account' } },
			retryOnFail: true,
			maxTries: 3,
		};
		const run = await runWorkflow(
			{
				nodes: [
					{
						id: 'start',
						name: 'Start',
						type: 'n8n-nodes-base.manualTrigger',
						typeVersion: 1,
						position: [0, 0],
						parameters: {},
					},
					node,
					{ id: 'loop', name: 'Loop Once', type: 'test.loopOnce', typeVersion: 1, position: [0, 0], parameters: {} },
				],
				connections: {
					Start: { main: [[{ node: 'MediaGen', type: 'main', index: 0 }]] },
					MediaGen: { main: [[{ node: 'Loop Once', type: 'main', index: 0 }]] },
					'Loop Once': { main: [[{ node: 'MediaGen', type: 'main', index: 0 }], []] },
				},
			},
			{
				credentials: context.credentials(),
				items: prompts('a cat', 'a dog'),
				extraNodeTypes: { 'test.loopOnce': new LoopOnce() },
			},
		);
		expect(run.data.resultData.error).toBeUndefined();
		expect(run.data.resultData.runData.MediaGen).toHaveLength(2);
		expect(context.sim.requests(BETAV4_PATH)).toHaveLength(4);
	});
});
