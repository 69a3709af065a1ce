/**
 * What the n8n process keeps of render times (nodes/MediaGen/learning/store.ts): bounded whatever the instance
 * serves, least recently used first out, executions at once each adding what they saw, a stale kind replaced, an
 * API's kinds pooled from every node.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

import { KEPT_OBSERVATIONS, MAX_KEYS, type NodeHistory } from '../../../nodes/MediaGen/learning/history';
import type { Observation } from '../../../nodes/MediaGen/learning/policy';
import { LearnedStore, MAX_OBSERVATIONS, MAX_SLOTS, type KeptKind } from '../../../nodes/MediaGen/learning/store';

// A full garbage collection before each heap reading: what is measured is what the store keeps alive.
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;
const heapUsed = () => {
	collect();
	return process.memoryUsage().heapUsed;
};

const kinds = ['betav4|batchsize=|resolution=', 'betav45|batchsize=|resolution=', 'gammaimage|resolution=1k'];
const none = (): NodeHistory => new Map();

const seen = (count: number, from = 3000): Observation[] =>
	Array.from({ length: count }, (_, i) => ({ lo: from + i, hi: from + i + 200 }));

const run = (observations: Observation[], replaces = false, keys = [kinds[0]]): Map<string, KeptKind> =>
	new Map(keys.map((key) => [key, { observations, replaces }]));

describe('the process’s store of render times', () => {
	it('an instance serving 10,000 workflows keeps at most MAX_SLOTS slots and MAX_OBSERVATIONS ages', () => {
		const store = new LearnedStore();
		const heapBefore = heapUsed();
		for (let workflow = 0; workflow < 10_000; workflow++) {
			for (let node = 0; node < 2; node++) {
				const slot = LearnedStore.nodeSlot(`wf-${workflow}`, `node-${node}`);
				store.read(slot, `api-${workflow % 50}`, none, kinds);
				store.keep(slot, `api-${workflow % 50}`, run(seen(KEPT_OBSERVATIONS), false, kinds));
			}
			const { slots, observations } = store.size;
			expect(slots).toBeLessThanOrEqual(MAX_SLOTS);
			expect(observations).toBeLessThanOrEqual(MAX_OBSERVATIONS);
		}
		// Ages are two small numbers: what the store keeps alive stays at a few MB, whatever ran before.
		const grown = heapUsed() - heapBefore;
		expect(grown).toBeLessThan(24 * 2 ** 20);
		// The most recently used stay; the first workflows went.
		const latest = store.read(LearnedStore.nodeSlot('wf-9999', 'node-1'), undefined, none);
		expect(latest.own.get(kinds[0])?.observations).toHaveLength(KEPT_OBSERVATIONS);
		expect(store.read(LearnedStore.nodeSlot('wf-0', 'node-0'), undefined, none).own.size).toBe(0);
	});

	it('a slot used again is kept over slots used less recently', () => {
		const store = new LearnedStore();
		const busy = LearnedStore.nodeSlot('busy', 'node');
		store.keep(busy, undefined, run(seen(5)));
		for (let workflow = 0; workflow < 3 * MAX_SLOTS; workflow++) {
			store.keep(LearnedStore.nodeSlot(`wf-${workflow}`, 'node'), undefined, run(seen(5)));
			if (workflow % 1000 === 0) store.read(busy, undefined, none);
		}
		expect(store.read(busy, undefined, none).own.get(kinds[0])?.observations).toHaveLength(5);
	});

	it('a node keeps its MAX_KEYS most recently used kinds, each its KEPT_OBSERVATIONS newest ages', () => {
		const store = new LearnedStore();
		const slot = LearnedStore.nodeSlot('wf', 'node');
		for (let size = 0; size < 40; size++) {
			const key = `betav45|batchsize=|resolution=${1000 + size}x1000`;
			store.keep(slot, undefined, run(seen(30, 1000 + size), false, [key]));
			store.keep(slot, undefined, run(seen(30, 2000 + size), false, [key]));
		}
		const { own } = store.read(slot, undefined, none);
		expect(own.size).toBe(MAX_KEYS);
		expect(own.has('betav45|batchsize=|resolution=1039x1000')).toBe(true);
		expect(own.has('betav45|batchsize=|resolution=1000x1000')).toBe(false);
		const newest = own.get('betav45|batchsize=|resolution=1039x1000')!.observations;
		expect(newest).toHaveLength(KEPT_OBSERVATIONS);
		expect(newest[newest.length - 1].lo).toBe(2000 + 39 + 29);
	});

	it('executions at once each add what they saw; a stale kind is replaced by what its run saw', () => {
		const store = new LearnedStore();
		const slot = LearnedStore.nodeSlot('wf', 'node');
		const first = store.read(slot, 'api', none);
		const second = store.read(slot, 'api', none);
		expect(first.own.size + second.own.size).toBe(0);
		store.keep(slot, 'api', run(seen(3, 3000)));
		store.keep(slot, 'api', run(seen(3, 4000)));
		expect(store.read(slot, 'api', none).own.get(kinds[0])?.observations).toHaveLength(6);
		store.keep(slot, 'api', run(seen(2, 9000), true));
		const after = store.read(slot, 'api', none, kinds);
		expect(after.own.get(kinds[0])?.observations.map((o) => o.lo)).toEqual([9000, 9001]);
		expect(after.api.get(kinds[0])?.observations.map((o) => o.lo)).toEqual([9000, 9001]);
	});

	it('an API’s slot pools every node’s times of a kind; another API’s stays apart; reads are copies', () => {
		const store = new LearnedStore();
		store.keep(LearnedStore.nodeSlot('a', 'n'), 'api-1', run(seen(3, 3000)));
		store.keep(LearnedStore.nodeSlot('b', 'n'), 'api-1', run(seen(3, 3100)));
		store.keep(LearnedStore.nodeSlot('c', 'n'), 'api-2', run(seen(3, 9000)));
		const fresh = store.read(LearnedStore.nodeSlot('new', 'n'), 'api-1', none, kinds);
		expect(fresh.own.size).toBe(0);
		expect(fresh.api.get(kinds[0])?.observations.map((o) => o.lo)).toEqual([3000, 3001, 3002, 3100, 3101, 3102]);
		fresh.api.get(kinds[0])!.observations.length = 0;
		expect(
			store.read(LearnedStore.nodeSlot('new', 'n'), 'api-1', none, kinds).api.get(kinds[0])?.observations,
		).toHaveLength(6);
	});

	it('what an earlier version left is asked for once, when the process knows nothing of the node', () => {
		const store = new LearnedStore();
		const slot = LearnedStore.nodeSlot('wf', 'node');
		let asked = 0;
		const seed = (): NodeHistory => {
			asked++;
			return new Map([[kinds[0], { used: 99, observations: seen(5) }]]);
		};
		expect(store.read(slot, undefined, seed).own.get(kinds[0])?.observations).toHaveLength(5);
		expect(store.read(slot, undefined, seed).own.get(kinds[0])?.observations).toHaveLength(5);
		expect(asked).toBe(1);
	});

	it('holds only whole ms ages, done after not done', () => {
		const store = new LearnedStore();
		const slot = LearnedStore.nodeSlot('wf', 'node');
		store.keep(
			slot,
			undefined,
			run([
				{ lo: 10.4, hi: 10.6 },
				{ lo: 0, hi: 0.2 },
			]),
		);
		expect(store.read(slot, undefined, none).own.get(kinds[0])?.observations).toEqual([
			{ lo: 10, hi: 11 },
			{ lo: 0, hi: 1 },
		]);
	});
});
