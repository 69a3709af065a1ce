/**
 * An in-process stand-in for the MediaGen API: all 11 endpoints of the API over real HTTP, with
 * its auth, validation, credits, task lifecycle and result files, plus fault injection and a record
 * of every request so tests can assert what went over the wire.
 *
 * Status values are the simulator's own choice (the API documentation does not give them):
 *   0 = queued, 1 = processing, 2 = succeeded, 3 = failed.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import { parseMultipart, type MultipartPart } from './multipart';
import { makePng } from './png';
import { CREATION_ENDPOINTS, RuleError, type CreationPlan } from './rules';

export const SIM_STATUS = { queued: 0, processing: 1, succeeded: 2, failed: 3 } as const;

export const DEFAULT_SIM_KEY = 'sim-key-5f1c0ffee';

/** `partialUrls`: while processing, info already lists the first result URL (some APIs stream results). */
export type TaskOutcome = 'succeed' | 'fail' | 'never' | 'emptyUrls' | 'infoError' | 'partialUrls';

export type FaultAction =
	| { type: 'status'; status: number; body?: string; contentType?: string; headers?: Record<string, string> }
	| { type: 'drop' }
	| { type: 'html'; status?: number }
	| { type: 'malformed' }
	| { type: 'delay'; ms: number }
	/**
	 * Handles the request, then answers `ms` later: a creation's task exists and its render runs before the client
	 * hears of it (as when a busy client process reads the answer late).
	 */
	| { type: 'late'; ms: number }
	/** Answers 200 and then sends one byte every `intervalMs`, forever (until the client goes away). */
	| { type: 'trickle'; intervalMs: number };

export interface Fault {
	/** Which requests: an exact path, or a pattern. Unset matches every request. */
	path?: string | RegExp;
	/** Let this many matching requests through before the fault applies. */
	skip?: number;
	/** How many matching requests it applies to (default 1). */
	times?: number;
	action: FaultAction;
}

export interface RecordedFile {
	field: string;
	filename?: string;
	contentType?: string;
	size: number;
	data: Buffer;
}

export interface RecordedRequest {
	seq: number;
	at: number;
	method: string;
	path: string;
	headers: http.IncomingHttpHeaders;
	json?: unknown;
	fields: Record<string, string[]>;
	files: RecordedFile[];
	/** HTTP status and envelope code the simulator answered with (undefined when dropped). */
	status?: number;
	code?: number;
	fault?: FaultAction['type'] | 'rateLimit';
}

/**
 * One request as GET /__sim/record returns it to another process (JSON): the record without the files' bytes.
 * The n8n suites and the benchmark read it through scripts/lib/simulator.ts.
 */
export type RecordedRequestSummary = Omit<RecordedRequest, 'files' | 'fault'> & {
	files: Array<Omit<RecordedFile, 'data'>>;
};

export interface SimTask {
	taskid: string;
	kind: 'image' | 'video';
	plan: CreationPlan;
	key: string;
	fields: Record<string, string[]>;
	createdAt: number;
	durationMs: number;
	outcome: TaskOutcome;
	/** When the simulator first answered an info call with the task finished. */
	firstReportedDoneAt?: number;
	deleted?: boolean;
	uid?: string;
}

/** One task as GET /__sim/tasks returns it (the benchmark measures polling against it). */
export interface SimTaskSummary {
	taskid: string;
	createdAt: number;
	durationMs: number;
	firstReportedDoneAt?: number;
	prompt?: string;
}

/** A fault as POST /__sim/inject takes it (JSON): `pathPattern` is the source of a RegExp for `path`. */
export type InjectedFault = Omit<Fault, 'path'> & { path?: string; pathPattern?: string };

