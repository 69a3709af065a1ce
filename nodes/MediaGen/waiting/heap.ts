/** A binary min-heap: the engine's queue of polls by due time (no sorting or spreading of large lists). */
export class MinHeap<T> {
	private readonly items: T[] = [];

	constructor(private readonly key: (item: T) => number) {}

	get size(): number {
		return this.items.length;
	}

	peek(): T | undefined {
		return this.items[0];
	}

	push(item: T): void {
		const items = this.items;
		items.push(item);
		let index = items.length - 1;
		while (index > 0) {
			const parent = (index - 1) >> 1;
			if (this.key(items[parent]) <= this.key(items[index])) break;
			[items[parent], items[index]] = [items[index], items[parent]];
			index = parent;
		}
	}

	pop(): T | undefined {
		const items = this.items;
		if (!items.length) return undefined;
		const top = items[0];
		const last = items.pop()!;
		if (items.length) {
			items[0] = last;
			let index = 0;
			for (;;) {
				const left = 2 * index + 1;
				const right = left + 1;
				let smallest = index;
				if (left < items.length && this.key(items[left]) < this.key(items[smallest])) smallest = left;
				if (right < items.length && this.key(items[right]) < this.key(items[smallest])) smallest = right;
				if (smallest === index) break;
				[items[smallest], items[index]] = [items[index], items[smallest]];
				index = smallest;
			}
		}
		return top;
	}
}
