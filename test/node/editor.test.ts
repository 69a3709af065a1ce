/** What the editor shows: codex, subtitle, fields per operation, defaults and tooltips, checked against the model specs. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { INode, INodeProperties } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { IMAGE_MODELS } from '../../nodes/MediaGen/models/image';
import { VIDEO_MODELS } from '../../nodes/MediaGen/models/video';
import {
	collectionEntries,
	description,
	operations,
	parameterValues,
	visibleLabels,
	visibleParameters,
} from '../editor-labels';

const MODELS = [...IMAGE_MODELS, ...VIDEO_MODELS];
const codex = JSON.parse(readFileSync(path.join(__dirname, '../../nodes/MediaGen/MediaGen.node.json'), 'utf8')) as {
	categories: string[];
	subcategories: Record<string, string[]>;
	alias: string[];
};

describe('Codex: the node is found by search in the nodes panel', () => {
	it('is classified like n8n’s own OpenAI and Gemini nodes (an AI node search does not hide)', () => {
		expect(codex.categories).toContain('AI');
		// n8n's node search hides AI nodes whose subcategories do not say what kind of AI node they are.
		expect(codex.subcategories.AI).toEqual(['Agents', 'Miscellaneous', 'Root Nodes']);
	});

	it('has aliases for every model, by operation value and by display name, plus image/video/generate', () => {
		const aliases = codex.alias.map((alias) => alias.toLowerCase());
		for (const word of ['image', 'video', 'generate', 'proimage', 'gamma']) expect(aliases).toContain(word);
		for (const model of MODELS) {
			expect(aliases).toContain(model.operation);
			expect(aliases).toContain(model.displayName.replace(/^Create With /, '').toLowerCase());
		}
	});
});

describe('Canvas subtitle', () => {
	const nodeTypes = {
		getByName: () => undefined,
		getByNameAndVersion: () => undefined,
		getKnownTypes: () => ({}),
	} as never;
	const subtitle = (parameters: Record<string, string>) => {
		const node = {
			id: 'n',
			name: 'MediaGen',
			type: 'n8n-nodes-mediagen.mediaGen',
			typeVersion: 1,
			position: [0, 0],
			parameters,
		} as INode;
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
		return workflow.expression.getSimpleParameterValue(node, description.subtitle, 'internal', {});
	};

	it('names the operation as the actions list does, for every operation (evaluated by n8n’s expression engine)', () => {
		for (const { resource, operation, name } of operations()) {
			const model = MODELS.find((spec) => spec.operation === operation);
			const expected = model
				? model.displayName
				: { get: 'Get Task', wait: 'Wait for Task', delete: 'Delete Tasks' }[operation];
			if (model) expect(name).toBe(model.displayName);
			expect(subtitle({ resource, operation })).toBe(expected);
		}
		expect(subtitle({ resource: 'image', operation: '__CUSTOM_API_CALL__' })).toBe('Custom API Call');
	});
});

describe('Fields per operation follow the model specs', () => {
	it.each(MODELS.map((model) => [model.operation, model] as const))(
		'%s shows its main fields, Prompt required where the API requires it',
		(_name, model) => {
			const choices = { resource: model.taskType, operation: model.operation };
			const shown = visibleParameters(choices);
			const labels = visibleLabels(choices);
			for (const field of model.fields.filter((candidate) => candidate.placement === 'main'))
				expect(labels).toContain(field.displayName);
			const prompt = shown.find((property) => property.name === 'prompt')!;
			// The spec marks prompt required for proimage, beta v4.5 and beta v4 only.
			expect(prompt.required).toBe(['proimage', 'betav45', 'betav4'].includes(model.operation));
			expect(prompt.typeOptions?.rows).toBeGreaterThan(1); // multi-line, images and videos alike
			const additional = collectionEntries(choices, 'additionalFields').map((entry) => entry.displayName);
			for (const field of model.fields.filter((candidate) => candidate.placement === 'additional'))
				expect(additional).toContain(field.displayName);
			if (model.references?.valueField) expect(additional).toContain('Source Image as Text');
		},
	);

	it('shows beta v4.5 exactly these labels', () => {
		expect(visibleLabels({ resource: 'image', operation: 'betav45' })).toEqual([
			'Resource',
			'Operation',
			'Prompt',
			'Source Images From Binary',
			'Source Image URL',
			'Additional Fields',
			'Wait for Completion',
			'Options',
		]);
	});

	it('tooltips speak to users: no "sent as" wire talk, and the source image fields say what goes where', () => {
		const all: INodeProperties[] = [];
		const walk = (list: INodeProperties[]) =>
			list.forEach((property) => {
				all.push(property);
				walk(
					((property.options ?? []) as INodeProperties[]).filter(
						(option) => 'displayName' in option && 'type' in option,
					),
				);
			});
		walk(description.properties);
		for (const property of all)
			expect(`${property.displayName}: ${property.description ?? ''}`).not.toMatch(
				/\bsent as\b|on the wire|\bparts?\b/i,
			);
		const url = all.find((property) => property.displayName === 'Source Image URL')!;
		const text = all.find((property) => property.displayName === 'Source Image as Text')!;
		expect(url.description).toMatch(/web address/i);
		expect(text.description).toMatch(/Source Images From Binary/);
		expect(text.description).toMatch(/Source Image URL/);
	});
});

describe('Defaults', () => {
	it('Download Results is on by default for every creation operation', () => {
		for (const model of MODELS) {
			const download = collectionEntries(
				{ resource: model.taskType, operation: model.operation, waitForCompletion: true },
				'options',
			).find((entry) => entry.name === 'downloadResults');
			expect(download?.default).toBe(true);
		}
	});

	it.each([
		['image', { pollInterval: 5, maxWait: 300, requestTimeout: 120 }],
		['video', { pollInterval: 10, maxWait: 1800, requestTimeout: 300 }],
		['fromInput', { pollInterval: 5, maxWait: 1800, requestTimeout: 300 }],
	])('Task → Wait with Task Type %s shows that type’s defaults', (taskType, expected) => {
		const entries = collectionEntries({ resource: 'task', operation: 'wait', taskType }, 'options');
		const defaults = Object.fromEntries(
			entries.filter((entry) => entry.name in expected).map((entry) => [entry.name, entry.default]),
		);
		expect(defaults).toEqual(expected);
		expect(
			visibleParameters({ resource: 'task', operation: 'wait', taskType }).filter(
				(property) => property.name === 'options',
			),
		).toHaveLength(1);
	});

	it.each(['image', 'video', 'fromInput'])(
		'Task → Delete with Task Type %s: Max Concurrent Requests, Max Wait (how long a request is repeated) and Request Timeout',
		(taskType) => {
			const entries = collectionEntries({ resource: 'task', operation: 'delete', taskType }, 'options');
			const defaults = Object.fromEntries(entries.map((entry) => [entry.name, entry.default]));
			expect(defaults).toEqual({
				maxConcurrency: 256,
				maxWait: 300,
				requestTimeout: taskType === 'image' ? 120 : 300,
			});
			expect(entries.find((entry) => entry.name === 'maxWait')?.description).toMatch(
				/repeated while the API rate-limits/,
			);
		},
	);

	it('Task operations take a creation’s output items as they are', () => {
		for (const operation of ['get', 'wait']) {
			const values = parameterValues({ resource: 'task', operation });
			expect(values).toMatchObject({ taskType: 'fromInput', taskId: '={{ $json.taskid }}' });
		}
		expect(parameterValues({ resource: 'task', operation: 'delete' })).toMatchObject({
			taskType: 'fromInput',
			taskIds: '={{ $json.taskid }}',
		});
	});
});
