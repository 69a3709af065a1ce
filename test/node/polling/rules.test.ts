/**
 * Poll Schedule "Learned": each named rule of nodes/MediaGen/learning/policy.ts on its own (the node through n8n's
 * executor is in the other files of this folder). Ages in ms since a task's creation, Poll Interval 1 s.
 */
import { Random } from '../../explorer/random';
import {
	batchPlacement,
	isStale,
	nextSlot,
	pastRange,
	planChecks,
	judgedLateBy,
	reach,
	renderDistribution,
	runEnd,
	unlikeHistory,
	type GridShape,
	type Observation,
} from '../../../nodes/MediaGen/learning/policy';
import { RenderTimes } from '../../../nodes/MediaGen/learning/renderTimes';
import { LearnedStore, type Learned } from '../../../nodes/MediaGen/learning/store';
import { PollSchedule } from '../../../nodes/MediaGen/waiting/schedule';
import type { CreatedTask } from '../../../nodes/MediaGen/waiting/taskState';
import type { WaitingOptions } from '../../../nodes/MediaGen/waiting/options';

const I = 1000;
const grid: GridShape = { intervalMs: I, rttMs: 100 };
const kind = { key: 'betav4|batchsize=|resolution=', model: 'betav4' };

/** Observations of renders of `ms` each, seen by checks 100 ms apart around them. */
const seen = (times: number[]): Observation[] => times.map((ms) => ({ lo: ms - 50, hi: ms + 50 }));

const history = (observations: Observation[], key = kind.key): Learned => ({
	own: new Map([[key, { used: 1, observations }]]),
	api: new Map(),
	clock: 2,
});

const nothing = (): Learned => ({ own: new Map(), api: new Map(), clock: 1 });

/** Renders spread evenly over [from, to] ms. */
const spread = (count: number, from: number, to: number) =>
	Array.from({ length: count }, (_, i) => from + ((to - from) * i) / (count - 1));

/**
 * When each check of a task on its own goes, as the engine drives the schedule (every answer in `rttMs`): up to the
 * one at or after `render` (its end; Infinity: it runs on), none after `until`.
 */
function checksOf(
	taught: Observation[],
	render: number,
	{ intervalMs = I, rttMs = 100, until = Infinity }: Partial<GridShape> & { until?: number } = {},
): number[] {
	const times = new RenderTimes(intervalMs, history(taught), new Map([[kind.key, 1]]));
	times.sawRoundTrip(rttMs);
	const schedule = new PollSchedule({ pollIntervalMs: intervalMs } as WaitingOptions, times);
	const entry = schedule.add({} as CreatedTask, 0, intervalMs, 60_000, kind);
	const due: number[] = [];
	for (let ticket = schedule.next(); ticket && ticket.dueAt <= until; ticket = schedule.next()) {
		schedule.take();
		due.push(ticket.dueAt);
		schedule.started(ticket, ticket.dueAt);
		schedule.onGrid(entry, ticket.dueAt);
		if (ticket.dueAt >= render) break;
		schedule.notYet(entry, ticket.dueAt, ticket.dueAt + rttMs);
	}
	return due;
}

