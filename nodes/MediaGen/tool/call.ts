/**
 * Tool mode: whether the node runs as a tool of n8n's AI Agent (or of an MCP client), and what a tool call changes
 * before anything is sent: every failure is a result, one call has its own Max Wait, and it carries no files.
 *
 * n8n offers every `usableAsTool` node to the agent under a second node type, `<package>.<name>Tool` (here
 * `n8n-nodes-mediagen.mediaGenTool`), and runs that node's own `execute` with it; the node type is the one signal
 * that holds in every n8n version and every way a tool is called (the agent's engine requests, sub-agents, the MCP
 * Server Trigger). n8n's own Airtop node tells tool calls apart the same way; `isToolExecution()` is missing in
 * n8n 1.x and false on the agent's main path in 2.x.
 */
import type { IExecuteFunctions, INode } from 'n8n-workflow';

import { invalidInput } from '../helpers/badInput';
import { REFERENCE_INPUT } from '../models/parameterNames';
import type { ModelSpec } from '../models/types';

export function isToolCall(context: { getNode(): INode }): boolean {
	return context.getNode().type.endsWith('Tool');
}

/**
 * Whether a tool call comes from an MCP client, through n8n's MCP Server Trigger (`@n8n/n8n-nodes-langchain.
 * mcpTrigger`). n8n runs a tool with the execution data of the node that consumes it (n8n-core's
 * getInputConnectionData builds the tool's context from its consumer's), so the consumer is the trigger itself;
 * under an AI Agent it is the agent, or the tool node on the agent's engine-request path.
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

/**
 * Whether an item's failure lets the other items go on: with Continue On Fail, and always as a tool, where every
 * failure is a result the model reads (tool/reply.ts) and one failed task must not end its siblings' waits.
 */
export function failuresContinue(context: IExecuteFunctions): boolean {
	return isToolCall(context) || context.continueOnFail();
}

/**
 * Max Wait of a tool call, for images and videos alike: how long the whole call may take, from its start to its
 * answer. MCP clients give up after 60 s by default (the MCP SDK's `DEFAULT_REQUEST_TIMEOUT_MSEC`), chat proxies
 * after about a minute of silence; the margin covers n8n's work around the call (docs/ai-agent.md). A longer render
 * comes back pending, with its task id: the caller always learns the id of the task it paid for.
 */
export const TOOL_MAX_WAIT_SECONDS = 45;

/**
 * A tool call carries no files (n8n hands the tool only the model's arguments): a tool set up to send files is
 * refused before anything is sent, with a message the model can act on and that tells the builder what to change.
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
