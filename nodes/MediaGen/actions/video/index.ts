import { VIDEO_MODELS } from '../../models/video';
import { creationOperations } from '../creation.operation';

export const { operations, description } = creationOperations('video', VIDEO_MODELS);
