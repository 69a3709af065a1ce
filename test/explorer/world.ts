/**
 * The world one schedule runs against: an API server and a result-file host on two origins of 127.0.0.1. They
 * answer as the schedule says (schedule.ts) and keep their own records, which the invariants are checked
 * against: the tasks they created and whether each id reached the client, every request with its headers, the
 * complete bodies each file URL served, the sockets still open.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import { namesTwoTasks, shapedAnswer, type AnswerShape } from './generators/answers';
import {
	deleteAnswer,
	goneBefore,
	notKnownMessage,
	requestKey,
	type DeletePlan,
	type DeleteReading,
} from './generators/deletes';
import { faultFor, type Fault, type RequestKind } from './generators/faults';
import { echoedKey, encodesKeys, keyOwner } from './generators/keys';
import { classicBody, drawsFileBodies, fileBody, type FileBody } from './generators/files';
import { renderMs, rendersFor, type RenderPlan } from './generators/renders';
import { taskPlan, type TaskPlan } from './generators/tasks';
import type { Schedule } from './schedule';

export interface WorldTask {
	taskId: string;
	item: number;
	taskType: 'image' | 'video';
	/** Created by the world before the run (Task → Wait, Task → Delete): not paid for by the run. */
	preexisting: boolean;
	plan: TaskPlan;
	/** Status answers that saw the task (the plan says when it is done). */
	checks: number;
	/** The id reached the client in a body it could read (a whole answer, or the part before a cut). */
	named: boolean;
	/** The server answered a status check with the task's failed status. */
	reportedFailed: boolean;
	/** How the creation was answered. */
	answer: Fault['answer'];
	/** Gone from the server: deleted before the run, or by a delete request of the run (`deletedInRun`). */
	deleted?: boolean;
	/** The world's delete handler deleted it, during the run. */
	deletedInRun?: boolean;
	/** When the server created it; a task the run created is done its render time later (generators/renders.ts). */
	createdAt: number;
	renderMs?: number;
	/** When a status check first saw it finished. */
	doneAt?: number;
	/** Created by the same request as this task, whose answer named both (generators/answers.ts). */
	alsoNamedWith?: string;
}

/** Sockets open at one moment, by host. */
export interface OpenSockets {
	api: Socket[];
	files: Socket[];
}

export interface WorldRequest {
	host: 'api' | 'files';
	kind: RequestKind | 'other';
	method: string;
	path: string;
	headers: http.IncomingHttpHeaders;
	item?: number;
	/** The task a status check asked about. */
	taskId?: string;
	fault: Fault;
	/** A download's body as generators/files.ts drew it, in words. */
	body?: string;
	/** How generators/answers.ts shaped a success answer of the API (unset: plain). */
	shape?: AnswerShape;
	/** When the request's body had arrived, and when the exchange ended (answered, or the connection closed). */
	arrivedAt: number;
	endedAt?: number;
}

const STALL_CAP_MS = 20_000;

/** The answer classes that are a bare HTTP status, on the API and on the file host alike. */
const REFUSAL_STATUS: Partial<Record<Fault['answer'], number>> = {
	'400': 400,
	'401': 401,
	'403': 403,
	'404': 404,
	'408': 408,
	'429': 429,
};
const ENDLESS_CHUNK = Buffer.alloc(16 * 1024, 0x41);
/** Download answers that send the file's body, or its start. */
const CONTENT_ANSWERS: ReadonlySet<Fault['answer']> = new Set([
	'ok',
	'chunked',
	'stall-body',
	'endless-body',
	'truncated',
]);

function sha(data: Buffer): string {
	return createHash('sha256').update(data).digest('hex');
}

export function stripQuery(url: string): string {
	return url.split('?')[0];
}

class Host {
	server?: http.Server;
	readonly sockets = new Set<Socket>();
	/** What each socket served last, and when it opened: which connection a run left open (invariant 4). */
	private readonly served = new WeakMap<Socket, { openedAt: number; last?: string }>();
	private readonly timers = new Set<NodeJS.Timeout>();
	/** When a connection last opened, was read from or closed: a server still draining late requests is busy. */
	activeAt = 0;

