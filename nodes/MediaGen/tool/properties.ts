/**
 * What an AI Agent's model is told about the MediaGen tool, and the tool's own defaults in the editor (shown only on
 * the tool: `@tool` in displayOptions). n8n's default tool description says nothing about what comes back or the
 * limits, so each operation brings its own, built from the model specs; the defaults fit a call that must answer
 * within a minute and carries no files.
 */
import type { INodeProperties } from 'n8n-workflow';

import { IMAGE_MODELS } from '../models/image';
import { REFERENCE_INPUT } from '../models/parameterNames';
import type { FieldSpec, ModelSpec } from '../models/types';
import { VIDEO_MODELS } from '../models/video';
import { TOOL_MAX_WAIT_SECONDS } from './call';

const RETURNS = 'Returns JSON, never files: taskid, status, urls, taskType, model.';
const FAILED = 'status "failed": nothing more comes of this call; read message (what happened) and hint (what to do).';
const WAITED = `this tool's Max Wait (a call answers within ${TOOL_MAX_WAIT_SECONDS} s unless the workflow sets another time)`;

/** A field's help text inside a sentence: first letter lower-case, no full stop. */
function inSentence(text: string): string {
	return (text.charAt(0).toLowerCase() + text.slice(1)).replace(/\.$/, '');
}

/** One documented limit of a field, in a model's words (fields without limits say nothing). */
function fieldLimit(field: FieldSpec): string | undefined {
	const name = field.displayName;
	const required = field.required ? ' (required)' : '';
	switch (field.kind) {
		case 'string':
			if (field.maxLength !== undefined) return `${name}${required}: at most ${field.maxLength} characters`;
			if (field.check) return `${name}${required}: ${inSentence(field.description)}`;
			return field.required ? `${name} (required)` : undefined;
		case 'options':
			return `${name}: one of ${field.values.join(', ')}`;
		case 'integer':
			if (field.min !== undefined && field.max !== undefined) return `${name}: ${field.min} to ${field.max}`;
	}
	return undefined;
}

function referenceLimit(spec: ModelSpec): string | undefined {
	const references = spec.references;
	if (!references) return undefined;
	const label = references.label.toLowerCase();
	const count =
		references.minTotal !== undefined
			? `${references.minTotal} to ${references.maxTotal} ${label}`
			: references.maxTotal !== undefined
				? `at most ${references.maxTotal} ${label}`
				: label;
	if (references.urlField) {
		const how = references.urlField.list ? 'http(s) URLs, comma-separated,' : 'one http(s) URL';
		return `${count} only as ${how} in "${references.urlField.displayName}", never as files (this tool cannot receive files)`;
	}
	const asText = references.valueField
		? ` "${references.valueField.displayName}" is the only way to give them here`
		: '';
	return `${count}: this tool cannot receive files;${asText}`;
}

export function creationToolDescription(spec: ModelSpec): string {
	const noun = spec.taskType === 'video' ? 'video' : 'images';
	const limits = [...spec.fields.map(fieldLimit), referenceLimit(spec)].filter(Boolean).join('; ');
	return [
		`${spec.description} (MediaGen API, model ${spec.operation}).`,
		RETURNS,
		`status "completed": urls are links to the ${noun}; show them to the user.`,
		`status "pending": the ${spec.taskType} is still being made after ${WAITED}; call the MediaGen tool that waits for tasks with its taskid, now or later, instead of creating it again.`,
		FAILED,
		'Every call creates a new task, which costs credits.',
		limits ? `Limits: ${limits}.` : '',
	]
		.filter(Boolean)
		.join(' ');
}

