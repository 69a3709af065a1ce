/**
 * The benchmark's floor (scripts/bench.ts, case "overhead"): a node that does, per item, one beta v4 creation
 * (a multipart prompt) through n8n's own `httpRequestWithAuthentication`, 64 at a time, and nothing else: what
 * any node that creates through n8n's request helper pays, whatever it does around it. The bench runs it in the
 * harness next to MediaGen (runWorkflow's `extraNodeTypes`) and reports the difference.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { anchorDescription } from './bench-common';

export const HTTP_FLOOR_TYPE = 'test.httpFloor';

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