describe('rule 1: back to the grid', () => {
	it('until five renders of the kind are known', () => {
		const four = new RenderTimes(I, history(seen([3000, 3100, 3200, 3300])), new Map([[kind.key, 1]]));
		expect(four.firstCheck(kind, four.start(kind, 0), 0)).toBeUndefined();
		const five = new RenderTimes(I, history(seen([3000, 3100, 3200, 3300, 3400])), new Map([[kind.key, 1]]));
		expect(five.firstCheck(kind, five.start(kind, 0), 0)).toBeGreaterThan(2500);
	});

	/** What the process learned of the kind elsewhere on the API (`api`), and the node's own renders (`own`). */
	const borrowed = (api: Observation[], own: Observation[] = []): Learned => ({
		own: new Map(own.length ? [[kind.key, { used: 1, observations: own }]] : []),
		api: new Map([[kind.key, { used: 1, observations: api }]]),
		clock: 2,
	});

	it('what another workflow taught of the kind is a hint: the grid until one of the node’s own renders agrees', () => {
		const elsewhere = seen(spread(10, 5500, 6500));
		const cold = new RenderTimes(I, borrowed(elsewhere), new Map([[kind.key, 1]]));
		expect(cold.firstCheck(kind, cold.start(kind, 0), 0)).toBeUndefined();
		// A batch waits for its scouts, as when nothing is known.
		const batch = new RenderTimes(I, borrowed(elsewhere), new Map([[kind.key, 10]]));
		expect(batch.holds(kind, 'batch')).toBe(true);
		// One render of the node's own near them: placed from them (a copied workflow's second execution).
		const agrees = new RenderTimes(I, borrowed(elsewhere, [{ lo: 5000, hi: 6000 }]), new Map([[kind.key, 1]]));
		expect(agrees.firstCheck(kind, agrees.start(kind, 0), 0)).toBeGreaterThan(5000);
		// Renders of its own of 3 s (a new workflow of the same kind whose renders are shorter): the grid.
		const shorter = new RenderTimes(I, borrowed(elsewhere, [{ lo: 2000, hi: 3000 }]), new Map([[kind.key, 1]]));
		expect(shorter.firstCheck(kind, shorter.start(kind, 0), 0)).toBeUndefined();
		// A batch of 5 s renders taught it (its scouts seen running, the tasks that waited for them found done at once),
		// and the node's one render of 2.5 s was stretched to 4.1 s by a slow answer (judgedLateBy): still the grid.
		const batchTaught = [
			...[4000, 4000, 5000].map((lo) => ({ lo, hi: lo + I })),
			...[5600, 5600, 5700, 6000, 6100].map((hi) => ({ lo: 0, hi })),
		];
		const stretched = new RenderTimes(I, borrowed(batchTaught, [{ lo: 2000, hi: 4100 }]), new Map([[kind.key, 1]]));
		expect(stretched.firstCheck(kind, stretched.start(kind, 0), 0)).toBeUndefined();
		const longAsTheirs = new RenderTimes(I, borrowed(batchTaught, [{ lo: 4000, hi: 5000 }]), new Map([[kind.key, 1]]));
		expect(longAsTheirs.firstCheck(kind, longAsTheirs.start(kind, 0), 0)).toBeGreaterThan(4000);
		// A copied workflow (renders seen 2.6–2.9 s on a busy machine) whose own render was found done at a check that
		// reached the busy server at 2.33 s: theirs end by that check's grid slot, so they place its checks.
		const copied = seen(spread(10, 2600, 2900));
		const early = new RenderTimes(I, borrowed(copied, [{ lo: 0, hi: 2330 }]), new Map([[kind.key, 1]]));
		expect(early.firstCheck(kind, early.start(kind, 0), 0)).toBeDefined();
		// Another kind of the same model teaches nothing.
		const otherKind = new RenderTimes(
			I,
			history(seen(spread(10, 3000, 3400)), 'betav4|batchsize=|resolution=16:9'),
			new Map([[kind.key, 1]]),
		);
		expect(otherKind.firstCheck(kind, otherKind.start(kind, 0), 0)).toBeUndefined();
	});

	it('while nothing is known of a kind, a batch’s other tasks wait for a scout to end', () => {
		const batch = new RenderTimes(I, nothing(), new Map([[kind.key, 10]]));
		const roles = Array.from({ length: 5 }, (_, i) => batch.start(kind, i));
		expect(roles.map((role) => batch.holds(kind, role))).toEqual([false, false, false, true, true]);
		expect(batch.ended(kind, 3, 'batch')).toBe(false);
		expect(batch.ended(kind, 0, 'scout')).toBe(true);
		expect(batch.ended(kind, 1, 'scout')).toBe(false);
		expect(batch.holds(kind, 'batch')).toBe(false);
		const known = new RenderTimes(I, history(seen(spread(10, 3000, 4000))), new Map([[kind.key, 10]]));
		expect(known.holds(kind, 'batch')).toBe(false);
		const single = new RenderTimes(I, nothing(), new Map([[kind.key, 1]]));
		expect(single.holds(kind, single.start(kind, 0))).toBe(false);
	});

	it('a batch (more than three tasks of a kind) sends its first three tasks on the grid as scouts; one task is placed', () => {
		const batch = new RenderTimes(I, history(seen(spread(10, 3000, 4000))), new Map([[kind.key, 10]]));
		const roles = Array.from({ length: 5 }, (_, i) => batch.start(kind, i));
		expect(roles).toEqual(['scout', 'scout', 'scout', 'batch', 'batch']);
		expect(batch.firstCheck(kind, 'scout', 0)).toBeUndefined();
		const single = new RenderTimes(I, history(seen(spread(10, 3000, 4000))), new Map([[kind.key, 1]]));
		expect(single.start(kind, 0)).toBe('planned');
	});
});

