/**
 * The learning suite's comparison with Fixed Interval (scripts/lib/learning-expect.ts), judged on made-up records
 * of the simulator: a stall that Fixed Interval's own checks show is allowed for, and only that much; without one,
 * a learned run that is later, or checks more, than the grid fails. A run without a twin of its own is allowed the
 * stalls Fixed Interval's tasks saw while its tasks waited (learning-rows.ts `withStalls`), and only those.
 */
import { evaluate } from '../../scripts/lib/learning-expect';
import { figures, type TaskRecord } from '../../scripts/lib/learning-measure';
import { measured, withStalls } from '../../scripts/lib/learning-rows';

const RENDERS = [2300, 2500, 2700, 2900, 2100, 2600, 2400, 2800, 2200, 2500];

/** Tasks created at 0 with RENDERS, each checked at `checksOf(render)` (ms from creation); done at the last one. */
const records = (checksOf: (render: number) => number[]): TaskRecord[] =>
	RENDERS.map((render, index) => {
		const checks = checksOf(render);
		return {
			taskid: `t${index}`,
			prompt: '',
			createdAt: 0,
			doneAt: render,
			seenAt: checks[checks.length - 1],
			checks,
		};
	});

/** Fixed Interval's checks: each whole second up to the render's end, every one `late` ms after its slot. */
const grid =
	(late = 20) =>
	(render: number) =>
		Array.from({ length: Math.ceil(render / 1000) }, (_, slot) => (slot + 1) * 1000 + late);

/** What the comparison said of the learned run, by whether each statement held. */
function judged(learned: TaskRecord[], fixed: TaskRecord[]): Array<[string, boolean]> {
	const lines: Array<[string, boolean]> = [];
	evaluate(
		[
			{
				version: 'v',
				mode: 'queue',
				name: 'drop',
				rows: [
					{ label: 'run 2: renders drop to 2.5 s, learned', figures: figures(learned) },
					{ label: 'run 2: renders drop to 2.5 s, Fixed Interval', figures: figures(fixed) },
				],
			},
		],
		(line) => lines.push([line.slice(5), line.startsWith('ok')]),
	);
	return lines.filter(([line]) => /learned:/.test(line));
}

/** The statement that matches `pattern`, and whether it held. */
const said = (lines: Array<[string, boolean]>, pattern: RegExp) => lines.find(([line]) => pattern.test(line));
const held = (lines: Array<[string, boolean]>, pattern: RegExp) => said(lines, pattern)?.[1];

