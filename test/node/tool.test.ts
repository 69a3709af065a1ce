/**
 * MediaGen as an AI Agent's tool (node type `…mediaGenTool`), inside n8n's engine: what the model reads (compact
 * JSON, never a thrown error), the tool's defaults (no downloads, pending after a short Max Wait), reference
 * images by URL only, and the tool description and panel n8n builds from the node's description.
 * npm run test:agent checks the same in real n8n, with the AI Agent and a scripted model.
 */
import type { INode, INodeExecutionData, INodeParameters, INodeProperties, INodeType } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { runNode, storeBinary } from '../harness';
import { NODE_TYPE } from '../nodeType';
import { useSimulator } from '../support';
import { MediaGen } from '../../nodes/MediaGen/MediaGen.node';
import { IMAGE_MODELS } from '../../nodes/MediaGen/models/image';
import { VIDEO_MODELS } from '../../nodes/MediaGen/models/video';
import { TOOL_MAX_WAIT_SECONDS } from '../../nodes/MediaGen/tool/call';
import { readWaitingOptions } from '../../nodes/MediaGen/waiting/options';
import { makePng } from '../simulator/png';

const context = useSimulator();
const CREATE = '/v1/tlimages/betav45';
const INFO = '/v1/tlimages/infobytaskid';

/** What the agent's model reads: n8n sends it the JSON of the tool's output items. */
function modelReads(output: INodeExecutionData[]): string {
	return JSON.stringify(output.map((item) => item.json));
}

function betav45(parameters: INodeParameters = {}, options: INodeParameters = {}): INodeParameters {
	return {
		resource: 'image',
		operation: 'betav45',
		prompt: 'A lighthouse at dawn, watercolour, with a long description the model wrote'.repeat(20),
		additionalFields: { batchsize: 2 },
		options: { pollInterval: 0.2, ...options },
		...parameters,
	};
}

async function runTool(parameters: INodeParameters, items?: INodeExecutionData[]) {
	return await runNode({ parameters, credentials: context.credentials(), asTool: true, items });
}

describe('as a tool, the model reads compact JSON with the result URLs', () => {
	it('a creation returns taskid, status, urls, taskType, model and size: no request echo, no download', async () => {
		const { output, error } = await runTool(betav45());
		expect(error).toBeUndefined();
		expect(output).toHaveLength(1);
		const [item] = output;
		expect(item.json).toEqual({
			taskid: expect.stringMatching(/^img-/),
			status: 'completed',
			urls: [expect.stringContaining('/files/'), expect.stringContaining('/files/')],
			taskType: 'image',
			model: 'betav45',
			width: 2048,
			height: 2048,
		});
		expect(item.binary).toBeUndefined();
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(modelReads(output)).not.toContain('lighthouse');
		// Download Results is off in a tool unless switched on: no result file was fetched.
		expect(context.sim.requests().filter((request) => request.method === 'GET')).toHaveLength(0);
	});

	it('Download Results switched on in the tool still downloads (the files stay out of what the model reads)', async () => {
		const { output, error } = await runTool(betav45({}, { downloadResults: true }));
		expect(error).toBeUndefined();
		expect(Object.keys(output[0].binary ?? {})).toEqual(['data', 'data_1']);
		expect(context.sim.requests().filter((request) => request.method === 'GET')).toHaveLength(2);
	});

	it('the same node outside a tool keeps its defaults: downloads and the full output', async () => {
		const { output } = await runNode({ parameters: betav45(), credentials: context.credentials() });
		expect(output[0].binary?.data).toBeDefined();
		expect(output[0].json.request).toBeDefined();
	});
});

