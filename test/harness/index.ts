/**
 * Runs the MediaGen node inside n8n-core's real WorkflowExecute, the engine n8n itself uses, with a
 * credentials helper that applies the credential's real `authenticate` block and binary data stored
 * in filesystem mode under a temporary N8N_USER_FOLDER.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// n8n-core reads its folders from the environment when first loaded: point them at a temp folder first, and remove
// it when done (its binary files: 1 GiB downloads, 32 MiB uploads). Under Jest it goes in the run's folder, which
// test/harness/jestTeardown.ts removes when the run ends; a script removes its own when its process exits. Processes
// started from here share it through the environment.
const userFolder =
	process.env.N8N_USER_FOLDER ??
	((parent) => {
		const made = mkdtempSync(path.join(parent ?? tmpdir(), 'mediagen-n8n-'));
		if (!parent) process.on('exit', () => rmSync(made, { recursive: true, force: true }));
		return made;
	})(process.env.MEDIAGEN_TEST_TEMP);
process.env.N8N_USER_FOLDER = userFolder;
process.env.N8N_DEFAULT_BINARY_DATA_MODE ??= 'filesystem';
process.env.N8N_ENCRYPTION_KEY ??= 'mediagen-test-encryption-key';
process.env.N8N_BINARY_DATA_SIGNING_SECRET ??= 'mediagen-test-signing-secret';
process.env.N8N_LOG_LEVEL ??= 'silent';

import {
	BinaryDataService,
	ExecuteContext,
	ExecutionLifecycleHooks,
	FileLocation,
	RoutingNode,
	WorkflowExecute,
} from 'n8n-core';
import type {
	IBinaryData,
	IConnections,
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	ICredentialType,
	ICredentialTestRequest,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IRun,
	IRunExecutionData,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
	ExecutionError,
	INodeCredentialTestResult,
} from 'n8n-workflow';
import { ICredentialsHelper, Workflow } from 'n8n-workflow';

import { MediaGenApi } from '../../credentials/MediaGenApi.credentials';
import { MediaGen } from '../../nodes/MediaGen/MediaGen.node';
import type { NodeHistory } from '../../nodes/MediaGen/learning/history';
import { LEARNED, LearnedStore } from '../../nodes/MediaGen/learning/store';
import { fingerprint } from '../../nodes/MediaGen/helpers/fingerprint';
import { normalizeBaseUrl } from '../../nodes/MediaGen/transport/api';
import { NODE_TYPE } from '../nodeType';

// n8n-core resolves its services from its own copy of @n8n/di.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Container } = require(
	require.resolve('@n8n/di', { paths: [path.dirname(require.resolve('n8n-core'))] }),
) as typeof import('@n8n/di');

export const WORKFLOW_ID = 'mediagen-test-wf';

/**
 * n8n's logger, as nodes reach it (`this.logger`: n8n-core resolves Logger from its container): here it keeps the
 * lines of level info and above, so tests can read what a node logged (e.g. the ids of the tasks it created).
 */
const logLines: string[] = [];
const logListeners = new Set<(line: string) => void>();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Logger } = require(
	require.resolve('@n8n/backend-common', { paths: [path.dirname(require.resolve('n8n-core'))] }),
) as { Logger: new (...args: never[]) => unknown };
const keep = (message: unknown) => {
	const line = String(message);
	if (logListeners.size) for (const listener of logListeners) listener(line);
	else logLines.push(line);
};
const levels: Record<string, unknown> = { info: keep, warn: keep, error: keep };
// Every other method (debug, verbose…) is a no-op; scoped loggers (n8n-core's services ask for them) are this one.
const capturingLogger: object = new Proxy(levels, {
	get: (target, name: string) => (name === 'scoped' ? () => capturingLogger : (target[name] ?? (() => undefined))),
});
Container.set(Logger, capturingLogger);

