/**
 * Invariant 15, static data stays small and safe: whatever the workflow's static data held before the run
 * (generators/memory.ts), the run did not end in a throw over it, and what the node's history holds after it is a
 * history — nodes of at most about 16 KB each, at most 8 of them, keys of this node's models only, render ages as
 * whole milliseconds, nothing the run sent or received (no key, prompt, task id or URL) — and what else the static
 * data held is untouched.
 */
import type { IDataObject } from 'n8n-workflow';

import { IMAGE_MODELS } from '../../../nodes/MediaGen/models/image';
import { VIDEO_MODELS } from '../../../nodes/MediaGen/models/video';
import { STATIC_KEY } from '../../../nodes/MediaGen/waiting/history';
import { memoryFor, UNTOUCHED } from '../generators/memory';
import type { Observation } from '../invariants';

/** About 16 KB per node, as the issue asks, and the node's own limit of nodes kept. */
const NODE_CHARS = 16_384;
const NODES = 8;

const OPERATIONS = new Set([...IMAGE_MODELS, ...VIDEO_MODELS].map((spec) => spec.operation));

const isRecord = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

function checkNode(id: string, entry: unknown, fail: (text: string) => void): void {
	const size = JSON.stringify(entry)?.length ?? 0;
	if (size > NODE_CHARS) fail(`node ${id}'s history is ${size} characters`);
	const keys = isRecord(entry) ? entry.keys : undefined;
	if (!isRecord(entry) || !isRecord(keys)) return fail(`node ${id}'s history is not { u, keys }`);
	for (const [key, kind] of Object.entries(keys)) {
		if (!OPERATIONS.has(key.split('|')[0])) fail(`node ${id} keeps key "${key}", which no model of this node makes`);
		const times = isRecord(kind) ? kind.o : undefined;
		const valid =
			Array.isArray(times) &&
			times.every(
				(pair) =>
					Array.isArray(pair) &&
					pair.length === 2 &&
					Number.isSafeInteger(pair[0]) &&
					Number.isSafeInteger(pair[1]) &&
					(pair[0] as number) >= 0 &&
					(pair[1] as number) > (pair[0] as number),
			);
		if (!valid) fail(`node ${id} keeps under "${key}" something that is not render ages: ${JSON.stringify(kind)}`);
	}
}

export function checkStaticData(observation: Observation, fail: (text: string) => void): void {
	const { staticData, apiKey, schedule } = observation;
	if (!staticData || observation.crashed !== undefined) return;
	const global = staticData.global as IDataObject;
	if (JSON.stringify(global.other) !== JSON.stringify(UNTOUCHED)) fail('the static data beside the node’s changed');
	const stored = global[STATIC_KEY];
	const before = (memoryFor(schedule, observation.world.renders).staticData?.global as IDataObject)[STATIC_KEY];
	const text = JSON.stringify(stored) ?? '';
	// Fixed Interval, Task → Wait and Task → Delete learn nothing, and a run stopped before the node ran wrote nothing.
	if (text === (JSON.stringify(before) ?? '')) return;
	for (const secret of [apiKey, `T${schedule.seed}-`, 'idea ', 'http'])
		if (text.includes(secret)) fail(`the node's history holds "${secret}"`);
	if (!isRecord(stored) || !isRecord(stored.nodes))
		return fail(`the node's history is not { n, nodes }: ${text.slice(0, 200)}`);
	const nodes = Object.entries(stored.nodes);
	if (nodes.length > NODES) fail(`the history keeps ${nodes.length} nodes`);
	for (const [id, entry] of nodes) checkNode(id, entry, fail);
}