describe('as a tool, a failure is a result the model can act on, never a thrown error', () => {
	it('insufficient credits (9000): status failed, the message without "[item 0]", the advice as hint', async () => {
		context.sim.inject({
			path: CREATE,
			action: { type: 'status', status: 200, body: JSON.stringify({ code: 9000, msg: 'Insufficient credits' }) },
		});
		const { output, error } = await runTool(betav45());
		expect(error).toBeUndefined();
		expect(output).toEqual([
			{
				json: {
					taskType: 'image',
					model: 'betav45',
					status: 'failed',
					message: 'Insufficient credits',
					hint: expect.stringMatching(
						/no credits left.*Top up the account.*create again only the items that failed\.$/,
					),
				},
				pairedItem: { item: 0 },
			},
		]);
		// No top-level "error": with Retry On Fail n8n would run the node (and create) again.
		expect(output[0].json.error).toBeUndefined();
	});

	it('a task the API refuses after creation: its taskid, the API’s reason, and that a new creation is charged again', async () => {
		context.sim.inject({
			path: INFO,
			action: { type: 'status', status: 200, body: JSON.stringify({ code: 9999, msg: 'rejected by moderation' }) },
		});
		const { output, error } = await runTool(betav45());
		expect(error).toBeUndefined();
		const taskid = String(output[0].json.taskid);
		expect(output[0].json).toMatchObject({
			taskid: expect.stringMatching(/^img-/),
			status: 'failed',
			message: `The MediaGen API refused the request: rejected by moderation (task ${taskid})`,
		});
		expect(output[0].json.hint).toContain(`Task ${taskid} failed on the server`);
		expect(output[0].json.hint).toMatch(/a new creation .* is charged again/);
	});

	it('a creation whose error answer names a task: its taskid, and that it exists and may be charged (not "failed")', async () => {
		context.sim.inject({
			path: CREATE,
			action: { type: 'status', status: 500, body: JSON.stringify({ code: 9999, data: { taskid: 'img-named' } }) },
		});
		const { output, error } = await runTool(betav45());
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ taskid: 'img-named', status: 'failed' });
		expect(output[0].json.hint).toContain('The answer names task img-named: it was created and may be charged.');
		expect(output[0].json.hint).toContain('Task img-named exists on the server and may have been charged.');
		expect(output[0].json.hint).not.toContain('failed on the server');
	});

	it('a task that fails on the server (Failed Status Codes): taskid, and that a new creation is charged again', async () => {
		context.sim.taskOutcome = () => 'fail';
		const { output } = await runTool(betav45({}, { failedStatusCodes: '3' }));
		expect(output[0].json).toMatchObject({ status: 'failed', taskid: expect.stringMatching(/^img-/) });
		expect(output[0].json.message).toMatch(/failed with status 3/);
		expect(output[0].json.hint).toMatch(/failed on the server.*charged again/);
	});

	it('a task still running when the call gives up (On Timeout "Error" set): its taskid and how to check it later', async () => {
		context.sim.taskDurationMs = 3000;
		const { output, error } = await runTool(betav45({}, { maxWait: 0.5, onTimeout: 'error' }));
		expect(error).toBeUndefined();
		const taskid = String(output[0].json.taskid);
		expect(output[0].json).toMatchObject({ status: 'failed', message: `Task ${taskid} did not finish within 0.5 s` });
		expect(output[0].json.hint).toContain(
			`call the MediaGen tool that waits for tasks with taskid "${taskid}" (an image task)`,
		);
		expect(output[0].json.hint).toMatch(/Do not create it again unless the user asks: every new creation is charged/);
	});

	it('bad arguments from the model: what is wrong, and that nothing was sent', async () => {
		const { output, error } = await runTool(
			betav45({ additionalFields: { batchsize: 2, resolution: 'square please' } }),
		);
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ status: 'failed' });
		expect(output[0].json.message).toMatch(/^"Resolution" must be a ratio/);
		expect(output[0].json.hint).toMatch(/Nothing was sent to the API/);
		expect(context.sim.requests()).toHaveLength(0);
	});

	it('a setting the node cannot use (Custom API Call) is a failed result too, not a thrown error', async () => {
		const { output, error } = await runTool({ resource: 'image', operation: '__CUSTOM_API_CALL__' });
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ status: 'failed', message: expect.stringMatching(/HTTP Request node/) });
	});
});

/** A field the model fills: the expression n8n's "let the model define this parameter" button writes. */
function fromAI(key: string, type = 'string'): string {
	return `={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('${key}', \`What the model gives\`, '${type}') }}`;
}

