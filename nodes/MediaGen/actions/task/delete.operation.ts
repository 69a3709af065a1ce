import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { holdsObjects, ItemProblems, toList } from '../../request/validation';
import { invalidInput } from '../../helpers/badInput';
import { DELETE_PATH, type TaskType } from '../../models/endpoints';
import { apiJsonRequest, ApiSession } from '../../transport';
import type { ItemOutcome } from '../../output/taskOutput';
import { readTaskType, TASK_TYPE_FROM_INPUT, taskTypeHint } from '../../request/taskItem';
import { failuresContinue } from '../../helpers/toolCall';
import { readWaitingOptions, requestTimeoutAt } from '../../waiting/options';
import { taskOptionsProperties } from '../descriptions';

const showFor = { resource: ['task'], operation: ['delete'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Task IDs',
		name: 'taskIds',
		type: 'string',
		required: true,
		default: '={{ $json.taskid }}',
		placeholder: 'e.g. img-1-ab12, img-2-cd34',
		description: 'Comma-separated task identifiers, or an array from an expression',
		displayOptions: { show: showFor },
	},
	{
		displayName: 'User ID',
		name: 'uid',
		type: 'string',
		default: '',
		description: 'The user the image tasks belong to, if your account uses user IDs; leave empty otherwise',
		displayOptions: { show: { ...showFor, taskType: ['image', TASK_TYPE_FROM_INPUT] } },
	},
	{
		displayName: 'Combine All Items Into One Request',
		name: 'combineItems',
		type: 'boolean',
		default: false,
		description:
			'Whether to delete the task IDs of all input items with a single request (one per distinct User ID) and output one item',
		displayOptions: { show: showFor },
	},
	// A delete waits for nothing but its answer: of the options only the timeout applies.
	...taskOptionsProperties(
		'delete',
		{ image: ['image'], video: ['video'], [TASK_TYPE_FROM_INPUT]: ['image', 'video'] },
		['requestTimeout'],
	),
];

interface DeleteRequest {
	itemIndexes: number[];
	taskType: TaskType;
	taskIds: string[];
	uid: string;
	notFoundHint: string;
}

async function sendDelete(
	this: IExecuteFunctions,
	request: DeleteRequest,
	session: ApiSession,
	timeout: number,
): Promise<IDataObject> {
	const body: IDataObject = { taskids: request.taskIds };
	if (request.taskType === 'image' && request.uid) body.uid = request.uid;
	const data = await apiJsonRequest.call(this, DELETE_PATH[request.taskType], body, {
		itemIndex: request.itemIndexes[0],
		notFoundHint: request.notFoundHint,
		timeout,
		session,
	});
	// `status` is a word a workflow can test, like the other operations' status; the API's text stays in `message`.
	return { status: 'deleted', message: data?.status ?? null, taskids: request.taskIds, taskType: request.taskType };
}

/** The task IDs one item asks to delete, with their type and (image tasks) User ID. */
interface DeleteItem {
	itemIndex: number;
	taskType: TaskType;
	taskIds: string[];
	uid: string;
	notFoundHint: string;
}

export function read(this: IExecuteFunctions, itemIndex: number, item: INodeExecutionData): DeleteItem {
	// Task Type and Task IDs are checked, and reported together when both are wrong.
	const problems = new ItemProblems(this, itemIndex);
	const taskType = problems.check(() => readTaskType.call(this, itemIndex, item));
	const field = { name: 'Task IDs', parameter: 'taskIds' };
	const raw = this.getNodeParameter(field.parameter, itemIndex, '') as unknown;
	const taskIds = problems.check(() => {
		if (holdsObjects(raw))
			throw invalidInput.call(this, itemIndex, field, raw, 'must be comma-separated text or a list of task IDs (text)');
		const list = toList(raw);
		if (!list.length) throw invalidInput.call(this, itemIndex, field, raw, 'must list at least one task ID');
		return list;
	});
	problems.throwIfAny();
	const uid = taskType === 'image' ? String(this.getNodeParameter('uid', itemIndex, '') ?? '').trim() : '';
	const notFoundHint = taskTypeHint.call(this, itemIndex, taskType!);
	return { itemIndex, taskType: taskType!, taskIds: taskIds!, uid, notFoundHint };
}

export async function run(this: IExecuteFunctions, items: DeleteItem[]): Promise<ItemOutcome[]> {
	const outcomes: ItemOutcome[] = [];
	const requests: DeleteRequest[] = [];
	const combine = this.getNodeParameter('combineItems', 0, false) as boolean;
	for (const { itemIndex, taskType, taskIds, uid, notFoundHint } of items) {
		const group = combine
			? requests.find((request) => request.taskType === taskType && request.uid === uid)
			: undefined;
		if (group) {
			group.itemIndexes.push(itemIndex);
			group.taskIds.push(...taskIds.filter((id) => !group.taskIds.includes(id)));
		} else {
			requests.push({ itemIndexes: [itemIndex], taskType, taskIds, uid, notFoundHint });
		}
	}
	const session = new ApiSession(this);
	const taskTypes = items.length ? items.map((item) => item.taskType) : (['image'] as TaskType[]);
	const options = readWaitingOptions.call(this, taskTypes, false);
	for (const request of requests) {
		const [itemIndex] = request.itemIndexes;
		try {
			const json = await sendDelete.call(this, request, session, requestTimeoutAt(options, Date.now()));
			const pairedItem = request.itemIndexes.map((item) => ({ item }));
			outcomes.push({ itemIndex, items: [{ json, pairedItem }] });
		} catch (error) {
			outcomes.push({ itemIndex, error, json: { taskids: request.taskIds } });
			if (!failuresContinue(this)) break;
		}
	}
	return outcomes;
}