export const TASK_TOOL_DESCRIPTIONS: Record<string, string> = {
	wait: [
		'Waits for MediaGen image or video tasks that were created earlier, for example one that another MediaGen tool returned with status "pending"; give it that taskid.',
		RETURNS,
		'status "completed": urls are the result links; show them to the user.',
		`status "pending": still not finished after ${WAITED}; call again later with the same taskid, or tell the user the taskid so they can ask later.`,
		FAILED,
		'Creates nothing and costs no credits.',
	].join(' '),
	get: [
		'Checks once, without waiting, a MediaGen image or video task created earlier, by its taskid.',
		RETURNS,
		'status "completed": urls are the result links. status "pending": not finished yet; check again later.',
		FAILED,
		'Creates nothing and costs no credits.',
	].join(' '),
	delete: [
		'Deletes MediaGen image or video tasks by taskid (several ids comma-separated); their results are gone afterwards, so only delete when the user asks.',
		'Returns JSON: status "deleted", message, taskids. status "failed": read message and hint.',
	].join(' '),
};

function withTool(displayOptions: INodeProperties['displayOptions'], tool: boolean) {
	return { ...displayOptions, show: { ...displayOptions?.show, '@tool': [tool] } };
}

function toolDescriptionProperty(resource: string, operation: string, text: string): INodeProperties {
	return {
		displayName: 'Description',
		name: 'toolDescription',
		type: 'string',
		typeOptions: { rows: 6 },
		default: text,
		required: true,
		description:
			'What the AI Agent’s model reads about this tool. The default says what this operation does, what it returns and its limits; adjust it to your agent.',
		displayOptions: { show: { '@tool': [true], resource: [resource], operation: [operation] } },
	};
}

/** An Options collection whose named options take another default and description (a tool's, Task → Delete's). */
export function withOptionDefaults(
	property: INodeProperties,
	overrides: Record<string, Pick<INodeProperties, 'default' | 'description'>>,
): INodeProperties {
	const options = (property.options as INodeProperties[]).map((option) => ({ ...option, ...overrides[option.name] }));
	return { ...property, options };
}

/** The tool's own defaults of the Options collection, which waiting/options.ts applies at run time. */
const TOOL_OPTIONS = {
	downloadResults: {
		default: false,
		description:
			'Whether to download the result files into binary data. Off in a tool: the model reads only JSON (the URLs), so the files would be downloaded for nothing.',
	},
	onTimeout: {
		default: 'returnPending',
		description:
			'What to do with a task that has not finished within Max Wait (it keeps running on the server). In a tool, Return Pending Task gives the model the task ID and how to come back for it.',
	},
	maxWait: {
		default: TOOL_MAX_WAIT_SECONDS,
		description: `How long one tool call may take in all, from its start to its answer (creation, waiting, downloads); a task not finished by then comes back pending with its task ID, for a Task → Wait tool to pick up. ${TOOL_MAX_WAIT_SECONDS} s by default: MCP clients give up on a call after 60 s unless set otherwise, and so do many chat front ends.`,
	},
};

/** The node's properties with the tool's: a Description per operation, tool twins of Options and the file input. */
export function withToolProperties(properties: INodeProperties[]): INodeProperties[] {
	const descriptions = [
		...[...IMAGE_MODELS, ...VIDEO_MODELS].map((spec) =>
			toolDescriptionProperty(spec.taskType, spec.operation, creationToolDescription(spec)),
		),
		...Object.entries(TASK_TOOL_DESCRIPTIONS).map(([operation, text]) =>
			toolDescriptionProperty('task', operation, text),
		),
	];
	const adapted = properties.flatMap((property): INodeProperties[] => {
		const original = { ...property, displayOptions: withTool(property.displayOptions, false) };
		if (property.name === 'options' && property.type === 'collection') {
			const options = withOptionDefaults(property, TOOL_OPTIONS);
			return [original, { ...options, displayOptions: withTool(property.displayOptions, true) }];
		}
		if (property.name === 'imageInput') {
			const description =
				'Leave at None in a tool: a tool call carries no files. Let the model give images as URLs in the URL field instead.';
			const displayOptions = withTool(property.displayOptions, true);
			return [original, { ...property, default: REFERENCE_INPUT.none, description, displayOptions }];
		}
		return [property];
	});
	return [...descriptions, ...adapted];
}