describe('as a tool, a refusal names the model’s argument when the field’s value came from one', () => {
	/** The example's creation tool (examples/agent-images.json): four fields the model fills. */
	const agentTool = betav45({
		prompt: fromAI('prompt'),
		imageUrls: fromAI('referenceImageUrl'),
		additionalFields: { batchsize: fromAI('count', 'number'), resolution: fromAI('aspectRatio') },
	});
	/** The model's arguments: n8n hands them to the node as the item's JSON, which $fromAI reads. */
	const call = (args: Record<string, unknown>) => [
		{ json: { prompt: 'a lighthouse', referenceImageUrl: '', count: 1, aspectRatio: '1:1', ...args } },
	];

	it('one bad argument: its name first, the field in parentheses, the rule and the value; nothing sent', async () => {
		const { output, error } = await runTool(agentTool, call({ count: 'three' }));
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({
			status: 'failed',
			message: 'count must be an integer from 1 to 15 ("Batch Size"); got "three"',
			hint: expect.stringMatching(/Nothing was sent to the API/),
		});
		expect(context.sim.requests()).toHaveLength(0);
	});

	it('several: each field the model filled by its argument, a field the builder set by its own name', async () => {
		const { output } = await runTool(
			{ ...agentTool, additionalFields: { batchsize: fromAI('count', 'number'), resolution: 'square please' } },
			call({ referenceImageUrl: 'lighthouse.jpg', count: 20 }),
		);
		const message = String(output[0].json.message);
		expect(message).toMatch(/^3 fields are invalid\. \(1\) /);
		expect(message).toContain(
			'(1) referenceImageUrl must hold http(s) URLs ("Source Image URL"); got "lighthouse.jpg". ' +
				'(2) count must be an integer from 1 to 15 ("Batch Size"); got 20. ' +
				'(3) "Resolution" must be a ratio',
		);
		expect(context.sim.requests()).toHaveLength(0);
	});

	it('a $fromAI written by hand, in another capitalisation and quotes n8n accepts, names its argument too', async () => {
		const { output } = await runTool(
			{ ...agentTool, additionalFields: { batchsize: '={{ $fromAi("count", "", "number") }}' } },
			call({ count: 0 }),
		);
		expect(output[0].json.message).toBe('count must be an integer from 1 to 15 ("Batch Size"); got 0');
	});

	it('a Task operation’s field too: the task id the model left empty', async () => {
		const { output } = await runTool(
			{ resource: 'task', operation: 'wait', taskType: 'image', taskId: fromAI('taskid') },
			[{ json: { taskid: '' } }],
		);
		expect(output[0].json).toMatchObject({ status: 'failed', message: 'taskid is required ("Task ID"); got ""' });
		expect(context.sim.requests()).toHaveLength(0);
	});

	it('the same node outside a tool names its field only, as always', async () => {
		const { error } = await runNode({
			parameters: agentTool,
			credentials: context.credentials(),
			items: call({ count: 'three' }),
		});
		expect(error?.message).toBe('Item 0: "Batch Size" must be an integer from 1 to 15; got "three"');
		expect(context.sim.requests()).toHaveLength(0);
	});
});

describe('as a tool, one failed task does not end the others', () => {
	it('of two tasks in one call, a refused one is failed and the other still completes (the run is not stopped)', async () => {
		const { output, error } = await runTool({ ...betav45(), prompt: '={{ $json.idea }}', additionalFields: {} }, [
			{ json: { idea: 'a fox [sim:refuse]' } },
			{ json: { idea: 'a cat [sim:seconds=0.6]' } },
		]);
		expect(error).toBeUndefined();
		expect(output.map((item) => item.json.status)).toEqual(['failed', 'completed']);
		expect(output[1].json.urls).toEqual([expect.stringContaining('/files/')]);
	});
});

describe('as a tool, a long render comes back pending, and Task → Wait picks it up', () => {
	it('Max Wait ends in status pending with the taskid and how to come back (On Timeout defaults to pending)', async () => {
		context.sim.taskDurationMs = 3000;
		const { output, error } = await runTool(betav45({}, { maxWait: 0.5 }));
		expect(error).toBeUndefined();
		const { taskid, hint } = output[0].json as { taskid: string; hint: string };
		expect(output[0].json).toMatchObject({ status: 'pending', taskType: 'image', model: 'betav45' });
		expect(hint).toContain(`call the MediaGen tool that waits for tasks with taskid "${taskid}"`);
		expect(hint).toMatch(/Do not create the task again/);

		const waited = await runTool({
			resource: 'task',
			operation: 'wait',
			taskType: 'image',
			taskId: taskid,
			options: { pollInterval: 0.2 },
		});
		expect(waited.output[0].json).toEqual({
			taskid,
			status: 'completed',
			urls: [expect.stringContaining(`/files/${taskid}/`), expect.stringContaining(`/files/${taskid}/`)],
			taskType: 'image',
			width: 2048,
			height: 2048,
		});
	});

	it('the tool’s defaults: Max Wait 45 s for the whole call, On Timeout pending, no downloads; set values still win', () => {
		const fake = (type: string, options: INodeParameters) =>
			({ getNodeParameter: () => options, getNode: () => ({ type }) }) as never;
		const tool = readWaitingOptions.call(fake(`${NODE_TYPE}Tool`, {}), 'video', true);
		expect(tool).toMatchObject({
			maxWaitMs: TOOL_MAX_WAIT_SECONDS * 1000,
			onTimeout: 'returnPending',
			download: false,
		});
		const chosen = readWaitingOptions.call(
			fake(`${NODE_TYPE}Tool`, { maxWait: 600, onTimeout: 'error', downloadResults: true }),
			'video',
			true,
		);
		expect(chosen).toMatchObject({ maxWaitMs: 600_000, onTimeout: 'error', download: true });
		const node = readWaitingOptions.call(fake(NODE_TYPE, {}), 'video', true);
		expect(node).toMatchObject({ maxWaitMs: 1_800_000, onTimeout: 'error', download: true });
		// Only a tool call has a time by which it answers: its start + Max Wait.
		expect(tool.answerBy).toBeGreaterThan(Date.now() + TOOL_MAX_WAIT_SECONDS * 1000 - 1000);
		expect(node.answerBy).toBeUndefined();
	});
});

