/**
 * A tiny purpose-built HTTP server on 127.0.0.1 for misbehaving-server tests: each test gives the handler,
 * the server records every request (with its headers and body) and whether each response was released.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface HostileRequest {
	method: string;
	path: string;
	headers: http.IncomingHttpHeaders;
	body: Buffer;
	/** The parsed JSON body, when it was JSON. */
	json?: Record<string, unknown>;
	/** Set once the server side of the exchange is over (response finished, or the connection closed). */
	closed: boolean;
}

export type HostileHandler = (request: HostileRequest, response: http.ServerResponse, server: HostileServer) => unknown;

export class HostileServer {
	readonly requests: HostileRequest[] = [];
	private server?: http.Server;
	private readonly sockets = new Set<Socket>();

	constructor(private handler: HostileHandler) {}

	get url(): string {
		const address = this.server?.address() as AddressInfo | null;
		if (!address) throw new Error('server not started');
		return `http://127.0.0.1:${address.port}`;
	}

	setHandler(handler: HostileHandler): void {
		this.handler = handler;
	}

	requestsTo(path: string | RegExp): HostileRequest[] {
		return this.requests.filter((request) =>
			typeof path === 'string' ? request.path === path : path.test(request.path),
		);
	}

	async start(): Promise<this> {
		this.server = http.createServer((incoming, response) => {
			const chunks: Buffer[] = [];
			incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
			incoming.on('end', () => {
				const body = Buffer.concat(chunks);
				const request: HostileRequest = {
					method: incoming.method ?? 'GET',
					path: new URL(incoming.url ?? '/', 'http://127.0.0.1').pathname,
					headers: incoming.headers,
					body,
					closed: false,
				};
				try {
					request.json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
				} catch {
					// not JSON (multipart or empty)
				}
				this.requests.push(request);
				response.on('close', () => (request.closed = true));
				Promise.resolve(this.handler(request, response, this)).catch((error: Error) => {
					if (!response.headersSent) response.writeHead(500);
					response.end(String(error));
				});
			});
		});
		this.server.on('connection', (socket) => {
			this.sockets.add(socket);
			socket.on('close', () => this.sockets.delete(socket));
		});
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
		return this;
	}

	async stop(): Promise<void> {
		for (const socket of this.sockets) socket.destroy();
		await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
	}
}

export function sendJson(response: http.ServerResponse, body: unknown, status = 200): void {
	const text = JSON.stringify(body);
	response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
	response.end(text);
}

/** Waits until `condition` holds, or fails after `ms`. */
export async function eventually(condition: () => boolean, ms = 3000): Promise<void> {
	const until = Date.now() + ms;
	while (!condition()) {
		if (Date.now() > until) throw new Error('condition not reached in time');
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}