describe('rule 2: where checks go', () => {
	const first = (times: number[]) => planChecks(renderDistribution(seen(times)), 0, grid, true)!;

	it('the first check of a task on its own goes inside what history knows, sooner where renders vary more', () => {
		const narrow = first(spread(20, 2700, 3300));
		expect(narrow).toBeGreaterThanOrEqual(2650);
		expect(narrow).toBeLessThanOrEqual(3300);
		const wide = first(spread(20, 1800, 4200));
		expect(wide).toBeGreaterThanOrEqual(1750);
		// Over a wide range a check is cheap against the waiting it saves: the first one comes before the middle.
		expect(wide).toBeLessThan(3000);
	});

	it('after a "not yet", the next check goes further into what history knows', () => {
		const points = renderDistribution(seen(spread(20, 2700, 3300)));
		const next = planChecks(points, 2800, grid, false)!;
		expect(next).toBeGreaterThan(2800);
		expect(next).toBeLessThanOrEqual(3400);
		expect(planChecks(points, 3500, grid, false)).toBeUndefined();
	});

	it('a count held to the grid’s: each check where it is allowed, the one that has a slot left spent better', () => {
		const points = renderDistribution(seen(spread(20, 2250, 2750)));
		// Two checks have spent the grid's first two slots: the next may not come before the third slot.
		expect(planChecks(points, 2400, grid, false)).toBeLessThan(3000);
		expect(planChecks(points, 2400, grid, false, 2)).toBeGreaterThanOrEqual(3000);
		// One check out (at 2.3 s, two slots passed): one more fits before the third slot, and the plan knows it is the
		// last one there, so it goes no sooner than the free plan's next.
		const free = planChecks(points, 2300, grid, false)!;
		const held = planChecks(points, 2300, grid, false, 1)!;
		expect(held).toBeGreaterThanOrEqual(free);
		expect(held).toBeLessThan(3000);
	});

	it('a batch’s first check goes where its last render likely ends, the next where 80 % of the longer had', () => {
		const samples = spread(10, 3000, 3900);
		const view = { samples, active: [], remembered: true, now: 0, planned: 4 };
		// Four tasks: at 80 % of the known renders; a hundred: where all but two of them would have ended.
		expect(batchPlacement(view, 0, 0, grid)).toEqual({ age: 3700, pastRange: false });
		expect(batchPlacement({ ...view, planned: 100 }, 0, 0, grid)).toEqual({ age: 3900, pastRange: false });
		expect(batchPlacement({ ...view, planned: 100 }, 3050, 0, grid)).toEqual({ age: 3800, pastRange: false });
		const slow = { ...view, samples: spread(5, 60_000, 64_000) };
		// The first check as far as history says; once checked, never past the next grid slot's allowance.
		expect(batchPlacement(slow, 0, 0, grid)?.age).toBe(63_000);
		expect(batchPlacement(slow, 1000, 0, grid)?.age).toBe(reach(1000, grid));
	});

	it('with nothing remembered, a check after the first never comes after the task’s next grid slot', () => {
		// Known renders end past the task's next slot (2 s at age 1.5 s): the slot's check stands, not one after it.
		const view = { samples: spread(10, 2100, 2900), active: [0], remembered: false, now: 1600, planned: 10 };
		expect(batchPlacement(view, 1500, 0, grid)).toBeUndefined();
		// Remembered times may place it up to rule 3's allowance after the slot.
		expect(batchPlacement({ ...view, remembered: true }, 1500, 0, grid)?.age).toBe(reach(1500, grid));
		// In time for the slot (a round trip before it), it is placed.
		expect(batchPlacement({ ...view, samples: spread(10, 1700, 1800) }, 1500, 0, grid)?.age).toBeLessThanOrEqual(
			2000 - grid.rttMs,
		);
	});

	it('a batch still finishing (many tasks older than every known render, nothing remembered) keeps the grid', () => {
		const view = {
			samples: spread(5, 1000, 1400),
			active: spread(10, 0, 9),
			remembered: false,
			now: 2100,
			planned: 10,
		};
		expect(batchPlacement(view, 2000, 0, grid)).toBeUndefined();
		expect(batchPlacement({ ...view, remembered: true }, 2000, 0, grid)?.pastRange).toBe(true);
	});
});

