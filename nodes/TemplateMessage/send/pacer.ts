/**
 * Spaces request starts evenly at a rate, shared by all concurrent senders of one account and rate
 * (see sharedPacer): each reserves the next slot, so starts are exactly `rate` per second whatever the
 * concurrency. A 429 pauses every sender and lowers the rate; accepted messages raise it again. A
 * limit the provider announces holds for the runs sending when it is seen; the next run on an idle
 * pacer starts again from its setting.
 */
import { fingerprint } from '../shared/fingerprint';
import { JITTER_ROOM_MS } from '../shared/flowLimits';
import type { RateLimitState } from './outcome';

export type PauseCause = 'tooManyRequests' | 'windowUsedUp';

/** A pause every sender waits through, on the pacer's clock. */
export interface Pause {
	ms: number;
	until: number;
}

/** No pause is planned further ahead than this, whatever a header says. */
const LONGEST_PAUSE_MS = 24 * 3600_000;


export class Pacer {
	private rate: number;
	/** The user's setting, or the provider's lower announced limit. */
	private ceiling: number;
	private nextStart = 0;
	private pausedUntil = 0;
	private pauseCause: PauseCause = 'tooManyRequests';
	private runs = 0;
	private acceptedSinceChange = 0;
	/** When the last few requests really left, oldest first (at most ⌈rate⌉ of them). */
	private readonly departures: number[] = [];

	/** @param maxRate messages per second; 0 means no limit (pauses after a 429 still apply) */
	constructor(
		readonly maxRate: number,
		private readonly now: () => number = Date.now,
	) {
		this.rate = maxRate;
		this.ceiling = maxRate;
	}

	/** The first run on an idle pacer starts from the setting again. */
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

	get inUse(): boolean {
		return this.runs > 0;
	}

	/** ms 0 when not paused. */
	pause(): Pause & { cause: PauseCause } {
		const now = this.now();
		return { ms: Math.max(0, this.pausedUntil - now), until: Math.max(now, this.pausedUntil), cause: this.pauseCause };
	}

	get currentRate(): number {
		return this.rate;
	}

	/** Returns how many ms to wait for the reserved slot. */
	reserve(): number {
		const now = this.now();
		const start = Math.max(now, this.nextStart, this.pausedUntil);
		if (this.rate > 0) this.nextStart = start + 1000 / this.rate;
		return start - now;
	}

	/**
	 * Records the departure and returns 0, or how long to wait first. A sender that woke up late could
	 * leave closer than 1/rate after the previous one; this keeps every one-second window of real
	 * departures at ⌈rate⌉ or fewer (the rate itself when whole), which is what a provider's
	 * per-second limit counts.
	 */
	tryDepart(): number {
		const now = this.now();
		// A pause that began after this sender reserved its slot holds it too.
		if (now < this.pausedUntil) return this.pausedUntil - now;
		if (this.rate <= 0) return 0;
		// A fraction is rounded up here: the even spacing of reserve() keeps 2.5 a second at 5 every 2 s,
		// and a window of ⌊2.5⌋ would hold it at 2. Never above a whole setting or an announced limit.
		const perWindow = Math.max(1, Math.ceil(this.rate));
		while (this.departures.length > perWindow) this.departures.shift();
		// A request is counted here before n8n's HTTP helper sends it, so arrivals can be closer than
		// departures. A whole gap of room cost a third of the rate at 2/s and half at 1/s; this, about 1%.
		const window = 1000 + JITTER_ROOM_MS;
		if (this.departures.length === perWindow) {
			if (now - this.departures[0] < window) return Math.ceil(this.departures[0] + window - now);
			this.departures.shift();
		}
		this.departures.push(now);
		return 0;
	}

	/** A reserved slot will not be used: give it back so the next run on this account does not wait for it. */
	release(): void {
		if (this.rate > 0) this.nextStart = Math.max(this.now(), this.nextStart - 1000 / this.rate);
	}

	/** Everyone waits `waitMs`, and the pace slows down. Returns when this pause ends, on the pacer's clock. */
	tooManyRequests(waitMs: number): number {
		// The 429s of requests that left together are one event: the pace slows once for them.
		const alreadyPaused = this.now() < this.pausedUntil;
		const until = this.pauseFor(waitMs, 'tooManyRequests');
		if (this.rate > 0 && !alreadyPaused) this.rate = Math.max(this.ceiling / 10, this.rate * 0.8);
		this.acceptedSinceChange = 0;
		return until;
	}

	/**
	 * A window with nothing left pauses every sender until it resets, before anyone meets a 429; an
	 * announced limit lower than the setting becomes the ceiling. Returns the new ceiling when lowered.
	 */
	rateLimitHeaders(state: RateLimitState): number | undefined {
		let lowered: number | undefined;
		if (state.limit !== undefined && state.limit >= 1 && (this.ceiling === 0 || state.limit < this.ceiling)) {
			this.ceiling = state.limit;
			this.rate = this.rate === 0 ? state.limit : Math.min(this.rate, state.limit);
			lowered = state.limit;
		} else if (state.limit !== undefined && state.limit > this.ceiling && this.ceiling !== this.maxRate) {
			// A raised limit: the ceiling follows, never above the setting; accepted messages bring the pace up.
			this.ceiling = this.maxRate === 0 ? state.limit : Math.min(state.limit, this.maxRate);
		}
		if (state.remaining === 0) this.pauseFor(state.resetMs ?? 1000, 'windowUsedUp');
		return lowered;
	}

	/** Returns when this pause ends (the pause may already run longer). */
	private pauseFor(waitMs: number, cause: PauseCause): number {
		const until = this.now() + Math.min(Math.max(waitMs, 0), LONGEST_PAUSE_MS);
		if (until > this.pausedUntil) {
			this.pausedUntil = until;
			this.pauseCause = cause;
		}
		this.nextStart = Math.max(this.nextStart, this.pausedUntil);
		return until;
	}

	/** After about a second's worth of accepted messages at the current pace, speed up again. */
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
 * One pacer per account and rate, shared by every run in this n8n process: a provider limits the
 * account, not the execution. Entries hold no timers or sockets and are dropped once idle for a minute.
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

/** The pace of one credential's account: sends and status lookups with the same Base URL and token share it. */
export function accountPacer(credentials: { url: string; token: string }, maxRate: number): Pacer {
	return sharedPacer(`${credentials.url}\u0000${fingerprint(credentials.token)}`, maxRate);
}
