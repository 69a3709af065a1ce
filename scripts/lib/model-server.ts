/**
 * A scripted OpenAI-compatible model server: what n8n's OpenAI Chat Model node (lmChatOpenAi) calls when its
 * credential's Base URL points here, over Chat Completions (`POST /v1/chat/completions`) and Responses
 * (`POST /v1/responses`, the node's default from version 1.3), plain JSON or streamed as server-sent events (n8n
 * streams when its trigger does). A script the test sets answers each request with a tool call or text; every
 * request is recorded as the model would have read it (the tools offered, the tool results carried back).
 */
import { HostileServer, sendJson } from '../../test/hostile-server';

export interface OfferedTool {
	name: string;
	description: string;
	parameters: { properties?: Record<string, { type?: string; description?: string }>; required?: string[] };
}

/** A tool result as the request carried it back to the model (the text the model reads). */
export interface ToolResult {
	/** The tool the model called for this result (from the call in the same request). */
	name?: string;
	output: string;
}

/** One request to the model server, as the model would have seen it. */
export interface ModelRequest {
	api: 'chat' | 'responses';
	stream: boolean;
	tools: OfferedTool[];
	/** Every tool result in the conversation so far, oldest first. */
	toolResults: ToolResult[];
	/** The user's messages in the conversation so far. */
	userMessages: string[];
}

/** What the script answers: a call of one tool, or the final text. */
type ModelTurn = { call: { name: string; arguments: Record<string, unknown> } } | { text: string };

export type ModelScript = (request: ModelRequest) => ModelTurn;

export type ModelServer = Awaited<ReturnType<typeof startModelServer>>;

type Json = Record<string, unknown>;

/** The one model the server lists and answers as (the suites' workflows all name it). */
const MODEL = 'gpt-4o-mini';

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
function parseModelRequest(path: string, body: Json): ModelRequest {
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
	// Chat Completions: `messages`, calls in an assistant message's tool_calls, results in "tool" messages.
	// Responses: `input` (a string or items), calls in function_call items, results in function_call_output ones.
	const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : asArray(body.input);
	for (const entry of api === 'chat' ? asArray(body.messages) : input) {
		if (entry.role === 'user') userMessages.push(text(entry.content));
		for (const call of asArray(entry.tool_calls))
			calledTools.set(String(call.id), String((call.function as Json | undefined)?.name ?? ''));
		if (entry.type === 'function_call') calledTools.set(String(entry.call_id), String(entry.name ?? ''));
		if (entry.role === 'tool' || entry.type === 'function_call_output') {
			const callId = String(entry.tool_call_id ?? entry.call_id ?? '');
			toolResults.push({ name: calledTools.get(callId), output: text(entry.content ?? entry.output) });
		}
	}
	return { api, stream: body.stream === true, tools, toolResults, userMessages };
}

type Sse = { event?: string; data: unknown };

/** The turn's call as both APIs carry it (its arguments as JSON text), or false when the turn is text. */
const callOf = (turn: ModelTurn) =>
	'call' in turn && { name: turn.call.name, arguments: JSON.stringify(turn.call.arguments) };

function chatAnswer(turn: ModelTurn, n: number): { json: Json; events: Sse[] } {
	const base = { id: `chatcmpl-${n}`, created: Math.floor(Date.now() / 1000), model: MODEL };
	const fn = callOf(turn);
	const call = fn && { id: `call_${n}`, type: 'function', function: fn };
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
			usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
		},
		events: [
			{ data: chunk(call ? { ...message, tool_calls: [{ index: 0, ...call }] } : message, null) },
			{ data: chunk({}, finish) },
			{ data: '[DONE]' },
		],
	};
}

function responsesAnswer(turn: ModelTurn, n: number): { json: Json; events: Sse[] } {
	const response = {
		id: `resp_${n}`,
		object: 'response',
		created_at: Math.floor(Date.now() / 1000),
		status: 'completed',
		model: MODEL,
		usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
	};
	const call = callOf(turn);
	const text = 'text' in turn ? turn.text : '';
	const item: Json = call
		? { type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, ...call, status: 'completed' }
		: {
				type: 'message',
				id: `msg_${n}`,
				status: 'completed',
				role: 'assistant',
				// The SDK maps `annotations` with .map: it must be an array.
				content: [{ type: 'output_text', text, annotations: [] }],
			};
	const started = call ? { ...item, arguments: '' } : { ...item, status: 'in_progress', content: [] };
	const delta = call
		? { type: 'response.function_call_arguments.delta', delta: call.arguments }
		: { type: 'response.output_text.delta', content_index: 0, delta: text };
	const events: Json[] = [
		{ type: 'response.created', response: { ...response, status: 'in_progress', output: [] } },
		{ type: 'response.output_item.added', output_index: 0, item: started },
		{ ...delta, item_id: item.id, output_index: 0 },
		{ type: 'response.output_item.done', output_index: 0, item },
		{ type: 'response.completed', response: { ...response, output: [item] } },
	];
	// `object: 'response'` matters: without it the SDK does not compute output_text.
	return {
		json: { ...response, output: [item] },
		events: events.map((data, index) => ({ event: String(data.type), data: { ...data, sequence_number: index } })),
	};
}

/** Starts the server on a free port of 127.0.0.1. Until a script is set, it answers every request with text. */
export async function startModelServer() {
	const requests: ModelRequest[] = [];
	let script: ModelScript = () => ({ text: 'No script is set.' });
	let answered = 0;
	const server = await new HostileServer((incoming, outgoing) => {
		const { method, path } = incoming;
		if (method === 'GET' && path.endsWith('/models'))
			return sendJson(outgoing, { object: 'list', data: [{ id: MODEL, object: 'model', owned_by: 'test' }] });
		if (method !== 'POST' || !/\/(chat\/completions|responses)$/.test(path))
			return sendJson(outgoing, { error: { message: `no route ${method} ${path}` } }, 404);
		const request = parseModelRequest(path, incoming.json ?? {});
		requests.push(request);
		let turn: ModelTurn;
		try {
			turn = script(request);
		} catch (error) {
			// A script that cannot go on answers with its reason: the test sees it in the chat answer.
			turn = { text: `SCRIPT ERROR: ${(error as Error).message}` };
		}
		const answer = (request.api === 'chat' ? chatAnswer : responsesAnswer)(turn, ++answered);
		if (!request.stream) return sendJson(outgoing, answer.json);
		outgoing.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
		for (const event of answer.events) {
			if (event.event) outgoing.write(`event: ${event.event}\n`);
			outgoing.write(`data: ${typeof event.data === 'string' ? event.data : JSON.stringify(event.data)}\n\n`);
		}
		outgoing.end();
	}).start();
	return {
		/** The OpenAI Base URL to give n8n's credential. */
		baseUrl: `${server.url}/v1`,
		/** Every request received since the last script was set. */
		requests,
		setScript(next: ModelScript) {
			script = next;
			requests.length = 0;
		},
		close: async () => await server.stop(),
	};
}
