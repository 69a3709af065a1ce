/**
 * What Poll Schedule "Learned" remembers (nodes/MediaGen/learning/history.ts, store.ts): keys per render kind; the
 * history an earlier version left in the workflow's static data, in any shape, read without a throw and never
 * written back (the static data stays exactly as it was, and n8n is not told it changed); what the process keeps
 * bounded and clean, nothing secret in it.
 */
import type { IDataObject, IExecuteFunctions, INodeParameters } from 'n8n-workflow';

import { runNode } from '../../harness';
import { DEFAULT_SIM_KEY, expectStaticDataAsItWas, useSimulator } from '../../support';
import { IMAGE_MODELS, PROIMAGE } from '../../../nodes/MediaGen/models/image';
import { VIDEO_MODELS } from '../../../nodes/MediaGen/models/video';
import {
	KEPT_OBSERVATIONS,
	MAX_KEYS,
	modelOfKey,
	readStaticHistory,
	renderKey,
	STATIC_KEY,
} from '../../../nodes/MediaGen/learning/history';
import { LEARNED, LearnedStore } from '../../../nodes/MediaGen/learning/store';

const KEY = 'betav4|batchsize=|resolution=';

/** What the process keeps for the harness's node (its workflow and node ids), as a copy. */
const kept = (workflowId = 'mediagen-test-wf', nodeId = 'mediagen-node') =>
	LEARNED.read(LearnedStore.nodeSlot(workflowId, nodeId), undefined, () => new Map()).own;

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

describe('static data: an earlier version’s history read in any shape, nothing written', () => {
	const context = useSimulator();

	const parameters = (options: IDataObject = {}): INodeParameters => ({
		resource: 'image',
		operation: 'betav4',
		prompt: '={{ $json.idea }}',
		waitForCompletion: true,
		options: { pollInterval: 0.05, downloadResults: false, ...options },
	});

	/** A production run (webhook) that reads `staticData`; `learned`: what the process learned before is kept. */
	async function runWith(staticData: IDataObject, items = 1, idea = 'idea', learned: 'fresh' | 'kept' = 'fresh') {
		const { output, error } = await runNode({
			parameters: parameters(),
			items: Array.from({ length: items }, (_, i) => ({ json: { idea: `[sim:seconds=0.1] ${idea} ${i}` } })),
			credentials: context.credentials(),
			staticData,
			mode: 'webhook',
			learned,
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

	it.each(hostile)(
		'reads %s without a throw, leaves the static data as it was, keeps a clean history',
		async (_, value) => {
			const staticData: IDataObject = {
				global: { [STATIC_KEY]: value as IDataObject, other: 'kept' },
				'node:RSS Feed Trigger': { lastItemDate: '2026-11-26T10:00:00.000Z' },
			};
			const before = JSON.stringify(staticData);
			await runWith(staticData);
			expectStaticDataAsItWas(staticData, before);
			const history = kept();
			for (const [key, kind] of history) {
				expect(modelOfKey(key)).toBeDefined();
				expect(kind.observations.length).toBeLessThanOrEqual(KEPT_OBSERVATIONS);
				for (const { lo, hi } of kind.observations) {
					expect(Number.isSafeInteger(lo) && Number.isSafeInteger(hi)).toBe(true);
					expect(hi).toBeGreaterThan(lo);
				}
			}
			expect(history.get(KEY)?.observations.length).toBeGreaterThanOrEqual(1);
			expect([...history.keys()].filter((key) => key.startsWith('foo') || key === 'betav4|resolution=1:1')).toEqual([]);
			expect(history.size).toBeLessThanOrEqual(MAX_KEYS);
		},
	);

	it('reads 250,000 stored times quickly (only the newest are looked at)', () => {
		const staticData: IDataObject = {
			global: { [STATIC_KEY]: { nodes: { 'mediagen-node': { keys: { [KEY]: { o: times(250_000) } } } } } },
		};
		const startedAt = performance.now();
		const history = readStaticHistory(contextWith(staticData));
		expect(performance.now() - startedAt).toBeLessThan(50);
		expect(history.get(KEY)?.observations).toHaveLength(48);
	});

	it('an earlier version’s times start the node (once per process); its other models’ times are kept, unknown keys dropped', async () => {
		const staticData: IDataObject = { global: { [STATIC_KEY]: hostile[9][1] as IDataObject } };
		const before = JSON.stringify(staticData);
		await runWith(staticData);
		expectStaticDataAsItWas(staticData, before);
		expect([...kept().keys()].sort()).toEqual(['alphav15pro|ratio=adaptive|duration=5|resolution=480p', KEY]);
		// Once the process knows the node, the static data is not read again: what the process learned counts.
		const other: IDataObject = {
			global: { [STATIC_KEY]: { nodes: { 'mediagen-node': { keys: { [KEY]: { o: times(40) } } } } } },
		};
		await runWith(other, 1, 'idea', 'kept');
		expect(kept().get(KEY)!.observations.length).toBeLessThan(10);
	});

	it('stays bounded per node whatever the workflow does: 60 kinds in one run', async () => {
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
		expect(kept().size).toBe(MAX_KEYS);
		expectStaticDataAsItWas(staticData, '{}');
	});

	it('holds no prompt, task id, URL or key, and writes nothing to the static data, an earlier version’s key included', async () => {
		const staticData: IDataObject = { 'node:MediaGen': { mediagenRenderTimes: { 'image/betav4': [1, 2, 3] } } };
		const before = JSON.stringify(staticData);
		const output = await runWith(staticData, 3, 'SECRET-PROMPT');
		expectStaticDataAsItWas(staticData, before);
		const text = JSON.stringify([...kept()]);
		expect(text).toContain('betav4');
		expect(text).not.toContain('SECRET-PROMPT');
		expect(text).not.toContain(DEFAULT_SIM_KEY);
		expect(text).not.toContain('http');
		expect(text).not.toContain('127.0.0.1');
		for (const item of output) expect(text).not.toContain(String(item.json.taskid));
	});
});
