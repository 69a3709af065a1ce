import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { createTasks } from '../helpers/creation';
import { modelProperties, runProperties } from '../helpers/parameters';
import type { ModelSpec } from '../models/types';
import type { ItemOutcome, OperationModule } from './node.type';

/** A creation operation is its model spec: the spec yields both the parameters and the behaviour. */
export function creationOperation(spec: ModelSpec): OperationModule {
	return {
		description: modelProperties(spec, runProperties(spec.resource)),
		async execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<ItemOutcome[]> {
			return await createTasks.call(this, items, spec);
		},
	};
}