export interface SimulatorOptions {
	port?: number;
	host?: string;
	/** Time from creation to completion. 0 finishes tasks at once. */
	taskDurationMs?: number;
	/** Time for video tasks, when it should differ from images. */
	videoTaskDurationMs?: number;
	/** API keys and their credit balances. */
	keys?: Record<string, number>;
	/** Decides each new task's fate; `index` counts creations from 0. */
	taskOutcome?: (context: { index: number; path: string; fields: Record<string, string[]> }) => TaskOutcome;
	/** Maximum result-image side actually rendered, to keep 4K tiers cheap in tests. */
	maxRenderedSide?: number;
	/** When set, every task delivers one generated file of this many bytes instead (memory benchmarks). */
	resultBlobBytes?: number;
	/** Added before every answer (API and files), to emulate a remote service's round trip. */
	latencyMs?: number;
	/** API requests (POST) accepted per second; above it the answer is HTTP 429 with Retry-After. */
	rateLimitPerSecond?: number;
}

const INFO_PATHS = { image: '/v1/tlimages/infobytaskid', video: '/v1/tlvideo/infobytaskid' };
const DELETE_PATHS = { image: '/v1/tlimages/deleteimagestask', video: '/v1/tlvideo/deletevideotask' };
const SAMPLE_MP4 = path.join(__dirname, 'assets', 'sample.mp4');

/** An MP4's boxes before its mdat, then an mdat header (64-bit size when needed) that makes the file `size` long. */
export function mdatHead(mp4: Buffer, size: number): Buffer {
	let at = 0;
	while (mp4.toString('latin1', at + 4, at + 8) !== 'mdat') at += mp4.readUInt32BE(at);
	const large = size - at > 0xffffffff;
	const header = Buffer.alloc(large ? 16 : 8);
	header.write('mdat', 4, 'latin1');
	if (large) {
		header.writeUInt32BE(1, 0);
		header.writeBigUInt64BE(BigInt(size - at), 8);
	} else header.writeUInt32BE(size - at, 0);
	return Buffer.concat([mp4.subarray(0, at), header]);
}

/**
 * Reads a request's form (multipart: its fields and files) or JSON body into its record; the parsed parts, or why
 * the multipart body could not be read.
 */
function readForm(
	entry: RecordedRequest,
	body: Buffer,
	contentType: string,
): { parts?: MultipartPart[]; partsError?: Error } {
	let parts: MultipartPart[] | undefined;
	let partsError: Error | undefined;
	if (contentType.startsWith('multipart/form-data')) {
		try {
			parts = parseMultipart(body, contentType);
		} catch (error) {
			partsError = error as Error;
		}
		const fields = new Map<string, string[]>();
		for (const part of parts ?? []) {
			if (part.filename !== undefined) {
				entry.files.push({
					field: part.name,
					filename: part.filename,
					contentType: part.contentType,
					size: part.data.length,
					data: part.data,
				});
			} else {
				fields.set(part.name, [...(fields.get(part.name) ?? []), part.data.toString('utf8')]);
			}
		}
		entry.fields = Object.fromEntries(fields);
	} else if (contentType.startsWith('application/json')) {
		try {
			entry.json = JSON.parse(body.toString('utf8'));
		} catch {
			// Answered later as "body must be JSON" (unless a fault applies first).
		}
	}
	return { parts, partsError };
}

export class MediaGenSimulator {
	readonly record: RecordedRequest[] = [];

	readonly tasks = new Map<string, SimTask>();

	readonly credits: Map<string, number>;

	taskDurationMs: number;

	taskOutcome: NonNullable<SimulatorOptions['taskOutcome']>;

	latencyMs: number;

	rateLimitPerSecond: number | undefined;

	/** Times of the API requests accepted within the last second (rate limit). */
	private readonly accepted: number[] = [];

	private readonly faults: Array<Fault & { seen: number; applied: number }> = [];

	private readonly server: http.Server;

	private readonly pngCache = new Map<string, Buffer>();

	private mp4?: Buffer;

	private creations = 0;

	private sequence = 0;

	private baseUrl = '';

	constructor(private readonly options: SimulatorOptions = {}) {
		this.taskDurationMs = options.taskDurationMs ?? 0;
		this.credits = new Map(Object.entries(options.keys ?? { [DEFAULT_SIM_KEY]: 1_000_000 }));
		this.taskOutcome = options.taskOutcome ?? (() => 'succeed');
		this.latencyMs = options.latencyMs ?? 0;
		this.rateLimitPerSecond = options.rateLimitPerSecond;
		this.server = http.createServer((request, response) => {
			this.handle(request, response).catch((error: Error) => {
				if (!response.headersSent) this.json(response, 500, { code: 9999, msg: `simulator error: ${error.message}` });
			});
		});
		this.server.keepAliveTimeout = 1000;
	}

