/**
 * What the learned Poll Schedule remembers between executions, and under which keys.
 *
 * Where it lives: n8n gives a node two kinds of workflow static data, 'node' (stored under the node's *name*: a
 * rename would start it from nothing) and 'global'. The history lives in 'global', under STATIC_KEY, per node
 * *id*, which n8n keeps when a node is renamed (a copied node gets a new id and learns anew). n8n saves static
 * data after production executions (trigger, webhook, schedule, chat), never after a manual test run (its
 * lifecycle hooks skip `saveStaticDataById` in manual mode): a test in the editor learns within its own run only,
 * and the node says so in the output pane (`noteManualRun`).
 *
 * Keys: render times differ with the model and with the fields its spec marks `renderTime` (tier, duration, size
 * or ratio, count): one key per model and values of those fields, e.g. `proimage|model=proimg-2-4k|size=|n=2`.
 * A key with too little history falls back to its model (every key of the model pooled).
 *
 * Shape, read from anything without a throw and written bounded (about MAX_NODE_CHARS per node whatever the
 * workflow does): `{ n: <learned runs>, nodes: { <node id>: { u: <run last used>, keys: { <key>: { u, o: [[lo,
 * hi], …] } } } } }`, ages in whole ms (policy.ts's Observation), oldest first. Keys that no model of this node
 * uses are dropped; nothing else is stored (no prompt, task id, URL or key).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { IMAGE_MODELS } from '../models/image';
import type { ModelSpec } from '../models/types';
import { VIDEO_MODELS } from '../models/video';
import { fingerprint } from './memory';
import type { Observation } from './policy';

/** Where the history lives in the workflow's global static data. */
export const STATIC_KEY = 'mediagenRenderTimes';

/** Where an earlier version kept times, in the node's own static data: removed when a run writes the history. */
const OLD_NODE_KEY = 'mediagenRenderTimes';

/** Observations kept per key (the newest). */
export const KEPT_OBSERVATIONS = 48;

/** Keys kept per node (the most recently used). */
const MAX_KEYS = 24;

/** Nodes kept in the workflow (the most recently used: a deleted node's history goes after that many others). */
const MAX_NODES = 8;

/** A node's history as JSON stays under this many characters: least recently used keys go first. */
export const MAX_NODE_CHARS = 16_000;

/** Longest render age accepted: 30 days (ms). */
const MAX_AGE_MS = 30 * 24 * 3600 * 1000;

/** A render kind: its fine key and its model's (the fallback). */
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
	/** The run this key was last used in. */
	used: number;
	observations: Observation[];
}

/** One node's history: per key, what earlier runs saw. */
export type NodeHistory = Map<string, KeyHistory>;

/** A node's stored entry, read from anything: only keys of this node's models, bounded. */
function readNode(value: unknown): NodeHistory {
	const history: NodeHistory = new Map();
	if (!isRecord(value)) return history;
	const keys = own(value, 'keys');
	if (!isRecord(keys)) return history;
	const entries: Array<[string, KeyHistory]> = [];
	for (const key of Object.keys(keys)) {
		const entry = own(keys, key);
		if (!modelOfKey(key) || !isRecord(entry)) continue;
		const observations = readObservations(own(entry, 'o'));
		if (observations.length) entries.push([key, { used: stamp(own(entry, 'u')), observations }]);
	}
	entries.sort((a, b) => b[1].used - a[1].used);
	for (const [key, entry] of entries.slice(0, MAX_KEYS)) history.set(key, entry);
	return history;
}

/** The id a node's history is stored under: its id when that is plain, else its fingerprint. */
function nodeSlot(nodeId: string): string {
	return /^[A-Za-z0-9-]{1,64}$/.test(nodeId) ? nodeId : `#${fingerprint(nodeId)}`;
}

function globalStore(context: IExecuteFunctions): Record<string, unknown> {
	try {
		const stored: unknown = context.getWorkflowStaticData('global')[STATIC_KEY];
		return isRecord(stored) ? stored : {};
	} catch {
		return {};
	}
}

