/**
 * Task operations, options and operations the node does not have: a Task ID that is missing or not text, a Task
 * Type the item does not give, Failed Status Codes that are not integers, and Custom API Call are refused before
 * anything is sent, with an error naming the field and the item.
 */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { runNode } from '../../harness';
import { useSimulator } from '../../support';

const context = useSimulator();

async function run(parameters: INodeParameters, items: INodeExecutionData[] = [{ json: {} }]) {
	return await runNode({ parameters, items, credentials: context.credentials() });
}

describe('task operations and options', () => {
	it.each([
		[
			'Task → Get without an id',
			{ resource: 'task', operation: 'get', taskType: 'image', taskId: '  ' },
			/^Item 0: "Task ID" is required/,
		],
		[
			'Task → Wait without an id',
			{ resource: 'task', operation: 'wait', taskType: 'video', taskId: ' ' },
			/^Item 0: "Task ID" is required/,
		],
		[
			'Task → Delete without ids',
			{ resource: 'task', operation: 'delete', taskType: 'image', taskIds: ' , ' },
			/^Item 0: "Task IDs" must list at least one task ID/,
		],
		[
			'Failed Status Codes that are not integers',
			{ resource: 'image', operation: 'gammaimage', prompt: 'x', options: { failedStatusCodes: '3, failed' } },
			/^Item 0: "Failed Status Codes" must be a comma-separated list of integers/,
		],
	] as const)('%s', async (_name, parameters, message) => {
		const { error } = await runNode({
			parameters: parameters as unknown as INodeParameters,
			credentials: context.credentials(),
		});
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toMatch(message);
		expect(context.sim.requests()).toHaveLength(0);
	});
});

describe('task IDs must be given, as text', () => {
	it('refuses an empty task id with an error naming the field and the item, and sends nothing', async () => {
		const { error } = await runNode({
			parameters: { resource: 'task', operation: 'get', taskType: 'image', taskId: '  ' },
			credentials: context.credentials(),
		});
		expect(error?.message).toBe('Item 0: "Task ID" is required; got "  "');
		expect(error?.name).toBe('NodeOperationError');
		expect(context.sim.requests()).toHaveLength(0);
	});

	it('an object as the Task ID of Task → Get is refused, nothing sent', async () => {
		const { error } = await run({
			resource: 'task',
			operation: 'get',
			taskType: 'image',
			taskId: '={{ { id: "img-1" } }}',
		});
		expect(error?.message).toBe('Item 0: "Task ID" must be one task ID (text); got {"id":"img-1"}');
		expect(context.sim.requests()).toHaveLength(0);
	});

	it('objects in the Task IDs list of Task → Delete are refused, nothing sent', async () => {
		const { error } = await run({
			resource: 'task',
			operation: 'delete',
			taskType: 'image',
			taskIds: '={{ [{ id: "img-1" }, "img-2"] }}',
		});
		expect(error?.message).toBe(
			'Item 0: "Task IDs" must be comma-separated text or a list of task IDs (text); got [{"id":"img-1"},"img-2"]',
		);
		expect(context.sim.requests()).toHaveLength(0);
	});
});

describe('Task Type "From Input Item"', () => {
	it('Task Type "From Input Item" refuses an item without taskType, naming the field, and sends nothing', async () => {
		const { error } = await runNode({
			parameters: { resource: 'task', operation: 'get' },
			items: [{ json: { taskid: 'img-1' } }],
			credentials: context.credentials(),
		});
		expect(error?.message).toBe(
			'Item 0: "Task Type" is "From Input Item", so the item needs a taskType field of "image" or "video"; got nothing',
		);
		expect(context.sim.requests()).toHaveLength(0);
	});
});

describe('Custom API Call', () => {
	it.each([{ resource: '__CUSTOM_API_CALL__' }, { resource: 'image', operation: '__CUSTOM_API_CALL__' }])(
		'%o points to the HTTP Request node with this credential and sends nothing',
		async (parameters) => {
			const { error } = await runNode({ parameters, credentials: context.credentials() });
			expect(error?.name).toBe('NodeOperationError');
			expect(error?.message).toBe('Custom API calls are made with the HTTP Request node, not with MediaGen');
			expect((error as { description?: string }).description).toMatch(
				/HTTP Request node.*Predefined Credential Type.*MediaGen API/,
			);
			expect(context.sim.requests()).toHaveLength(0);
		},
	);
});