	constructor(
		private readonly handler: (request: http.IncomingMessage, body: Buffer, response: http.ServerResponse) => void,
	) {}

	get url(): string {
		return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
	}

	async start(): Promise<void> {
		this.server = http.createServer((request, response) => {
			this.activeAt = Date.now();
			const served = this.served.get(request.socket);
			if (served)
				served.last = `${request.method} ${stripQuery(request.url ?? '')} at ${Date.now() - served.openedAt} ms${keyOwner(request.headers.authorization)}`;
			const chunks: Buffer[] = [];
			request.on('data', (chunk: Buffer) => chunks.push(chunk));
			request.on('end', () => this.handler(request, Buffer.concat(chunks), response));
		});
		this.server.keepAliveTimeout = 60_000;
		this.server.on('connection', (socket) => {
			this.activeAt = Date.now();
			this.sockets.add(socket);
			this.served.set(socket, { openedAt: Date.now() });
			socket.on('close', () => {
				this.activeAt = Date.now();
				this.sockets.delete(socket);
			});
		});
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
	}

	/** A timer of the world's own (stalls, trickles), cleared when the world stops. */
	later(ms: number, action: () => void): void {
		const timer = setTimeout(() => {
			this.timers.delete(timer);
			action();
		}, ms);
		this.timers.add(timer);
	}

	/** Whether the server has read a request on `socket`. */
	read(socket: Socket): boolean {
		return this.served.get(socket)?.last !== undefined;
	}

	/** Each of `sockets`: how long it has been open (or that it closed since), and the request it last served. */
	describe(sockets: Socket[]): string[] {
		return sockets.map((socket) => {
			const served = this.served.get(socket);
			const age = `${this.sockets.has(socket) ? 'open' : 'closed since, opened'} ${served ? Date.now() - served.openedAt : '?'} ms ago`;
			return served?.last ? `${age}, last ${served.last}` : `${age}, no request read`;
		});
	}

	async stop(): Promise<void> {
		for (const timer of this.timers) clearTimeout(timer);
		for (const socket of this.sockets) socket.destroy();
		await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
	}
}

export class World {
	readonly tasks = new Map<string, WorldTask>();
	readonly requests: WorldRequest[] = [];
	/** Hashes of the complete bodies each file URL served. */
	readonly servedBodies = new Map<string, Set<string>>();
	/** What each file URL's body is (generators/files.ts): a stored copy must say so. */
	readonly fileBodies = new Map<string, FileBody>();
	/** File URLs for which the host sent something that is not a file (text, a page, zero bytes), on any attempt. */
	readonly servedNotAFile = new Set<string>();
	/** File URLs for which the host sent more than the body (the body, then bytes without end), on any attempt. */
	readonly servedMore = new Set<string>();
	/** Garbage collections the world ran during the run. */
	gcRuns = 0;
	/** Task → Delete: what the API's answers said of each id (generators/deletes.ts), over every request that held it. */
	readonly deleteReadings = new Map<string, Set<DeleteReading>>();

	readonly renders: RenderPlan;
	private readonly attempts = new Map<string, number>();
	private serial = 0;
	private readonly api: Host;
	private readonly files: Host;

	constructor(
		readonly schedule: Schedule,
		readonly apiKey: string,
	) {
		this.renders = rendersFor(schedule);
		this.api = new Host((request, body, response) => this.onApi(request, body, response));
		this.files = new Host((request, body, response) => this.onFile(request, response));
	}

	get apiUrl(): string {
		return this.api.url;
	}

	get filesUrl(): string {
		return this.files.url;
	}

	async start(): Promise<void> {
		await this.api.start();
		await this.files.start();
		for (const at of this.schedule.gcAtMs) {
			this.api.later(at, () => {
				const gc = (globalThis as { gc?: () => void }).gc;
				if (gc) {
					gc();
					this.gcRuns++;
				}
			});
		}
	}

	async stop(): Promise<void> {
		await this.api.stop();
		await this.files.stop();
	}

	/** The sockets open now on either host. */
	openSockets(): OpenSockets {
		return { api: [...this.api.sockets], files: [...this.files.sockets] };
	}

	/** When either host last opened, read or closed a connection. */
	get activeAt(): number {
		return Math.max(this.api.activeAt, this.files.activeAt);
	}

