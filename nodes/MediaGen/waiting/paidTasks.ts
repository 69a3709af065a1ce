/**
 * What the node keeps of every task that may be paid for, whatever happens next: a line in n8n's log (after Stop n8n
 * keeps none of the node's output), and Retry On Fail's memory (memory.ts), for a later try to resume, not pay again.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { CreationJob } from './creationQueue';
import type { CreatedTask } from './taskState';

/** An item's creation, as far as its log line and memory need it. */
export type CreationRef = Pick<CreationJob, 'itemIndex' | 'taskType' | 'summary'>;

/** Retry On Fail's memory of one run, as PaidTasks tells it (creation operations only). */
export interface PaidTasksMemory {
	created(task: CreatedTask): void;
	uncertain(job: CreationRef): void;
	failed(task: CreatedTask): void;
}

/** "(execution 1042)"; an MCP Server Trigger's tool call runs before n8n gives it an id: then it says so. */
export function executionNote(context: IExecuteFunctions): string {
	const id = context.getExecutionId();
	return id ? `(execution ${id})` : '(a tool call, before n8n gave its execution an id)';
}

export class PaidTasks {
	constructor(
		private readonly context: IExecuteFunctions,
		private readonly memory: PaidTasksMemory | undefined,
	) {}

	/** Whether a later try will know the tasks told here (only creations have a memory). */
	get remembers(): boolean {
		return this.memory !== undefined;
	}

	/** A task the API created. `how` is how the node came to know it. */
	created(task: CreatedTask, how = 'created'): void {
		this.memory?.created(task);
		const also = task.alsoNamed?.length ? ` (its answer also named task ${task.alsoNamed.join(', ')})` : '';
		this.context.logger.info(
			`MediaGen node "${this.context.getNode().name}" ${how} ${task.taskType} task ${task.taskId}${also} for item ${task.itemIndex} ${executionNote(this.context)}`,
		);
	}

	/** A failed creation whose answer named a task (a 5xx or 429, a cut-off body): it exists and may be charged. */
	named(job: CreationRef, taskId: string, alsoNamed: string[] = []): void {
		const { itemIndex, taskType, summary } = job;
		const task = { itemIndex, taskType, summary, taskId, alsoNamed, creation: { taskid: taskId } };
		this.created(task, 'got an error answer that names');
	}

	/** A creation that may have created a task: the log keeps the warning (after a stop nothing else does). */
	uncertain(job: CreationRef, error: unknown): void {
		this.memory?.uncertain(job);
		this.context.logger.warn(
			`MediaGen node "${this.context.getNode().name}" may have created a ${job.taskType} task for item ${job.itemIndex} ${executionNote(this.context)}: ${(error as Error).message}`,
		);
	}
}
