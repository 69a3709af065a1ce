/**
 * Never pay twice for one item: n8n's Retry On Fail runs a failed node again on the same items, with the same
 * run index and the same execution-scoped node context (n8n-core's WorkflowExecute makes a new context object per
 * try over the same `contextData`); n8n's "Retry execution" does the same from the failed node. The tasks a run
 * creates are remembered there, per item and request, so that such a try resumes them (waits, downloads) instead
 * of creating them again. A new run index (the node runs again in a loop) or a new execution starts with an empty
 * memory and creates anew. A task that failed is forgotten: trying again then means a new task.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { TaskType } from '../models/endpoints';

/** The key of this node's memory in its execution-scoped context. */
const MEMORY_KEY = 'mediaGenCreatedTasks';

export interface RememberedTask {
	taskId: string;
	taskType: TaskType;
	/** The creation answer's data (taskid, and url for some models). */
	creation: IDataObject;
}

interface Stored {
	runIndex: number;
	tasks: Record<string, RememberedTask>;
}

/** A short, stable digest of a request (53-bit FNV-style mix; not a security measure, a fingerprint). */
export function fingerprint(text: string): string {
	let h1 = 0xdeadbeef;
	let h2 = 0x41c6ce57;
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		h1 = Math.imul(h1 ^ code, 2654435761);
		h2 = Math.imul(h2 ^ code, 1597334677);
	}
	h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
	return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

export class TaskMemory {
	private constructor(private readonly stored: Stored) {}

	/** This run's memory: kept across tries of the same run, emptied when the node runs with a new run index. */
	static open(context: IExecuteFunctions): TaskMemory {
		const nodeContext = context.getContext('node');
		const runIndex = context.getWorkflowDataProxy(0).$runIndex as number;
		const stored = nodeContext[MEMORY_KEY] as Stored | undefined;
		if (stored?.runIndex === runIndex && stored.tasks) return new TaskMemory(stored);
		const fresh: Stored = { runIndex, tasks: {} };
		nodeContext[MEMORY_KEY] = fresh;
		return new TaskMemory(fresh);
	}

	find(itemIndex: number, request: string): RememberedTask | undefined {
		return this.stored.tasks[`${itemIndex}:${request}`];
	}

	remember(itemIndex: number, request: string, task: RememberedTask): void {
		this.stored.tasks[`${itemIndex}:${request}`] = task;
	}

	forget(itemIndex: number, request: string): void {
		delete this.stored.tasks[`${itemIndex}:${request}`];
	}
}
