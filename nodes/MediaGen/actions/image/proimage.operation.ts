import { PROIMAGE } from '../../models/image';
import { creationOperation } from '../creation.operation';

export const { description, execute } = creationOperation(PROIMAGE);
