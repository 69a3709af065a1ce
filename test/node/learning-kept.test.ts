/**
 * Where n8n keeps what Poll Schedule "Learned" learns: in the workflow's static data, which n8n saves after
 * production executions only (its execution lifecycle hooks skip manual runs). A manual run says so in the
 * editor's output panel; a production run says nothing. `npm run test:learning` proves the saving itself in
 * real n8n.
 */
import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../harness';
import { betav4Parameters, useSimulator } from '../support';
import { MANUAL_RUN_HINT } from '../../nodes/MediaGen/waiting/renderTimes';

describe('what a run learned is kept only after production executions', () => {
	const context = useSimulator({ taskDurationMs: 150 });
	const parameters = (options: IDataObject = {}) =>
		betav4Parameters({ pollInterval: 0.1, downloadResults: false, ...options }, {});

	async function hintsOf(mode: 'manual' | 'webhook', options: IDataObject = {}) {
		const result = await runNode({
			parameters: parameters(options),
			items: [{ json: { idea: 'a lighthouse at dusk' } }],
			credentials: context.credentials(),
			mode,
			staticData: {},
		});
		expect(result.error).toBeUndefined();
		expect(result.output[0].json.status).toBe('completed');
		return (result.run.data.resultData.runData.MediaGen[0].hints ?? []).map((hint) => hint.message);
	}

	it('a manual run says in the output panel that its render times are not kept', async () => {
		expect(await hintsOf('manual')).toEqual([MANUAL_RUN_HINT]);
	});

	it('a production run (webhook) says nothing', async () => {
		expect(await hintsOf('webhook')).toEqual([]);
	});

	it('Fixed Interval learns nothing, so a manual run has nothing to say', async () => {
		expect(await hintsOf('manual', { pollSchedule: 'fixed' })).toEqual([]);
	});
});
