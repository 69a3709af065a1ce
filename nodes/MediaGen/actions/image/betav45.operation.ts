import { BETAV45 } from '../../models/image';
import { creationOperation } from '../creation.operation';

export const { description, execute } = creationOperation(BETAV45);
