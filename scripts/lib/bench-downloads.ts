/**
 * The benchmark's `downloads` case (docs/performance.md#downloads): each result file asked for once
 * (waiting/resultDownloads.ts), in the shapes a batch meets, beside the HTTP Request loop.
 */
import type http from 'node:http';

import { runNode } from '../../test/harness';
import { fixtureBytes } from '../../test/fixtures/media';
import { HostileServer, sendJson } from '../../test/hostile-server';
import { mdatHead } from '../../test/simulator/server';
import { inTurn, MB, memory, ratio, RTT_MS, s, type Figure } from './bench-common';
import { clearBinaryStorage, loopRun, nodeParameters, peakGrowth } from './bench-results';

const KEY = 'bench-downloads-key';

interface Shape {
	name: string;
	/** Each file's size, whether its answer announces it (Content-Length), and whether the host stalls it. */
	files: Array<{ size: number; announce?: boolean; stall?: boolean }>;
	/** Wall time at most this many times the loop's; none for a stalled file (the loop waits out its timeout). */
	loop?: number;
	/** The node's peak RSS growth during its run is held to this (MB). */
	memory?: number;
	/** Request Timeout (s), when not the default (120 s for images): the stalled file fails at it. */
	requestTimeout?: number;
}

const files = (count: number, size: number, more: { announce?: boolean; stall?: boolean } = {}) =>
	Array.from({ length: count }, () => ({ size, ...more }));

const SHAPES: Shape[] = [
	{ name: '20 files × 50 MiB', files: files(20, 50 * MB), loop: 1.1, memory: 64 },
	{ name: '200 files × 1 MiB', files: files(200, MB), loop: 1.5 },
	{ name: 'a mix: 10 × 50 MiB and 40 × 1 MiB', files: [...files(10, 50 * MB), ...files(40, MB)], loop: 1.2 },
	{ name: '20 files × 20 MiB, sizes never announced', files: files(20, 20 * MB, { announce: false }), loop: 1.1 },
	{
		name: '20 files × 1 MiB, one stalled after its first bytes, Request Timeout 5 s',
		files: [...files(19, MB), { size: MB, stall: true }],
		requestTimeout: 5,
	},
];

/** The host: the API (tasks done at once, one file each) and the files, every answer RTT_MS late. */
class FileHost {
	readonly server = new HostileServer(() => {});
	/** File GETs, bytes sent and tasks created since the last reset (task `task-i` gets file i). */
	count = { gets: 0, sent: 0, created: 0 };

	constructor(private readonly shape: Shape) {
		this.server.setHandler((request, response) => {
			setTimeout(() => this.answer(request.path, request.json, response), RTT_MS);
		});
	}

	private answer(path: string, json: Record<string, unknown> | undefined, response: http.ServerResponse): void {
		if (path.endsWith('infobytaskid')) {
			const taskid = String(json?.taskid ?? '');
			const url = `${this.server.url}/files/${taskid}.mp4`;
			return sendJson(response, { code: 1000, msg: 'ok', data: { taskid, image_status: 2, url: [url] } });
		}
		if (path.startsWith('/v1/')) {
			const index = this.count.created++;
			return sendJson(response, { code: 1000, msg: 'ok', data: { taskid: `task-${index}` } });
		}
		this.count.gets++;
		this.send(response, this.shape.files[Number(/task-(\d+)/.exec(path)?.[1] ?? 0)]);
	}

	private send(response: http.ServerResponse, file: Shape['files'][number]): void {
		const { size } = file;
		response.writeHead(200, {
			'content-type': 'video/mp4',
			...(file.announce === false ? {} : { 'content-length': size }),
		});
		// A whole MP4 of `size` bytes: the fixture's boxes, then filler media data.
		const head = mdatHead(fixtureBytes('mp4-faststart.mp4'), size);
		const chunk = Buffer.alloc(MB, 7);
		let at = 0;
		const pump = () => {
			while (at < size && !response.destroyed) {
				const piece = at === 0 ? head : chunk.subarray(0, Math.min(chunk.length, size - at));
				at += piece.length;
				this.count.sent += piece.length;
				if (file.stall) return; // the first bytes, then nothing more
				if (!response.write(piece)) return void response.once('drain', pump);
			}
			response.end();
		};
		pump();
	}

	reset(): void {
		this.count = { gets: 0, sent: 0, created: 0 };
	}
}

async function measureShape(shape: Shape): Promise<Figure[]> {
	const host = new FileHost(shape);
	await host.server.start();
	try {
		const count = shape.files.length;
		const bytes = shape.files.reduce((sum, file) => sum + file.size, 0);
		const prompts = Array.from({ length: count }, (_, i) => `file ${i}`);
		const credentials = { apiKey: KEY, baseUrl: host.server.url };
		const { result: node, growth } = await peakGrowth(async () => {
			const started = performance.now();
			const result = await runNode({
				parameters: nodeParameters(0.5, true, shape.requestTimeout ? { requestTimeout: shape.requestTimeout } : {}),
				items: prompts.map((idea) => ({ json: { idea } })),
				credentials,
				continueOnFail: true,
			});
			return {
				wallMs: performance.now() - started,
				completed: result.output.filter((item) => item.binary?.data).length,
			};
		});
		const { gets, sent } = host.count;
		const stalled = shape.files.filter((file) => file.stall).length;
		const figures: Figure[] = [
			{
				name: `Downloads, ${shape.name}, RTT 150 ms: GETs per file`,
				value: `${(gets / count).toFixed(2)} (${gets} GETs for ${count} files; ${node.completed} stored, in ${s(node.wallMs)})`,
				target: '≤ 1.00',
				pass: gets <= count && node.completed === count - stalled,
			},
			{
				name: '   … bytes the host sent ÷ the files’ bytes',
				value: (sent / bytes).toFixed(3),
				target: '≤ 1.00',
				pass: sent <= bytes,
			},
		];
		if (shape.memory !== undefined)
			figures.push(memory('   … peak RSS growth during the node’s run', growth, shape.memory));
		if (shape.loop !== undefined) {
			host.reset();
			const loopMs = await loopRun({ credentials }, prompts, 500, true);
			clearBinaryStorage();
			const loopGets = ` (the loop: ${(host.count.gets / count).toFixed(2)} GETs per file)`;
			const name = '   … wall time, node ÷ HTTP Request loop (every file of a round at once)';
			figures.push(ratio(name, node.wallMs, loopMs, shape.loop, loopGets));
		}
		return figures;
	} finally {
		await host.server.stop();
	}
}

export const downloadsCase = async (): Promise<Figure[]> => await inTurn(SHAPES, measureShape);
