import { IMAGE_MODELS } from '../../models/image';
import { creationOperations } from '../creation.operation';

export const { operations, description } = creationOperations('image', IMAGE_MODELS);
