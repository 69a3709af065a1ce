/** Paths of the API's query and delete endpoints (the creation paths are in each model's spec). */
export type TaskType = 'image' | 'video';

export const INFO_PATH: Record<TaskType, string> = {
	image: '/v1/tlimages/infobytaskid',
	video: '/v1/tlvideo/infobytaskid',
};

export const DELETE_PATH: Record<TaskType, string> = {
	image: '/v1/tlimages/deleteimagestask',
	video: '/v1/tlvideo/deletevideotask',
};

/** JSON body of an info request; only the video endpoint takes moreTaskInfo. */
export function infoRequestBody(taskType: TaskType, taskId: string, moreTaskInfo = false) {
	return taskType === 'video' ? { taskid: taskId, moreTaskInfo } : { taskid: taskId };
}
