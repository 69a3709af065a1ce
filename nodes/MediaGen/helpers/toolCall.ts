/**
 * Whether the node runs as a tool of n8n's AI Agent. n8n offers every `usableAsTool` node to the agent under a
 * second node type, `<package>.<name>Tool` (here `n8n-nodes-mediagen.mediaGenTool`), and runs that node's own
 * `execute` with it; the node type is the one signal that holds in every n8n version and every way a tool is
 * called (the agent's engine requests, sub-agents, the MCP Server Trigger). n8n's own Airtop node tells tool
 * calls apart the same way; `isToolExecution()` is missing in n8n 1.x and false on the agent's main path in 2.x.
 */
import type { IExecuteFunctions, INode } from 'n8n-workflow';

export function isToolCall(context: { getNode(): INode }): boolean {
	return context.getNode().type.endsWith('Tool');
}

/**
 * Whether an item's failure lets the other items go on: with Continue On Fail, and always as a tool, where every
 * failure is a result the model reads (tool/result.ts) and one failed task must not end its siblings' waits.
 */
export function failuresContinue(context: IExecuteFunctions): boolean {
	return isToolCall(context) || context.continueOnFail();
}

/**
 * Max Wait of a tool call of the AI Agent, for images and videos alike: long enough for most images, short
 * enough that the agent (and a chat behind it, often cut off by proxies after about a minute of silence) is not
 * blocked. A longer render comes back pending, with its task id, for a Task → Wait tool to pick up.
 */
export const TOOL_MAX_WAIT_SECONDS = 60;