describe('as a tool, the whole call answers within Max Wait, whatever the API does', () => {
	/** A call's own time: from the node's start to its answer. */
	async function timedTool(parameters: INodeParameters) {
		const startedAt = Date.now();
		const result = await runTool(parameters);
		return { ...result, tookMs: Date.now() - startedAt };
	}

	it('status checks that answer slowly (Request Timeout 120 s): pending with the taskid by Max Wait', async () => {
		context.sim.taskDurationMs = 60_000;
		// Every status check answers after 4 s: a last check at Max Wait would otherwise end 4 s after it.
		context.sim.inject({ path: INFO, action: { type: 'delay', ms: 4000 }, times: 100 });
		const { output, error, tookMs } = await timedTool(betav45({}, { maxWait: 3, requestTimeout: 120 }));
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({ status: 'pending', taskid: expect.stringMatching(/^img-/) });
		expect(tookMs).toBeLessThan(3000 + 1500);
	});

	it('a creation that answers after Max Wait: the call ends by Max Wait, saying a task may have been created', async () => {
		context.sim.inject({ path: CREATE, action: { type: 'delay', ms: 6000 } });
		const { output, error, tookMs } = await timedTool(betav45({}, { maxWait: 2, requestTimeout: 120 }));
		expect(error).toBeUndefined();
		expect(output[0].json.status).toBe('failed');
		expect(String(output[0].json.hint)).toMatch(/may have been created/);
		expect(tookMs).toBeLessThan(2000 + 1500);
	});

	it('Task → Wait on a task that needs longer: pending by its Max Wait, however slow the last check', async () => {
		context.sim.taskDurationMs = 60_000;
		const created = await runTool(betav45({ waitForCompletion: false }));
		const taskid = String(created.output[0].json.taskid);
		context.sim.inject({ path: INFO, action: { type: 'delay', ms: 4000 }, times: 100 });
		const { output, tookMs } = await timedTool({
			resource: 'task',
			operation: 'wait',
			taskType: 'image',
			taskId: taskid,
			options: { pollInterval: 0.2, maxWait: 3, requestTimeout: 120 },
		});
		expect(output[0].json).toMatchObject({ status: 'pending', taskid });
		expect(tookMs).toBeLessThan(3000 + 1500);
	});

	it('outside a tool, Max Wait counts per task from its creation and the last check may take its Request Timeout', async () => {
		context.sim.taskDurationMs = 60_000;
		context.sim.inject({ path: INFO, action: { type: 'delay', ms: 2500 }, times: 100 });
		const startedAt = Date.now();
		const { output } = await runNode({
			parameters: betav45({}, { maxWait: 1, requestTimeout: 120, onTimeout: 'returnPending' }),
			credentials: context.credentials(),
		});
		expect(output[0].json.status).toBe('pending');
		// The last check starts at Max Wait and is awaited: the node is not bound to answer early.
		expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1000 + 2500);
	});
});

describe('as a tool, reference images come by URL only', () => {
	it('a URL chosen by the model is sent', async () => {
		const { output } = await runTool(betav45({ imageUrls: 'https://example.com/start.png' }));
		expect(output[0].json.status).toBe('completed');
		expect(context.sim.requests(CREATE)[0].fields.imageUrl).toEqual(['https://example.com/start.png']);
	});

	it('a tool set up to send files from binary data is refused before anything is sent, pointing to the URL field', async () => {
		const item = { json: {}, binary: { data: await storeBinary(makePng(8, 8), 'a.png', 'image/png') } };
		const { output, error } = await runTool(betav45({ imageInput: 'properties' }), [item]);
		expect(error).toBeUndefined();
		expect(output[0].json.message).toMatch(
			/^"Source Images From Binary" must be None when MediaGen runs as an AI Agent tool/,
		);
		expect(output[0].json.hint).toMatch(/Give the images as http\(s\) URLs in "Source Image URL" instead/);
		expect(context.sim.requests()).toHaveLength(0);
	});

	it('a video model without a URL field points to the field it does have', async () => {
		const { output } = await runTool({
			resource: 'video',
			operation: 'alphav2mini',
			prompt: 'waves',
			imageInput: 'properties',
		});
		expect(output[0].json.hint).toMatch(/only as files or as "Source Image as Text"/);
	});
});

