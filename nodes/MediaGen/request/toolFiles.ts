/**
 * A tool call carries no files: n8n hands the tool only the model's arguments (JSON), so a reference image or a
 * mask from binary data cannot exist there. Instead of failing on "the item does not have binary property
 * data", a tool set up to send files is refused before anything is sent, with a message the model can act on
 * (give the images as URLs) and that tells the builder which setting to change.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { invalidInput } from '../helpers/badInput';
import { isToolCall } from '../helpers/toolCall';
import { REFERENCE_INPUT } from '../models/parameterNames';
import type { ModelSpec } from '../models/types';

export function refuseFilesInTool(
	this: IExecuteFunctions,
	itemIndex: number,
	spec: ModelSpec,
	maskProperty: string | undefined,
): void {
	if (!isToolCall(this) || !spec.references) return;
	const { references } = spec;
	const instead = references.urlField
		? `Give the images as http(s) URLs in "${references.urlField.displayName}" instead.`
		: references.valueField
			? `This model takes images only as files or as "${references.valueField.displayName}": use that field.`
			: '';
	const mode = this.getNodeParameter('imageInput', itemIndex, REFERENCE_INPUT.none) as string;
	if (mode !== REFERENCE_INPUT.none) {
		throw invalidInput.call(
			this,
			itemIndex,
			`${references.label} From Binary`,
			mode,
			'must be None when MediaGen runs as an AI Agent tool, since a tool call carries no files',
			`${instead} (In the workflow: set "${references.label} From Binary" of this tool to None.)`,
		);
	}
	if (maskProperty) {
		throw invalidInput.call(
			this,
			itemIndex,
			'Mask Binary Property',
			maskProperty,
			'cannot be used when MediaGen runs as an AI Agent tool, since a tool call carries no files',
			'Call the tool without a mask. (In the workflow: remove Mask Binary Property from this tool.)',
		);
	}
}
