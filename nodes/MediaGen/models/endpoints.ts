/** Paths of the API (spec: Endpoints). */
export type TaskKind = 'image' | 'video';

export const INFO_PATH: Record<TaskKind, string> = {
	image: '/v1/tlimages/infobytaskid',
	video: '/v1/tlvideo/infobytaskid',
};

export const DELETE_PATH: Record<TaskKind, string> = {
	image: '/v1/tlimages/deleteimagestask',
	video: '/v1/tlvideo/deletevideotask',
};