/** This node's history as earlier production runs left it (empty when there is none, or it cannot be read). */
export function readHistory(context: IExecuteFunctions): { run: number; history: NodeHistory } {
	try {
		const store = globalStore(context);
		const nodes = own(store, 'nodes');
		const entry = isRecord(nodes) ? own(nodes, nodeSlot(context.getNode().id)) : undefined;
		return { run: stamp(own(store, 'n')), history: readNode(entry) };
	} catch {
		return { run: 0, history: new Map() };
	}
}

function nodeJson(history: NodeHistory, used: number): IDataObject {
	const keys: IDataObject = {};
	for (const [key, entry] of history)
		keys[key] = {
			u: entry.used,
			o: entry.observations.map(({ lo, hi }) => [Math.round(lo), Math.max(Math.round(hi), Math.round(lo) + 1)]),
		};
	return { u: used, keys };
}

/** A node's history within MAX_KEYS and MAX_NODE_CHARS: the least recently used keys go first. */
export function bounded(history: NodeHistory): NodeHistory {
	const entries = [...history]
		.filter(([key, entry]) => modelOfKey(key) && entry.observations.length)
		.sort((a, b) => b[1].used - a[1].used)
		.slice(0, MAX_KEYS)
		.map(([key, entry]): [string, KeyHistory] => [
			key,
			{ used: entry.used, observations: entry.observations.slice(-KEPT_OBSERVATIONS) },
		]);
	while (entries.length && JSON.stringify(nodeJson(new Map(entries), 0)).length > MAX_NODE_CHARS) entries.pop();
	return new Map(entries);
}

/**
 * Writes this node's history after a run (`history`: every key it keeps, the run's keys stamped `run`); the
 * other nodes' entries are read back bounded, and only the MAX_NODES most recently used nodes stay.
 */
export function writeHistory(context: IExecuteFunctions, run: number, history: NodeHistory): void {
	try {
		const store = globalStore(context);
		const storedNodes = own(store, 'nodes');
		const nodes: Array<[string, { used: number; history: NodeHistory }]> = [];
		if (isRecord(storedNodes)) {
			for (const slot of Object.keys(storedNodes).slice(0, 4 * MAX_NODES)) {
				const entry = own(storedNodes, slot);
				if (!/^#?[A-Za-z0-9-]{1,64}$/.test(slot) || !isRecord(entry)) continue;
				nodes.push([slot, { used: stamp(own(entry, 'u')), history: bounded(readNode(entry)) }]);
			}
		}
		const self = nodeSlot(context.getNode().id);
		const others = nodes.filter(([slot]) => slot !== self).sort((a, b) => b[1].used - a[1].used);
		const kept = [[self, { used: run, history: bounded(history) }] as const, ...others.slice(0, MAX_NODES - 1)];
		const written: IDataObject = {};
		for (const [slot, entry] of kept) written[slot] = nodeJson(entry.history, entry.used);
		context.getWorkflowStaticData('global')[STATIC_KEY] = { n: run, nodes: written };
		const nodeData = context.getWorkflowStaticData('node');
		if (OLD_NODE_KEY in nodeData) delete nodeData[OLD_NODE_KEY];
	} catch {
		// A context without workflow static data learns within the run only.
	}
}

/**
 * n8n saves static data only after production executions: a manual test run says, in the output pane, that what
 * it learned is not kept.
 */
export function noteManualRun(context: IExecuteFunctions): void {
	try {
		if (context.getMode() !== 'manual') return;
		context.addExecutionHints({
			message:
				'Poll Schedule learned render times in this test run, but n8n keeps what a workflow learns only after production executions (trigger, webhook, schedule, chat), not after manual runs: production runs place their checks from what earlier production runs saw.',
			location: 'outputPane',
		});
	} catch {
		// A context without hints (some tool contexts) says nothing.
	}
}
