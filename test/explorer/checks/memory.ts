/**
 * Invariant 15, what the node keeps costs the workflow nothing: whatever the workflow's static data held before the
 * run (generators/memory.ts), the run did not end in a throw over it, left it exactly as it was and did not tell
 * n8n it changed (n8n would then save the whole column, other nodes' state included); and what the process
 * learned for the schedule's node and API (nodes/MediaGen/learning/store.ts) is a history: at most MAX_KEYS kinds
 * (MAX_API_KEYS for the API), each of this node's models, at most KEPT_OBSERVATIONS render ages in whole ms, and
 * nothing the run sent or received (no key, prompt, task id or URL).
 */
import type { IDataObject } from 'n8n-workflow';

import { KEPT_OBSERVATIONS, MAX_KEYS, type NodeHistory } from '../../../nodes/MediaGen/learning/history';
import { MAX_API_KEYS } from '../../../nodes/MediaGen/learning/store';
import { IMAGE_MODELS } from '../../../nodes/MediaGen/models/image';
import { VIDEO_MODELS } from '../../../nodes/MediaGen/models/video';
import type { Observation } from '../invariants';

const OPERATIONS = new Set([...IMAGE_MODELS, ...VIDEO_MODELS].map((spec) => spec.operation));

function checkHistory(name: string, history: NodeHistory, maxKeys: number, fail: (text: string) => void): void {
	if (history.size > maxKeys) fail(`${name} keeps ${history.size} render kinds`);
	for (const [key, { observations }] of history) {
		if (!OPERATIONS.has(key.split('|')[0])) fail(`${name} keeps key "${key}", which no model of this node makes`);
		if (observations.length > KEPT_OBSERVATIONS) fail(`${name} keeps ${observations.length} ages under "${key}"`);
		const valid = observations.every(
			({ lo, hi }) => Number.isSafeInteger(lo) && Number.isSafeInteger(hi) && lo >= 0 && hi > lo,
		);
		if (!valid) fail(`${name} keeps under "${key}" something that is not render ages`);
	}
}

/** The static data as it was: reading it makes n8n add an empty, unmarked `global`, which is n8n's own doing. */
function asItWas(staticData: IDataObject, before: string): boolean {
	const { global, ...rest } = staticData;
	const added = global !== undefined && JSON.stringify(global) === '{}' && !before.includes('"global"');
	return JSON.stringify(added ? rest : staticData) === before;
}

export function checkMemory(observation: Observation, fail: (text: string) => void): void {
	const { staticData, staticBefore, learned, apiKey, schedule } = observation;
	if (observation.crashed !== undefined) return;
	if (staticData && staticBefore !== undefined) {
		if (!asItWas(staticData, staticBefore)) fail('the workflow’s static data changed');
		if ((staticData as { __dataChanged?: boolean }).__dataChanged) fail('n8n was told the static data changed');
	}
	if (!learned) return;
	checkHistory('the node', learned.own, MAX_KEYS, fail);
	checkHistory('the API', learned.api, MAX_API_KEYS, fail);
	const text = JSON.stringify([...learned.own, ...learned.api]);
	for (const secret of [apiKey, `T${schedule.seed}-`, 'idea ', 'http', '127.0.0.1'])
		if (text.includes(secret)) fail(`what the process learned holds "${secret}"`);
}
