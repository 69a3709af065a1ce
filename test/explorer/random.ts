/** A small seeded generator (sfc32): the same seed draws the same schedule on every machine. */
export class Random {
	/**
	 * A stream of its own for one draw of one schedule: the schedule's seed mixed with what is drawn (a generator's
	 * name, a request's kind, item and attempt). Draws from different streams never shift each other: a generator
	 * added later, or requests that arrive in another order, leave every other draw as it was.
	 */
	static stream(seed: number, ...parts: Array<string | number>): Random {
		let h = (seed ^ 0x5bd1e995) >>> 0;
		for (const part of parts) {
			const words = typeof part === 'number' ? [part | 0] : [...part].map((char) => char.charCodeAt(0));
			for (const word of [...words, 0x9e37]) {
				h = Math.imul(h ^ word, 0x27d4eb2d);
				h ^= h >>> 15;
			}
		}
		return new Random(h >>> 0);
	}

	private a: number;
	private b: number;
	private c: number;
	private d: number;

	constructor(seed: number) {
		this.a = 0x9e3779b9;
		this.b = 0x243f6a88;
		this.c = 0xb7e15162;
		this.d = seed >>> 0;
		for (let i = 0; i < 15; i++) this.next();
	}

	/** A float in [0, 1). */
	next(): number {
		this.a >>>= 0;
		this.b >>>= 0;
		this.c >>>= 0;
		this.d >>>= 0;
		let t = (this.a + this.b) | 0;
		this.a = this.b ^ (this.b >>> 9);
		this.b = (this.c + (this.c << 3)) | 0;
		this.c = (this.c << 21) | (this.c >>> 11);
		this.d = (this.d + 1) | 0;
		t = (t + this.d) | 0;
		this.c = (this.c + t) | 0;
		return (t >>> 0) / 4294967296;
	}

	/** An integer from `min` to `max`, both included. */
	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}

	chance(probability: number): boolean {
		return this.next() < probability;
	}

	pick<T>(values: readonly T[]): T {
		return values[Math.floor(this.next() * values.length)];
	}

	/** A value by weight: `[[weight, value], …]`. */
	weighted<T>(entries: ReadonlyArray<readonly [number, T]>): T {
		const total = entries.reduce((sum, [weight]) => sum + weight, 0);
		let point = this.next() * total;
		for (const [weight, value] of entries) {
			point -= weight;
			if (point < 0) return value;
		}
		return entries[entries.length - 1][1];
	}
}
