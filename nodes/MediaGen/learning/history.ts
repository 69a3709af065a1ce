/**
 * Render kinds (docs/waiting-and-output.md#poll-schedule) and the shape of what store.ts keeps of them; and the
 * reading, never the writing (store.ts says why), of what earlier versions left in the workflow's static data, which
 * starts a node's history once per process, read from any shape without a throw and bounded: under STATIC_KEY,
 * `{ n, nodes: { <node id>: { u, keys: { <key>: { u, o: [[lo, hi], …] } } } } }`, ages in whole ms, oldest first.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { IMAGE_MODELS } from '../models/image';
import type { ModelSpec } from '../models/types';
import { VIDEO_MODELS } from '../models/video';
import { fingerprint } from '../helpers/fingerprint';
import type { Observation } from './policy';

/** Where earlier versions kept the history, in the workflow's global static data (read only). */
export const STATIC_KEY = 'mediagenRenderTimes';

/** Observations kept per key (the newest). */
export const KEPT_OBSERVATIONS = 48;

/** Keys kept per node (the most recently used). */
export const MAX_KEYS = 24;

const MAX_AGE_MS = 30 * 24 * 3600 * 1000;

export interface RenderKey {
	key: string;
	model: string;
}

const SPECS = new Map<string, ModelSpec>([...IMAGE_MODELS, ...VIDEO_MODELS].map((spec) => [spec.operation, spec]));

/** A field's value as a key part: short safe text as it is, anything else as its fingerprint. */
function keyValue(value: unknown): string {
	const text = value === undefined || value === null ? '' : String(value);
	return /^[\w:.*-]{0,24}$/.test(text) ? text : `#${fingerprint(text)}`;
}

/** The render kind of a creation: its model and the values of the fields its spec marks `renderTime`. */
export function renderKey(spec: ModelSpec, request: IDataObject | undefined): RenderKey {
	const parts = spec.fields
		.filter((field) => field.renderTime)
		.map((field) => `${field.wire}=${keyValue(request?.[field.wire])}`);
	return { key: [spec.operation, ...parts].join('|'), model: spec.operation };
}

/** The model of a stored key, when the key is one this node's models make (its fields, in order); else undefined. */
export function modelOfKey(key: string): string | undefined {
	const [operation, ...parts] = key.split('|');
	const spec = SPECS.get(operation);
	if (!spec || key.length > 400) return undefined;
	const wires = spec.fields.filter((field) => field.renderTime).map((field) => field.wire);
	const fits =
		parts.length === wires.length &&
		parts.every((part, index) => {
			const [wire, ...value] = part.split('=');
			return wire === wires[index] && /^(#?[\w:.*-]{0,24})$/.test(value.join('='));
		});
	return fits ? operation : undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** An own property, never one of the prototype's (a stored `__proto__` or `constructor` is only data). */
function own(record: Record<string, unknown>, name: string): unknown {
	return Object.prototype.hasOwnProperty.call(record, name) ? record[name] : undefined;
}

const stamp = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0);

/** The newest valid observations of a stored list, oldest first; looks at a bounded tail of any array. */
function readObservations(value: unknown): Observation[] {
	if (!Array.isArray(value)) return [];
	const kept: Observation[] = [];
	const end = Math.max(0, value.length - 4 * KEPT_OBSERVATIONS);
	for (let index = value.length - 1; index >= end && kept.length < KEPT_OBSERVATIONS; index--) {
		const entry: unknown = value[index];
		if (!Array.isArray(entry) || entry.length !== 2) continue;
		const [lo, hi] = entry as unknown[];
		if (typeof lo !== 'number' || typeof hi !== 'number') continue;
		if (!(lo >= 0 && hi > lo && hi <= MAX_AGE_MS)) continue;
		kept.push({ lo: Math.round(lo), hi: Math.round(hi) });
	}
	return kept.reverse();
}

export interface KeyHistory {
	/** When this key was last used (learning/store.ts's clock): the least recently used go first. */
	used: number;
	observations: Observation[];
}

export type NodeHistory = Map<string, KeyHistory>;

/** A node's history within MAX_KEYS and KEPT_OBSERVATIONS, keys of this node's models only: the most recently used. */
export function bounded(history: NodeHistory): NodeHistory {
	const entries = [...history]
		.filter(([key, entry]) => modelOfKey(key) && entry.observations.length)
		.sort((a, b) => b[1].used - a[1].used)
		.slice(0, MAX_KEYS)
		.map(([key, entry]): [string, KeyHistory] => [
			key,
			{ used: entry.used, observations: entry.observations.slice(-KEPT_OBSERVATIONS) },
		]);
	return new Map(entries);
}

/**
 * The history an earlier version left for this node in the workflow's static data (empty when there is none, or
 * it cannot be read). Reading creates nothing n8n would save: n8n adds an empty `global` entry unmarked.
 */
export function readStaticHistory(context: IExecuteFunctions): NodeHistory {
	const history: NodeHistory = new Map();
	try {
		const stored: unknown = context.getWorkflowStaticData('global')[STATIC_KEY];
		const nodes = isRecord(stored) ? own(stored, 'nodes') : undefined;
		// A node's history was stored under its id when that is plain, else its fingerprint.
		const id = context.getNode().id;
		const node = isRecord(nodes) ? own(nodes, /^[A-Za-z0-9-]{1,64}$/.test(id) ? id : `#${fingerprint(id)}`) : undefined;
		const keys = isRecord(node) ? own(node, 'keys') : undefined;
		if (!isRecord(keys)) return history;
		for (const key of Object.keys(keys).slice(0, 4 * MAX_KEYS)) {
			const entry = own(keys, key);
			if (!modelOfKey(key) || !isRecord(entry)) continue;
			const observations = readObservations(own(entry, 'o'));
			if (observations.length) history.set(key, { used: stamp(own(entry, 'u')), observations });
		}
		return bounded(history);
	} catch {
		return new Map();
	}
}