	/** The `host:port` of each host: what a client request to it names in its Host header. */
	get hosts(): string[] {
		return [this.apiUrl, this.files.url].map((url) => new URL(url).host);
	}

	/** How many of `open` are still open with no request read. */
	unread(open: OpenSockets): number {
		const waiting = (host: Host, sockets: Socket[]) =>
			sockets.filter((socket) => host.sockets.has(socket) && !host.read(socket)).length;
		return waiting(this.api, open.api) + waiting(this.files, open.files);
	}

	/** What each of `open` served last, and whether it is open still. */
	describe(open: OpenSockets): string[] {
		return [
			...this.api.describe(open.api).map((text) => `API socket ${text}`),
			...this.files.describe(open.files).map((text) => `file host socket ${text}`),
		];
	}

	/** A task that exists before the run (for Task → Wait and Task → Delete). */
	preexisting(item: number, taskType: 'image' | 'video'): string {
		return this.addTask(item, taskType, true, 'ok').taskId;
	}

	/** The ids each item gives Task → Delete: image tasks, some gone before the run (generators/deletes.ts). */
	deleteTargets(plan: DeletePlan): string[][] {
		return plan.idsPerItem.map((count, item) =>
			Array.from({ length: count }, (_, index) => {
				const gone = goneBefore(this.schedule, plan, item, index);
				if (gone === 'never') return `N${this.schedule.seed}-${item}-${index}x`;
				const task = this.addTask(item, 'image', true, 'ok');
				task.deleted = gone === 'deleted';
				return task.taskId;
			}),
		);
	}

	/** Whether a delete request of the run deleted this id. */
	deletedInRun(taskId: string): boolean {
		return this.tasks.get(taskId)?.deletedInRun === true;
	}

	/** Whether the server holds no task of this id at the end (deleted, or never one). */
	gone(taskId: string): boolean {
		const task = this.tasks.get(taskId);
		return !task || task.deleted === true;
	}

	private addTask(item: number, taskType: 'image' | 'video', preexisting: boolean, answer: Fault['answer']): WorldTask {
		const serial = this.serial++;
		const task: WorldTask = {
			// The x ends the id: no id starts another (T5-2-2x, T5-2-29x), so a search for one never finds the other.
			taskId: `T${this.schedule.seed}-${item}-${serial}x`,
			item,
			taskType,
			preexisting,
			plan: taskPlan(this.schedule, item, serial),
			checks: 0,
			named: preexisting,
			reportedFailed: false,
			answer,
			createdAt: Date.now(),
			renderMs: preexisting ? undefined : renderMs(this.schedule, this.renders, item, serial),
		};
		this.tasks.set(task.taskId, task);
		return task;
	}

	private nextAttempt(kind: RequestKind, item: number): number {
		const key = `${kind}:${item}`;
		const attempt = this.attempts.get(key) ?? 0;
		this.attempts.set(key, attempt + 1);
		return attempt;
	}

	private track(response: http.ServerResponse, request: Omit<WorldRequest, 'arrivedAt'>): WorldRequest {
		const tracked: WorldRequest = { ...request, arrivedAt: Date.now() };
		response.on('close', () => (tracked.endedAt = Date.now()));
		this.requests.push(tracked);
		return tracked;
	}

	// --- the API ------------------------------------------------------------------------------------

