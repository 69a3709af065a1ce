/**
 * A binary min-heap: the engine's queue of polls by due time (no sorting or spreading of large lists). Items
 * with the same key come out in the order they went in, so tasks due at the same time are served in item order.
 */
export class MinHeap<T> {
	private readonly entries: Array<{ item: T; key: number; order: number }> = [];

	private pushed = 0;

	constructor(private readonly key: (item: T) => number) {}

	get size(): number {
		return this.entries.length;
	}

	peek(): T | undefined {
		return this.entries[0]?.item;
	}

	push(item: T): void {
		const entries = this.entries;
		entries.push({ item, key: this.key(item), order: this.pushed++ });
		let index = entries.length - 1;
		while (index > 0) {
			const parent = (index - 1) >> 1;
			if (!this.before(index, parent)) break;
			[entries[parent], entries[index]] = [entries[index], entries[parent]];
			index = parent;
		}
	}

	pop(): T | undefined {
		const entries = this.entries;
		if (!entries.length) return undefined;
		const top = entries[0];
		const last = entries.pop()!;
		if (entries.length) {
			entries[0] = last;
			let index = 0;
			for (;;) {
				const left = 2 * index + 1;
				const right = left + 1;
				let smallest = index;
				if (left < entries.length && this.before(left, smallest)) smallest = left;
				if (right < entries.length && this.before(right, smallest)) smallest = right;
				if (smallest === index) break;
				[entries[smallest], entries[index]] = [entries[index], entries[smallest]];
				index = smallest;
			}
		}
		return top.item;
	}

	private before(a: number, b: number): boolean {
		const x = this.entries[a];
		const y = this.entries[b];
		return x.key < y.key || (x.key === y.key && x.order < y.order);
	}
}
