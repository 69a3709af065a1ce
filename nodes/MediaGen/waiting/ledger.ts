/**
 * What the node keeps of every task that may be paid for, whatever happens next (Stop, a stopping error, Retry
 * On Fail): a line in n8n's log (after Stop n8n keeps none of the node's output, so the log keeps every paid id),
 * and Retry On Fail's memory (memory.ts), so that a later try resumes the task, or refuses to pay again.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { TaskType } from '../models/endpoints';
import type { RequestSummary } from '../output/items';
import type { CreatedTask } from './answers';

/** An item's creation, as far as the ledger needs it. */
export interface CreationRef {
	itemIndex: number;
	taskType: TaskType;
	summary: RequestSummary;
}

/** Retry On Fail's memory of one run, as the ledger tells it (creation operations only). */
export interface LedgerMemory {
	created(task: CreatedTask): void;
	uncertain(job: CreationRef): void;
	failed(task: CreatedTask): void;
}

/**
 * "(execution 1042)" for the node's log lines. A tool call of n8n's MCP Server Trigger runs before n8n has given its
 * execution an id: the line then says so rather than "undefined".
 */
export function executionNote(context: IExecuteFunctions): string {
	const id = context.getExecutionId();
	return id ? `(execution ${id})` : '(a tool call, before n8n gave its execution an id)';
}

export class PaidTasks {
	constructor(
		private readonly context: IExecuteFunctions,
		private readonly memory: LedgerMemory | undefined,
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

	/**
	 * A failed creation whose answer named a task (an HTTP 5xx or 429, or a cut-off body, with a taskid): the task
	 * exists and may be charged, so Retry On Fail follows it instead of paying again.
	 */
	named(job: CreationRef, taskId: string, alsoNamed: string[] = []): void {
		const { itemIndex, taskType, summary } = job;
		const task = { itemIndex, taskType, summary, taskId, alsoNamed, creation: { taskid: taskId } };
		this.created(task, 'got an error answer that names');
	}

	/**
	 * A creation whose answer left open whether it created a task: Retry On Fail does not pay again unasked, and the
	 * log keeps the item's warning (after Stop, or when another item's error stops the run, nothing else does).
	 */
	uncertain(job: CreationRef, error: unknown): void {
		this.memory?.uncertain(job);
		this.context.logger.warn(
			`MediaGen node "${this.context.getNode().name}" may have created a ${job.taskType} task for item ${job.itemIndex} ${executionNote(this.context)}: ${(error as Error).message}`,
		);
	}

	/** A task the API reported failed: a later try creates it anew. */
	failed(task: CreatedTask): void {
		this.memory?.failed(task);
	}
}