	private onApi(request: http.IncomingMessage, body: Buffer, response: http.ServerResponse): void {
		const path = stripQuery(request.url ?? '/');
		const record = (kind: WorldRequest['kind'], fault: Fault, item?: number, taskId?: string) =>
			this.track(response, {
				host: 'api',
				kind,
				method: request.method ?? '',
				path,
				headers: request.headers,
				item,
				taskId,
				fault,
			});
		const ok: Fault = { answer: 'ok', acted: true, namesTask: false };
		if (request.headers.authorization !== this.apiKey) {
			record('other', ok);
			return this.json(response, 401, { code: 9999, msg: 'invalid API key' });
		}
		if (path === '/v1/tlimages/betav4' || path === '/v1/tlvideo/alphav15pro') {
			const item = Number(/name="prompt"\r\n\r\nidea (\d+)/.exec(body.toString('latin1'))?.[1] ?? -1);
			const attempt = this.nextAttempt('create', item);
			const fault = faultFor(this.schedule, 'create', item, attempt);
			const tracked = record('create', fault, item);
			const taskType = path.startsWith('/v1/tlvideo/') ? 'video' : 'image';
			return this.answerCreation(response, tracked, taskType, attempt);
		}
		let json: Record<string, unknown> = {};
		try {
			json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
		} catch {
			// answered below as an unknown task
		}
		if (path.endsWith('/infobytaskid')) {
			const task = this.tasks.get(String(json.taskid));
			const item = task?.item ?? -1;
			const attempt = this.nextAttempt('status', item);
			const fault = faultFor(this.schedule, 'status', item, attempt);
			const tracked = record('status', fault, item, task?.taskId);
			return this.answerStatus(response, task, tracked, attempt);
		}
		if (path === '/v1/tlimages/deleteimagestask' || path === '/v1/tlvideo/deletevideotask') {
			const ids = Array.isArray(json.taskids) ? json.taskids.map(String) : [];
			// Drawn per request by its first id and that id's attempt, not by arrival order (generators/deletes.ts).
			const key = requestKey(this.schedule, ids[0] ?? '');
			const attempt = this.nextAttempt('delete', key);
			const fault = faultFor(this.schedule, 'delete', key, attempt);
			record('delete', fault, this.tasks.get(ids[0])?.item ?? -1);
			return this.answerDelete(response, ids, fault, attempt);
		}
		record('other', ok);
		return this.json(response, 404, { code: 9999, msg: 'no such endpoint' });
	}

	private answerCreation(
		response: http.ServerResponse,
		request: WorldRequest,
		taskType: 'image' | 'video',
		attempt: number,
	): void {
		const { fault } = request;
		const item = request.item!;
		const task = fault.acted ? this.addTask(item, taskType, false, fault.answer) : undefined;
		const taskId = task?.taskId;
		const named = () => task && (task.named = true);
		switch (fault.answer) {
			case 'ok': {
				// A second task the answer names too (`taskid` twice): the server created and charged it as well.
				const also =
					task && namesTwoTasks(this.schedule, item, attempt)
						? this.addTask(item, taskType, false, fault.answer)
						: undefined;
				if (also) also.alsoNamedWith = task!.taskId;
				// Shaped by generators/answers.ts: an id past the 4 MiB the client reads does not reach it.
				const shaped = shapedAnswer(
					this.schedule,
					'create',
					item,
					attempt,
					{ code: 1000, msg: 'ok', data: { taskid: taskId } },
					also?.taskId,
				);
				request.shape = shaped.shape;
				if (shaped.namesTask) {
					named();
					if (also) also.named = true;
				}
				return this.raw(response, 200, 'application/json', shaped.bytes);
			}
			case 'odd-json':
				named();
				return this.raw(
					response,
					200,
					'application/json; charset=utf-8',
					`\n { "data" : { "url" : "", "extra": [1, {"a": null}, "\\u00e9"], "taskid" : "${taskId}" } ,\n "msg":"\\u006fk", "code" : 1000.0 }\n`,
				);
			case 'echo-key':
				named();
				return this.json(response, 200, {
					code: 1000,
					msg: `accepted for ${this.echo('create', item, attempt, 'msg')}`,
					data: { taskid: taskId, authorization: this.echo('create', item, attempt, 'authorization') },
				});
			case 'cut-200': {
				const text = JSON.stringify({ code: 1000, msg: 'ok', data: { taskid: taskId ?? 'x' } });
				// Cut after the id's closing quote when the answer names the task, else before the id starts.
				const cutAt = fault.namesTask && taskId ? text.indexOf(taskId) + taskId.length + 1 : text.indexOf('"data"');
				if (fault.namesTask) named();
				response.writeHead(200, { 'content-type': 'application/json', 'content-length': text.length + 10 });
				response.write(text.slice(0, cutAt));
				return this.api.later(5, () => response.destroy());
			}
			default: {
				// A dropped or stalled answer carries no body: it names nothing.
				const names = fault.namesTask && fault.answer !== 'drop' && fault.answer !== 'stall';
				if (names) named();
				return this.answerPlain(response, fault, names ? taskId : undefined, {}, (place) =>
					this.echo('create', item, attempt, place),
				);
			}
		}
	}

