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
 * failure is a result the model reads (tool/result.ts) and one failed task must not end its siblings' waits.
 */
export function failuresContinue(context: IExecuteFunctions): boolean {
	return isToolCall(context) || context.continueOnFail();
}

/**
 * Max Wait of a tool call, for images and videos alike: how long the whole call may take, from its start to its
 * answer (creation, waiting, downloads). Its callers give up after about a minute: MCP clients built on the MCP
 * SDK (also the one n8n ships) fail a request after 60 s by default (`DEFAULT_REQUEST_TIMEOUT_MSEC` in
 * @modelcontextprotocol/sdk's shared/protocol.js), and chats behind the AI Agent are often cut off by proxies after
 * about a minute of silence. The margin covers what n8n does around the call (starting the execution, building
 * the tools, a queue-mode hand-over). A longer render comes back pending, with its task id, for a Task → Wait tool
 * to pick up: the caller always learns the id of the task it paid for.
 */
export const TOOL_MAX_WAIT_SECONDS = 45;
