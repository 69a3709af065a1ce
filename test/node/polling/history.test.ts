/**
 * What Poll Schedule "Learned" keeps in the workflow's static data (nodes/MediaGen/waiting/history.ts): keys per
 * render kind, any stored shape read without a throw, a bounded and clean history written back whatever the
 * workflow does, nothing secret in it.
 */
import type { IDataObject, IExecuteFunctions, INodeParameters } from 'n8n-workflow';

import { runNode } from '../../harness';
import { DEFAULT_SIM_KEY, useSimulator } from '../../support';
import { IMAGE_MODELS, PROIMAGE } from '../../../nodes/MediaGen/models/image';
import { VIDEO_MODELS } from '../../../nodes/MediaGen/models/video';
import {
	MAX_NODE_CHARS,
	modelOfKey,
	readHistory,
	renderKey,
	STATIC_KEY,
} from '../../../nodes/MediaGen/waiting/history';

const KEY = 'betav4|batchsize=|resolution=';

/** The node's history as stored: `{ n, nodes: { <id>: { u, keys: { <key>: { u, o } } } } }`. */
const store = (staticData: IDataObject) => (staticData.global as IDataObject | undefined)?.[STATIC_KEY] as IDataObject;
const nodeEntry = (staticData: IDataObject, id = 'mediagen-node') =>
	(store(staticData).nodes as IDataObject)[id] as { u: number; keys: Record<string, { u: number; o: number[][] }> };

/** A context with only what history.ts reads. */
function contextWith(staticData: IDataObject, nodeId = 'mediagen-node'): IExecuteFunctions {
	staticData.global ??= {};
	return {
		getWorkflowStaticData: (type: string) => (type === 'global' ? staticData.global : {}) as IDataObject,
		getNode: () => ({ id: nodeId, name: 'MediaGen' }),
	} as unknown as IExecuteFunctions;
}