/** The tool's node type as n8n builds it (convertNodeToAiTool): name and display name end in "Tool". */
function toolType(): INodeType {
	const node = new MediaGen();
	const description = { ...node.description, name: 'mediaGenTool', displayName: 'MediaGen Tool' };
	return { description, execute: node.execute } as INodeType;
}

function toolNode(parameters: INodeParameters): INode {
	const type = toolType();
	return {
		id: 't',
		name: 'Create images',
		type: `${NODE_TYPE}Tool`,
		typeVersion: 1,
		position: [0, 0],
		parameters: NodeHelpers.getNodeParameters(
			type.description.properties,
			parameters,
			true,
			false,
			{ typeVersion: 1 },
			type.description,
		)!,
	};
}

describe('what the model is told about the tool', () => {
	const operations = [
		...[...IMAGE_MODELS, ...VIDEO_MODELS].map((spec) => ({ resource: spec.taskType, operation: spec.operation })),
		...['get', 'wait', 'delete'].map((operation) => ({ resource: 'task', operation })),
	];

	it.each(operations)('$resource / $operation has its own default description, which n8n hands the model', (choice) => {
		const node = toolNode(choice);
		const text = NodeHelpers.getToolDescriptionForNode(node, toolType());
		expect(text).toBe(node.parameters.toolDescription);
		expect(text).toMatch(/Returns JSON/);
		if (choice.resource !== 'task') {
			expect(text).toMatch(/urls.*taskid|taskid.*urls/);
			expect(text).toMatch(/"pending"/);
			expect(text).toMatch(/costs credits/);
		}
	});

	it('creation descriptions state the model’s limits, and that images go by URL, never as files', () => {
		const proimage = NodeHelpers.getToolDescriptionForNode(
			toolNode({ resource: 'image', operation: 'proimage' }),
			toolType(),
		);
		expect(proimage).toMatch(/Prompt \(required\): at most 32000 characters/);
		expect(proimage).toMatch(/Number of Images: 1 to 10/);
		expect(proimage).toMatch(
			/at most 16 reference images only as http\(s\) URLs, comma-separated, in "Reference Image URLs", never as files/,
		);
		const video = NodeHelpers.getToolDescriptionForNode(
			toolNode({ resource: 'video', operation: 'alphav15pro' }),
			toolType(),
		);
		expect(video).toMatch(/1 to 2 source images only as http\(s\) URLs/);
		expect(video).toMatch(/Duration \(Seconds\): one of 5, 10/);
	});

	it('the user’s own description wins', () => {
		const node = toolNode({ resource: 'image', operation: 'betav45', toolDescription: 'Makes posters.' });
		expect(NodeHelpers.getToolDescriptionForNode(node, toolType())).toBe('Makes posters.');
	});

	it('the tool panel shows the tool’s defaults; the node outside a tool shows none of it', () => {
		const visible = (description: INodeType['description'], choices: INodeParameters) => {
			const values = NodeHelpers.getNodeParameters(
				description.properties,
				choices,
				true,
				false,
				{ typeVersion: 1 },
				description,
			)!;
			return description.properties.filter((property) =>
				NodeHelpers.displayParameter(values, property, { typeVersion: 1 }, description),
			);
		};
		const choices = { resource: 'image', operation: 'betav45', waitForCompletion: true };
		const inTool = visible(toolType().description, choices);
		const options = inTool.filter((property) => property.name === 'options');
		expect(options).toHaveLength(1);
		const defaults = Object.fromEntries(
			(options[0].options as INodeProperties[]).map((option) => [option.name, option.default]),
		);
		expect(defaults).toMatchObject({
			downloadResults: false,
			onTimeout: 'returnPending',
			maxWait: TOOL_MAX_WAIT_SECONDS,
		});
		expect(inTool.filter((property) => property.name === 'imageInput').map((property) => property.default)).toEqual([
			'none',
		]);
		expect(inTool.filter((property) => property.name === 'toolDescription')).toHaveLength(1);

		const outside = visible(new MediaGen().description, choices);
		expect(outside.map((property) => property.name)).not.toContain('toolDescription');
		const regular = outside.find((property) => property.name === 'options')!;
		expect((regular.options as INodeProperties[]).find((option) => option.name === 'downloadResults')?.default).toBe(
			true,
		);
	});
});
