/**
 * What n8n's editor shows for a MediaGen node, computed from the node's own description (which the model
 * specs in nodes/MediaGen/models generate) with n8n-workflow's own display rules. Browser tests compare the
 * editor against this, so they follow the specs instead of a copied list of labels.
 */
import type { INodeParameters, INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { MediaGen } from '../nodes/MediaGen/MediaGen.node';

export const description: INodeTypeDescription = new MediaGen().description;

const NODE = { typeVersion: 1 };

/** The node's parameter values as n8n fills them in for the given choices (defaults of what is shown). */
export function parameterValues(choices: INodeParameters): INodeParameters {
	return NodeHelpers.getNodeParameters(description.properties, choices, true, false, NODE, description) ?? {};
}

/** Top-level parameters shown for the given choices, in the order the editor lists them. */
export function visibleParameters(choices: INodeParameters): INodeProperties[] {
	const values = parameterValues(choices);
	const seen = new Set<string>();
	return description.properties.filter((property) => {
		if (seen.has(property.name) || !NodeHelpers.displayParameter(values, property, NODE, description)) return false;
		seen.add(property.name);
		return true;
	});
}

/** Labels of the top-level fields shown for one resource and operation (e.g. image / betav45). */
export function visibleLabels(choices: INodeParameters): string[] {
	return visibleParameters(choices).map((property) => property.displayName);
}

/** The entries of a collection (Additional Fields, Options) shown for the given choices, by label. */
export function collectionEntries(choices: INodeParameters, collection: string): INodeProperties[] {
	const property = visibleParameters(choices).find((candidate) => candidate.name === collection);
	const values = parameterValues(choices);
	return ((property?.options ?? []) as INodeProperties[]).filter((entry) =>
		NodeHelpers.displayParameterPath(values, entry, collection, NODE, description),
	);
}

/** Every resource/operation pair the node offers, with the operation's label in the actions list. */
export function operations(): Array<{ resource: string; operation: string; name: string }> {
	const resources = description.properties.find((property) => property.name === 'resource')!.options as Array<{
		value: string;
	}>;
	return resources.flatMap(({ value: resource }) => {
		const selector = description.properties.find(
			(property) => property.name === 'operation' && property.displayOptions?.show?.resource?.includes(resource),
		)!;
		return (selector.options as Array<{ name: string; value: string }>).map((option) => ({
			resource,
			operation: option.value,
			name: option.name,
		}));
	});
}