describe('rule 3: never later than the grid once checked', () => {
	it('a check stands for a grid slot up to 5 % of the slot’s age and one round trip after it', () => {
		expect(reach(2900, grid)).toBe(3000 + 150 + 100);
		expect(reach(3000, grid)).toBe(4000 + 200 + 100);
	});

	it('no planned check after a "not yet" comes later than that, whatever history says', () => {
		for (let seed = 1; seed <= 200; seed++) {
			const random = Random.stream(seed, 'rule 3');
			const times = Array.from({ length: random.int(5, 40) }, () => random.int(100, 20_000));
			const points = renderDistribution(seen(times));
			const age = random.int(1, 20_000);
			const next = planChecks(points, age, grid, false);
			if (next !== undefined) expect(next).toBeLessThanOrEqual(reach(age, grid));
			expect(pastRange(age, random.int(0, 20), grid)).toBeLessThanOrEqual(reach(age, grid));
		}
	});
});

describe('rule 3: the grid behind a placed check', () => {
	it('a batch’s task placed just before a grid slot has that slot’s check as late as rule 3 allows', () => {
		const times = new RenderTimes(I, history(seen(spread(10, 6000, 6900))), new Map([[kind.key, 10]]));
		times.sawRoundTrip(100);
		const schedule = new PollSchedule({ pollIntervalMs: I } as WaitingOptions, times);
		const tasks = Array.from({ length: 4 }, () => schedule.add({} as CreatedTask, 0, I, 60_000, kind));
		const batch = tasks[3];
		expect(batch.role).toBe('batch');
		expect(batch.placed).toBe(true);
		// Placed at 6.9 s: the check that stands for the 7 s slot goes at 7 s + 5 % + one round trip, so that the
		// placed check's answer comes first (a check at 7 s would be a second one in flight for the same task).
		const first = batch.firstCheckAt;
		expect(first).toBeGreaterThan(6000);
		expect(first).toBeLessThan(7000);
		schedule.onGrid(batch, first);
		const tickets: number[] = [];
		for (let ticket = schedule.next(); ticket; ticket = schedule.next()) {
			if (ticket.entry === batch) tickets.push(ticket.dueAt);
			schedule.take();
		}
		expect(tickets).toEqual([first, reach(6999, grid)]);
	});

	it('once the placed check’s answer is in and nothing places the next one, the slot’s check goes at the slot', () => {
		const times = new RenderTimes(I, history(seen(spread(10, 6000, 6900))), new Map([[kind.key, 100]]));
		times.sawRoundTrip(100);
		const schedule = new PollSchedule({ pollIntervalMs: I } as WaitingOptions, times);
		const tasks = Array.from({ length: 4 }, () => schedule.add({} as CreatedTask, 0, I, 60_000, kind));
		const batch = tasks[3];
		const first = batch.firstCheckAt;
		schedule.onGrid(batch, first);
		// "Not yet" at 6.9 s: past every known render, the probe would come at the slot (7 s) anyway.
		schedule.notYet(batch, first, first + 100);
		const tickets: number[] = [];
		for (let ticket = schedule.next(); ticket; ticket = schedule.next()) {
			if (ticket.entry === batch) tickets.push(ticket.dueAt);
			schedule.take();
		}
		expect(first).toBe(6900);
		expect(tickets).toEqual([7000]);
	});
});

describe('the envelope: a task on its own has the grid’s count', () => {
	it('renders much longer than taught: checks close together at first, never more by any age than the grid’s', () => {
		// Taught 2.0–2.2 s; this render runs on past 6 s. The grid checks at 1, 2, … 6 s: six by 6 s.
		const due = checksOf(seen(spread(10, 2000, 2200)), Infinity, { until: 6000 });
		expect(due[0]).toBeGreaterThanOrEqual(I);
		due.forEach((at, index) => expect(at).toBeGreaterThanOrEqual((index + 1) * I));
		expect(due.length).toBeLessThanOrEqual(6);
		// Past what was taught the checks come closer than the grid's, as far as the count allows.
		expect(due.filter((at) => at > 2000 && at < 3000).length).toBeGreaterThanOrEqual(1);
	});

	it('after a task found done at its first check, the guarded next one keeps the grid’s count and one', () => {
		const taught = [...seen(spread(10, 2300, 2700)), { lo: 0, hi: 2400 }];
		const due = checksOf(taught, Infinity, { until: 3000 });
		expect(due.slice(0, 2)).toEqual([I, 2 * I]);
		due.forEach((at, index) => expect(at).toBeGreaterThanOrEqual(index * I));
		expect(due.length).toBeLessThanOrEqual(4);
	});

	it('a guarded task of renders shorter than the interval is checked before the first slot, where they end', () => {
		const taught = [...seen(spread(10, 500, 700)), { lo: 0, hi: 600 }];
		const due = checksOf(taught, Infinity, { until: 700 });
		expect(due[0]).toBeLessThan(I);
	});
});

