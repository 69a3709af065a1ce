/**
 * Never pay twice for one item (docs/errors-and-n8n-settings.md, Retry On Fail): Retry On Fail and "Retry execution"
 * run the node again with the same run index and execution-scoped node context (n8n-core's WorkflowExecute), where
 * the tasks a run creates are remembered per item and request, for such a try to resume them. n8n saves that context
 * with the execution: it holds only what resuming needs, as short strings, and `settle` drops it when it is done.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { TaskType } from '../models/endpoints';

const MEMORY_KEY = 'mediaGenCreatedTasks';

/**
 * What a try left for an item's request: its task (and the other tasks its creation's answer named, which may be
 * charged too), or that a task may exist.
 */
export type Remembered = { taskId: string; taskType: TaskType; alsoNamed?: string[] } | 'uncertain';

/**
 * Per item index, entries `<request>|<i or v>|<task id>`, the task id empty when a task may exist; a task the
 * creation's answer also named is an entry `<request>|<i+ or v+>|<task id>` after it.
 */
interface Stored {
	runIndex: number;
	items: Record<string, string[]>;
}

interface Entry {
	request: string;
	remembered: Remembered;
	/** Named by the answer that created the request's task, beside it. */
	also: boolean;
}

const taskIds = (entries: Entry[]): string[] =>
	entries.flatMap(({ remembered }) => (remembered === 'uncertain' ? [] : [remembered.taskId]));

function parse(entry: string): Entry {
	const [request, type, ...id] = entry.split('|');
	const taskId = id.join('|');
	return {
		request,
		remembered: taskId ? { taskId, taskType: type.startsWith('v') ? 'video' : 'image' } : 'uncertain',
		also: type.endsWith('+'),
	};
}

function entriesOf(request: string, remembered: Remembered): string[] {
	if (remembered === 'uncertain') return [`${request}||`];
	const type = remembered.taskType === 'video' ? 'v' : 'i';
	const also = (remembered.alsoNamed ?? []).map((taskId) => `${request}|${type}+|${taskId}`);
	return [`${request}|${type}|${remembered.taskId}`, ...also];
}

export class TaskMemory {
	private constructor(
		private readonly context: IExecuteFunctions,
		private stored: Stored | undefined,
	) {}

	/** This run's memory: kept across tries of the same run, emptied when the node runs with a new run index. */
	static open(context: IExecuteFunctions): TaskMemory {
		const stored = context.getContext('node')[MEMORY_KEY] as Stored | undefined;
		const current = stored?.runIndex === TaskMemory.runIndex(context) && stored.items ? stored : undefined;
		return new TaskMemory(context, current);
	}

	private static runIndex(context: IExecuteFunctions): number {
		return context.getWorkflowDataProxy(0).$runIndex as number;
	}

	/**
	 * The end of a run: the memory stays only when n8n may run the node again on the same items: after a thrown error
	 * or Stop, or when the first output item is an error item (WorkflowExecute retries a node whose first item's json
	 * has `error`).
	 */
	static settle(context: IExecuteFunctions, output: INodeExecutionData[] | undefined): void {
		if (output && output[0]?.json?.error === undefined) delete context.getContext('node')[MEMORY_KEY];
	}

	private entries(itemIndex: number): string[] {
		return this.stored?.items[String(itemIndex)] ?? [];
	}

	private write(itemIndex: number, entries: string[]): void {
		if (!this.stored) {
			this.stored = { runIndex: TaskMemory.runIndex(this.context), items: {} };
			this.context.getContext('node')[MEMORY_KEY] = this.stored;
		}
		if (entries.length) this.stored.items[String(itemIndex)] = entries;
		else delete this.stored.items[String(itemIndex)];
	}

	find(itemIndex: number, request: string): Remembered | undefined {
		const entries = this.entries(itemIndex)
			.map(parse)
			.filter((parsed) => parsed.request === request);
		const main = entries.find((parsed) => !parsed.also)?.remembered;
		const alsoNamed = taskIds(entries.filter((parsed) => parsed.also));
		return main && main !== 'uncertain' && alsoNamed.length ? { ...main, alsoNamed } : main;
	}

	/** Tasks an earlier try created for this item with another request (an expression gave other values). */
	otherTasks(itemIndex: number, request: string): string[] {
		return taskIds(
			this.entries(itemIndex)
				.map(parse)
				.filter((parsed) => parsed.request !== request),
		);
	}

	remember(itemIndex: number, request: string, remembered: Remembered): void {
		this.write(itemIndex, [...this.othersThan(itemIndex, request), ...entriesOf(request, remembered)]);
	}

	forget(itemIndex: number, request: string): void {
		this.write(itemIndex, this.othersThan(itemIndex, request));
	}

	private othersThan(itemIndex: number, request: string): string[] {
		return this.entries(itemIndex).filter((existing) => parse(existing).request !== request);
	}

	/** Every task this run created, as "<id> (item <n>)", in item order: for the error that ends a stopped run. */
	static createdTasks(context: IExecuteFunctions): string[] {
		const memory = TaskMemory.open(context);
		const items = Object.keys(memory.stored?.items ?? {})
			.map(Number)
			.sort((a, b) => a - b);
		return items.flatMap((itemIndex) =>
			taskIds(memory.entries(itemIndex).map(parse)).map((taskId) => `${taskId} (item ${itemIndex})`),
		);
	}
}
