/** Generator "tasks": what each task does on the server, drawn from the task's own stream (its item and serial). */
import { Random } from '../random';
import type { Schedule } from '../schedule';

/** What a task does on the server: how many status checks see it running, and how it ends. */
export interface TaskPlan {
	checksBeforeDone: number;
	fails: boolean;
	files: number;
}

export function taskPlan(schedule: Schedule, item: number, serial: number): TaskPlan {
	const random = Random.stream(schedule.seed, 'tasks', item, serial);
	return {
		checksBeforeDone: random.int(0, 3),
		fails: schedule.failingTasks && random.chance(0.25),
		files: random.weighted([
			[3, 1],
			[1, 2],
		]),
	};
}