	get url(): string {
		return this.baseUrl;
	}

	async start(): Promise<string> {
		await new Promise<void>((resolve) =>
			this.server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', resolve),
		);
		const { port } = this.server.address() as AddressInfo;
		this.baseUrl = `http://${this.options.host ?? '127.0.0.1'}:${port}`;
		return this.baseUrl;
	}

	async stop(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	/** Apply a fault to the next matching request(s). */
	inject(fault: Fault): void {
		this.faults.push({ ...fault, seen: 0, applied: 0 });
	}

	clearFaults(): void {
		this.faults.length = 0;
	}

	/** Requests to one path (or all API requests), e.g. to count creations. */
	requests(pathOrPattern?: string | RegExp): RecordedRequest[] {
		return this.record.filter((entry) => matches(pathOrPattern, entry.path));
	}

	resetRecord(): void {
		this.record.length = 0;
	}

	statusOf(task: SimTask, now = Date.now()): number {
		if (task.outcome === 'never')
			return now - task.createdAt < task.durationMs / 4 ? SIM_STATUS.queued : SIM_STATUS.processing;
		const elapsed = now - task.createdAt;
		if (elapsed < task.durationMs / 4) return SIM_STATUS.queued;
		if (elapsed < task.durationMs) return SIM_STATUS.processing;
		return task.outcome === 'fail' ? SIM_STATUS.failed : SIM_STATUS.succeeded;
	}

	resultUrls(task: SimTask): string[] {
		if (task.outcome === 'emptyUrls') return [];
		if (this.options.resultBlobBytes) return [`${this.baseUrl}/files/blob/${this.options.resultBlobBytes}.bin`];
		const urls: string[] = [];
		const extension = task.kind === 'video' ? 'mp4' : 'png';
		for (let index = 0; index < task.plan.outputs; index++) {
			urls.push(`${this.baseUrl}/files/${task.taskid}/${index}.${extension}`);
		}
		if (task.plan.lastFrame) urls.push(`${this.baseUrl}/files/${task.taskid}/last-frame.png`);
		return urls;
	}

	private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
		const url = new URL(request.url ?? '/', 'http://simulator');
		const body = await readBody(request);
		const entry: RecordedRequest = {
			seq: this.sequence++,
			at: Date.now(),
			method: request.method ?? '',
			path: url.pathname,
			headers: request.headers,
			fields: {},
			files: [],
		};
		if (!url.pathname.startsWith('/__sim/')) this.record.push(entry);
		else if (request.method === 'POST') return this.control(url.pathname, body, response);

		// Parse multipart before any fault, so that the record shows what a faulted request carried.
		const contentType = request.headers['content-type'] ?? '';
		const form = readForm(entry, body, contentType);

		if (this.latencyMs) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));

		if (request.method === 'POST' && this.rateLimitPerSecond !== undefined && !url.pathname.startsWith('/__sim/')) {
			if (this.refusedByRateLimit(entry, response)) return;
		}

		const fault = this.takeFault(url.pathname);
		if (fault) {
			entry.fault = fault.type;
			if (fault.type === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
			else if (fault.type === 'late') this.lateAnswers.set(response, fault.ms);
			else return this.applyFault(fault, response, entry);
		}

		if (request.method === 'GET') return this.serveGet(url.pathname, response, entry);
		if (request.method !== 'POST')
			return this.reply(response, entry, 405, { code: 9999, msg: 'only POST is supported' });

		const key = request.headers.authorization;
		if (!key || !this.credits.has(key)) {
			return this.reply(response, entry, 401, { code: 9999, msg: 'Unauthorized: invalid or missing API key' });
		}
		const creation = CREATION_ENDPOINTS[url.pathname];
		if (creation) return this.createFrom(form, creation, key, entry, response);
		this.query(url.pathname, body, contentType, key, entry, response);
	}

	/** Above the rate limit within the last second: answers 429 with a Retry-After, and says so. */
	private refusedByRateLimit(entry: RecordedRequest, response: http.ServerResponse): boolean {
		const now = Date.now();
		while (this.accepted.length && this.accepted[0] <= now - 1000) this.accepted.shift();
		if (this.accepted.length >= this.rateLimitPerSecond!) {
			entry.fault = 'rateLimit';
			const retryAfter = Math.max(1, Math.ceil((this.accepted[0] + 1000 - now) / 1000));
			entry.status = 429;
			response.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': String(retryAfter) });
			response.end(JSON.stringify({ code: 9999, msg: 'rate limit exceeded' }));
			return true;
		}
		this.accepted.push(now);
		return false;
	}

	/** A creation endpoint: its multipart form, or the answer to a body that is none. */
	private createFrom(
		form: { parts?: MultipartPart[]; partsError?: Error },
		creation: (typeof CREATION_ENDPOINTS)[string],
		key: string,
		entry: RecordedRequest,
		response: http.ServerResponse,
	): void {
		const { parts, partsError } = form;
		if (!parts) {
			const msg = partsError
				? `malformed multipart body: ${partsError.message}`
				: 'creation endpoints take multipart/form-data';
			return this.reply(response, entry, partsError ? 400 : 200, { code: 9999, msg });
		}
		const fields = new Map(Object.entries(entry.fields));
		return this.create(
			entry.path,
			creation,
			{ fields, files: parts.filter((part) => part.filename !== undefined) },
			key,
			entry,
			response,
		);
	}

	/** The query and delete endpoints: a JSON body. */
	private query(
		pathname: string,
		body: Buffer,
		contentType: string,
		key: string,
		entry: RecordedRequest,
		response: http.ServerResponse,
	): void {
		let json: Record<string, unknown>;
		try {
			json = JSON.parse(body.toString('utf8') || '{}');
			entry.json = json;
		} catch {
			return this.reply(response, entry, 400, { code: 9999, msg: 'body must be JSON' });
		}
		if (!contentType.startsWith('application/json')) {
			return this.reply(response, entry, 200, { code: 9999, msg: 'query and delete endpoints take application/json' });
		}
		if (pathname === INFO_PATHS.image) return this.info('image', json, key, entry, response);
		if (pathname === INFO_PATHS.video) return this.info('video', json, key, entry, response);
		if (pathname === DELETE_PATHS.image) return this.delete('image', json, key, entry, response);
		if (pathname === DELETE_PATHS.video) return this.delete('video', json, key, entry, response);
		return this.reply(response, entry, 404, { code: 9999, msg: `no endpoint ${pathname}` });
	}

	private create(
		endpoint: string,
		rules: (form: { fields: Map<string, string[]>; files: MultipartPart[] }) => CreationPlan,
		form: { fields: Map<string, string[]>; files: MultipartPart[] },
		key: string,
		entry: RecordedRequest,
		response: http.ServerResponse,
	): void {
		let plan: CreationPlan;
		try {
			plan = rules(form);
		} catch (error) {
			if (error instanceof RuleError) return this.reply(response, entry, 200, { code: 9999, msg: error.message });
			throw error;
		}
		const marked = promptMarkers(entry.fields.prompt?.[0] ?? '');
		const balance = this.credits.get(key) ?? 0;
		if (balance < 1 || marked.credits) {
			return this.reply(response, entry, 200, { code: 9000, msg: 'Insufficient credits' });
		}
		this.credits.set(key, balance - 1);

		const index = this.creations++;
		const prefix = plan.kind === 'image' ? 'img' : 'vid';
		const task: SimTask = {
			taskid: `${prefix}-${index + 1}-${randomBytes(4).toString('hex')}`,
			kind: plan.kind,
			plan,
			key,
			fields: entry.fields,
			createdAt: Date.now(),
			durationMs:
				marked.seconds !== undefined
					? marked.seconds * 1000
					: plan.kind === 'video'
						? (this.options.videoTaskDurationMs ?? this.taskDurationMs)
						: this.taskDurationMs,
			outcome: marked.outcome ?? this.taskOutcome({ index, path: endpoint, fields: entry.fields }),
		};
		this.tasks.set(task.taskid, task);
		const data: Record<string, unknown> = { taskid: task.taskid };
		if (plan.urlInCreation) data.url = this.resultUrls(task)[0] ?? '';
		this.reply(response, entry, 200, { code: 1000, msg: 'success', data });
	}

	private info(
		kind: 'image' | 'video',
		json: Record<string, unknown>,
		key: string,
		entry: RecordedRequest,
		response: http.ServerResponse,
	): void {
		const taskid = json.taskid;
		if (typeof taskid !== 'string' || !taskid)
			return this.reply(response, entry, 200, { code: 9999, msg: 'taskid is required' });
		if (kind === 'video' && json.moreTaskInfo !== undefined && typeof json.moreTaskInfo !== 'boolean') {
			return this.reply(response, entry, 200, { code: 9999, msg: 'moreTaskInfo must be a boolean' });
		}
		const task = this.tasks.get(taskid);
		if (!task || task.deleted || task.kind !== kind || task.key !== key) {
			return this.reply(response, entry, 200, { code: 9999, msg: `task ${taskid} not found` });
		}
		const now = Date.now();
		const status = this.statusOf(task, now);
		const finished = status === SIM_STATUS.succeeded || status === SIM_STATUS.failed;
		if (finished && task.firstReportedDoneAt === undefined) task.firstReportedDoneAt = now;
		if (finished && task.outcome === 'infoError') {
			return this.reply(response, entry, 200, {
				code: 9999,
				msg: `task ${taskid} failed: content moderation rejected the result`,
			});
		}
		const urls =
			status === SIM_STATUS.succeeded
				? this.resultUrls(task)
				: status === SIM_STATUS.processing && task.outcome === 'partialUrls'
					? this.resultUrls(task).slice(0, 1)
					: [];
		let data: Record<string, unknown>;
		if (kind === 'image') {
			data = {
				taskid,
				starttime: formatTime(task.createdAt),
				url: urls,
				image_status: status,
				width: task.plan.width,
				height: task.plan.height,
			};
		} else {
			const video = task.plan.video ?? {};
			data = {
				taskid,
				url: urls,
				task_status: status,
				message: status === SIM_STATUS.failed ? 'generation failed' : finished ? 'done' : 'in progress',
				resolution: video.resolution ?? '720p',
				fps: video.fps ?? 24,
				duration: video.duration ?? 5,
				seed: video.seed ?? 0,
				ratio: video.ratio ?? 'adaptive',
			};
			if (json.moreTaskInfo === true) {
				data.prompt = task.fields.prompt?.[0] ?? '';
				data.imageurl = task.fields.imageUrl?.[0] ?? '';
				data.source = 'api';
			}
		}
		this.reply(response, entry, 200, { code: 1000, msg: 'success', data });
	}

	private delete(
		kind: 'image' | 'video',
		json: Record<string, unknown>,
		key: string,
		entry: RecordedRequest,
		response: http.ServerResponse,
	): void {
		const ids = json.taskids;
		if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => typeof id !== 'string' || !id)) {
			return this.reply(response, entry, 200, { code: 9999, msg: 'taskids must be a non-empty array of strings' });
		}
		if (kind === 'image' && json.uid !== undefined && typeof json.uid !== 'string') {
			return this.reply(response, entry, 200, { code: 9999, msg: 'uid must be a string' });
		}
		const missing = (ids as string[]).filter((id) => {
			const task = this.tasks.get(id);
			return !task || task.deleted || task.kind !== kind || task.key !== key;
		});
		if (missing.length)
			return this.reply(response, entry, 200, { code: 9999, msg: `unknown task ids: ${missing.join(', ')}` });
		for (const id of ids as string[]) {
			const task = this.tasks.get(id)!;
			task.deleted = true;
			if (typeof json.uid === 'string') task.uid = json.uid;
		}
		this.reply(response, entry, 200, {
			code: 1000,
			msg: 'success',
			data: { status: `deleted ${ids.length} task(s) successfully` },
		});
	}

	/** Control endpoints for a simulator in another process (benchmarks): inject a fault, clear the record. */
	private control(pathname: string, body: Buffer, response: http.ServerResponse): void {
		if (pathname === '/__sim/inject') {
			const fault = JSON.parse(body.toString('utf8')) as InjectedFault;
			this.inject({ ...fault, path: fault.pathPattern ? new RegExp(fault.pathPattern) : fault.path });
			return this.json(response, 200, { ok: true });
		}
		if (pathname === '/__sim/reset') {
			this.resetRecord();
			this.clearFaults();
			return this.json(response, 200, { ok: true });
		}
		return this.json(response, 404, { ok: false });
	}

	private serveGet(pathname: string, response: http.ServerResponse, entry: RecordedRequest): void {
		if (pathname === '/__sim/tasks') {
			const tasks = [...this.tasks.values()].map(
				({ taskid, createdAt, durationMs, firstReportedDoneAt, fields }): SimTaskSummary => ({
					taskid,
					createdAt,
					durationMs,
					firstReportedDoneAt,
					prompt: fields.prompt?.[0],
				}),
			);
			return this.json(response, 200, tasks);
		}
		if (pathname === '/__sim/record') {
			const summary = this.record.map(
				({ seq, at, method, path: p, headers, fields, files, json, status, code }): RecordedRequestSummary => ({
					seq,
					at,
					method,
					path: p,
					headers,
					fields,
					json,
					status,
					code,
					files: files.map(({ field, filename, contentType, size }) => ({ field, filename, contentType, size })),
				}),
			);
			return this.json(response, 200, summary);
		}
		const blob = /^\/files\/blob\/(\d+)\.bin$/.exec(pathname);
		if (blob) return this.streamBlob(Number(blob[1]), response, entry);
		const match = /^\/files\/([^/]+)\/(\d+|last-frame)\.(png|mp4)$/.exec(pathname);
		const task = match ? this.tasks.get(match[1]) : undefined;
		if (!match || !task || task.deleted || this.statusOf(task) !== SIM_STATUS.succeeded) {
			entry.status = 404;
			response.writeHead(404, { 'Content-Type': 'text/plain' });
			return void response.end('not found');
		}
		let file: Buffer;
		let type: string;
		if (match[3] === 'mp4') {
			this.mp4 ??= readFileSync(SAMPLE_MP4);
			file = this.mp4;
			type = 'video/mp4';
		} else {
			const limit = this.options.maxRenderedSide ?? 8192;
			const scale = Math.min(1, limit / Math.max(task.plan.width ?? 1024, task.plan.height ?? 1024));
			const width = Math.round((task.plan.width ?? 1024) * scale);
			const height = Math.round((task.plan.height ?? 1024) * scale);
			const tint = match[2] === 'last-frame' ? 99 : Number(match[2]);
			const cacheKey = `${width}x${height}:${tint}`;
			file = this.pngCache.get(cacheKey) ?? makePng(width, height, tint);
			this.pngCache.set(cacheKey, file);
			type = 'image/png';
		}
		entry.status = 200;
		response.writeHead(200, { 'Content-Type': type, 'Content-Length': file.length });
		response.end(file);
	}

	/**
	 * A large generated download, streamed in chunks, for memory benchmarks: a whole MP4 (the node stores only
	 * files whose structure is whole): the sample's boxes before its media data, then an mdat box of filler that
	 * makes the file `size` bytes long.
	 */
	private streamBlob(size: number, response: http.ServerResponse, entry: RecordedRequest): void {
		entry.status = 200;
		response.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': size });
		const chunk = Buffer.alloc(1 << 20, 0x5a);
		const head = mdatHead((this.mp4 ??= readFileSync(SAMPLE_MP4)), size);
		let remaining = size;
		let first = true;
		const pump = () => {
			while (remaining > 0) {
				const part = first
					? Buffer.concat([head, chunk]).subarray(0, Math.min(chunk.length, remaining))
					: chunk.subarray(0, Math.min(chunk.length, remaining));
				first = false;
				remaining -= part.length;
				if (!response.write(part)) return void response.once('drain', pump);
			}
			response.end();
		};
		pump();
	}

	private takeFault(pathname: string): FaultAction | undefined {
		for (const fault of this.faults) {
			if (!matches(fault.path, pathname)) continue;
			fault.seen++;
			if (fault.seen <= (fault.skip ?? 0)) continue;
			if (fault.applied >= (fault.times ?? 1)) continue;
			fault.applied++;
			return fault.action;
		}
		return undefined;
	}

	private applyFault(fault: FaultAction, response: http.ServerResponse, entry: RecordedRequest): void {
		switch (fault.type) {
			case 'drop':
				response.socket?.destroy();
				return;
			case 'html':
				entry.status = fault.status ?? 200;
				response.writeHead(entry.status, { 'Content-Type': 'text/html' });
				response.end(
					'<html><head><title>Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>upstream unavailable</p></body></html>',
				);
				return;
			case 'malformed':
				entry.status = 200;
				response.writeHead(200, { 'Content-Type': 'application/json' });
				response.end('{"code": 1000, "msg": "success", "data": {"taskid": ');
				return;
			case 'status':
				entry.status = fault.status;
				response.writeHead(fault.status, { 'Content-Type': fault.contentType ?? 'application/json', ...fault.headers });
				response.end(fault.body ?? JSON.stringify({ code: 9999, msg: `simulated HTTP ${fault.status}` }));
				return;
			case 'trickle': {
				entry.status = 200;
				response.writeHead(200, { 'Content-Type': 'application/json' });
				response.write('{');
				const timer = setInterval(() => response.write(' '), fault.intervalMs);
				response.on('close', () => clearInterval(timer));
				return;
			}
			case 'delay':
			case 'late':
				return;
		}
	}

	private reply(
		response: http.ServerResponse,
		entry: RecordedRequest,
		status: number,
		body: { code: number; msg: string; data?: unknown },
	): void {
		entry.status = status;
		entry.code = body.code;
		const late = this.lateAnswers.get(response);
		if (late === undefined) return this.json(response, status, body);
		this.lateAnswers.delete(response);
		setTimeout(() => this.json(response, status, body), late);
	}

	/** Answers a 'late' fault holds back after their request was handled, and by how long. */
	private readonly lateAnswers = new WeakMap<http.ServerResponse, number>();

	private json(response: http.ServerResponse, status: number, body: unknown): void {
		const text = JSON.stringify(body);
		response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
		response.end(text);
	}
}