	private answerStatus(
		response: http.ServerResponse,
		task: WorldTask | undefined,
		request: WorldRequest,
		attempt: number,
	): void {
		const { fault } = request;
		if (!['ok', 'odd-json', 'echo-key'].includes(fault.answer)) {
			return this.answerPlain(response, fault, fault.namesTask ? task?.taskId : undefined, {}, (place) =>
				this.echo('status', task?.item ?? -1, attempt, place),
			);
		}
		if (!task) return this.json(response, 200, { code: 9999, msg: 'task not found' });
		task.checks++;
		const video = task.taskType === 'video';
		const statusField = video ? 'task_status' : 'image_status';
		let data: Record<string, unknown>;
		const rendering =
			task.renderMs === undefined
				? task.checks <= task.plan.checksBeforeDone
				: Date.now() < task.createdAt + task.renderMs;
		if (!rendering) task.doneAt ??= Date.now();
		if (rendering) {
			data = { taskid: task.taskId, [statusField]: 1, url: [] };
		} else if (task.plan.fails) {
			task.reportedFailed = true;
			data = { taskid: task.taskId, [statusField]: 3, url: [], message: 'render failed' };
		} else {
			const extension = video ? 'mp4' : 'png';
			const urls = Array.from(
				{ length: task.plan.files },
				(_, index) => `${this.files.url}/files/${task.taskId}-${index}.${extension}`,
			);
			data = { taskid: task.taskId, [statusField]: 2, url: urls, width: 8, height: 8 };
		}
		if (fault.answer === 'echo-key')
			data.message = `checked with key ${this.echo('status', task.item, attempt, 'message')}`;
		const msg = fault.answer === 'echo-key' ? this.echo('status', task.item, attempt, 'msg') : 'ok';
		if (fault.answer !== 'ok') return this.json(response, 200, { code: 1000, msg, data });
		const shaped = shapedAnswer(this.schedule, 'status', task.item, attempt, { code: 1000, msg, data });
		request.shape = shaped.shape;
		return this.raw(response, 200, 'application/json', shaped.bytes);
	}

	/**
	 * A delete: the server deletes the ids it holds, unless it refuses ids it does not know, refuses for another
	 * reason, or its text reports a failure (generators/deletes.ts); a text that cannot be read deleted them or not; a
	 * server whose answer then fails may have deleted them first. What each answer said of its ids is recorded.
	 */
	private answerDelete(response: http.ServerResponse, ids: string[], fault: Fault, attempt: number): void {
		const plan = this.schedule.deletes!;
		const answer = deleteAnswer(this.schedule, ids[0] ?? '', attempt, fault.answer, ids.length);
		const unknown = ids.filter((id) => this.gone(id));
		const refuses = unknown.length > 0 && plan.unknownIds !== 'ignore';
		const said = (reading: DeleteReading) => {
			for (const id of ids) this.deleteReadings.set(id, (this.deleteReadings.get(id) ?? new Set()).add(reading));
		};
		const act = () => {
			if (refuses || answer.refusal || !answer.deletes) return;
			for (const id of ids) {
				const task = this.tasks.get(id);
				if (task && !task.deleted) Object.assign(task, { deleted: true, deletedInRun: true });
			}
		};
		if (!['ok', 'odd-json', 'echo-key'].includes(fault.answer)) {
			if (answer.acted) act();
			return this.answerPlain(response, fault, undefined, {}, (place) => this.echo('delete', -1, attempt, place));
		}
		if (answer.refusal) {
			said('refused');
			return this.json(response, 200, answer.refusal);
		}
		if (refuses) {
			said('not-known');
			return this.json(response, 200, {
				code: 9999,
				msg: notKnownMessage(this.schedule, plan, ids[0] ?? '', attempt, unknown),
			});
		}
		act();
		said(answer.reading);
		const success = answer.text === undefined ? {} : { status: answer.text };
		return this.answerPlain(response, fault, undefined, success, (place) => this.echo('delete', -1, attempt, place));
	}