/**
 * Hands every logged line to `listener` until the returned function is called. While anyone listens, lines are
 * not kept for `loggedLines` (the fault explorer runs many executions at once and keeps only its own lines).
 */
export function onLoggedLine(listener: (line: string) => void): () => void {
	logListeners.add(listener);
	return () => void logListeners.delete(listener);
}

/** How often n8n asked the credentials helper for the decrypted credential (in n8n: a database read each time). */
let credentialReads = 0;
export function credentialReadCount(): number {
	return credentialReads;
}

/** The lines logged so far (level info and above); `since` is an earlier length of this list. */
export function loggedLines(since = 0): string[] {
	return logLines.slice(since);
}

const credentialTypes: Record<string, ICredentialType> = { mediaGenApi: new MediaGenApi() };

/** Resolves `={{$credentials.name}}` the way n8n's expression engine would for a generic auth block. */
function resolveCredentialExpression(value: string, credentials: ICredentialDataDecryptedObject): string {
	if (!value.startsWith('=')) return value;
	return value
		.slice(1)
		.replace(/\{\{\s*\$credentials\.(\w+)\s*\}\}/g, (_match, name: string) => String(credentials[name] ?? ''));
}

class TestCredentialsHelper extends ICredentialsHelper {
	constructor(private readonly credentials: Record<string, ICredentialDataDecryptedObject>) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const authenticate = credentialTypes[typeName]?.authenticate;
		if (!authenticate) return requestOptions;
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		const { headers = {}, qs = {} } = authenticate.properties as { headers?: IDataObject; qs?: IDataObject };
		const resolved = (source: IDataObject) =>
			Object.fromEntries(
				Object.entries(source).map(([key, value]) => [key, resolveCredentialExpression(String(value), credentials)]),
			);
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, ...resolved(headers) },
			qs: { ...requestOptions.qs, ...resolved(qs) },
		};
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	getCredentialsProperties() {
		return [];
	}

	async getDecrypted(
		_additionalData: unknown,
		_nodeCredentials: unknown,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		credentialReads++;
		return { ...(this.credentials[type] ?? {}) };
	}

	async getCredentials(): Promise<never> {
		throw new Error('not used by the harness');
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	isCredentialUsableByNode(): boolean {
		return true;
	}
}

/**
 * Stand-in for n8n-nodes-base.manualTrigger (not a dependency here): in a manual run it only hands the
 * start item on, which is all the example workflows need from it.
 */
class ManualTriggerStandIn implements INodeType {
	description = {
		displayName: 'Manual Trigger',
		name: 'manualTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Stand-in',
		defaults: { name: 'Manual Trigger' },
		inputs: [],
		outputs: ['main'],
		properties: [],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}

/** Sticky notes are never executed; n8n only needs their type to exist. */
class StickyNoteStandIn implements INodeType {
	description = {
		displayName: 'Sticky Note',
		name: 'stickyNote',
		group: ['input'],
		version: 1,
		description: 'Stand-in',
		defaults: { name: 'Sticky Note' },
		inputs: [],
		outputs: [],
		properties: [],
	} as unknown as INodeType['description'];
}

/** Where the MediaGen node class comes from: the TypeScript sources (tests) or the built package (demo). */
export type NodeSource = 'src' | 'dist';

function loadMediaGen(source: NodeSource): INodeType {
	if (source === 'src') return new MediaGen();
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const built = require(path.join(__dirname, '..', '..', 'dist', 'nodes', 'MediaGen', 'MediaGen.node.js')) as {
		MediaGen: new () => INodeType;
	};
	return new built.MediaGen();
}

/** Node types the harness can run besides MediaGen (stand-ins for the few n8n nodes the examples use). */
const STAND_IN_TYPES = ['n8n-nodes-base.manualTrigger', 'n8n-nodes-base.stickyNote'];

/** Whether the harness can run a workflow: only MediaGen and the stand-ins, no other n8n node. */
export function harnessCanRun(definition: WorkflowDefinition): boolean {
	return definition.nodes.every((node) => node.type === NODE_TYPE || STAND_IN_TYPES.includes(node.type));
}

/**
 * The node as n8n offers it to an AI Agent (`usableAsTool`): the type `<type>Tool`, whose description name ends
 * in "Tool" (n8n's display rules and the node see that), running the same `execute`. Unlike n8n's conversion its
 * output stays `main`, so that a test reads what the tool returns like any node output.
 */
function asToolType(nodeType: INodeType): INodeType {
	const description = { ...nodeType.description, name: `${nodeType.description.name}Tool` };
	return { description, execute: nodeType.execute } as INodeType;
}

class TestNodeTypes implements INodeTypes {
	private readonly types: Record<string, INodeType>;

