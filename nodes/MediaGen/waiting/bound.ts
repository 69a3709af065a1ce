/**
 * The adaptive bound on API requests in flight (AIMD): it starts at Max Concurrent Requests, halves on HTTP 429
 * (at most once per generation of requests: requests started before the last cut do not cut again) and grows
 * back by about one per bound's worth of successes. When the bound is already 1, a 429's Retry-After holds
 * every API request.
 */
export class AdaptiveBound {
	/** Fractional while it grows back. */
	private limit: number;

	private lastDecreaseAt = 0;

	/** No API request starts before this time (Retry-After while the bound is 1). */
	holdUntil = 0;

	constructor(private readonly max: number) {
		this.limit = max;
	}

	/** Requests that may be in flight now. */
	get slots(): number {
		return Math.max(1, Math.floor(this.limit));
	}

	onSuccess(): void {
		this.limit = Math.min(this.max, this.limit + 1 / this.limit);
	}

	onRateLimited(startedAt: number, retryAfter: number | undefined): void {
		const now = Date.now();
		if (startedAt >= this.lastDecreaseAt) {
			if (this.limit <= 1 && retryAfter !== undefined) this.holdUntil = Math.max(this.holdUntil, now + retryAfter);
			this.limit = Math.max(1, this.limit / 2);
			this.lastDecreaseAt = now;
		}
	}
}
