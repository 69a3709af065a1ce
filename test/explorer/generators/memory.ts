/**
 * Generator "memory": the workflow's static data a schedule starts with, as n8n hands it on after production
 * executions. Nothing; the history an earlier run left of the renders generators/renders.ts says it saw (checked
 * on a grid or by learned checks; under this render kind, another tier of the model or another model); or
 * anything at all where the node keeps its history: other JSON shapes, keys named like the prototype, times that
 * are not times (NaN, Infinity, text, negative, reversed), a huge array, deep nesting, keys no model uses, other
 * nodes' histories, an earlier version's times in the node's own static data. Drawn from the schedule's own
 * "memory" stream. Other nodes' state sits beside it (a polling trigger's cursor, a key in `global`): the static
 * data must come back exactly as it was, whatever the node learned (invariant 15).
 */
import type { IDataObject } from 'n8n-workflow';

import { BETAV4 } from '../../../nodes/MediaGen/models/image';
import { ALPHAV15PRO, ALPHAV2MINI } from '../../../nodes/MediaGen/models/video';
import { renderKey, STATIC_KEY } from '../../../nodes/MediaGen/learning/history';
import { Random } from '../random';
import type { Schedule } from '../schedule';
import type { RenderPlan } from './renders';

/** The harness gives the node this id (test/harness). */
const NODE_ID = 'mediagen-node';

/** What a key beside the node's holds before the run, and must hold after it. */
export const UNTOUCHED = { note: 'another node’s static data', list: [1, 2, 3] };

export type MemoryKind =
	| 'nothing'
	| 'seen by a grid'
	| 'seen by learned checks'
	| 'another model'
	| 'not an object'
	| 'prototype keys'
	| 'not times'
	| 'huge array'
	| 'deep nesting'
	| 'unknown keys'
	| 'other nodes';

export interface Memory {
	kind: MemoryKind;
	staticData?: IDataObject;
}

const KINDS: ReadonlyArray<readonly [number, MemoryKind]> = [
	[6, 'nothing'],
	[6, 'seen by a grid'],
	[6, 'seen by learned checks'],
	[1, 'another model'],
	[1, 'not an object'],
	[1, 'prototype keys'],
	[1, 'not times'],
	[1, 'huge array'],
	[1, 'deep nesting'],
	[1, 'unknown keys'],
	[1, 'other nodes'],
];

/** The keys of the schedule's render kind and of another tier of its model. */
function keysOf(schedule: Schedule): { same: string; otherTier: string } {
	if (schedule.operation === 'alphav15pro')
		return {
			same: renderKey(ALPHAV15PRO, {}).key,
			otherTier: renderKey(ALPHAV15PRO, { duration: 10, resolution: '1080p' }).key,
		};
	return { same: renderKey(BETAV4, {}).key, otherTier: renderKey(BETAV4, { resolution: '16:9' }).key };
}

/** What the checks of a run would have seen of renders of `times` ms: a grid's intervals, or learned checks'. */
function observations(times: number[], intervalMs: number, grid: boolean): number[][] {
	return times.map((ms) => {
		if (!grid) return [Math.max(1, ms - 5), ms + 5];
		const lo = Math.floor(ms / intervalMs) * intervalMs;
		return [lo, lo + intervalMs];
	});
}

const history = (keys: IDataObject, extra: IDataObject = {}): IDataObject => ({
	n: 3,
	nodes: { [NODE_ID]: { u: 3, keys }, ...extra },
});

function hostile(kind: MemoryKind, random: Random, key: string, seen: number[][]): unknown {
	switch (kind) {
		case 'not an object':
			return random.pick([null, 42, 'not a history', [1, 2, 3], true]);
		case 'prototype keys':
			return JSON.parse(
				`{"__proto__":{"polluted":true},"nodes":{"__proto__":{"u":1},"${NODE_ID}":{"keys":{"__proto__":{"o":[[1,2]]},"constructor":{"u":1,"o":[[10,20]]},"${key}":{"u":"x","o":${JSON.stringify(seen)}}}}}}`,
			) as unknown;
		case 'not times':
			return history({
				[key]: { u: NaN, o: [[NaN, 5], [Infinity, 1], ['1', '2'], [-5, 10], [5, 1], [1, 1e13], null, {}, [1, 2, 3]] },
			});
		case 'huge array':
			return history({ [key]: { u: 2, o: Array.from({ length: 20_000 }, (_, i) => seen[i % seen.length]) } });
		case 'deep nesting':
			return history({ [key]: JSON.parse(`${'{"o":'.repeat(150)}[[1,2]]${'}'.repeat(150)}`) as IDataObject });
		case 'unknown keys':
			return history({ 'foo|x=1': { o: seen }, 'betav4|resolution=1:1': { o: seen }, [key]: { u: 1, o: seen } });
		case 'other nodes': {
			const others: IDataObject = {};
			for (let node = 0; node < 12; node++) others[`node-${node}`] = { u: node, keys: { [key]: { u: node, o: seen } } };
			return history({ [key]: { u: 3, o: seen } }, others);
		}
		default:
			return history({ [renderKey(ALPHAV2MINI, {}).key]: { u: 2, o: seen } });
	}
}

export function memoryFor(schedule: Schedule, renders: RenderPlan): Memory {
	const random = Random.stream(schedule.seed, 'memory');
	const kind = random.weighted(KINDS);
	const others = (): IDataObject => ({
		global: { other: JSON.parse(JSON.stringify(UNTOUCHED)) as IDataObject },
		'node:RSS Feed Trigger': { lastItemDate: '2026-11-26T10:00:00.000Z', lastTimeChecked: '2026-11-27T00:00:00Z' },
	});
	if (kind === 'nothing') return { kind, staticData: others() };
	const keys = keysOf(schedule);
	const key = renders.pastTier === 'other' ? keys.otherTier : keys.same;
	const intervalMs = schedule.pollIntervalS * 1000;
	const seen = observations(renders.past, intervalMs, kind !== 'seen by learned checks');
	const stored =
		kind === 'seen by a grid' || kind === 'seen by learned checks'
			? history({ [key]: { u: 3, o: seen } })
			: hostile(kind, random, key, seen);
	const staticData = others();
	(staticData.global as IDataObject)[STATIC_KEY] = stored as IDataObject;
	if (random.chance(0.3)) staticData[`node:MediaGen ${schedule.seed}`] = { [STATIC_KEY]: { 'image/betav4': [1, 2] } };
	return { kind, staticData };
}
