/**
 * Nothing waits forever: Request Timeout is a total deadline for every request, so a creation answer, an info
 * answer or a download that trickles in one byte at a time ends there (and only the poll is retried); the
 * default Request Timeout per task type is the one the editor shows; every value the numeric options accept
 * (fractions of a millisecond, days beyond the timers' limit) works.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../../harness';
import { NODE_TYPE } from '../../nodeType';
import { BETAV4_PATH, betav4Parameters, ideaItems, INFO_PATH, useSimulator } from '../../support';
import { readWaitingOptions, WAIT_DEFAULTS } from '../../../nodes/MediaGen/waiting/options';
import { optionsProperty } from '../../../nodes/MediaGen/actions/descriptions';

const context = useSimulator();

const items = ideaItems;

// Downloads off unless a test needs them: the in-process simulator renders PNGs on the test's event loop.
const betav4 = (options: INodeParameters = {}, wait = true): INodeParameters =>
	betav4Parameters({ pollInterval: 0.2, maxWait: 20, downloadResults: false }, options, wait);

describe('every wait is bounded: Request Timeout is a total deadline', () => {
	const trickle = { type: 'trickle', intervalMs: 200 } as const;

	it('a creation answer that trickles one byte per 200 ms ends at Request Timeout', async () => {
		context.sim.inject({ path: BETAV4_PATH, action: trickle });
		const { output } = await runNode({
			parameters: betav4({ requestTimeout: 1 }, false),
			items: items(2),
			credentials: context.credentials(),
			continueOnFail: true,
		});
		// The API answered (HTTP 200): its body is what did not arrive in time.
		expect(output[0].json.error).toBe(
			'The MediaGen API answered HTTP 200, but its answer broke off: the request timed out [item 0]',
		);
		expect(output[0].json.errorDescription).toMatch(/a task may have been created/);
		expect(output[1].json.taskid).toEqual(expect.stringMatching(/^img-/));
		expect(context.sim.requests(BETAV4_PATH)).toHaveLength(2); // not retried
	}, 20_000);

	it('an info answer that trickles ends at Request Timeout and the poll is retried', async () => {
		context.sim.inject({ path: INFO_PATH, action: trickle });
		const { output, error } = await runNode({
			parameters: betav4({ requestTimeout: 1 }),
			items: items(1),
			credentials: context.credentials(),
		});
		expect(error).toBeUndefined();
		expect(output[0].json.status).toBe('completed');
		expect(context.sim.requests(INFO_PATH).filter((request) => request.fault === 'trickle')).toHaveLength(1);
	}, 20_000);

	it('a download that trickles ends at Request Timeout with an error item that keeps the task id', async () => {
		context.sim.inject({ path: /^\/files\//, action: trickle });
		const { output } = await runNode({
			parameters: betav4({ requestTimeout: 1, downloadResults: true }),
			items: items(1),
			credentials: context.credentials(),
			continueOnFail: true,
		});
		expect(output[0].json).toMatchObject({
			taskid: expect.stringMatching(/^img-/),
			error: expect.stringMatching(
				/^Could not download a result file: the request timed out \(task img-\S+\) \[item 0\]$/,
			),
		});
	}, 20_000);

	it('video operations default to a 300 s Request Timeout, images to 120 s, as the UI says', () => {
		const fake = { getNodeParameter: () => ({}), getNode: () => ({ type: NODE_TYPE }) } as never;
		expect(readWaitingOptions.call(fake, 'video', true).requestTimeoutMs).toBe(300_000);
		expect(readWaitingOptions.call(fake, 'image', true).requestTimeoutMs).toBe(120_000);
		for (const kind of ['image', 'video'] as const) {
			const option = optionsProperty([kind], true).options!.find(
				(entry) => 'name' in entry && entry.name === 'requestTimeout',
			) as { default: number };
			expect(option.default).toBe(WAIT_DEFAULTS[kind].requestTimeout);
		}
	});
});

describe('every value the numeric options accept works (issue 18, point 6)', () => {
	// 8.05 s is 8050.000000000001 ms; 3,000,000 s overflows the HTTP client's socket timer (2^31 - 1 ms), which then
	// fires at once; 5,000,000 s is beyond what AbortSignal.timeout takes (2^32 - 1 ms).
	it.each([8.05, 0.5, 3_000_000, 5_000_000, 1e30])(
		'Request Timeout %p s: requests are sent and answered',
		async (requestTimeout) => {
			const { output, error } = await runNode({
				parameters: betav4({ requestTimeout }),
				items: items(1),
				credentials: context.credentials(),
			});
			expect(error).toBeUndefined();
			expect(output[0].json.status).toBe('completed');
		},
	);

	it('Request Timeout is read as whole milliseconds up to 2^31 - 1 (about 24.8 days)', () => {
		const read = (requestTimeout: unknown) =>
			readWaitingOptions.call(
				{ getNodeParameter: () => ({ requestTimeout }), getNode: () => ({ type: NODE_TYPE }) } as never,
				'image',
				true,
			).requestTimeoutMs;
		expect(read(8.05)).toBe(8050);
		expect(read(0.0004)).toBe(1000);
		expect(read(3_000_000)).toBe(2 ** 31 - 1);
		expect(read(Number.MAX_VALUE)).toBe(2 ** 31 - 1);
		expect(read('not a number')).toBe(120_000);
	});

	it('a Poll Interval and Max Wait beyond the timers’ limit wait without a busy loop', async () => {
		context.sim.taskDurationMs = 60_000;
		const timeout = jest.spyOn(global, 'setTimeout');
		try {
			const result = await runNode({
				parameters: betav4({ pollInterval: 3_000_000, maxWait: 6_000_000 }),
				items: items(1),
				credentials: context.credentials(),
				cancelAfterMs: 600,
			});
			expect(result.error?.message).toMatch(/cancel/i);
			const delays = timeout.mock.calls.map(([, delay]) => Number(delay ?? 0));
			// No timer that Node would cut to 1 ms (a loop that wakes every millisecond), and only a few timers.
			expect(delays.filter((delay) => delay > 2 ** 31 - 1)).toEqual([]);
			expect(delays.length).toBeLessThan(100);
		} finally {
			timeout.mockRestore();
		}
	});
});
