/**
 * Where Poll Schedule "Learned" keeps what it learned between executions: the n8n process's memory, never the
 * workflow's static data (docs/waiting-and-output.md#where-what-is-learned-is-kept says why). The node's one piece of
 * module-level mutable state (`LEARNED`), bounded, keyed and free of data as CONTRIBUTING.md's rules say; every
 * method is synchronous, so executions running at once never see half an update.
 */
import { bounded, KEPT_OBSERVATIONS, MAX_KEYS, type KeyHistory, type NodeHistory } from './history';
import type { Observation } from './policy';

/** Slots kept (nodes and APIs): an instance serving more workflows keeps the most recently used. */
export const MAX_SLOTS = 4_000;

/** Render ages kept in all slots together (two numbers each). */
export const MAX_OBSERVATIONS = 200_000;

/** Render kinds an API's slot keeps: every node's kinds of that API. */
export const MAX_API_KEYS = 4 * MAX_KEYS;

/** What a run hands back of one render kind. */
export interface KeptKind {
	/** What the run saw (at most KEPT_OBSERVATIONS, spread over its range). */
	observations: Observation[];
	/** The run found the kind's earlier times stale (policy.ts, rule 5): they are replaced, not added to. */
	replaces: boolean;
}

export interface Learned {
	own: NodeHistory;
	/** What this process learned of each render kind on the same API, from every node. */
	api: NodeHistory;
	/** The store's clock: a key the run uses is stamped with it. */
	clock: number;
}

const copyOf = (entry: KeyHistory): KeyHistory => ({ used: entry.used, observations: [...entry.observations] });

/** Ages as whole ms, done after not done. */
const whole = ({ lo, hi }: Observation): Observation => ({
	lo: Math.max(0, Math.round(lo)),
	hi: Math.max(Math.round(hi), Math.max(0, Math.round(lo)) + 1),
});

const countOf = (history: NodeHistory | undefined) =>
	[...(history?.values() ?? [])].reduce((sum, entry) => sum + entry.observations.length, 0);

export class LearnedStore {
	/** Slots by name, least recently used first (a Map keeps insertion order; a used slot is put back at the end). */
	private readonly slots = new Map<string, NodeHistory>();

	/** Render ages in all slots. */
	private held = 0;

	private clock = 0;

	static nodeSlot(workflowId: string, nodeId: string): string {
		return `node:${workflowId}\u0000${nodeId}`;
	}

	static apiSlot(api: string): string {
		return `api:${api}`;
	}

	/**
	 * A copy of what the node learned, and of what its API learned of the kinds `wanted`. `seed` is asked once, when
	 * the process knows nothing of the node: what an earlier version left in the workflow's static data.
	 */
	read(node: string, api: string | undefined, seed: () => NodeHistory, wanted: Iterable<string> = []): Learned {
		let own = this.touch(node);
		if (!own) {
			own = bounded(seed());
			for (const entry of own.values()) entry.used = 0;
			if (own.size) this.put(node, own);
		}
		const shared = api === undefined ? undefined : this.touch(LearnedStore.apiSlot(api));
		const ofApi: NodeHistory = new Map();
		for (const key of wanted) {
			const entry = shared?.get(key);
			if (entry) ofApi.set(key, copyOf(entry));
		}
		const copy: NodeHistory = new Map([...own].map(([key, entry]) => [key, copyOf(entry)]));
		return { own: copy, api: ofApi, clock: ++this.clock };
	}

	keep(node: string, api: string | undefined, kept: ReadonlyMap<string, KeptKind>): void {
		if (![...kept.values()].some((kind) => kind.observations.length)) return;
		const used = ++this.clock;
		this.merge(node, kept, used, MAX_KEYS);
		if (api !== undefined) this.merge(LearnedStore.apiSlot(api), kept, used, MAX_API_KEYS);
		this.evict();
	}

	/** Forgets these slots (tests whose runs must not teach the runs beside them). */
	forget(...names: string[]): void {
		for (const name of names) {
			this.held -= countOf(this.slots.get(name));
			this.slots.delete(name);
		}
	}

	/** Forgets everything (tests that must start cold). */
	clear(): void {
		this.slots.clear();
		this.held = 0;
	}

	get size(): { slots: number; observations: number } {
		return { slots: this.slots.size, observations: this.held };
	}

	private touch(name: string): NodeHistory | undefined {
		const history = this.slots.get(name);
		if (history) {
			this.slots.delete(name);
			this.slots.set(name, history);
		}
		return history;
	}

	private put(name: string, history: NodeHistory): NodeHistory {
		this.held += countOf(history);
		this.slots.set(name, history);
		return history;
	}

	/** Adds a run's ages to a slot (its own history, not a copy: reads hand out copies). */
	private merge(name: string, kept: ReadonlyMap<string, KeptKind>, used: number, maxKeys: number): void {
		const history = this.touch(name) ?? this.put(name, new Map());
		for (const [key, { observations, replaces }] of kept) {
			if (!observations.length) continue;
			const before = history.get(key)?.observations ?? [];
			const earlier = replaces ? [] : before;
			const after = [...earlier, ...observations.map(whole)].slice(-KEPT_OBSERVATIONS);
			history.set(key, { used, observations: after });
			this.held += after.length - before.length;
		}
		while (history.size > maxKeys) {
			const [oldest, entry] = [...history].reduce((a, b) => (b[1].used < a[1].used ? b : a));
			history.delete(oldest);
			this.held -= entry.observations.length;
		}
	}

	private evict(): void {
		for (const [name, history] of this.slots) {
			if (this.slots.size <= MAX_SLOTS && this.held <= MAX_OBSERVATIONS) return;
			this.held -= countOf(history);
			this.slots.delete(name);
		}
	}
}

/** The process's store: one per loaded copy of the node package (n8n loads it once per process). */
export const LEARNED = new LearnedStore();
