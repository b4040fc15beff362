/**
 * Spaces request starts evenly at a rate, shared by all concurrent senders of one account, at the
 * lowest of their settings (see sharedPacer): each reserves the next slot, so starts are exactly `rate` per second whatever the
 * concurrency. The provider counts arrivals, so the pacer keeps a record of when each request may have
 * arrived (learned from how long its answer took) and lets no more than the limit arrive within any
 * one second. A 429 when this pace's arrivals filled what it lets into the window (while others share
 * the account, as their use in the rate-limit headers shows, its share) holds only that request until
 * a slot frees; at a share of 1, with none of its own in the window, until the slot the API's Reset
 * says frees next. One it cannot explain by its own timing pauses every sender and lowers the rate, but
 * while others share the account it takes one request off this pace's share; accepted messages raise
 * it again. A limit the provider announces holds for the runs sending when it is seen, whatever settings
 * join or leave; the next run on an idle pacer starts again from its setting.
 */
import { bareToken } from '../shared/credentialValues';
import { fingerprint } from '../shared/fingerprint';
import { RATE_LIMIT_WINDOW_MS } from '../shared/flowLimits';
import type { Departure } from './arrivalRecord';
import { AccountShare } from './accountShare';
import { ArrivalRecord } from './arrivalRecord';
import type { RateLimitState } from '../api/headers';
import type { WindowEdge } from '../shared/contracts';
import { steadyNow } from '../shared/steadyClock';

export type PauseCause = 'tooManyRequests' | 'windowUsedUp';

/** A pause every sender waits through, on the pacer's clock. */
export interface Pause {
	ms: number;
	until: number;
}

/** What tryDepart says: the request left (the record's entry for it), or how long to wait first. */
export type DepartureTry = { left: Departure } | { waitMs: number };

/** What a 429 was: the pacer's own timing at the edge of a window (see WindowEdge), or more than this pace can explain. */
export type TooManyKind = WindowEdge | 'overLimit';

/** What tooManyRequests decided: the kind, when the request may go again, and whether that is the slot the API's Reset named (the request waits exactly that long). */
export interface TooMany {
	kind: TooManyKind;
	until: number;
	atReset?: true;
}

/** No pause is planned further ahead than this, whatever a header says. */
const LONGEST_PAUSE_MS = 24 * 3600_000;

export class Pacer {
	private rate: number;
	/** The user's setting, or the provider's lower announced limit. */
	private ceiling: number;
	/** The last limit the API announced (X-RateLimit-Limit) since the pacer was idle. */
	private announced: number | undefined;
	private nextStart = 0;
	private pausedUntil = 0;
	private pauseCause: PauseCause = 'tooManyRequests';
	private runs = 0;
	private acceptedSinceChange = 0;
	private readonly record = new ArrivalRecord();
	private readonly others = new AccountShare();
	/** A 429 while sharing takes one request off the share, once a window. */
	private stepDownUntil = 0;
	/** A refused share of 1 tries again at the API's Reset at most once a window (refused again within it, it waits its second): never a loop. */
	private resetTriedUntil = 0;

	/** How many joined runs have each setting (see maxRate). */
	private readonly settings = new Map<number, number>();
	/** maxRate, kept as runs join and leave: every departure reads it. */
	private lowestSetting: number;

	/** @param baseRate messages per second, for runs that join without a setting of their own; 0 means no limit (pauses after a 429 still apply) */
	constructor(
		private readonly baseRate: number,
		private readonly now: () => number = steadyNow,
	) {
		this.rate = baseRate;
		this.ceiling = baseRate;
		this.lowestSetting = baseRate;
	}

	/**
	 * The setting the pace keeps: the lowest of the runs using it (each is the user's word for the
	 * provider's limit; 0, no limit, is no word), so that runs with other settings on one account still
	 * share one budget.
	 */
	get maxRate(): number {
		return this.lowestSetting;
	}

	private countRun(setting: number, by: 1 | -1): void {
		const runs = (this.settings.get(setting) ?? 0) + by;
		if (runs <= 0) this.settings.delete(setting);
		else this.settings.set(setting, runs);
		this.runs += by;
		const limits = [...this.settings.keys()].filter((rate) => rate > 0);
		this.lowestSetting = this.settings.size === 0 ? this.baseRate : limits.length === 0 ? 0 : Math.min(...limits);
	}

