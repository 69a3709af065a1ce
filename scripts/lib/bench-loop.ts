/**
 * The nodes the benchmark runs in the harness beside MediaGen: the "HTTP Request loop" (docs/performance.md), done as
 * n8n's HTTP Request node (HttpRequestV3, read in n8n 2.41.1) does it, through n8n's legacy request helper; and the
 * floor of case "overhead": one beta v4 creation per item through n8n's own `httpRequestWithAuthentication`, 64 at
 * a time, and nothing else: what any node that creates through n8n's request helper pays.
 */
import type {
	IBinaryData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	IRequestOptions,
} from 'n8n-workflow';

import { sleep } from './bench-common';

export const HTTP_LOOP_TYPE = 'test.httpRequestLoop';
export const HTTP_FLOOR_TYPE = 'test.httpFloor';

/** The editor description of a node the bench runs beside MediaGen as an anchor (one input, one output). */
function anchorDescription(displayName: string, name: string, description: string): INodeType['description'] {
	return {
		displayName,
		name,
		group: ['transform'],
		version: 1,
		description,
		defaults: { name: displayName },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'mediaGenApi', required: true }],
		properties: [],
	} as unknown as INodeType['description'];
}

/** What the loop is told through its one input item's json (the bench sets it). */
export interface LoopSettings {
	prompts: string[];
	intervalMs: number;
	download: boolean;
}

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

		while (pending.length && Date.now() - started < 300_000) {
			// 2. Wait, then HTTP Request "info" for every pending item at once, then IF.
			await sleep(settings.intervalMs);
			const answers = await Promise.allSettled(
				pending.map(async (taskid) => await api('/v1/tlimages/infobytaskid', { body: { taskid } })),
			);
			const urls = answers.map((answer) =>
				answer.status === 'fulfilled' ? ((answer.value.data?.url as string[] | undefined) ?? []) : [],
			);
			const done = pending.map((taskid, index) => ({ taskid, urls: urls[index] })).filter((task) => task.urls.length);
			pending = pending.filter((_, index) => !urls[index].length);
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

export class HttpFloorNode implements INodeType {
	description = anchorDescription('HTTP Floor', 'httpFloor', 'Benchmark floor');

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const { baseUrl } = await this.getCredentials('mediaGenApi');
		const output: INodeExecutionData[] = new Array(items.length);
		let next = 0;
		const lane = async () => {
			while (next < items.length) {
				const index = next++;
				const form = new FormData();
				form.append('category', 'betav4');
				form.append('prompt', String(items[index].json.idea ?? 'floor'));
				const answer = (await this.helpers.httpRequestWithAuthentication.call(this, 'mediaGenApi', {
					method: 'POST',
					url: `${String(baseUrl)}/v1/tlimages/betav4`,
					body: form,
					json: true,
				})) as IDataObject;
				output[index] = {
					json: { taskid: String((answer.data as IDataObject | undefined)?.taskid ?? '') },
					pairedItem: { item: index },
				};
			}
		};
		await Promise.all(Array.from({ length: 64 }, lane));
		return [output];
	}
}
