/**
 * A scripted OpenAI-compatible model server for the agent suite: what n8n's OpenAI Chat Model node
 * (lmChatOpenAi) calls when its credential's Base URL points here. It speaks both APIs the node uses, Chat
 * Completions (`POST /v1/chat/completions`) and Responses (`POST /v1/responses`, the node's default from
 * version 1.3), each plain JSON or streamed as server-sent events (n8n streams when its trigger does).
 *
 * Its answers come from a script the test sets: given the tool results the request carries so far, the
 * script answers with a tool call (name and arguments) or with text. Every request is recorded with what it
 * offered (tools and their descriptions and argument schemas) and what it carried back (the tool results as
 * the model receives them), so a test can assert on exactly what a model would have read.
 */
import { HostileServer, sendJson } from '../../test/hostile-server';

/** A tool as the request offered it to the model. */
export interface OfferedTool {
	name: string;
	description: string;
	parameters: { properties?: Record<string, { type?: string; description?: string }>; required?: string[] };
}

/** A tool result as the request carried it back to the model (the text the model reads). */
interface ToolResult {
	callId: string;
	/** The tool the model called for this result (from the call in the same request). */
	name?: string;
	output: string;
}

/** One request to the model server, as the model would have seen it. */
export interface ModelRequest {
	api: 'chat' | 'responses';
	stream: boolean;
	authorization?: string;
	model?: string;
	tools: OfferedTool[];
	/** Every tool result in the conversation so far, oldest first. */
	toolResults: ToolResult[];
	/** The user's messages in the conversation so far. */
	userMessages: string[];
	body: Record<string, unknown>;
}

/** What the script answers: a call of one tool, or the final text. */
type ModelTurn = { call: { name: string; arguments: Record<string, unknown> } } | { text: string };

/** Decides the model's answer to a request. */
export type ModelScript = (request: ModelRequest) => ModelTurn;

export interface ModelServer {
	/** The OpenAI Base URL to give n8n's credential (ends with /v1). */
	baseUrl: string;
	/** Every request received since the start (or the last `reset`). */
	requests: ModelRequest[];
	/** Sets the script that answers the next requests. */
	setScript(script: ModelScript): void;
	/** Forgets the recorded requests. */
	reset(): void;
	close(): Promise<void>;
}

type Json = Record<string, unknown>;

function asArray(value: unknown): Json[] {
	return Array.isArray(value) ? (value.filter((entry) => entry && typeof entry === 'object') as Json[]) : [];
}

function text(value: unknown): string {
	if (typeof value === 'string') return value;
	// Content given as parts: [{type: 'text' | 'input_text', text}]
	return asArray(value)
		.map((part) => (typeof part.text === 'string' ? part.text : ''))
		.join('');
}

/** The request as the model sees it: its tools, the tool results and the user's messages. */
function parseModelRequest(path: string, body: Json, authorization?: string): ModelRequest {
	const api = path.endsWith('/responses') ? 'responses' : 'chat';
	const tools: OfferedTool[] = asArray(body.tools).map((tool) => {
		const fn = (api === 'chat' ? tool.function : tool) as Json | undefined;
		return {
			name: String(fn?.name ?? ''),
			description: String(fn?.description ?? ''),
			parameters: (fn?.parameters ?? {}) as OfferedTool['parameters'],
		};
	});
	const toolResults: ToolResult[] = [];
	const userMessages: string[] = [];
	const calledTools = new Map<string, string>();
	if (api === 'chat') {
		for (const message of asArray(body.messages)) {
			if (message.role === 'user') userMessages.push(text(message.content));
			for (const call of asArray(message.tool_calls)) {
				calledTools.set(String(call.id), String((call.function as Json | undefined)?.name ?? ''));
			}
			if (message.role === 'tool') {
				const callId = String(message.tool_call_id ?? '');
				toolResults.push({ callId, name: calledTools.get(callId), output: text(message.content) });
			}
		}
	} else {
		const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : asArray(body.input);
		for (const entry of input) {
			if (entry.role === 'user') userMessages.push(text(entry.content));
			if (entry.type === 'function_call') calledTools.set(String(entry.call_id), String(entry.name ?? ''));
			if (entry.type === 'function_call_output') {
				const callId = String(entry.call_id ?? '');
				toolResults.push({ callId, name: calledTools.get(callId), output: text(entry.output) });
			}
		}
	}
	return {
		api,
		stream: body.stream === true,
		authorization,
		model: typeof body.model === 'string' ? body.model : undefined,
		tools,
		toolResults,
		userMessages,
		body,
	};
}

const USAGE_CHAT = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
const USAGE_RESPONSES = { input_tokens: 10, output_tokens: 5, total_tokens: 15 };

interface Sse {
	event?: string;
	data: unknown;
}

