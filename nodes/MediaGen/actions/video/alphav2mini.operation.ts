import { ALPHAV2MINI } from '../../models/video';
import { creationOperation } from '../creation.operation';

export const { description, execute } = creationOperation(ALPHAV2MINI);