	constructor(source: NodeSource, extraNodeTypes: Record<string, INodeType> = {}) {
		const mediaGen = loadMediaGen(source);
		this.types = {
			[NODE_TYPE]: mediaGen,
			[`${NODE_TYPE}Tool`]: asToolType(mediaGen),
			'n8n-nodes-base.manualTrigger': new ManualTriggerStandIn(),
			'n8n-nodes-base.stickyNote': new StickyNoteStandIn(),
		};
		for (const [type, nodeType] of Object.entries(extraNodeTypes)) {
			if (this.types[type]) throw new Error(`extraNodeTypes cannot replace the harness's own type ${type}`);
			this.types[type] = nodeType;
		}
	}

	getByName(type: string): INodeType {
		const nodeType = this.types[type];
		if (!nodeType) throw new Error(`The harness cannot run node type ${type}`);
		return nodeType;
	}

	getByNameAndVersion(type: string): INodeType {
		return this.getByName(type);
	}

	getKnownTypes() {
		return {};
	}
}

let binaryReady: Promise<void> | undefined;

/** Filesystem-mode binary data, as in a default n8n 2.x instance. */
export async function binaryDataService(): Promise<BinaryDataService> {
	const service = Container.get(BinaryDataService);
	binaryReady ??= service.init();
	await binaryReady;
	return service;
}

/** Stores a file the way an upstream node would, so the node under test reads it through n8n's helpers. */
export async function storeBinary(data: Buffer, fileName: string, mimeType: string): Promise<IBinaryData> {
	const service = await binaryDataService();
	const extension = path.extname(fileName).slice(1);
	return await service.store(FileLocation.ofExecution(WORKFLOW_ID, 'input'), data, {
		data: '',
		mimeType,
		fileName,
		fileExtension: extension,
	});
}

/** The bytes of a binary output, read back from the filesystem store. */
export async function readBinary(binary: IBinaryData): Promise<Buffer> {
	const service = await binaryDataService();
	return await service.getAsBuffer(binary);
}

export interface NodeRunOptions {
	parameters: INodeParameters;
	items?: INodeExecutionData[];
	credentials?: { apiKey: string; baseUrl: string };
	continueOnFail?: boolean;
	/** The node's On Error setting; overrides continueOnFail. */
	onError?: INode['onError'];
	/** The node's Retry On Fail settings (n8n clamps maxTries to 2–5 and the wait to 0–5000 ms). */
	retryOnFail?: { maxTries: number; waitBetweenTries?: number };
	/** Cancel the execution this many milliseconds after it starts. */
	cancelAfterMs?: number;
	/** Told the moment the cancel is sent (a loaded machine may send it later than asked). */
	onCancel?: (at: number) => void;
	/** Run the node as an AI Agent's tool (node type `<type>Tool`). */
	asTool?: boolean;
	/** The node's name (default "MediaGen"); the node's log lines carry it. */
	name?: string;
	/**
	 * The workflow's static data, kept by the caller from run to run: what n8n saves after a production execution
	 * (trigger, webhook, schedule) and hands to the next one.
	 */
	staticData?: IDataObject;
	/** n8n's execution mode (default "manual", the editor's; "webhook", "trigger" … are production executions). */
	mode?: WorkflowExecuteMode;
	/** The workflow's id (default WORKFLOW_ID): what the process learned is kept per workflow and node. */
	workflowId?: string;
	/** The node's id (default "mediagen-node"). */
	nodeId?: string;
	/** What the process learned: WorkflowRunOptions.learned. */
	learned?: 'fresh' | 'kept';
}

export interface RunResult {
	output: INodeExecutionData[];
	/** The error output (On Error "Continue (using error output)"). */
	errorOutput: INodeExecutionData[];
	error?: ExecutionError;
	run: IRun;
}

export interface WorkflowDefinition {
	nodes: INode[];
	connections: IConnections;
}

export interface WorkflowRunOptions {
	credentials?: { apiKey: string; baseUrl: string };
	/** Items handed to the start node. */
	items?: INodeExecutionData[];
	/** Name of the start node; defaults to the manual trigger, else the first node. */
	startNode?: string;
	cancelAfterMs?: number;
	onCancel?: (at: number) => void;
	source?: NodeSource;
	/** Node types this run can use besides MediaGen and the stand-ins, by type name (e.g. a benchmark's own node). */
	extraNodeTypes?: Record<string, INodeType>;
	/** The workflow's static data (NodeRunOptions.staticData). */
	staticData?: IDataObject;
	/** n8n's execution mode (NodeRunOptions.mode). */
	mode?: WorkflowExecuteMode;
	/** The workflow's id (default WORKFLOW_ID). */
	workflowId?: string;
	/**
	 * What the process learned of render times (nodes/MediaGen/learning/store.ts, one store per test file): forgotten
	 * before the run ("fresh", the default: every run starts cold unless it asks otherwise) or kept from the runs
	 * before ("kept": what a long-running n8n process does).
	 */
	learned?: 'fresh' | 'kept';
}

/** The slots of what the process learned for a workflow's node and for its credential's API (learning/store.ts). */
function learnedSlots(workflowId: string, nodeId: string, baseUrl: string): { node: string; api: string } {
	const api = LearnedStore.apiSlot(fingerprint(normalizeBaseUrl(baseUrl)));
	return { node: LearnedStore.nodeSlot(workflowId, nodeId), api };
}

/** What the process learned for a workflow's node, and for its API, of every kind (copies). */
export function learnedFor(
	workflowId: string,
	nodeId: string,
	baseUrl: string,
): { own: NodeHistory; api: NodeHistory } {
	const slots = learnedSlots(workflowId, nodeId, baseUrl);
	const { own } = LEARNED.read(slots.node, undefined, () => new Map());
	const api = LEARNED.read(slots.api, undefined, () => new Map()).own;
	return { own, api };
}

/** Forgets what the process learned for a workflow's node and for its API (runs side by side stay apart). */
export function forgetLearned(workflowId: string, nodeId: string, baseUrl: string): void {
	const slots = learnedSlots(workflowId, nodeId, baseUrl);
	LEARNED.forget(slots.node, slots.api);
}

let executionCounter = 0;

/** The execution's lifecycle hooks, and the run they report when the workflow ends (even a cancelled one). */
function lifecycleHooks(
	mode: WorkflowExecuteMode,
	executionId: string,
	workflowId: string,
	definition: WorkflowDefinition,
): { hooks: ExecutionLifecycleHooks; finished: Promise<IRun> } {
	const hooks = new ExecutionLifecycleHooks(mode, executionId, {
		id: workflowId,
		name: 'MediaGen test',
		active: false,
		isArchived: false,
		nodes: definition.nodes,
		connections: definition.connections,
		createdAt: new Date(),
		updatedAt: new Date(),
		activeVersionId: null,
	} as never);
	let reportRun: (run: IRun) => void = () => {};
	const finished = new Promise<IRun>((resolve) => (reportRun = resolve));
	hooks.addHandler('workflowExecuteAfter', (run) => reportRun(run));
	return { hooks, finished };
}

/** What n8n hands an execution besides the workflow: the credentials and the instance's URLs; no sub-workflows. */
function additionalDataFor(
	hooks: ExecutionLifecycleHooks,
	executionId: string,
	credentials: Record<string, unknown>,
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper: new TestCredentialsHelper(credentials as Record<string, ICredentialDataDecryptedObject>),
		hooks,
		executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678/',
		formBaseUrl: '',
		formWaitingBaseUrl: '',
		formTestBaseUrl: '',
		webhookBaseUrl: '',
		webhookWaitingBaseUrl: '',
		webhookTestBaseUrl: '',
		mcpBaseUrl: '',
		mcpTestBaseUrl: '',
		variables: {},
		executeWorkflow: async () => {
			throw new Error('not supported');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('not supported');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
}

/** Runs a whole workflow (MediaGen nodes behind a manual trigger) in n8n's WorkflowExecute. */
export async function runWorkflow(definition: WorkflowDefinition, options: WorkflowRunOptions = {}): Promise<IRun> {
	await binaryDataService();
	if ((options.learned ?? 'fresh') === 'fresh') LEARNED.clear();
	const nodeTypes = new TestNodeTypes(options.source ?? 'src', options.extraNodeTypes);
	const workflowId = options.workflowId ?? WORKFLOW_ID;
	const workflow = new Workflow({
		id: workflowId,
		nodes: definition.nodes,
		connections: definition.connections,
		nodeTypes,
		active: false,
		settings: { binaryMode: 'separate' },
		staticData: options.staticData,
	});
	const start =
		definition.nodes.find((node) => node.name === options.startNode) ??
		definition.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger') ??
		definition.nodes[0];

	const executionId = `exec-${++executionCounter}`;
	const { hooks, finished } = lifecycleHooks(options.mode ?? 'manual', executionId, workflowId, definition);
	const credentials = options.credentials ? { mediaGenApi: options.credentials } : {};
	const additionalData = additionalDataFor(hooks, executionId, credentials);

	const runExecutionData: IRunExecutionData = {
		version: 1,
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			metadata: {},
			nodeExecutionStack: [{ node: start, data: { main: [options.items ?? [{ json: {} }]] }, source: null }],
			waitingExecution: {},
			waitingExecutionSource: {},
		},
	} as unknown as IRunExecutionData;

	const execution = new WorkflowExecute(additionalData, options.mode ?? 'manual', runExecutionData);
	const running = execution.processRunExecutionData(workflow);
	let timer: NodeJS.Timeout | undefined;
	if (options.cancelAfterMs !== undefined)
		timer = setTimeout(() => {
			options.onCancel?.(Date.now());
			running.cancel();
		}, options.cancelAfterMs);
	try {
		return await running;
	} catch (error) {
		// A cancelled execution rejects; its hooks still report the run.
		return await Promise.race([finished, new Promise<IRun>((_, reject) => setTimeout(() => reject(error), 2000))]);
	} finally {
		if (timer) clearTimeout(timer);
	}
}

/** Runs the MediaGen node alone, on the given input items. */
export async function runNode(options: NodeRunOptions): Promise<RunResult> {
	const node: INode = {
		id: options.nodeId ?? 'mediagen-node',
		name: options.name ?? 'MediaGen',
		type: options.asTool ? `${NODE_TYPE}Tool` : NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: options.parameters,
		credentials: { mediaGenApi: { id: 'cred-1', name: 'MediaGen account' } },
		...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
		...(options.onError ? { onError: options.onError } : {}),
		...(options.retryOnFail
			? {
					retryOnFail: true,
					maxTries: options.retryOnFail.maxTries,
					waitBetweenTries: options.retryOnFail.waitBetweenTries ?? 0,
				}
			: {}),
	};
	const run = await runWorkflow(
		{ nodes: [node], connections: {} },
		{
			credentials: options.credentials,
			items: options.items,
			cancelAfterMs: options.cancelAfterMs,
			onCancel: options.onCancel,
			staticData: options.staticData,
			mode: options.mode,
			workflowId: options.workflowId,
			learned: options.learned,
		},
	);
	const taskData = run.data.resultData.runData[node.name]?.[0];
	return {
		output: (taskData?.data?.main?.[0] as INodeExecutionData[] | undefined) ?? [],
		errorOutput: (taskData?.data?.main?.[1] as INodeExecutionData[] | undefined) ?? [],
		error: run.data.resultData.error ?? taskData?.error,
		run,
	};
}

/** A temporary node whose one property sends the credential's test request, as n8n's credential test does. */
function credentialTestNode(
	data: { apiKey: string; baseUrl: string },
	testRequest: ICredentialTestRequest,
): RoutingNode {
	const nodeType = {
		description: {
			displayName: 'Temp',
			name: 'temp',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: {},
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: 'mediaGenApi', required: true }],
			properties: [
				{ displayName: 'Temp', name: 'temp', type: 'string', routing: { request: testRequest.request }, default: '' },
			],
		},
	} as unknown as INodeType;
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'temp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { mediaGenApi: { id: 'cred-1', name: 'MediaGen account' } },
	};
	const nodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	} as unknown as INodeTypes;
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const additionalData = {
		credentialsHelper: new TestCredentialsHelper({ mediaGenApi: data }),
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678/',
		variables: {},
	} as unknown as IWorkflowExecuteAdditionalData;
	const inputData = { main: [[{ json: {} }]] };
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		{ resultData: { runData: {} } } as never,
		0,
		[],
		inputData,
		{ node, data: {}, source: null },
		[],
	);
	return new RoutingNode(context, nodeType, {
		id: 'cred-1',
		name: 'MediaGen account',
		type: 'mediaGenApi',
		data,
	});
}