/**
 * Markers a prompt can carry to decide its task's fate, so that users can try their error branches offline:
 * `[sim:fail]` (the task ends with status 3), `[sim:refuse]` (its info is answered 9999 once it is done, as a
 * moderation refusal), `[sim:never]` (it never finishes), `[sim:empty]` (done without result URLs),
 * `[sim:credits]` (the creation is answered 9000, nothing is charged) and `[sim:seconds=N]` (it takes N seconds).
 */
export function promptMarkers(prompt: string): { outcome?: TaskOutcome; credits?: boolean; seconds?: number } {
	const outcomes: Record<string, TaskOutcome> = {
		fail: 'fail',
		refuse: 'infoError',
		never: 'never',
		empty: 'emptyUrls',
	};
	const marked: { outcome?: TaskOutcome; credits?: boolean; seconds?: number } = {};
	for (const [, name, value] of prompt.matchAll(/\[sim:(\w+)(?:=([\d.]+))?\]/g)) {
		if (outcomes[name]) marked.outcome = outcomes[name];
		else if (name === 'credits') marked.credits = true;
		else if (name === 'seconds' && value !== undefined) marked.seconds = Number(value);
	}
	return marked;
}

function matches(pattern: string | RegExp | undefined, pathname: string): boolean {
	if (pattern === undefined) return true;
	return typeof pattern === 'string' ? pattern === pathname : pattern.test(pathname);
}

async function readBody(request: http.IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

function formatTime(ms: number): string {
	return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}