describe('rule 4: past every known render', () => {
	it('checks 0.1, 0.2, 0.4 … intervals apart, at most one, never past the next slot’s allowance', () => {
		const gaps = [0, 1, 2, 3, 4, 5].map((probes) => pastRange(5000, probes, grid) - 5000);
		expect(gaps).toEqual([100, 200, 400, 800, 1000, 1000]);
		expect(pastRange(5900, 5, grid)).toBe(reach(5900, grid));
	});

	it('a batch’s task checks again sooner the fewer of the batch’s tasks are still waited on: they end the run', () => {
		const view = { samples: spread(10, 3000, 3900), active: [] as number[], remembered: true, now: 6000, planned: 100 };
		const gapWith = (waiting: number) =>
			batchPlacement({ ...view, active: spread(waiting, 0, waiting - 1) }, 4000, 3, grid)!.age - 4000;
		// Three probes before: the gap of one task alone (0.8 intervals), at most the share of the batch still waited on.
		expect(gapWith(100)).toBe(800);
		expect(gapWith(40)).toBe(400);
		expect(gapWith(5)).toBe(100);
	});
});

describe('rule 6: a batch’s end, from its own renders', () => {
	const grid2: GridShape = { intervalMs: 2000, rttMs: 150 };
	/** 500 renders seen by a 2 s grid: 100 found done at the scouts' end (4 s), 275 between 4 and 6 s. */
	const seenByGrid = [...Array<number>(100).fill(3900), ...Array<number>(275).fill(5000)];

	it('once half the batch is done, a task still running is checked as long after its age as the renders before took', () => {
		// 125 still waited on: the 125 renders ranked before them ended from 5 s on; at 6 s the next check is at 7 s.
		expect(runEnd(seenByGrid, 125, 6000, grid2)).toBe(7000);
		// The fewer still waited on, the later the renders ranked before them, the sooner the check.
		expect(runEnd([...seenByGrid, ...Array<number>(100).fill(6500)], 25, 7000, grid2)).toBe(7500);
	});

	it('at least the shortest gap after the task’s age, doubled by each such check before; nothing for a younger task', () => {
		expect(runEnd(Array<number>(10).fill(6000), 2, 6000, grid2)).toBe(6000 + 200);
		expect(runEnd(Array<number>(10).fill(6000), 2, 6000, grid2, 2)).toBe(6000 + 800);
		expect(runEnd(Array<number>(10).fill(6000), 2, 6000, grid2, 4)).toBeUndefined();
		// Tasks still being created: a young one is not the batch's end (the renders before it are 6 s, it is 5 s old).
		expect(runEnd(Array<number>(10).fill(6000), 2, 5000, grid2)).toBeUndefined();
	});

	it('the grid while half the batch or more is still waited on, or fewer than five renders are known', () => {
		// Six done: five still waited on is fewer than half, six is not.
		expect(runEnd(Array<number>(6).fill(2000), 5, 2500, grid2)).toBe(3000);
		expect(runEnd(Array<number>(6).fill(2000), 6, 2500, grid2)).toBeUndefined();
		expect(runEnd([3000, 3100, 3200, 3300], 1, 4000, grid2)).toBeUndefined();
	});

	it('the grid’s own check when the estimate does not come a round trip before the next slot', () => {
		// The next slot is at 8 s, the round trip 150 ms: 6.5 s + 1.5 s is the slot itself, + 1.4 s is late too.
		expect(runEnd(Array<number>(10).fill(5000), 2, 6500, grid2)).toBeUndefined();
		expect(runEnd(Array<number>(10).fill(5100), 2, 6500, grid2)).toBeUndefined();
		expect(runEnd(Array<number>(10).fill(5200), 2, 6500, grid2)).toBe(7800);
	});

	it('a scout’s checks and a cold batch’s follow it; a task on its own does not', () => {
		const times = new RenderTimes(I, nothing(), new Map([[kind.key, 20]]));
		times.sawRoundTrip(100);
		const roles = Array.from({ length: 20 }, (_, i) => times.start(kind, i));
		for (let i = 0; i < 12; i++) {
			times.finished(kind, roles[i], { lo: 1000, hi: 2000 });
			times.ended(kind, i, roles[i]);
		}
		// Eight still waited on; the renders ranked before them ended at 1.5 s (the middle of what the grid saw).
		const task = { anchor: 0, age: 2000, probes: 0, strict: false, spent: 1 };
		expect(times.nextCheck(kind, 'batch', task, 2000)).toEqual({ at: 2500, pastRange: false, runEnd: true });
		expect(times.nextCheck(kind, 'scout', task, 2000)).toEqual({ at: 2500, pastRange: false, runEnd: true });
		const single = new RenderTimes(I, nothing(), new Map([[kind.key, 1]]));
		expect(single.nextCheck(kind, single.start(kind, 0), task, 2000)).toBeUndefined();
	});
});