	/** Every answer class that is neither a success nor a cut-off success, for any request of the API. */
	private answerPlain(
		response: http.ServerResponse,
		fault: Fault,
		taskId: string | undefined,
		success: Record<string, unknown> = {},
		echo: (place: string) => string = () => this.apiKey,
	): void {
		const named = taskId ? { data: { taskid: taskId } } : {};
		// Where the schedule encodes the key it echoes (generators/keys.ts), refusals echo it too.
		const refusedKey = encodesKeys(this.schedule) ? ` (key ${echo('refusal')})` : '';
		const status = (code: number) => {
			const headers: http.OutgoingHttpHeaders = {};
			if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
			const body = taskId || code !== 408 ? { code: 9999, msg: `HTTP ${code}${refusedKey}`, ...named } : undefined;
			if (!body) {
				response.writeHead(code, headers);
				return void response.end();
			}
			return this.json(response, code, body, headers);
		};
		const refusal = REFUSAL_STATUS[fault.answer];
		if (refusal) return status(refusal);
		switch (fault.answer) {
			case 'ok':
			case 'odd-json':
				return this.json(response, 200, { code: 1000, msg: 'ok', data: success });
			case 'echo-key':
				return this.json(response, 200, { code: 1000, msg: echo('msg'), data: { ...success, key: echo('key') } });
			case '3xx':
				response.writeHead(307, { location: `${this.files.url}/moved`, 'content-type': 'application/json' });
				return void response.end(taskId ? JSON.stringify({ code: 1000, ...named }) : '');
			case '5xx':
				return status([500, 502, 503, 504][Math.abs(taskId?.length ?? 0) % 4]);
			case 'gateway-html':
				return this.raw(
					response,
					502,
					'text/html',
					`<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>${taskId ? `<!-- {"taskid":"${taskId}"} -->` : ''}</body></html>`,
				);
			case 'cut-200':
				response.writeHead(200, { 'content-type': 'application/json', 'content-length': 200 });
				response.write('{"code":10');
				return this.api.later(5, () => response.destroy());
			case 'not-json-200':
				return this.raw(response, 200, 'text/plain', taskId ? `accepted "taskid": "${taskId}", ok` : 'OK');
			case 'drop':
				return void response.socket?.destroy();
			case 'endless-body': {
				// A JSON answer that never ends, as fast as the socket takes it (until the client gives up).
				response.writeHead(200, { 'content-type': 'application/json' });
				response.write('{"code":1000,"msg":"');
				const startedAt = Date.now();
				const pump = (): void => {
					while (!response.destroyed && Date.now() - startedAt < STALL_CAP_MS) {
						if (!response.write(ENDLESS_CHUNK)) return void response.once('drain', pump);
					}
					response.destroy();
				};
				return pump();
			}
			case 'stall':
			default:
				return this.api.later(STALL_CAP_MS, () => response.destroy());
		}
	}

	/** The key as this request's answer echoes it in `place` (generators/keys.ts). */
	private echo(kind: RequestKind, item: number, attempt: number, place: string): string {
		return echoedKey(this.schedule, this.apiKey, kind, item, attempt, place);
	}

	// --- result files -------------------------------------------------------------------------------

	private onFile(request: http.IncomingMessage, response: http.ServerResponse): void {
		const path = stripQuery(request.url ?? '/');
		const name = /^\/(?:files|hop)\/(.+)$/.exec(path)?.[1];
		const task = name ? this.tasks.get(name.replace(/-\d+\.\w+$/, '')) : undefined;
		const item = task?.item ?? -1;
		const hop = path.startsWith('/hop/');
		const fault =
			hop || !task
				? { answer: 'ok' as const, acted: true, namesTask: false }
				: faultFor(this.schedule, 'download', item, this.nextAttempt('download', item));
		const tracked = this.track(response, {
			host: 'files',
			kind: task ? 'download' : 'other',
			method: request.method ?? '',
			path,
			headers: request.headers,
			item,
			fault,
		});
		if (!name || !task) {
			response.writeHead(404);
			return void response.end();
		}
		const url = `${this.files.url}/files/${name}`;
		const served = this.fileBody(url, name);
		tracked.body = `${served.what} as ${served.type ?? 'no Content-Type'}`;
		const notAFile =
			(!served.file && CONTENT_ANSWERS.has(fault.answer)) ||
			['html-file', 'text-file', 'json-file'].includes(fault.answer);
		if (notAFile) this.servedNotAFile.add(url);
		if (fault.answer === 'endless-body') this.servedMore.add(url);
		return this.serveFile(response, url, name, served, fault);
	}

