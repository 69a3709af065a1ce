/** Turns a model spec into the node's parameters, so the UI shows exactly that model's fields. */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { TaskType } from '../models/endpoints';
import { parameterName, REFERENCE_INPUT } from '../models/parameterNames';
import type { FieldSpec, ModelSpec } from '../models/types';
import { TASK_TYPE_FROM_INPUT } from '../request/taskItem';
import { MAX_REQUEST_TIMEOUT_MS } from '../transport';
import { DEFAULT_MAX_CONCURRENCY, waitDefaults } from '../waiting/options';

function fieldProperty(field: FieldSpec): INodeProperties {
	const base = {
		displayName: field.displayName,
		name: parameterName(field.wire),
		description: field.description,
		...(field.placeholder ? { placeholder: field.placeholder } : {}),
	};
	switch (field.kind) {
		case 'string':
			return { ...base, type: 'string', default: '', ...(field.rows ? { typeOptions: { rows: field.rows } } : {}) };
		case 'integer':
			return {
				...base,
				type: 'number',
				default: field.default ?? field.min ?? 0,
				typeOptions: {
					numberPrecision: 0,
					...(field.min !== undefined ? { minValue: field.min } : {}),
					...(field.max !== undefined ? { maxValue: field.max } : {}),
				},
			};
		case 'options':
			return {
				...base,
				type: 'options',
				default: field.default,
				options: field.values.map(
					(value): INodePropertyOptions => ({ name: field.labels?.[String(value)] ?? String(value), value }),
				),
			};
		case 'switch':
			return { ...base, type: 'boolean', default: false };
	}
}

/** All parameters of one model's creation operation. */
export function modelProperties(spec: ModelSpec): INodeProperties[] {
	const show = { resource: [spec.taskType], operation: [spec.operation] };
	const main: INodeProperties[] = spec.fields
		.filter((field) => field.placement === 'main')
		.map((field) => ({ ...fieldProperty(field), required: field.required ?? false, displayOptions: { show } }));

	const additional: INodeProperties[] = spec.fields
		.filter((field) => field.placement === 'additional')
		.map(fieldProperty);

	const references = spec.references;
	if (references) {
		const defaultInput: string = references.filesByDefault ? REFERENCE_INPUT.properties : REFERENCE_INPUT.none;
		main.push(
			{
				displayName: `${references.label} From Binary`,
				name: 'imageInput',
				type: 'options',
				options: [
					{ name: 'None', value: REFERENCE_INPUT.none, description: 'Send no files' },
					{
						name: 'Named Binary Properties',
						value: REFERENCE_INPUT.properties,
						description: 'Send the files of the binary properties named below',
					},
					{
						name: 'All Binary Properties of the Item',
						value: REFERENCE_INPUT.all,
						description: 'Send every file of the input item (except the mask)',
					},
				],
				default: defaultInput,
				description: `Image files to send from the input item's binary data${references.acceptedTypesLabel ? ` (${references.acceptedTypesLabel})` : ''}`,
				displayOptions: { show },
			},
			{
				displayName: 'Binary Property Names',
				name: 'binaryPropertyNames',
				type: 'string',
				default: 'data',
				placeholder: 'e.g. data, image2',
				description: 'Comma-separated names of the input binary properties that hold the files',
				displayOptions: { show: { ...show, imageInput: [REFERENCE_INPUT.properties] } },
			},
		);
		if (references.urlField) {
			main.push({
				displayName: references.urlField.displayName,
				name: 'imageUrls',
				type: 'string',
				default: '',
				placeholder: references.urlField.list
					? 'e.g. https://example.com/a.png, https://example.com/b.png'
					: 'e.g. https://example.com/a.png',
				description: references.urlField.description,
				displayOptions: { show },
			});
		}
		if (references.valueField) {
			additional.push({
				displayName: references.valueField.displayName,
				name: parameterName(references.valueField.wire),
				type: 'string',
				default: '',
				description: references.valueField.description,
			});
		}
	}
	if (spec.mask) {
		additional.push({
			displayName: 'Mask Binary Property',
			name: 'maskBinaryProperty',
			type: 'string',
			default: 'mask',
			description:
				'Binary property holding a PNG mask: transparent areas are edited, the rest is kept. Needs a reference image and must match the first one’s size.',
		});
	}
	additional.push({
		displayName: 'Extra Form Fields',
		name: 'extraFormFields',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		default: {},
		placeholder: 'Add Form Field',
		description:
			'Fields the node does not offer, passed on unchanged (e.g. a switch whose name differs from the assumed one)',
		options: [
			{
				displayName: 'Field',
				name: 'field',
				values: [
					{
						displayName: 'Name',
						name: 'name',
						type: 'string',
						default: '',
						description: 'Field name exactly as the API expects it',
					},
					{ displayName: 'Value', name: 'value', type: 'string', default: '', description: 'Sent as text, as it is' },
				],
			},
		],
	});

	return [
		...main,
		{
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			displayOptions: { show },
			options: additional.sort((a, b) => a.displayName.localeCompare(b.displayName)),
		},
		{
			displayName: 'Wait for Completion',
			name: 'waitForCompletion',
			type: 'boolean',
			default: true,
			description: 'Whether to poll the task until its results exist and output them; off outputs the task ID at once',
			displayOptions: { show },
		},
		{ ...optionsProperty([spec.taskType], true), displayOptions: { show } },
	];
}

