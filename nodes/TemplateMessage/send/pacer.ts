/**
 * Spaces request starts evenly at a rate, shared by all concurrent senders that use it (one per
 * account and rate in a process: see sharedPacer).
 *
 * Each caller reserves the next start slot (`interval` after the previous one), so over the run
 * the starts are exactly `rate` per second whatever the concurrency: no bursts, no sleep-per-batch.
 * It is adaptive: a 429 pauses every sender until the server's wait is over and lowers the rate;
 * a run of accepted messages raises it again, up to the configured rate. A limit the provider
 * announces holds for the runs that are sending when it is seen: the next run on an idle pacer
 * starts again from its setting.
 */
import type { RateLimitState } from './outcome';
import type { Pause } from './throttleBudget';

/** Why every sender is paused: what a long wait says to the user. */
export type PauseCause = 'tooManyRequests' | 'windowUsedUp';

/** No pause is planned further ahead than this, whatever a header says. */
const LONGEST_PAUSE_MS = 24 * 3600_000;

/** Room kept in each one-second window for requests that reach the API later than counted here. */
const JITTER_ROOM_MS = 10;

export class Pacer {
	private rate: number;

	/** The highest rate allowed: the user's setting, or the provider's lower announced limit. */
	private ceiling: number;

	private nextStart = 0;

	private pausedUntil = 0;

	private pauseCause: PauseCause = 'tooManyRequests';

	/** Runs sending with this pacer now. */
	private runs = 0;

	private acceptedSinceChange = 0;

	/** When the last few requests really left, oldest first (at most ⌊rate⌋ of them). */
	private readonly departures: number[] = [];

	/** @param maxRate messages per second; 0 means no limit (pauses after a 429 still apply) */
	constructor(
		private readonly maxRate: number,
		private readonly now: () => number = Date.now,
	) {
		this.rate = maxRate;
		this.ceiling = maxRate;
	}

	/** A run starts sending. The first run on an idle pacer starts from the setting again. */
	join(): void {
		if (this.runs === 0) {
			this.rate = this.maxRate;
			this.ceiling = this.maxRate;
			this.acceptedSinceChange = 0;
		}
		this.runs++;
	}

	leave(): void {
		this.runs = Math.max(0, this.runs - 1);
	}

	/** Whether a run is sending with this pacer now. */
	get inUse(): boolean {
		return this.runs > 0;
	}

	/** How long every sender is still paused, until when, and why (ms 0 when it is not). */
	pause(): Pause & { cause: PauseCause } {
		const now = this.now();
		return { ms: Math.max(0, this.pausedUntil - now), until: Math.max(now, this.pausedUntil), cause: this.pauseCause };
	}

	get currentRate(): number {
		return this.rate;
	}

	/** Reserves the next start slot and returns how many ms to wait for it. */
	reserve(): number {
		const now = this.now();
		const start = Math.max(now, this.nextStart, this.pausedUntil);
		if (this.rate > 0) this.nextStart = start + 1000 / this.rate;
		return start - now;
	}

	/**
	 * Called when a reserved slot has come: records the departure and returns 0, or returns how
	 * long to wait first. Slots are planned ahead, so a sender that woke up late could leave closer
	 * than 1/rate after the previous one; this keeps every one-second window of real departures
	 * at ⌊rate⌋ or fewer, which is what a provider's per-second limit counts.
	 */
	tryDepart(): number {
		const now = this.now();
		// A pause that began after this sender reserved its slot holds it too.
		if (now < this.pausedUntil) return this.pausedUntil - now;
		if (this.rate <= 0) return 0;
		const perWindow = Math.max(1, Math.floor(this.rate));
		while (this.departures.length > perWindow) this.departures.shift();
		// A little room: a request is counted here before n8n's HTTP helper has sent it, so arrivals
		// can be closer than departures. A whole gap of room (as before) cost a third of the rate at
		// 2 a second and half at 1; this costs about 1%.
		const window = 1000 + JITTER_ROOM_MS;
		if (this.departures.length === perWindow && now - this.departures[0] < window) {
			return Math.ceil(this.departures[0] + window - now);
		}
		if (this.departures.length === perWindow) this.departures.shift();
		this.departures.push(now);
		return 0;
	}