describe('rule 5: when history is stale', () => {
	const grid10 = (times: number[]) => times.map((ms) => ({ lo: Math.floor(ms / I) * I, hi: Math.ceil(ms / I) * I }));

	it('a render done well before history’s renders were, or running well after they were done', () => {
		const known = seen(spread(20, 3000, 4000));
		expect(isStale(known, { lo: 1000, hi: 1400 })).toBe(true);
		expect(isStale(known, { lo: 4600, hi: 4700 })).toBe(true);
		expect(isStale(known, { lo: 2800, hi: 2900 })).toBe(false);
		expect(isStale(known, { lo: 4050, hi: 4150 })).toBe(false);
	});

	it('a render at the edge of what a coarse grid saw is no news (the grid’s checks are an interval apart)', () => {
		// Seen by the grid, renders of 1.8–4.2 s are "between 2 and 3 s", "between 3 and 4 s" …
		const known = grid10([2500, 2600, 3300, 3500, 2100, 3900, 3200]);
		expect(isStale(known, { lo: 3885, hi: 4048 })).toBe(false);
		expect(isStale(known, { lo: 1700, hi: 1900 })).toBe(false);
	});

	const grid4: GridShape = { intervalMs: 400, rttMs: 100 };

	it('after a task found done at its first check, the next task on its own is checked no later than each grid slot', () => {
		const taught = seen(spread(10, 5700, 6300));
		expect(checksOf(taught, 6000, grid4)[0]).toBeGreaterThan(5000);
		// The last render was found done at once: it may have ended long before, so the next one keeps every slot.
		const afterHit = checksOf([...taught, { lo: 0, hi: 6100 }], 2400, grid4);
		expect(afterHit[0]).toBeLessThanOrEqual(400);
		for (let i = 1; i < afterHit.length; i++) expect(afterHit[i]).toBeLessThanOrEqual(nextSlot(afterHit[i - 1], grid4));
		expect(afterHit[afterHit.length - 1]).toBeLessThanOrEqual(2400);
	});

	it('renders that got much faster (6 s learned, now 2.4 s): one task is found late, the next on the grid, and history is stale', () => {
		const taught = seen(spread(5, 5600, 6400)).map((o) => ({
			lo: Math.floor(o.hi / grid4.intervalMs) * grid4.intervalMs - grid4.intervalMs,
			hi: Math.floor(o.hi / grid4.intervalMs) * grid4.intervalMs,
		}));
		const late = checksOf(taught, 2400, grid4);
		expect(late).toHaveLength(1);
		const found: Observation = { lo: 0, hi: late[0] };
		const next = checksOf([...taught, found], 2400, grid4);
		const seenNext = { lo: next[next.length - 2] ?? 0, hi: next[next.length - 1] };
		expect(seenNext.hi).toBe(2400);
		expect(isStale([...taught, found], seenNext)).toBe(true);
	});

	it('a first check where a hit is likely costs the next task the grid’s slots before it: rule 2 weighs that', () => {
		// Renders of 6 s ± 5 % at Poll Interval 0.4 s: fifteen slots a hit would cost the next task. The first check goes
		// where most renders still run, the next where they have ended.
		const taught = seen(spread(20, 5700, 6300));
		expect(checksOf(taught, 6000, grid4)[0]).toBeLessThan(5700);
		const renders = spread(7, 5700, 6300);
		const mean = renders.reduce((sum, render) => sum + checksOf(taught, render, grid4).length, 0) / renders.length;
		expect(mean).toBeLessThanOrEqual(4);
	});

	it('a stale history is forgotten: the next tasks follow the grid until the new renders are known', () => {
		const times = new RenderTimes(I, history(seen(spread(20, 3000, 4000))), new Map([[kind.key, 1]]));
		const role = times.start(kind, 0);
		expect(times.finished(kind, role, { lo: 1000, hi: 1400 })).toBe(false);
		const store = new LearnedStore();
		const node = LearnedStore.nodeSlot('wf', 'node');
		store.keep(
			node,
			'api',
			new Map([
				[
					kind.key,
					{ observations: history(seen(spread(20, 3000, 4000))).own.get(kind.key)!.observations, replaces: false },
				],
			]),
		);
		store.keep(node, 'api', times.keep());
		const learned = store.read(node, 'api', () => new Map(), [kind.key]);
		expect(learned.own.get(kind.key)?.observations).toEqual([{ lo: 1000, hi: 1400 }]);
		expect(learned.api.get(kind.key)?.observations).toEqual([{ lo: 1000, hi: 1400 }]);
		const next = new RenderTimes(I, learned, new Map([[kind.key, 1]]));
		expect(next.firstCheck(kind, next.start(kind, 0), 0)).toBeUndefined();
	});

	it('a batch’s scout that shows history stale puts the kind back on the grid', () => {
		const batch = new RenderTimes(I, history(seen(spread(20, 3000, 4000))), new Map([[kind.key, 10]]));
		expect(batch.finished(kind, batch.start(kind, 0), { lo: 1000, hi: 1400 })).toBe(true);
	});

	it('a render no remembered render comes near: between the two kinds of renders a history holds', () => {
		const twoKinds = [...seen(spread(10, 550, 650)), ...seen(spread(10, 3900, 4100))];
		expect(unlikeHistory(twoKinds, { lo: 1500, hi: 2000 })).toBe(true);
		// Within a tenth of what the checks saw, a remembered render comes near.
		expect(unlikeHistory(twoKinds, { lo: 700, hi: 1000 })).toBe(false);
		expect(unlikeHistory(twoKinds, { lo: 3000, hi: 3600 })).toBe(false);
		expect(unlikeHistory(seen(spread(20, 3000, 7000)), { lo: 4000, hi: 5000 })).toBe(false);
		expect(unlikeHistory(twoKinds.slice(0, 4), { lo: 1500, hi: 2000 })).toBe(false);
		// A batch's first run (CI run 14): 3 scouts saw renders of about 15 s, the 7 tasks that waited for them were
		// found done at their first checks; renders then dropped to 6 s. Those 7 are no renders near 6 s.
		const waitedForScouts = [
			...[15791, 15778, 15779].map((hi) => ({ lo: 13145, hi })),
			...Array.from({ length: 7 }, () => ({ lo: 0, hi: 16297 })),
		];
		expect(unlikeHistory(waitedForScouts, { lo: 5104, hi: 6068 })).toBe(true);
		expect(unlikeHistory(waitedForScouts, { lo: 14000, hi: 15000 })).toBe(false);
		// Neither of the older rules sees it: it is inside history's range.
		expect(isStale(twoKinds, { lo: 1500, hi: 2000 })).toBe(false);
	});

	it('a batch’s scout seen where history has no renders puts the kind back on the grid; a task on its own does not', () => {
		const twoKinds = [...seen(spread(10, 550, 650)), ...seen(spread(10, 3900, 4100))];
		const batch = new RenderTimes(I, history(twoKinds), new Map([[kind.key, 10]]));
		expect(batch.finished(kind, batch.start(kind, 0), { lo: 1500, hi: 2000 })).toBe(true);
		const single = new RenderTimes(I, history(twoKinds), new Map([[kind.key, 1]]));
		expect(single.finished(kind, single.start(kind, 0), { lo: 1500, hi: 2000 })).toBe(false);
	});
});

