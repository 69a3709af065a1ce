/**
 * Every operation's requests and output items, recorded once and compared on every run: what each model sends
 * with every field set (its files, URLs and mask included), Task → Get, Wait and Delete of both task types, and the
 * items that come out (completed, pending, failed, bad input, a refusal, an AI Agent's tool call). The record,
 * `golden.json` beside this file, is what a restructuring of the node must leave as it is; it is written anew only
 * on purpose (`MEDIAGEN_UPDATE_GOLDEN=1 npx jest test/node/wire/golden`), when what the node sends or outputs is meant to
 * change. Task ids, times and multipart boundaries are replaced by stable names.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { IMAGE_MODELS } from '../../../nodes/MediaGen/models/image';
import type { FieldSpec, ModelSpec } from '../../../nodes/MediaGen/models/types';
import { VIDEO_MODELS } from '../../../nodes/MediaGen/models/video';
import { parameterName } from '../../../nodes/MediaGen/models/parameterNames';
import { runNode, storeBinary } from '../../harness';
import { makePng } from '../../simulator/png';
import type { RecordedRequest } from '../../simulator/server';
import { useSimulator } from '../../support';

const GOLDEN = path.join(__dirname, 'golden.json');

const context = useSimulator({ taskDurationMs: 50 });

/** A valid value for every field (the last of a list, the top of a range: the far end of what is allowed). */
const TEXT: Record<string, string> = {
	'proimage.size': '1536X1024',
	'betav45.resolution': '2048x2048',
	'betav5.resolution': '3:4',
	'betav4.resolution': '1:1',
	'gammaimage.resolution': '1024*768',
};

function valueOf(model: ModelSpec, field: FieldSpec): unknown {
	switch (field.kind) {
		case 'string':
			return TEXT[`${model.operation}.${field.wire}`] ?? `${field.wire} of ${model.operation} « ü »`;
		case 'integer':
			return field.max ?? (field.min ?? 0) + 7;
		case 'options':
			return field.values[field.values.length - 1];
		case 'switch':
			return field.wire.length % 2 === 0;
	}
}

/** Every field of `model` set, its references given as files (and URLs where it takes them), a mask for proimage. */
function everyField(model: ModelSpec): INodeParameters {
	const parameters: INodeParameters = {
		resource: model.taskType,
		operation: model.operation,
		waitForCompletion: false,
		imageInput: model.references ? 'properties' : 'none',
		binaryPropertyNames: 'data',
		additionalFields: { extraFormFields: { field: [{ name: 'extra_one', value: 'x' }] } },
	};
	const additional = parameters.additionalFields as IDataObject;
	for (const field of model.fields) {
		const name = parameterName(field.wire);
		if (field.placement === 'main') parameters[name] = valueOf(model, field) as string;
		else additional[name] = valueOf(model, field) as string;
	}
	const urlField = model.references?.urlField;
	if (urlField) parameters[parameterName(urlField.wire)] = 'https://example.com/one.png';
	if (model.mask) additional.maskBinaryProperty = 'data';
	return parameters;
}

/** Names that stay the same from run to run: task ids in order of appearance, no times, no boundaries. */
class Stable {
	private readonly names = new Map<string, string>();

	text(value: string): string {
		return value.replace(/127\.0\.0\.1:\d+/g, '<simulator>').replace(/\b(img|vid)-[\w-]+/g, (id) => {
			if (!this.names.has(id)) this.names.set(id, `<task ${this.names.size + 1}>`);
			return this.names.get(id)!;
		});
	}

	value(value: unknown): unknown {
		if (typeof value === 'string') return this.text(value);
		if (Array.isArray(value)) return value.map((entry) => this.value(entry));
		if (value && typeof value === 'object') {
			const out: Record<string, unknown> = {};
			for (const [key, entry] of Object.entries(value)) {
				if (['starttime', 'id', 'fileSize', 'directory', 'bytes'].includes(key)) continue;
				out[key] = this.value(entry);
			}
			return out;
		}
		return value;
	}