/** The Operation selector of a resource, one entry per model. */
export function operationProperty(resource: string, models: ModelSpec[]): INodeProperties {
	const defaultOperation = models[0].operation;
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options: models.map((model) => ({
			name: model.displayName,
			value: model.operation,
			action: model.action,
			description: model.description,
		})),
		default: defaultOperation,
	};
}

/** Options that apply with and without waiting; the others show only once Wait for Completion is on. */
const UNCONDITIONAL = ['maxConcurrency', 'requestTimeout', 'repeatUncertainCreations'];

/**
 * Options of creation operations only: Task → Wait does not know when its tasks were created (Poll Schedule), and
 * only a creation can be uncertain.
 */
const CREATION_ONLY = ['pollSchedule', 'repeatUncertainCreations'];

/**
 * The Options collection of every creation operation and of Task → Wait and Task → Get. `whenWaiting` marks a
 * creation operation (its waiting options wait for Wait for Completion); `only` keeps the named options.
 */
export function optionsProperty(
	taskTypes: readonly TaskType[],
	whenWaiting: boolean,
	only?: readonly string[],
): INodeProperties {
	const defaults = waitDefaults(taskTypes);
	const { pollInterval, maxWait, requestTimeout } = defaults;
	// Several task types (Task Type "From Input Item"): say what an unset option means for each.
	const perType = (option: keyof typeof defaults) =>
		taskTypes.length > 1
			? ` When not set: ${taskTypes.map((taskType) => `${waitDefaults([taskType])[option]} s for ${taskType} tasks`).join(', ')}.`
			: '';
	const all: INodeProperties[] = [
		{
			displayName: 'Binary Property Prefix',
			name: 'binaryPropertyPrefix',
			type: 'string',
			default: 'data',
			description: 'Name of the binary property for the first file; further files get _1, _2, … appended',
			displayOptions: { show: { downloadResults: [true] } },
		},
		{
			displayName: 'Download Results',
			name: 'downloadResults',
			type: 'boolean',
			default: true,
			description: 'Whether to download the result files into binary data; the result URLs are in the JSON either way',
		},
		{
			displayName: 'Failed Status Codes',
			name: 'failedStatusCodes',
			type: 'string',
			default: '',
			placeholder: 'e.g. 3, 4',
			description:
				'Comma-separated status values that mean the task failed (the API does not document them). Empty: only result URLs end the wait.',
		},
		{
			displayName: 'Max Concurrent Requests',
			name: 'maxConcurrency',
			type: 'number',
			typeOptions: { minValue: 1, numberPrecision: 0 },
			default: DEFAULT_MAX_CONCURRENCY,
			description:
				'Most API requests in flight at once across all items. A run starts with up to 256 and doubles while the API keeps up; halved automatically while the API answers HTTP 429.',
		},
		{
			displayName: 'Max Wait (Seconds)',
			name: 'maxWait',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: maxWait,
			description: `How long to wait for each task before On Timeout applies.${perType('maxWait')}`,
		},
		{
			displayName: 'On Timeout',
			name: 'onTimeout',
			type: 'options',
			options: [
				{ name: 'Error', value: 'error', description: 'Fail the item; the error names the task ID' },
				{
					name: 'Return Pending Task',
					value: 'returnPending',
					description: 'Output the task ID and its last status, to resume later with Task → Wait',
				},
			],
			default: 'error',
			description: 'What to do with a task that has not finished within Max Wait (it keeps running on the server)',
		},
		{
			displayName: 'Poll Interval (Seconds)',
			name: 'pollInterval',
			type: 'number',
			typeOptions: { minValue: 0.1 },
			default: pollInterval,
			description: `Time between two status checks of a task, counted from its creation.${perType('pollInterval')}`,
		},
		{
			displayName: 'Poll Schedule',
			name: 'pollSchedule',
			type: 'options',
			options: [
				{
					name: 'Fixed Interval',
					value: 'fixed',
					description: 'Check each task every Poll Interval from its creation',
				},
				{
					name: 'Learned From Finished Renders',
					value: 'learned',
					description:
						'Check each task where renders of its model and size have been seen to finish, in this run and in earlier runs of this n8n process (kept in its memory, not in the workflow: a restart starts again from Poll Interval); Poll Interval until enough are known, and never later than it once a task has been checked',
				},
			],
			default: 'learned',
			description: 'When to check whether a task is done',
		},
		{
			displayName: 'Request Timeout (Seconds)',
			name: 'requestTimeout',
			type: 'number',
			// Timers take at most 2^31 - 1 ms; a larger value from an expression counts as this (waiting/options.ts).
			typeOptions: { minValue: 1, maxValue: Math.floor(MAX_REQUEST_TIMEOUT_MS / 1000) },
			default: requestTimeout,
			description: `How long one request may take before it is abandoned (at most about 24.8 days).${perType('requestTimeout')}`,
		},
		{
			displayName: 'Repeat Uncertain Creations',
			name: 'repeatUncertainCreations',
			type: 'boolean',
			default: false,
			description:
				'Whether a later try (Retry On Fail, Retry execution) may create an item again whose creation got no clear answer (HTTP 5xx, a dropped connection, no answer in time): a task may have been created and charged then, and creating again may charge twice. Off: that item ends with an error instead.',
		},
		{
			displayName: 'Split Into Items',
			name: 'splitIntoItems',
			type: 'boolean',
			default: false,
			description: 'Whether to output one item per result URL instead of one item per task',
		},
		{
			displayName: 'Succeeded Status Codes',
			name: 'succeededStatusCodes',
			type: 'string',
			default: '',
			placeholder: 'e.g. 2',
			description:
				'Comma-separated status values that mean the task is done (the API does not document them). Empty: result URLs end the wait.',
		},
	];
	const options = all
		.filter(({ name }) => (whenWaiting || !CREATION_ONLY.includes(name)) && (!only || only.includes(name)))
		.map((option) =>
			whenWaiting && !UNCONDITIONAL.includes(option.name)
				? { ...option, displayOptions: { show: { '/waitForCompletion': [true], ...option.displayOptions?.show } } }
				: option,
		);
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		// n8n shows a collection of one option as a single button labelled with the placeholder: name the option.
		placeholder: options.length === 1 ? `Add ${options[0].displayName}` : 'Add Option',
		default: {},
		options,
	};
}

/** A Task operation's Options collections, one per Task Type, so that the editor shows that type's defaults. */
export function taskOptionsProperties(operation: string, only?: readonly string[]): INodeProperties[] {
	const typeChoices: Record<string, readonly TaskType[]> = {
		image: ['image'],
		video: ['video'],
		[TASK_TYPE_FROM_INPUT]: ['image', 'video'],
	};
	return Object.entries(typeChoices).map(([choice, taskTypes]) => ({
		...optionsProperty(taskTypes, false, only),
		displayOptions: { show: { resource: ['task'], operation: [operation], taskType: [choice] } },
	}));
}
