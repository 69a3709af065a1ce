/**
 * The adaptive bound on API requests in flight: slow start (one more per success) up to Max Concurrent Requests until
 * the first HTTP 429, then AIMD: halved on a 429 (once per generation of requests), grown back by about one per
 * bound's worth of successes. At a bound of 1, a 429 holds every API request but a task's last check (engine.ts).
 */
import { DEFAULT_MAX_CONCURRENCY } from './options';

/** Longest Retry-After honoured; a larger value is capped so that Max Wait and the retry window still hold. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** The hold after a refusal at a bound of 1, doubling per refusal in a row (Retry-After: 0 is not "at once"). */
const FIRST_HOLD_MS = 250;

export class AdaptiveConcurrency {
	/** Fractional while it grows back. */
	private limit: number;

	private lastDecreaseAt = 0;

	/** Until the first HTTP 429: every success adds one (doubling per round trip). */
	private slowStart = true;

	/** Holds in a row without a success in between. */
	private refusals = 0;

	/** No API request starts before this time (except the last poll of a task). */
	holdUntil = 0;

	constructor(private readonly max: number) {
		// options.ts says why: at the defaults a batch goes out as n8n's HTTP Request node sends it.
		this.limit = Math.min(max, DEFAULT_MAX_CONCURRENCY);
	}

	get slots(): number {
		return Math.max(1, Math.floor(this.limit));
	}

	onSuccess(): void {
		this.refusals = 0;
		this.limit = Math.min(this.max, this.limit + (this.slowStart ? 1 : 1 / this.limit));
	}

	/** An answer to a request started before the last cut was already acted on: it changes nothing. */
	onRateLimited(startedAt: number, retryAfter: number | undefined): void {
		if (startedAt < this.lastDecreaseAt) return;
		this.slowStart = false;
		const now = Date.now();
		if (this.limit <= 1) {
			this.refusals++;
			const floor = FIRST_HOLD_MS * 2 ** Math.min(this.refusals - 1, 16);
			const hold = Math.min(Math.max(retryAfter ?? 0, floor), MAX_RETRY_AFTER_MS);
			this.holdUntil = Math.max(this.holdUntil, now + hold);
		}
		this.limit = Math.max(1, this.limit / 2);
		this.lastDecreaseAt = now;
	}
}