	request(request: RecordedRequest): IDataObject {
		const contentType = String(request.headers['content-type'] ?? '').replace(/boundary=.*/, 'boundary=…');
		return this.value({
			method: request.method,
			path: request.path,
			authorization: request.headers.authorization,
			contentType,
			fields: request.fields,
			files: request.files.map(({ field, filename, contentType: type, data }) => ({
				field,
				filename,
				contentType: type,
				sha256: createHash('sha256').update(data).digest('hex').slice(0, 16),
			})),
			json: request.json,
		}) as IDataObject;
	}

	item(item: INodeExecutionData): IDataObject {
		return this.value({
			json: item.json,
			binary: Object.fromEntries(
				Object.entries(item.binary ?? {}).map(([name, data]) => [
					name,
					{ fileName: data.fileName, mimeType: data.mimeType },
				]),
			),
			pairedItem: item.pairedItem,
		}) as IDataObject;
	}
}

interface Scene {
	name: string;
	parameters: INodeParameters;
	items?: () => Promise<INodeExecutionData[]>;
	continueOnFail?: boolean;
	asTool?: boolean;
	/** Runs before the node: a fault, or tasks for a Task operation (their ids go into the items). */
	before?: () => Promise<INodeExecutionData[] | void>;
}

const withReference = async (json: IDataObject = {}): Promise<INodeExecutionData[]> => [
	{ json, binary: { data: await storeBinary(makePng(24, 16), 'reference.png', 'image/png') } },
];

/** Tasks created beforehand (not recorded): items that name them. */
async function tasksOf(resource: 'image' | 'video', count: number): Promise<INodeExecutionData[]> {
	const model = resource === 'image' ? 'betav4' : 'alphav15pro';
	const { output } = await runNode({
		parameters: {
			resource,
			operation: model,
			prompt: 'an earlier task',
			waitForCompletion: false,
			...(resource === 'video' ? { imageInput: 'properties', binaryPropertyNames: 'data' } : {}),
		},
		items: (await Promise.all(Array.from({ length: count }, async () => await withReference()))).flat(),
		credentials: context.credentials(),
	});
	expect(output.map((item) => item.json.status)).toEqual(Array(count).fill('pending'));
	await new Promise((resolve) => setTimeout(resolve, 100));
	return output.map((item) => ({ json: { taskid: item.json.taskid, taskType: item.json.taskType } }));
}

const waitOptions = { pollInterval: 0.05, maxWait: 5, downloadResults: true, pollSchedule: 'fixed' };

