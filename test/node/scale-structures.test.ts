/**
 * With 125,000+ pending tasks, `Math.min(...list)` overflows the stack. The engine keeps its poll and retry
 * queues in a binary heap; this checks that structure at a size far beyond where a spread fails, in order and
 * without recursion, and shows that a spread fails at that size.
 */
import { MinHeap } from '../../nodes/MediaGen/waiting/heap';

describe('queues at 300,000 pending tasks', () => {
	const count = 300_000;
	const dueTimes = Array.from({ length: count }, (_, index) => ((index * 7_919) % count) + 0.5);

	it('a spread over the list (the old way) overflows the stack at this size', () => {
		expect(() => Math.min(...dueTimes)).toThrow(RangeError);
	});

	it('the engine heap hands every task back, earliest due first', () => {
		const heap = new MinHeap<{ id: string; dueAt: number }>((entry) => entry.dueAt);
		dueTimes.forEach((dueAt, index) => heap.push({ id: `task-${index}`, dueAt }));
		expect(heap.size).toBe(count);
		expect(heap.peek()?.dueAt).toBe(0.5);
		let last = -Infinity;
		let outOfOrder = 0;
		const seen = new Set<string>();
		while (heap.size) {
			const entry = heap.pop()!;
			if (entry.dueAt < last) outOfOrder++;
			last = entry.dueAt;
			seen.add(entry.id);
		}
		expect(outOfOrder).toBe(0);
		expect(seen.size).toBe(count);
	});
});