	/** Answers a file request as its fault says, with the URL's body or its start. */
	private serveFile(response: http.ServerResponse, url: string, name: string, served: FileBody, fault: Fault): void {
		const content = served.bytes;
		const typed = (headers: http.OutgoingHttpHeaders) =>
			served.type === undefined ? headers : { ...headers, 'content-type': served.type };
		const complete = () => {
			const hashes = this.servedBodies.get(url) ?? new Set<string>();
			hashes.add(sha(content));
			this.servedBodies.set(url, hashes);
		};
		const status = (code: number) => {
			const headers: http.OutgoingHttpHeaders = {};
			if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
			response.writeHead(code, headers);
			return void response.end();
		};
		const refusal = REFUSAL_STATUS[fault.answer];
		if (refusal) return status(refusal);
		switch (fault.answer) {
			case 'ok':
				response.writeHead(200, typed({ 'content-length': content.length }));
				response.on('finish', complete);
				return void response.end(content);
			case 'chunked':
				response.writeHead(200, typed({}));
				response.write(content.subarray(0, 10));
				return this.files.later(5, () => {
					response.on('finish', complete);
					response.end(content.subarray(10));
				});
			case '3xx':
				response.writeHead(302, { location: `/hop/${name}` });
				return void response.end();
			case '5xx':
				return status(503);
			case 'gateway-html':
				return this.raw(response, 502, 'text/html', '<html><body>Bad Gateway</body></html>');
			case 'drop':
				return void response.socket?.destroy();
			case 'stall-body':
				response.writeHead(200, typed({ 'content-length': content.length }));
				response.write(content.subarray(0, 10));
				return this.files.later(STALL_CAP_MS, () => response.destroy());
			case 'endless-body': {
				// The whole body, then more without end: what the node reads first is the body's own start.
				response.writeHead(200, typed({}));
				response.write(content);
				const startedAt = Date.now();
				const trickle = () => {
					if (response.destroyed || Date.now() - startedAt > STALL_CAP_MS) return void response.destroy();
					response.write(ENDLESS_CHUNK);
					this.files.later(10, trickle);
				};
				return trickle();
			}
			case 'truncated':
				response.writeHead(200, typed({ 'content-length': content.length }));
				response.write(content.subarray(0, Math.floor(content.length / 2)));
				return this.files.later(5, () => response.destroy());
			case 'html-file':
				return this.raw(
					response,
					200,
					served.type ?? 'image/png',
					'<!DOCTYPE html><html><body>Sign in to view this file</body></html>',
				);
			case 'text-file':
				return this.raw(response, 200, 'text/plain', 'Access denied');
			case 'json-file':
				return this.raw(response, 200, 'application/json', '{"error":"link expired"}');
			case 'stall':
			default:
				return this.files.later(STALL_CAP_MS, () => response.destroy());
		}
	}

	/** A file URL's body: from the corpus in schedules that draw it (generators/files.ts), else a PNG or an MP4. */
	private fileBody(url: string, name: string): FileBody {
		let body = this.fileBodies.get(url);
		if (!body) {
			const tag = Buffer.from(`mediagen-explorer ${name}`);
			body = drawsFileBodies(this.schedule) ? fileBody(this.schedule, name, tag) : classicBody(name, tag);
			this.fileBodies.set(url, body);
		}
		return body;
	}

	private json(
		response: http.ServerResponse,
		status: number,
		body: unknown,
		headers: http.OutgoingHttpHeaders = {},
	): void {
		this.raw(response, status, 'application/json', JSON.stringify(body), headers);
	}

	private raw(
		response: http.ServerResponse,
		status: number,
		type: string,
		text: string | Buffer,
		headers: http.OutgoingHttpHeaders = {},
	): void {
		response.writeHead(status, { ...headers, 'content-type': type, 'content-length': Buffer.byteLength(text) });
		response.end(text);
	}
}