	/**
	 * A reserved slot will not be used (its run stopped or was cancelled): the schedule moves back
	 * by one gap, never before now, so that the next run on this account does not wait for it.
	 */
	release(): void {
		if (this.rate > 0) this.nextStart = Math.max(this.now(), this.nextStart - 1000 / this.rate);
	}

	/**
	 * The server said "too many": everyone waits `waitMs`, and the pace slows down. Returns when
	 * this pause ends, on the pacer's clock.
	 */
	tooManyRequests(waitMs: number): number {
		// The 429s of requests that left together are one event: the pace slows once for them.
		const alreadyPaused = this.now() < this.pausedUntil;
		const until = this.pauseFor(waitMs, 'tooManyRequests');
		if (this.rate > 0 && !alreadyPaused) this.rate = Math.max(this.ceiling / 10, this.rate * 0.8);
		this.acceptedSinceChange = 0;
		return until;
	}

	/**
	 * The provider's rate-limit headers on any answer. A window with nothing left pauses every
	 * sender until it resets, before anyone meets a 429 (a sender that may not wait that long gives
	 * up: see pause()); an announced limit lower than the setting becomes the ceiling (never a
	 * higher one) for the runs sending now. Returns the new ceiling when this lowered it.
	 */
	rateLimitHeaders(state: RateLimitState): number | undefined {
		let lowered: number | undefined;
		if (state.limit !== undefined && state.limit >= 1 && (this.ceiling === 0 || state.limit < this.ceiling)) {
			this.ceiling = state.limit;
			this.rate = this.rate === 0 ? state.limit : Math.min(this.rate, state.limit);
			lowered = state.limit;
		} else if (state.limit !== undefined && state.limit > this.ceiling && this.ceiling !== this.maxRate) {
			// The provider raised a limit it had lowered: the ceiling follows, never above the setting;
			// accepted messages bring the pace up to it.
			this.ceiling = this.maxRate === 0 ? state.limit : Math.min(state.limit, this.maxRate);
		}
		if (state.remaining === 0) this.pauseFor(state.resetMs ?? 1000, 'windowUsedUp');
		return lowered;
	}

	/** Pauses every sender for `waitMs` (or longer, if already paused); returns when this pause ends. */
	private pauseFor(waitMs: number, cause: PauseCause): number {
		const until = this.now() + Math.min(Math.max(waitMs, 0), LONGEST_PAUSE_MS);
		if (until > this.pausedUntil) {
			this.pausedUntil = until;
			this.pauseCause = cause;
		}
		this.nextStart = Math.max(this.nextStart, this.pausedUntil);
		return until;
	}

	/** One more accepted message; after about a second's worth at the current pace, speed up again. */
	accepted(): void {
		if (this.rate === this.ceiling) return;
		this.acceptedSinceChange++;
		if (this.acceptedSinceChange >= Math.max(5, this.rate)) {
			this.rate = Math.min(this.ceiling, this.rate + this.ceiling * 0.1);
			this.acceptedSinceChange = 0;
		}
	}
}

const IDLE_MS = 60_000;
const shared = new Map<string, { pacer: Pacer; lastUsed: number }>();

/**
 * The pacer for one account and rate, shared by every run of the node in this n8n process: a
 * provider limits the account, not the execution, so two executions sending at once must share
 * the pace. Entries are plain numbers (no timers, no sockets) and are dropped once idle for a minute.
 */
export function sharedPacer(accountKey: string, maxRate: number, now: () => number = Date.now): Pacer {
	const time = now();
	for (const [key, entry] of shared) if (time - entry.lastUsed > IDLE_MS && !entry.pacer.inUse) shared.delete(key);
	const key = `${accountKey}\u0000${maxRate}`;
	const entry = shared.get(key) ?? { pacer: new Pacer(maxRate, now), lastUsed: time };
	entry.lastUsed = time;
	shared.set(key, entry);
	return entry.pacer;
}
