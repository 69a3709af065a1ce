/**
 * Tool mode: whether the node runs as a tool of n8n's AI Agent (or of an MCP client), and what a tool call changes
 * before anything is sent: every failure is a result, one call has its own Max Wait, and it carries no files.
 */
import type { IExecuteFunctions, INode } from 'n8n-workflow';

import { invalidInput } from '../helpers/badInput';
import { REFERENCE_INPUT } from '../models/parameterNames';
import type { ModelSpec } from '../models/types';

/**
 * n8n offers a `usableAsTool` node to the agent as `<package>.<name>Tool` and runs its own `execute`: the node type
 * is the one signal that holds in every n8n version and every way a tool is called (as n8n's Airtop node reads it);
 * `isToolExecution()` is missing in n8n 1.x and false on the agent's main path in 2.x.
 */
export function isToolCall(context: { getNode(): INode }): boolean {
	return context.getNode().type.endsWith('Tool');
}

/**
 * Whether a tool call comes through n8n's MCP Server Trigger: n8n runs a tool with the execution data of the node
 * that consumes it (n8n-core's getInputConnectionData), here the trigger itself (docs/ai-agent.md).
 */
export function isMcpCall(context: IExecuteFunctions): boolean {
	if (!isToolCall(context)) return false;
	try {
		return /\.mcpTrigger$/.test(context.getExecuteData()?.node?.type ?? '');
	} catch {
		// A context without execution data (n8n 1.x's older tool paths) is not the MCP Server Trigger's.
		return false;
	}
}

/** Whether an item's failure lets the others go on: with Continue On Fail, and always as a tool (tool/reply.ts). */
export function failuresContinue(context: IExecuteFunctions): boolean {
	return isToolCall(context) || context.continueOnFail();
}

/**
 * Max Wait of a whole tool call: MCP clients give up after 60 s by default, chat proxies after about a minute of
 * silence (docs/ai-agent.md); a longer render comes back pending, with the id of the task the caller paid for.
 */
export const TOOL_MAX_WAIT_SECONDS = 45;

/**
 * A tool call carries no files (n8n hands the tool only the model's arguments): a tool set up to send files is
 * refused before anything is sent, in words the model can act on and the builder can fix.
 */
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
	const inTool = 'when MediaGen runs as an AI Agent tool, since a tool call carries no files';
	const field = `${references.label} From Binary`;
	const mode = this.getNodeParameter('imageInput', itemIndex, REFERENCE_INPUT.none) as string;
	if (mode !== REFERENCE_INPUT.none) {
		const hint = `${instead} (In the workflow: set "${field}" of this tool to None.)`;
		throw invalidInput.call(this, itemIndex, field, mode, `must be None ${inTool}`, hint);
	}
	if (maskProperty) {
		const hint = 'Call the tool without a mask. (In the workflow: remove Mask Binary Property from this tool.)';
		throw invalidInput.call(this, itemIndex, 'Mask Binary Property', maskProperty, `cannot be used ${inTool}`, hint);
	}
}