describe('render kinds: keys that match how renders vary', () => {
	it('every model keys its times by the fields its spec marks as changing render time', () => {
		const marked = (operation: string) =>
			[...IMAGE_MODELS, ...VIDEO_MODELS]
				.find((spec) => spec.operation === operation)!
				.fields.filter((field) => field.renderTime)
				.map((field) => field.wire);
		expect(marked('proimage')).toEqual(['model', 'size', 'n']);
		expect(marked('betav45')).toEqual(['batchsize', 'resolution']);
		expect(marked('betav4')).toEqual(['batchsize', 'resolution']);
		expect(marked('gammaimage')).toEqual(['resolution']);
		expect(marked('alphav2mini')).toEqual(['ratio', 'duration', 'resolution']);
		expect(marked('alphav15pro')).toEqual(['ratio', 'duration', 'resolution']);
	});

	it('tiers, sizes and counts are kinds of their own; odd values are kept as a fingerprint', () => {
		const key = (request: IDataObject) => renderKey(PROIMAGE, request).key;
		expect(key({ model: 'proimg-2-4k', n: 2, size: '16:9' })).toBe('proimage|model=proimg-2-4k|size=16:9|n=2');
		expect(key({ model: 'proimg-2' })).toBe('proimage|model=proimg-2|size=|n=');
		const odd = key({ model: 'proimg-2', size: 'a very long size that someone typed {{ }}' });
		expect(odd).toMatch(/^proimage\|model=proimg-2\|size=#[0-9a-z]+\|n=$/);
		expect(modelOfKey(odd)).toBe('proimage');
		expect(modelOfKey('proimage|model=proimg-2')).toBeUndefined();
		expect(modelOfKey('unknown|x=1')).toBeUndefined();
	});
});

describe('static data: any shape read, a small clean history written', () => {
	const context = useSimulator();

	const parameters = (options: IDataObject = {}): INodeParameters => ({
		resource: 'image',
		operation: 'betav4',
		prompt: '={{ $json.idea }}',
		waitForCompletion: true,
		options: { pollInterval: 0.05, downloadResults: false, ...options },
	});

	async function runWith(staticData: IDataObject, items = 1, idea = 'idea') {
		const { output, error } = await runNode({
			parameters: parameters(),
			items: Array.from({ length: items }, (_, i) => ({ json: { idea: `[sim:seconds=0.1] ${idea} ${i}` } })),
			credentials: context.credentials(),
			staticData,
			mode: 'webhook',
		});
		expect(error).toBeUndefined();
		expect(output.every((item) => item.json.status === 'completed')).toBe(true);
		return output;
	}

	const times = (count: number) => Array.from({ length: count }, (_, i) => [100 + (i % 50), 200 + (i % 50)]);
	const hostile: Array<[string, unknown]> = [
		['null', null],
		['a number', 42],
		['text', 'not a history'],
		['a list', [1, 2, 3]],
		['nodes that are not an object', { n: 'x', nodes: [] }],
		['a node that is a number', { nodes: { 'mediagen-node': 5 } }],
		[
			'keys named like the prototype',
			{ nodes: { 'mediagen-node': { keys: JSON.parse('{"__proto__":{"o":[[1,2]]},"constructor":{"o":5}}') } } },
		],
		[
			'times that are not times',
			{
				nodes: {
					'mediagen-node': {
						u: -1,
						keys: {
							[KEY]: {
								u: 'x',
								o: [[NaN, 5], [Infinity, 1], ['1', '2'], [-5, 10], [5, 1], [1, 2e12], null, {}, [1, 2, 3]],
							},
						},
					},
				},
			},
		],
		['250,000 stored times', { nodes: { 'mediagen-node': { keys: { [KEY]: { o: times(250_000) } } } } }],
		[
			'times of another model and unknown keys',
			{
				nodes: {
					'mediagen-node': {
						keys: {
							'alphav15pro|ratio=adaptive|duration=5|resolution=480p': { u: 3, o: times(10) },
							'betav4|resolution=1:1': { o: times(10) },
							'foo|x=1': { o: times(10) },
						},
					},
				},
			},
		],
		['nested deeply', { nodes: { 'mediagen-node': JSON.parse('{"a":'.repeat(200) + '1' + '}'.repeat(200)) } }],
	];

	it.each(hostile)('reads %s without a throw, and writes back a clean history', async (_, value) => {
		const staticData: IDataObject = { global: { [STATIC_KEY]: value as IDataObject, other: 'kept' } };
		await runWith(staticData);
		expect((staticData.global as IDataObject).other).toBe('kept');
		const entry = nodeEntry(staticData);
		for (const [key, kind] of Object.entries(entry.keys)) {
			expect(modelOfKey(key)).toBeDefined();
			expect(kind.o.length).toBeLessThanOrEqual(48);
			for (const [lo, hi] of kind.o) {
				expect(Number.isSafeInteger(lo) && Number.isSafeInteger(hi)).toBe(true);
				expect(hi).toBeGreaterThan(lo);
			}
		}
		expect(entry.keys[KEY].o.length).toBeGreaterThanOrEqual(1);
		expect(Object.keys(entry.keys).filter((key) => key.startsWith('foo') || key === 'betav4|resolution=1:1')).toEqual(
			[],
		);
		expect(JSON.stringify(entry).length).toBeLessThanOrEqual(MAX_NODE_CHARS);
	});

	it('reads 250,000 stored times quickly (only the newest are looked at)', () => {
		const staticData: IDataObject = {
			global: { [STATIC_KEY]: { nodes: { 'mediagen-node': { keys: { [KEY]: { o: times(250_000) } } } } } },
		};
		const startedAt = performance.now();
		const { history } = readHistory(contextWith(staticData));
		expect(performance.now() - startedAt).toBeLessThan(50);
		expect(history.get(KEY)?.observations).toHaveLength(48);
	});

	it('keeps times of this node’s other models, and drops keys that no model of this node uses', async () => {
		const staticData: IDataObject = { global: { [STATIC_KEY]: hostile[9][1] as IDataObject } };
		await runWith(staticData);
		expect(Object.keys(nodeEntry(staticData).keys).sort()).toEqual([
			'alphav15pro|ratio=adaptive|duration=5|resolution=480p',
			KEY,
		]);
	});

	it('stays about 16 KB per node whatever the workflow does: 60 kinds in one run, 12 nodes', async () => {
		const staticData: IDataObject = {};
		const { output, error } = await runNode({
			parameters: {
				resource: 'image',
				operation: 'betav45',
				prompt: '={{ $json.idea }}',
				additionalFields: { resolution: '={{ $json.size }}' },
				waitForCompletion: true,
				options: { pollInterval: 0.05, downloadResults: false },
			},
			items: Array.from({ length: 60 }, (_, i) => ({
				json: { idea: `[sim:seconds=0.1] idea ${i}`, size: `${2000 + i}x2000` },
			})),
			credentials: context.credentials(),
			staticData,
			mode: 'webhook',
		});
		expect(error).toBeUndefined();
		expect(output).toHaveLength(60);
		const entry = nodeEntry(staticData);
		expect(Object.keys(entry.keys).length).toBeLessThanOrEqual(24);
		expect(JSON.stringify(entry).length).toBeLessThanOrEqual(MAX_NODE_CHARS);
		// Other MediaGen nodes of the workflow (or deleted ones): the 8 most recently used nodes stay.
		const nodes: IDataObject = {};
		for (let node = 0; node < 12; node++) nodes[`node-${node}`] = { ...entry, u: node };
		store(staticData).nodes = nodes;
		await runWith(staticData);
		const kept = Object.keys(store(staticData).nodes as IDataObject).sort();
		expect(kept).toEqual(['mediagen-node', ...[5, 6, 7, 8, 9, 10, 11].map((node) => `node-${node}`)].sort());
		expect(JSON.stringify(store(staticData)).length).toBeLessThanOrEqual(8 * MAX_NODE_CHARS);
	});

	it('holds no prompt, task id, URL or key; an older version’s times in the node’s own static data go', async () => {
		const staticData: IDataObject = { 'node:MediaGen': { mediagenRenderTimes: { 'image/betav4': [1, 2, 3] } } };
		const output = await runWith(staticData, 3, 'SECRET-PROMPT');
		const text = JSON.stringify(staticData);
		expect(text).not.toContain('SECRET-PROMPT');
		expect(text).not.toContain(DEFAULT_SIM_KEY);
		expect(text).not.toContain('http');
		for (const item of output) expect(text).not.toContain(String(item.json.taskid));
		expect((staticData['node:MediaGen'] as IDataObject).mediagenRenderTimes).toBeUndefined();
	});
});
