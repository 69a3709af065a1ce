import { BETAV4 } from '../../models/image';
import { creationOperation } from '../creation.operation';

export const { description, execute } = creationOperation(BETAV4);