const scenes: Scene[] = [
	...[...IMAGE_MODELS, ...VIDEO_MODELS].map(
		(model): Scene => ({
			name: `${model.taskType} ${model.operation}: every field`,
			parameters: everyField(model),
			items: async () => await withReference(),
		}),
	),
	{
		name: 'image betav4: waited on, downloaded, split into items',
		parameters: {
			resource: 'image',
			operation: 'betav4',
			prompt: '={{ $json.idea }}',
			waitForCompletion: true,
			additionalFields: { batchsize: 2 },
			options: { ...waitOptions, split: true, binaryPropertyPrefix: 'file' },
		},
		items: async () => [{ json: { idea: 'two cats' } }, { json: { idea: 'three dogs' } }],
	},
	{
		name: 'image betav4: bad input, a refusal, a failed task and a pending one (Continue On Fail)',
		parameters: {
			resource: 'image',
			operation: 'betav4',
			prompt: '={{ $json.idea }}',
			waitForCompletion: true,
			additionalFields: { batchsize: '={{ $json.count }}' },
			options: { ...waitOptions, maxWait: 0.3, onTimeout: 'returnPending' },
		},
		items: async () => [
			{ json: { idea: 'fine', count: 1 } },
			{ json: { idea: 'too many', count: 99 } },
			{ json: { idea: '[sim:refuse] refused', count: 1 } },
			{ json: { idea: '[sim:fail] fails', count: 1 } },
			{ json: { idea: '[sim:never] never ends', count: 1 } },
		],
		continueOnFail: true,
	},
	{
		name: 'image betav4: no credits',
		parameters: { resource: 'image', operation: 'betav4', prompt: 'x', waitForCompletion: false },
		before: async () =>
			void context.sim.inject({
				path: '/v1/tlimages/betav4',
				action: { type: 'status', status: 200, body: '{"code":9000,"msg":"Insufficient credits"}' },
			}),
		continueOnFail: true,
	},
	{
		name: 'an AI Agent tool call',
		parameters: {
			resource: 'image',
			operation: 'betav4',
			prompt: 'a tool prompt',
			options: { pollInterval: 0.05 },
		},
		asTool: true,
	},
	...(['image', 'video'] as const).flatMap((taskType): Scene[] => [
		{
			name: `task get ${taskType}`,
			parameters: { resource: 'task', operation: 'get', taskType, taskId: '={{ $json.taskid }}', moreTaskInfo: true },
			before: async () => await tasksOf(taskType, 2),
		},
		{
			name: `task wait ${taskType}`,
			parameters: {
				resource: 'task',
				operation: 'wait',
				taskType: 'fromInput',
				taskId: '={{ $json.taskid }}',
				options: waitOptions,
			},
			before: async () => await tasksOf(taskType, 2),
		},
		{
			name: `task delete ${taskType}, combined`,
			parameters: {
				resource: 'task',
				operation: 'delete',
				taskType,
				taskIds: '={{ $json.taskid }}',
				combineItems: true,
				...(taskType === 'image' ? { uid: 'user-7' } : {}),
			},
			before: async () => [
				...(await tasksOf(taskType, 2)),
				{ json: { taskid: `${taskType === 'image' ? 'img' : 'vid'}-gone` } },
			],
		},
	]),
];

describe('what every operation sends and outputs stays as recorded', () => {
	const recorded: Record<string, unknown> = {};

	it.each(scenes.map((scene) => [scene.name, scene] as const))('%s', async (name, scene) => {
		const stable = new Stable();
		const items = (await scene.before?.()) ?? (await scene.items?.()) ?? [{ json: {} }];
		const since = context.sim.record.length;
		const { output, errorOutput, error } = await runNode({
			parameters: scene.parameters,
			items,
			credentials: context.credentials(),
			continueOnFail: scene.continueOnFail,
			asTool: scene.asTool,
		});
		// Ids are named in an order that does not depend on timing: the input's, then the output's. Requests (sent
		// concurrently) are compared as a set in an order of their own: how many status checks a wait takes is
		// timing's, the polling tests' to judge.
		stable.value(items.map((item) => item.json));
		const out = {
			output: output.map((item) => stable.item(item)),
			errorOutput: errorOutput.map((item) => stable.item(item)),
			error: error ? stable.value({ message: error.message, description: error.description }) : null,
		};
		const requests = context.sim.record
			.slice(since)
			.filter((request) => !request.path.startsWith('/files/'))
			.map((request) => stable.request(request))
			.map((request) => JSON.stringify(request))
			.filter((request, index, all) => all.indexOf(request) === index)
			.sort()
			.map((request) => JSON.parse(request) as unknown);
		recorded[name] = JSON.parse(JSON.stringify({ requests, ...out })) as unknown;
		if (process.env.MEDIAGEN_UPDATE_GOLDEN === '1') return;
		const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, unknown>;
		expect(recorded[name]).toEqual(golden[name]);
	});

	afterAll(() => {
		if (process.env.MEDIAGEN_UPDATE_GOLDEN !== '1') return;
		const old = existsSync(GOLDEN) ? (JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, unknown>) : {};
		writeFileSync(GOLDEN, `${JSON.stringify({ ...old, ...recorded }, null, '\t')}\n`);
	});
});
