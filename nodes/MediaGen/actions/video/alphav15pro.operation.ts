import { ALPHAV15PRO } from '../../models/video';
import { creationOperation } from '../creation.operation';

export const { description, execute } = creationOperation(ALPHAV15PRO);