describe("the learning suite's comparison with Fixed Interval", () => {
	it('with no stall, fails a learned run found later than the grid or checked more', () => {
		const lines = judged(
			records((render) => [render - 300, render + 900]),
			records(grid()),
		);
		expect(held(lines, /after the floor per task/)).toBe(false);
		expect(held(lines, /checks per task/)).toBe(true);
		expect(lines.some(([line]) => /stall/.test(line))).toBe(false);

		const busy = judged(
			records((render) => [500, 1000, 1500, render + 50]),
			records(grid()),
		);
		expect(held(busy, /checks per task/)).toBe(false);
		expect(held(busy, /after the floor per task/)).toBe(true);
	});

	it('late timers within 0.4 I are no stall; a longer wait allows what it held, and only that', () => {
		// Every Fixed Interval check 350 ms late (0.85 I after the floor): a loaded machine, no stall.
		const late = judged(
			records((render) => [render + 1200]),
			records(grid(350)),
		);
		expect(late.some(([line]) => /stall/.test(line))).toBe(false);
		expect(held(late, /after the floor per task/)).toBe(false);

		// Slot 2's check 0.52 I after its slot (a wait of 1.5 I): a stall of 0.12 I, no slot skipped, so Fixed
		// Interval's own checks count.
		const lateOnce = judged(
			records((render) => [1000, 2000, 2900, render + 100].filter((at) => at <= render + 100)),
			records((render) => [1020, 2520, 3020].filter((at, index) => index < 2 || render > 2520)),
		);
		expect(said(lateOnce, /after the floor per task/)?.[0]).toMatch(/a stall of 0\.12 I/);
		expect(said(lateOnce, /checks per task/)?.[0]).not.toMatch(/skipped/);

		// Slow for a while: checks 0.46 and then 0.95 I after their slots, no wait over 1.49 I. The stall is what the
		// latest check was held beyond a late timer (0.55 I), not what the longest wait shows (0.09 I).
		const slow = judged(
			records((render) => [1000, 2000, 3000, 4410].filter((at, index) => index < 2 || at <= render + 2000)),
			records((render) => [1010, 2460, 3950].filter((at, index) => index < 2 || render > 2460)),
		);
		expect(said(slow, /after the floor per task/)?.[0]).toMatch(/a stall of 0\.55 I/);

		// Slot 1's check held to 1.95 s stands for slot 2 (waiting/schedule.ts): the next, at 3.02 s, is 0.02 I after
		// its slot, not 1.02 I after slot 2's. The stall is the first check's 0.95 I beyond a late timer.
		const skipped = judged(
			records((render) => [1000, 2000, 3000].filter((at, index) => index < 2 || render > 2000)),
			records((render) => [1950, 3020].filter((at, index) => index < 1 || render > 1950)),
		);
		expect(said(skipped, /after the floor per task/)?.[0]).toMatch(/a stall of 0\.55 I/);

		// Nothing sent until 2.9 s: Fixed Interval skipped slots 1 and 2 (a wait of 2.9 I: a stall of 1.5 I), and
		// every render had ended by then.
		const stalled = () => [2900];
		const allowed = judged(
			records((render) => [render + 1400]),
			records(stalled),
		);
		expect(said(allowed, /after the floor per task/)?.[0]).toMatch(/a stall of 1\.50 I/);
		expect(held(allowed, /after the floor per task/)).toBe(true);
		// The checks are held to the grid's count for the renders, not to the slots Fixed Interval skipped.
		expect(said(allowed, /checks per task/)?.[0]).toMatch(/the grid's 3\.00/);

		const beyond = judged(
			records((render) => [render + 2600]),
			records(stalled),
		);
		expect(held(beyond, /after the floor per task/)).toBe(false);
		const checkedMore = judged(
			records((render) => [1000, 2000, 2950, 3000, render + 1400]),
			records(stalled),
		);
		expect(held(checkedMore, /checks per task/)).toBe(false);
	});

	it('counts a task’s checks up to the one that found it done: one that reached the API after it left before', () => {
		// A 2.46 s render (the grid's count 3, and one): a stall held its third check to 4.41 s, and the next slot's,
		// sent before that answer came, reached the API at 4.53 s.
		const withinCount = (checks: number[]) => {
			const lines: string[] = [];
			const task = { taskid: 't', prompt: '', createdAt: 0, doneAt: 2460, seenAt: 4410, checks };
			const rows = [{ label: 'run 1, learned', ...measured([task]) }];
			evaluate([{ version: 'v', mode: 'queue', name: 'other', rows }], (line) => lines.push(line));
			return lines.find((line) => /checked more than the grid's count/.test(line));
		};
		expect(withinCount([1160, 1260, 2070, 4410, 4530])).toMatch(/^ok/);
		expect(withinCount([1160, 1260, 1360, 2070, 4410])).toMatch(/^FAIL .*1 were: 5 checks for 2460 ms/);
	});
});

describe("the learning suite's stall witness for runs without a twin", () => {
	/** Five executions of one item, 5 s apart, renders of 2.5 s: each found `after(run)` ms after its render's end. */
	const executions = (after: (run: number) => number): TaskRecord[] =>
		[0, 1, 2, 3, 4].map((run) => {
			const createdAt = run * 5000;
			const seenAt = createdAt + 2500 + after(run);
			return { taskid: `l${run}`, prompt: '', createdAt, doneAt: createdAt + 2500, seenAt, checks: [seenAt] };
		});
	/** Fixed Interval's tasks at the same times; with `stalled`, run 1's third check held to 4.6 s, 1.6 s late. */
	const witness = (stalled: boolean) =>
		[0, 1, 2, 3, 4].map((run) => {
			const createdAt = run * 5000;
			const checks = [1000, 2000, stalled && run === 1 ? 4600 : 3000].map((at) => createdAt + at);
			return { taskid: `f${run}`, prompt: '', createdAt, doneAt: createdAt + 2500, seenAt: checks[2], checks };
		});
	/** What the suite said of `name`'s rows (learned tasks taken together, or one row per task), beside `grid`. */
	const judgedAlone = (name: string, learned: TaskRecord[], grid: TaskRecord[], pattern: RegExp) => {
		const lines: Array<[string, boolean]> = [];
		const together = name === 'single' ? [learned] : learned.map((task) => [task]);
		const rows = withStalls(
			together.map((tasks, run) => ({ label: `run ${run + 1}`, ...measured(tasks) })),
			[{ tasks: grid, intervalMs: 1000 }],
		);
		evaluate([{ version: 'v', mode: 'queue', name, rows }], (line) =>
			lines.push([line.slice(5), line.startsWith('ok')]),
		);
		return said(lines, pattern)!;
	};

	it('allows what a stall held of each task, spread over the run, and no more', () => {
		const single = (after: (run: number) => number, stalled: boolean) =>
			judgedAlone('single', executions(after), witness(stalled), /after the floor ≤/);
		expect(single(() => 100, false)).toEqual([expect.not.stringMatching(/stall/), true]);
		expect(single(() => 600, false)).toEqual([expect.not.stringMatching(/stall/), false]);
		// Run 1 found at 4.6 s, 2.1 s after its render: the stall held 3–4.6 s of its life, 0.32 I over five.
		expect(single((run) => (run === 1 ? 2100 : 100), true)).toEqual([
			expect.stringMatching(/0\.50 I after the floor ≤ 0\.35 I \+ a stall of 0\.32 I/),
			true,
		]);
		expect(single((run) => (run === 1 ? 2100 : 600), true)[1]).toBe(false);
	});

	it("a schedule's later runs: each run's last result less what a stall held of that run", () => {
		// Runs 2 and 3 (a schedule's first run is cold): 2.1 I and 0.1 I after their renders, 1.1 I in the median.
		const schedule = (stalled: boolean) =>
			judgedAlone(
				'schedule',
				executions((run) => (run === 1 ? 2100 : 100)).slice(0, 3),
				witness(stalled),
				/last result/,
			);
		expect(schedule(false)).toEqual([expect.stringMatching(/1\.10 I after .* in the median run, ≤ 1 I/), false]);
		expect(schedule(true)).toEqual([
			expect.stringMatching(/0\.30 I .* less what stalls held of each run, ≤ 1 I/),
			true,
		]);
	});
});