describe('what a "done" proves', () => {
	/** A task on its own of a kind nothing is known of (its checks on the grid), and what its run keeps. */
	function oneTask() {
		const times = new RenderTimes(I, nothing(), new Map([[kind.key, 1]]));
		const schedule = new PollSchedule({ pollIntervalMs: I } as WaitingOptions, times);
		const entry = schedule.add({} as CreatedTask, 0, I, 60_000, kind);
		const kept = () => times.keep().get(kind.key)?.observations;
		return { times, schedule, entry, kept };
	}

	/** The task's first check starts at `at`; every request slot was taken at `full` (if given). */
	function firstCheckAt(task: ReturnType<typeof oneTask>, at: number, full?: number) {
		if (full !== undefined) task.schedule.slotsFull(full);
		const ticket = task.schedule.next()!;
		task.schedule.take();
		task.schedule.started(ticket, at);
	}

	it('a first check that went out late because the process was busy proves its start, not its due time', () => {
		const task = oneTask();
		expect(task.entry.firstCheckAt).toBe(I);
		// Due at 1 s; every slot taken at 0.9 s only, before it was due: not held by the node.
		firstCheckAt(task, 2430, 900);
		expect(task.entry.firstCheckHeld).toBe(false);
		// Started at 2.43 s (a 2.5 s render: the check found it done), answered 100 ms later.
		task.schedule.finished(task.entry, 2430, 2530);
		expect(task.kept()).toEqual([{ lo: 0, hi: 2430 }]);
	});

	it('a first check the engine held (no free request slot, the API’s hold) counts as seen when it was due', () => {
		const task = oneTask();
		firstCheckAt(task, 2430, 1500);
		expect(task.entry.firstCheckHeld).toBe(true);
		task.schedule.finished(task.entry, 2430, 2530);
		expect(task.kept()).toEqual([{ lo: 0, hi: I }]);
		const hold = oneTask();
		hold.schedule.holdBack(hold.entry, 2000);
		expect(hold.entry.firstCheckHeld).toBe(true);
	});

	/** The task's check at 1 s said "not yet"; the one that started at `startedAt` found it done, answered at `answeredAt`. */
	function doneAfterNotYet(task: ReturnType<typeof oneTask>, startedAt: number, answeredAt: number) {
		task.times.sawRoundTrip(100);
		task.schedule.notYet(task.entry, 1000, 1100);
		task.schedule.finished(task.entry, startedAt, answeredAt);
		return task.kept();
	}

	it('a "done" answered about as fast as checks are counts where its check started', () => {
		// 180 ms against the fastest 100 ms: within twice the fastest, and within a tenth of an interval more.
		expect(doneAfterNotYet(oneTask(), 2000, 2180)).toEqual([{ lo: 1000, hi: 2000 }]);
	});

	it('a "done" answered too slowly to tell when the render ended is kept as done by its answer, for a task waited on alone', () => {
		// Started at 2.1 s, answered 350 ms later: the server may have judged it at 2.35 s (a 2.3 s render, judged late
		// by a loaded server, kept as done by 2.1 s would cost every later task of the kind on its own an early check).
		expect(doneAfterNotYet(oneTask(), 2100, 2450)).toEqual([{ lo: 1000, hi: 2350 }]);
		// Found done at its first check, answered as slowly: read as done by its start and maybe much sooner (rules 2
		// and 5), as a hit is; kept as done by its answer, it would hide a drop in render times.
		const hit = oneTask();
		hit.times.sawRoundTrip(100);
		firstCheckAt(hit, 2100);
		hit.schedule.finished(hit.entry, 2100, 2450);
		expect(hit.kept()).toEqual([{ lo: 0, hi: 2100 }]);
		// Beside other tasks of the run, whose requests slow its answers too, a batch's early estimate stands.
		const beside = oneTask();
		beside.schedule.add({} as CreatedTask, 0, I, 60_000, kind);
		expect(doneAfterNotYet(beside, 2100, 2450)).toEqual([{ lo: 1000, hi: 2100 }]);
		expect(judgedLateBy(200, grid)).toBe(0);
		expect(judgedLateBy(201, grid)).toBe(101);
		expect(judgedLateBy(700, { intervalMs: I, rttMs: 400 })).toBe(0);
		expect(judgedLateBy(801, { intervalMs: I, rttMs: 400 })).toBe(401);
	});
});
