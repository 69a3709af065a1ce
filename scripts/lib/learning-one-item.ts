/**
 * The learning cases of one item per execution (scripts/learning.ts, and the bench's queue-mode row), and the
 * warm-ups that let n8n load what its first execution loads before anything is timed.
 */
import type { Deployment } from './deployment';
import { callWebhook, guarded } from './learning-calls';
import { taskRecords, timedPrompt } from './learning-measure';
import { measured, ofRuns, RENDER_S, renderTimes, type Row } from './learning-rows';
import type { OtherNodeState, StateAfter } from './learning-static';
import { AGENT_TOOL, type Workflow } from './learning-workflows';
import { sendChat, waitForTrigger } from './n8n';
import type { ModelScript } from './model-server';

/** An agent execution is one tool call of a render of a few seconds: minutes mean n8n is stuck. */
const CHAT_TIMEOUT_MS = 180_000;

/** How many executions of one item, which seed draws their renders, and how each is started. */
export interface SingleItemRuns {
	runs: number;
	/** The first runs, reported apart: history builds up in them. */
	warmUp: number;
	seed: number;
	/** Another node's state in the static data of the workflow that holds the MediaGen node (a sub-workflow's). */
	guard?: OtherNodeState;
	/** Starts one execution with `prompt` and resolves when it ended (default: the workflow's webhook). */
	send?: (prompt: string, run: number) => Promise<void>;
	/** Told after each run ended (its number). */
	ran?: (run: number) => void;
}

/** A one-item workflow run `runs` times, one execution after the other; rows: the first `warmUp`, the others. */
export async function singleItemCase(
	deployment: Deployment,
	simulatorUrl: string,
	workflow: Workflow,
	{ runs, warmUp, seed, guard, send, ran }: SingleItemRuns,
): Promise<Row[]> {
	const renders = renderTimes(runs, seed, 'narrow');
	const start = send ?? (async (prompt: string) => await callWebhook(deployment, workflow, { prompt }));
	guard?.advance();
	const states: StateAfter[] = [];
	for (let run = 1; run <= runs; run++) {
		const tag = `${workflow.id} r${run}`;
		const execute = async () => await start(timedPrompt(renders[run - 1], `${tag} `), run);
		const state = await guarded(simulatorUrl, tag, guard, execute);
		if (state) states.push(state);
		ran?.(run);
	}
	const tasks = await taskRecords(simulatorUrl);
	const row = (from: number, to: number): Row => ({
		label: `runs ${from}–${to}`,
		...measured(ofRuns(tasks, `${workflow.id} r`, from, to)),
		...(guard ? { states: states.slice(from - 1, to) } : {}),
	});
	return runs > warmUp ? [row(1, warmUp), row(warmUp + 1, runs)] : [row(1, runs)];
}

/**
 * Sends one chat message to the agent example in a session of its own (singleItemCase's `send`); resolves once it is
 * answered: the model (agentModel) calls the tool once, one item.
 */
export function chatSender(deployment: Deployment, workflow: Workflow) {
	return async (chatInput: string, run: number | string) => {
		await sendChat(deployment.server.url, workflow.chatId!, `${workflow.id}-${run}`, chatInput, CHAT_TIMEOUT_MS);
	};
}

/** Chats once, uncounted: n8n loads the AI Agent's modules at its first execution, which holds the process seconds. */
export async function warmUpAgent(deployment: Deployment, workflow: Workflow): Promise<void> {
	await waitForTrigger(deployment.server.url, workflow.chatId!, 120_000, 'chat');
	// A render of the case's kind and time: the warm-up is a production execution, and what it learns is history.
	await chatSender(deployment, workflow)(timedPrompt(RENDER_S, `${workflow.id} warm-up `), 'warm-up');
}

/** One untimed execution that learns nothing (Fixed Interval): what a process's first execution loads holds it. */
export async function warmUpWorker(deployment: Deployment, fixed: Workflow): Promise<void> {
	await callWebhook(deployment, fixed, { prompt: timedPrompt(0.5, `${fixed.id} warm-up `) });
}

/** The model's script for the agent case: call the MediaGen tool with the user's message as the prompt, then answer. */
export const agentModel: ModelScript = (request) =>
	request.toolResults.length
		? { text: 'Here is your picture.' }
		: {
				call: {
					name: AGENT_TOOL,
					arguments: {
						prompt: request.userMessages[request.userMessages.length - 1] ?? '',
						count: 1,
						aspectRatio: '1:1',
						referenceImageUrl: '',
					},
				},
			};

/**
 * Renders that drop, one item per execution: a learned and a Fixed Interval workflow called at once with the same
 * render, `taught` of about `fromS`, then `drops` of `toS`, at Poll Interval `intervalS`. Rows: the taught
 * executions, the `searching` ones, the rest, each learned then fixed, in the case's Poll Intervals.
 */
export async function dropOneCase(
	deployment: Deployment,
	simulatorUrl: string,
	learned: Workflow,
	fixed: Workflow,
	spec: Record<'taught' | 'drops' | 'searching' | 'fromS' | 'toS' | 'intervalS' | 'seed', number>,
): Promise<Row[]> {
	const renders = [
		...renderTimes(spec.taught, spec.seed, 'narrow', spec.fromS),
		...Array.from({ length: spec.drops }, () => spec.toS),
	];
	for (const [index, seconds] of renders.entries()) {
		const call = async (workflow: Workflow) =>
			await callWebhook(deployment, workflow, { prompt: timedPrompt(seconds, `${workflow.id} o${index + 1} `) });
		await Promise.all([learned, fixed].map(call));
	}
	const tasks = await taskRecords(simulatorUrl);
	const row = (label: string, workflow: Workflow, from: number, to: number): Row => ({
		label,
		...measured(ofRuns(tasks, `${workflow.id} o`, from, to), spec.intervalS * 1000),
		intervalS: spec.intervalS,
	});
	const searched = spec.taught + spec.searching;
	const phases: Array<[string, number, number]> = [
		[`executions 1–${spec.taught}: renders of ${spec.fromS} s`, 1, spec.taught],
		[`executions ${spec.taught + 1}–${searched}: renders drop to ${spec.toS} s`, spec.taught + 1, searched],
		[`executions ${searched + 1}–${renders.length}: renders of ${spec.toS} s`, searched + 1, renders.length],
	];
	return phases.flatMap(([label, from, to]) => [
		row(`${label}, learned (Poll Interval ${spec.intervalS} s)`, learned, from, to),
		row(`${label}, Fixed Interval`, fixed, from, to),
	]);
}