/** What n8n's credential test says when the test request failed: a rule for its status, else the error's words. */
function failedTest(caught: unknown, testRequest: ICredentialTestRequest): INodeCredentialTestResult {
	const error = caught as {
		message: string;
		cause?: { code?: string; response?: { status: number; statusText?: string } };
	};
	if (error.cause?.response) {
		const { status, statusText } = error.cause.response;
		for (const rule of testRequest.rules ?? []) {
			if (rule.type === 'responseCode' && rule.properties.value === status)
				return { status: 'Error', message: rule.properties.message };
		}
		if (status < 199 || status > 299)
			return { status: 'Error', message: statusText || `Received HTTP status code: ${status}` };
	} else if (error.cause?.code) {
		return { status: 'Error', message: error.cause.code };
	}
	return { status: 'Error', message: error.message };
}

/**
 * Runs the credential's test request the way n8n's CredentialsTester (packages/cli/src/services/
 * credentials-tester.service.ts) does for a declarative `test`: a temporary node whose only property routes
 * the request, executed by n8n-core's RoutingNode with the credential applied, then the same mapping of
 * failures to messages (a rule's message for its status code, else the HTTP reason phrase).
 */
export async function testCredential(data: { apiKey: string; baseUrl: string }): Promise<INodeCredentialTestResult> {
	const testRequest = credentialTypes.mediaGenApi.test!;
	let response: INodeExecutionData[][] | null | undefined;
	try {
		response = await credentialTestNode(data, testRequest).runNode();
	} catch (caught) {
		return failedTest(caught, testRequest);
	}
	for (const rule of testRequest.rules ?? []) {
		if (rule.type === 'responseSuccessBody') {
			const json = response?.[0]?.[0]?.json as IDataObject | undefined;
			if (json?.[rule.properties.key] === rule.properties.value)
				return { status: 'Error', message: rule.properties.message };
		}
	}
	return { status: 'OK', message: 'Connection successful!' };
}
