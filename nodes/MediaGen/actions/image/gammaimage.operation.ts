import { GAMMAIMAGE } from '../../models/image';
import { creationOperation } from '../creation.operation';

export const { description, execute } = creationOperation(GAMMAIMAGE);