	/** The first run on an idle pacer starts from its setting again; a run with a lower one lowers the pace. */
	join(setting = this.baseRate): void {
		const before = this.runs === 0 ? undefined : this.maxRate;
		this.countRun(setting, 1);
		if (before !== undefined) {
			this.settingChanged(before);
			return;
		}
		this.rate = this.maxRate;
		this.ceiling = this.maxRate;
		this.announced = undefined;
		this.changed();
	}

	leave(setting = this.baseRate): void {
		if (this.runs === 0) return;
		const before = this.maxRate;
		this.countRun(setting, -1);
		if (this.runs > 0) this.settingChanged(before);
	}

	/**
	 * The ceiling follows the setting, but for a lower limit the API announced. A lower one holds at once; a
	 * higher one is reached as accepted messages bring the pace up, and no limit left at all (the runs left
	 * are at 0) at once.
	 */
	private settingChanged(before: number): void {
		const after = this.maxRate;
		if (after === before) return;
		this.ceiling = after === 0 ? (this.announced ?? 0) : Math.min(after, this.announced ?? after);
		if (this.ceiling === 0) this.rate = 0;
		else if (this.rate === 0 || this.rate > this.ceiling) this.rate = this.ceiling;
		else return;
		this.changed();
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
	 * A slot no further ahead than `horizonMs` (the ms to wait for it), or none (undefined: ask again
	 * later). Slots taken far ahead at a low pace would keep their spacing after the pace rose (a worker
	 * that started last among others on the account starts at a share of 1 a second). A pause is waited
	 * out whole: its end is the API's.
	 */
	reserveWithin(horizonMs: number): number | undefined {
		const now = this.now();
		if (this.rate > 0 && this.nextStart - now > horizonMs && this.nextStart > this.pausedUntil) return undefined;
		return this.reserve();
	}

	/**
	 * Records the departure and returns it, or how long to wait first. A sender that
	 * woke up late, or a request that reached the API late, could bring arrivals closer than 1/rate;
	 * this keeps every one-second window of arrivals, as the record knows them, at ⌈rate⌉ or fewer (the
	 * rate itself when whole), which is what a provider's per-second limit counts.
	 */
	tryDepart(): DepartureTry {
		const now = this.now();
		// A pause that began after this sender reserved its slot holds it too. Held a window or more by a 429's
		// pause, a sender takes a new slot, spaced as any: all would leave the moment the pause ends. (Shorter
		// ones, and a window's pause, Remaining 0, which ends as one slot frees, the record spaces.)
		const pausedMs = this.pausedUntil - now;
		if (pausedMs > 0) return { waitMs: this.rate > 0 && this.pauseCause === 'tooManyRequests' && pausedMs >= RATE_LIMIT_WINDOW_MS ? this.reserve() : pausedMs };
		if (this.rate > 0) {
			const freesAt = this.record.slotFreesAt(now, this.perWindow);
			if (freesAt > now) return { waitMs: Math.ceil(freesAt - now) };
		}
		return { left: this.record.depart(now) };
	}

	/** A request's answer came `roundTripMs` after it left: the record learns how late it may have arrived. */
	answered(departure: Departure, roundTripMs: number): void {
		this.record.answered(departure, roundTripMs);
	}

	/** A reserved slot will not be used: give it back so the next run on this account does not wait for it. */
	release(): void {
		if (this.rate > 0) this.nextStart = Math.max(this.now(), this.nextStart - 1000 / this.rate);
	}

	/**
	 * A 429 (or code 9) for `departure`. When this pace's arrivals, as the record knows them, filled what
	 * its pace lets into the window (while sharing, its share of what others leave), the 429 came from
	 * timing at the window's edge: the record learns more room and only that request waits (tryDepart
	 * holds it until a slot frees). While sharing below its share, the shares added up to one too many:
	 * this pace takes one less. Otherwise everyone waits `waitMs` and the pace slows down. Returns the
	 * kind, and when the wait ends on the pacer's clock.
	 *
	 * At its share, a 429 is counted at the window's edge rather than taking one off the share: on the
	 * simulated clock, eight workers started together met 429s on 3.1% of requests that way and on 1.9%
	 * this way, the share kept. `state` is this answer's rate-limit headers (see slotAtReset).
	 */
	tooManyRequests(waitMs: number, departure?: Departure, askedByServer = false, state?: RateLimitState): TooMany {
		const limit = Math.ceil(this.rate);
		if (departure) departure.refused = true;
		const slotAt = departure && !askedByServer ? this.slotAtReset(departure, state) : undefined;
		if (departure && slotAt !== undefined) {
			this.record.drop(departure);
			this.resetTriedUntil = this.now() + RATE_LIMIT_WINDOW_MS;
			this.nextStart = Math.max(this.now(), Math.min(this.nextStart, slotAt));
			return { kind: 'atSharedWindowEdge', until: slotAt, atReset: true };
		}
		if (departure && !askedByServer && this.rate > 0 && this.record.arrivalsBefore(departure) >= limit - 1) {
			this.record.widenRoom();
			return { kind: this.sharing ? 'atSharedWindowEdge' : 'atWindowEdge', until: Math.max(this.now(), this.record.slotFreesAt(this.now(), this.perWindow)) };
		}
		if (this.sharing && this.rate > 0 && !askedByServer) {
			// Sharing the account, a 429 says the shares add up to one too many: this pace takes one less,
			// and no one pauses (the others' headers show them the same window).
			if (this.now() >= this.stepDownUntil) {
				this.rate = Math.max(1, Math.floor(this.rate) - 1);
				this.others.lowerTo(this.rate);
				this.stepDownUntil = this.now() + RATE_LIMIT_WINDOW_MS;
			}
			this.changed();
			return { kind: 'overLimit', until: Math.max(this.now(), this.record.slotFreesAt(this.now(), this.perWindow)) };
		}
		// The 429s of requests that left together are one event: the pace slows once for them.
		const alreadyPaused = this.now() < this.pausedUntil;
		const until = this.pauseFor(waitMs, 'tooManyRequests');
		if (this.rate > 0 && !alreadyPaused) this.rate = Math.max(this.ceiling / 10, this.rate * 0.8);
		this.changed();
		return { kind: 'overLimit', until };
	}

	/**
	 * An announced limit lower than the setting becomes the ceiling (returned when lowered). Remaining
	 * 0 says the next request may be refused: when this pace's own arrivals fill the window, tryDepart
	 * already holds the next one until a slot frees; when they do not, others are sending and every
	 * sender waits for the window to free (see windowFreesIn).
	 */
	rateLimitHeaders(state: RateLimitState, departure?: Departure): number | undefined {
		let lowered: number | undefined;
		if (state.limit !== undefined && state.limit >= 1) this.announced = state.limit;
		if (state.limit !== undefined && state.limit >= 1 && (this.ceiling === 0 || state.limit < this.ceiling)) {
			this.ceiling = state.limit;
			this.rate = this.rate === 0 ? state.limit : Math.min(this.rate, state.limit);
			lowered = state.limit;
		} else if (state.limit !== undefined && state.limit > this.ceiling && this.ceiling !== this.maxRate) {
			// A raised limit: the ceiling follows, never above the setting; accepted messages bring the pace up.
			this.ceiling = this.maxRate === 0 ? state.limit : Math.min(state.limit, this.maxRate);
		}
		if (departure && state.limit !== undefined && state.remaining !== undefined && this.ceiling > 0) {
			this.others.observe(state.limit, state.remaining, this.record.countedInWindowOf(departure));
			if (this.sharing) this.rate = Math.min(this.rate, this.others.share);
		}
		if (state.remaining === 0) {
			const limit = state.limit ?? Math.ceil(this.rate);
			const ours = departure !== undefined && this.rate > 0 && this.record.arrivalsBefore(departure) >= limit - 1;
			if (!ours) this.pauseFor(this.windowFreesIn(state, limit), 'windowUsedUp');
		}
		return lowered;
	}

	/**
	 * How long until the account's window takes a request again. A Reset says so, but for none, or
	 * X-RateLimit-Reset's delay of a whole window or more (its unit guessed: whole seconds say little of
	 * a one-second window): while sharing with others, whose requests leave the window one by one, wait
	 * for one slot and let the next answer tell, rather than stop every sender for a second.
	 */
	private windowFreesIn({ resetMs, resetUnitGuessed }: RateLimitState, limit: number): number {
		const doubtful = resetMs === undefined || (resetUnitGuessed === true && resetMs >= RATE_LIMIT_WINDOW_MS);
		if (!doubtful) return resetMs;
		return this.sharing && limit > 0 ? Math.min(resetMs ?? RATE_LIMIT_WINDOW_MS, RATE_LIMIT_WINDOW_MS / limit) : (resetMs ?? RATE_LIMIT_WINDOW_MS);
	}

	private get sharing(): boolean {
		return this.others.sharing;
	}

	/**
	 * When a request refused at a share of 1 tries again, if not a second later: with none of this
	 * pace's in the API's window, the others' paces take each slot as it frees, a second after their
	 * last, and a second later is the same full moment, every second (on the simulated clock, a worker
	 * that joined a full account waited up to 26 s for its first message). The slot the API's Reset
	 * says frees next is the one to take, when this answer's Reset falls within the window (a whole
	 * second, 0 or none says nothing of it) and this pace has not tried so in the last window.
	 * Counting that window from the retry's slot instead (its 429 may come back after it) left a
	 * worker without a message for 5.9 s on the simulated clock, and met more 429s.
	 */
	private slotAtReset(departure: Departure, state: RateLimitState | undefined): number | undefined {
		const resetMs = state?.resetMs;
		if (!this.sharing || this.rate <= 0 || this.perWindow !== 1 || resetMs === undefined) return undefined;
		if (resetMs <= 0 || resetMs >= RATE_LIMIT_WINDOW_MS || this.now() < this.resetTriedUntil) return undefined;
		return this.record.countedInWindowOf(departure).most === 0 ? this.now() + resetMs : undefined;
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

	/**
	 * Speeds up again after accepted messages: without rate-limit headers, by a tenth of the setting
	 * after about a second's worth; with them, after half a second's worth, into the room they showed
	 * (AccountShare.step), in whole steps (a fraction would let one more through in some seconds).
	 * Alone, half a second's worth is at least 3; while sharing, one answer may be enough: a worker that
	 * joined a full account runs at a share of 1 a second, and waiting for 3 would hold it there 3 s
	 * after its peers finished.
	 */
	accepted(): void {
		const top = this.sharing ? Math.min(this.ceiling, this.others.share) : this.ceiling;
		if (this.rate >= top) return;
		this.acceptedSinceChange++;
		if (!this.sharing && !this.others.headersSinceRestart) {
			if (this.acceptedSinceChange >= Math.max(5, this.rate)) {
				this.rate = Math.min(top, this.rate + this.ceiling * 0.1);
				this.changed();
			}
			return;
		}
		if (this.acceptedSinceChange < Math.max(this.sharing ? 1 : 3, this.rate / 2)) return;
		this.rate = Math.min(top, Math.max(this.rate, Math.floor(this.rate) + this.others.step()));
		this.changed();
	}

	private changed(): void {
		this.acceptedSinceChange = 0;
		this.others.restart();
	}

	/**
	 * How many of the record's arrivals one second may hold. A fraction is rounded up (the even spacing
	 * of reserve() keeps 2.5 a second at 5 every 2 s, and a window of ⌊2.5⌋ would hold it at 2), never
	 * above a whole setting or an announced limit; while sharing, down (everyone's rounded up overfills).
	 */
	private get perWindow(): number {
		return Math.max(1, this.sharing ? Math.floor(this.rate) : Math.ceil(this.rate));
	}
}

const IDLE_MS = 60_000;
const shared = new Map<string, { pacer: Pacer; lastUsed: number }>();

/**
 * One pacer per account, shared by every run in this n8n process, whatever its setting: a provider limits
 * the account, not the execution (see Pacer.maxRate). Entries hold no timers or sockets and are dropped
 * once idle for a minute.
 */
export function sharedPacer(accountKey: string, maxRate: number, now: () => number = steadyNow): Pacer {
	const time = now();
	for (const [key, entry] of shared) if (time - entry.lastUsed > IDLE_MS && !entry.pacer.inUse) shared.delete(key);
	const entry = shared.get(accountKey) ?? { pacer: new Pacer(maxRate, now), lastUsed: time };
	entry.lastUsed = time;
	shared.set(accountKey, entry);
	return entry.pacer;
}

/**
 * The pace of one credential's account: sends and status lookups with the same Base URL and token share
 * it, also from two credentials that reach the account as one (a token pasted with a space after it or
 * "Bearer " in front; an address written in capitals or with its default port).
 */
export function accountPacer(credentials: { url: string; token: string }, maxRate: number): Pacer {
	return sharedPacer(`${accountAddress(credentials.url)}\u0000${fingerprint(bareToken(credentials.token))}`, maxRate);
}

/** The address as the request goes to it: scheme and host in lower case, a default port left out. */
function accountAddress(url: string): string {
	try {
		return new URL(url).href;
	} catch {
		return url;
	}
}