function chatAnswer(request: ModelRequest, turn: ModelTurn, n: number): { json: Json; events: Sse[] } {
	const base = { id: `chatcmpl-${n}`, created: Math.floor(Date.now() / 1000), model: request.model ?? 'gpt-4o-mini' };
	const call =
		'call' in turn
			? {
					id: `call_${n}`,
					type: 'function',
					function: { name: turn.call.name, arguments: JSON.stringify(turn.call.arguments) },
				}
			: undefined;
	const message = call
		? { role: 'assistant', content: null, tool_calls: [call] }
		: { role: 'assistant', content: (turn as { text: string }).text };
	const finish = call ? 'tool_calls' : 'stop';
	const chunk = (delta: Json, finishReason: string | null) => ({
		...base,
		object: 'chat.completion.chunk',
		choices: [{ index: 0, delta, finish_reason: finishReason }],
	});
	return {
		json: {
			...base,
			object: 'chat.completion',
			choices: [{ index: 0, message, finish_reason: finish }],
			usage: USAGE_CHAT,
		},
		events: [
			{ data: chunk(call ? { ...message, tool_calls: [{ index: 0, ...call }] } : message, null) },
			{ data: chunk({}, finish) },
			{ data: '[DONE]' },
		],
	};
}

function responsesAnswer(request: ModelRequest, turn: ModelTurn, n: number): { json: Json; events: Sse[] } {
	const response = {
		id: `resp_${n}`,
		object: 'response',
		created_at: Math.floor(Date.now() / 1000),
		status: 'completed',
		model: request.model ?? 'gpt-4o-mini',
		usage: USAGE_RESPONSES,
	};
	const item: Json =
		'call' in turn
			? {
					type: 'function_call',
					id: `fc_${n}`,
					call_id: `call_${n}`,
					name: turn.call.name,
					arguments: JSON.stringify(turn.call.arguments),
					status: 'completed',
				}
			: {
					type: 'message',
					id: `msg_${n}`,
					status: 'completed',
					role: 'assistant',
					// The SDK maps `annotations` with .map: it must be an array.
					content: [{ type: 'output_text', text: turn.text, annotations: [] }],
				};
	const started =
		item.type === 'message' ? { ...item, status: 'in_progress', content: [] } : { ...item, arguments: '' };
	const delta =
		item.type === 'message'
			? {
					event: 'response.output_text.delta',
					data: {
						type: 'response.output_text.delta',
						item_id: item.id,
						output_index: 0,
						content_index: 0,
						delta: (turn as { text: string }).text,
					},
				}
			: {
					event: 'response.function_call_arguments.delta',
					data: {
						type: 'response.function_call_arguments.delta',
						item_id: item.id,
						output_index: 0,
						delta: item.arguments,
					},
				};
	const events: Sse[] = [
		{
			event: 'response.created',
			data: { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } },
		},
		{
			event: 'response.output_item.added',
			data: { type: 'response.output_item.added', output_index: 0, item: started },
		},
		delta,
		{ event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: 0, item } },
		{ event: 'response.completed', data: { type: 'response.completed', response: { ...response, output: [item] } } },
	].map((event, index) => ({ ...event, data: { ...event.data, sequence_number: index } }));
	// `object: 'response'` matters: without it the SDK does not compute output_text.
	return { json: { ...response, output: [item] }, events };
}

/** Starts the server on a free port of 127.0.0.1. Until a script is set, it answers every request with text. */
export async function startModelServer(): Promise<ModelServer> {
	const requests: ModelRequest[] = [];
	let script: ModelScript = () => ({ text: 'No script is set.' });
	let answered = 0;
	const server = await new HostileServer((incoming, outgoing) => {
		const { method, path } = incoming;
		if (method === 'GET' && path.endsWith('/models'))
			return sendJson(outgoing, { object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model', owned_by: 'test' }] });
		if (method !== 'POST' || !/\/(chat\/completions|responses)$/.test(path))
			return sendJson(outgoing, { error: { message: `no route ${method} ${path}` } }, 404);
		if (incoming.body.length && !incoming.json)
			return sendJson(outgoing, { error: { message: 'body must be JSON' } }, 400);
		const request = parseModelRequest(path, incoming.json ?? {}, incoming.headers.authorization);
		requests.push(request);
		let turn: ModelTurn;
		try {
			turn = script(request);
		} catch (error) {
			// A script that cannot go on answers with its reason: the test sees it in the chat answer.
			turn = { text: `SCRIPT ERROR: ${(error as Error).message}` };
		}
		const answer =
			request.api === 'chat' ? chatAnswer(request, turn, ++answered) : responsesAnswer(request, turn, ++answered);
		if (!request.stream) return sendJson(outgoing, answer.json);
		outgoing.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
		for (const event of answer.events) {
			if (event.event) outgoing.write(`event: ${event.event}\n`);
			outgoing.write(`data: ${typeof event.data === 'string' ? event.data : JSON.stringify(event.data)}\n\n`);
		}
		outgoing.end();
	}).start();
	return {
		baseUrl: `${server.url}/v1`,
		requests,
		setScript(next) {
			script = next;
		},
		reset() {
			requests.length = 0;
		},
		close: async () => await server.stop(),
	};
}
