/**
 * The learning cases of batches (scripts/learning.ts), each run one webhook call whose items are the batch's seeded
 * renders (learning-calls.ts, batchRun).
 */
import type { Deployment } from './deployment';
import { batchRun, guarded } from './learning-calls';
import { taskRecords } from './learning-measure';
import { measured, ofBatch, renderTimes, type Row } from './learning-rows';
import type { OtherNodeState, StateAfter } from './learning-static';
import { MEDIAGEN, type Workflow } from './learning-workflows';
import { activateWorkflow, restJson, restRequest } from './rest';

/**
 * A batch workflow's life, the same seeded renders each run: run 1 (cold; with `fixed`, beside Fixed Interval), an
 * editor save, run 2, two runs at once, runs 4 and 5. `start` (run 1 and the save) may run before the deployment's
 * other cases: publishing the saved version holds n8n 2.x's main process for a moment.
 */
export function batchCase(
	deployment: Deployment,
	simulatorUrl: string,
	workflow: Workflow,
	count: number,
	seed: number,
	{ guard, fixed }: { guard?: OtherNodeState; fixed?: Workflow } = {},
) {
	const renders = renderTimes(count, seed, 'wide');
	const rows: Array<{ label: string; tag: string; state?: StateAfter; workflow: Workflow }> = [];
	const step = async (label: string, tag: string, calls = 1, beside?: Workflow) => {
		const run = async (ran: Workflow) => await batchRun(deployment, ran, renders, tag, calls);
		const state = await guarded(simulatorUrl, `${workflow.id} ${tag}c0`, guard, async () => {
			await Promise.all([workflow, ...(beside ? [beside] : [])].map(run));
		});
		rows.push({ label, tag, state, workflow });
		if (beside) rows.push({ label: 'run 1 of Fixed Interval, the same renders at once', tag, workflow: beside });
	};
	let started: Promise<void> | undefined;
	const start = async () => {
		started ??= (async () => {
			guard?.advance();
			await step('run 1 (cold)', 'r1', 1, fixed);
			await editorSave(deployment, deployment.idOf(workflow.id));
		})();
		await started;
	};
	const rest = async (): Promise<Row[]> => {
		await start();
		await step('run 2, after an editor save', 'r2');
		await step('runs 3a + 3b, at once', 'r3', 2);
		await step('run 4', 'r4');
		await step('run 5', 'r5');
		const tasks = await taskRecords(simulatorUrl);
		return rows.map(({ label, tag, state, workflow: ran }) => ({
			label,
			...measured(ofBatch(tasks, ran, tag)),
			...(state ? { states: [state] } : {}),
		}));
	};
	return { start, rest };
}

/** taughtCase's workflows, teachers and runs (each a label and its renders, in s). */
export type Taught = [
	learned: Workflow,
	fixed: Workflow,
	teachers: Array<[Workflow, number, number, number]>,
	runs: Array<{ label: string; renders: number[] }>,
];

/**
 * The grid's envelope after what other runs taught: `teachers` (batch workflows of the kind, run once, at once, their
 * renders drawn narrow: [workflow, count, seed, around (s)]), then `runs` of the learned workflow, each beside Fixed
 * Interval on the same renders. Rows: each label, learned then Fixed Interval (runs of one render, one item per
 * execution, taken together per label).
 */
export async function taughtCase(
	deployment: Deployment,
	simulatorUrl: string,
	...[learned, fixed, teachers, runs]: Taught
): Promise<Row[]> {
	const teach = async ([workflow, count, seed, around]: Taught[2][number]) =>
		await batchRun(deployment, workflow, renderTimes(count, seed, 'narrow', around), 't');
	await Promise.all(teachers.map(teach));
	for (const [index, run] of runs.entries()) {
		const call = async (workflow: Workflow) => await batchRun(deployment, workflow, run.renders, `t${index}`);
		await Promise.all([learned, fixed].map(call));
	}
	const tasks = await taskRecords(simulatorUrl);
	const labels = [...new Set(runs.map((run) => run.label))];
	const row = (label: string, workflow: Workflow, suffix: string): Row => {
		const mine = runs.flatMap((run, index) => (run.label === label ? ofBatch(tasks, workflow, `t${index}`) : []));
		return { label: `${label}, ${suffix}`, ...measured(mine) };
	};
	return labels.flatMap((label) => [row(label, learned, 'learned'), row(label, fixed, 'Fixed Interval')]);
}

/**
 * Saves the workflow as the editor does (no static data) with the MediaGen node moved, then publishes the saved
 * version in n8n 2.x (1.x re-activates an active workflow on save).
 */
export async function editorSave(deployment: Deployment, workflowId: string): Promise<void> {
	const workflow = await restJson<Record<string, unknown> & { nodes: Array<{ name: string; position: number[] }> }>(
		deployment.session,
		`/workflows/${workflowId}`,
	);
	const nodes = workflow.nodes.map((node) =>
		node.name === MEDIAGEN ? { ...node, position: [node.position[0] + 20, node.position[1] + 20] } : node,
	);
	const body = {
		name: workflow.name,
		nodes,
		pinData: workflow.pinData ?? {},
		connections: workflow.connections,
		active: workflow.active,
		settings: workflow.settings,
		tags: [],
		versionId: workflow.versionId,
		meta: workflow.meta ?? {},
	};
	await restRequest(deployment.session, `/workflows/${workflowId}`, {
		method: 'PATCH',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	if (!deployment.install.recipe.n8n.startsWith('1.')) await activateWorkflow(deployment.session, workflowId);
}
