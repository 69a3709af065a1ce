/**
 * The benchmark's "HTTP Request loop" (scripts/bench.ts): what an n8n user builds without this package, done the
 * way n8n's HTTP Request node (n8n-nodes-base HttpRequestV3, read in n8n 2.41.1) does it, inside the same
 * engine and process as the MediaGen node:
 *
 *   HTTP Request (create, every item) → Wait (Poll Interval) → HTTP Request (info, every pending item) → IF
 *       done  → HTTP Request (Response Format: File, every finished item's URLs)
 *       else  → back to Wait
 *
 * Like the HTTP Request node, each step sends the requests of all its items at once through n8n's legacy request
 * helper (`helpers.requestWithAuthentication` with the MediaGen credential for the API, `helpers.request` without
 * a credential for files), waits for all of them (Promise.allSettled), then stores the file responses into n8n's
 * binary storage one item after the other. n8n's helper builds a new HTTP agent for every request, so every
 * request opens its own connection (`Connection: close`), as it does for the node. The steps run one after the
 * other, as n8n runs nodes: downloads of a round delay the next Wait. Only the work of n8n's own nodes around
 * the requests (parameters, the Wait and IF nodes, copying items) is left out, which flatters the loop.
 */
import type {
	IBinaryData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	IRequestOptions,
} from 'n8n-workflow';

import { anchorDescription } from './bench-common';

export const HTTP_LOOP_TYPE = 'test.httpRequestLoop';

/** What the loop is told through its one input item's json (the bench sets it). */
export interface LoopSettings {
	prompts: string[];
	intervalMs: number;
	download: boolean;
	maxWaitMs: number;
}

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/** HTTP Request V3's defaults for every request (5-minute timeout, full response, redirects as in V4+). */
const DEFAULTS: Partial<IRequestOptions> = { gzip: true, rejectUnauthorized: true, timeout: 300_000 };

export class HttpRequestLoopNode implements INodeType {
	description = anchorDescription(
		'HTTP Request Loop',
		'httpRequestLoop',
		'Benchmark anchor: the HTTP Request node loop',
	);

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const settings = this.getInputData()[0].json as unknown as LoopSettings;
		const { baseUrl } = await this.getCredentials('mediaGenApi');
		const api = async (path: string, options: Partial<IRequestOptions>) =>
			(await this.helpers.requestWithAuthentication.call(this, 'mediaGenApi', {
				...DEFAULTS,
				method: 'POST',
				uri: `${String(baseUrl)}${path}`,
				json: true,
				followRedirect: false,
				...options,
			})) as { code?: number; data?: IDataObject };
		const started = Date.now();

		// 1. HTTP Request "create": every item's request at once.
		const created = await Promise.allSettled(
			settings.prompts.map(
				async (prompt) => await api('/v1/tlimages/betav4', { formData: { category: 'betav4', prompt } as IDataObject }),
			),
		);
		let pending = created
			.map((answer) => (answer.status === 'fulfilled' ? answer.value.data?.taskid : undefined))
			.filter((taskid): taskid is string => typeof taskid === 'string');
		let failed = settings.prompts.length - pending.length;
		const output: INodeExecutionData[] = [];

		while (pending.length && Date.now() - started < settings.maxWaitMs) {
			// 2. Wait, then HTTP Request "info" for every pending item at once, then IF.
			await sleep(settings.intervalMs);
			const answers = await Promise.allSettled(
				pending.map(async (taskid) => await api('/v1/tlimages/infobytaskid', { body: { taskid } })),
			);
			const done: Array<{ taskid: string; urls: string[] }> = [];
			const stillPending: string[] = [];
			answers.forEach((answer, index) => {
				const urls = answer.status === 'fulfilled' ? ((answer.value.data?.url as string[] | undefined) ?? []) : [];
				if (urls.length) done.push({ taskid: pending[index], urls });
				else stillPending.push(pending[index]);
			});
			pending = stillPending;
			if (!settings.download) {
				for (const { taskid } of done) output.push({ json: { taskid } });
				continue;
			}
			// 3. HTTP Request "file" on the IF's true branch: every URL's request at once, then stored item by item.
			const files = done.flatMap(({ taskid, urls }) => urls.map((url) => ({ taskid, url })));
			const responses = await Promise.allSettled(
				files.map(
					async ({ url }) =>
						(await this.helpers.request({
							...DEFAULTS,
							method: 'GET',
							uri: url,
							encoding: null,
							json: false,
							useStream: true,
							resolveWithFullResponse: true,
							followRedirect: true,
							followAllRedirects: true,
						} as IRequestOptions)) as { body: NodeJS.ReadableStream; headers: IDataObject },
				),
			);
			for (const [index, response] of responses.entries()) {
				if (response.status !== 'fulfilled') {
					failed++;
					continue;
				}
				const type = String(response.value.headers['content-type'] ?? '');
				const binary: IBinaryData = await this.helpers.prepareBinaryData(response.value.body as never, undefined, type);
				output.push({ json: { taskid: files[index].taskid }, binary: { data: binary } });
			}
		}
		failed += pending.length;
		return [[{ json: { failed, completed: output.length } }, ...output]];
	}
}
