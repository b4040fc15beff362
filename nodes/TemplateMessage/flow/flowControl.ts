import { throttled } from '../shared/apiCodes';
import { RATE_LIMIT_WINDOW_MS } from '../shared/flowLimits';
import type { RejectedOutcome, Refusal, Throttling } from '../shared/contracts';
import { duration, secondsSetting } from '../shared/duration';
import { optionPath, optionName } from '../shared/options';
import type { Notices } from '../shared/notice';
import { notice } from '../shared/notice';
import { wait } from '../api/deadline';
import type { RateLimitState } from '../api/headers';
import type { Departure } from './arrivalRecord';
import type { Pacer, Pause, PauseCause } from './pacer';
import { PauseLog } from './pauseLog';
import { withStatus } from '../shared/words';
import type { FlowAnswer } from './stopEarly';
import { StopEarly, tookIt } from './stopEarly';
import { steadyNow } from '../shared/steadyClock';

/** The system's time, or a simulated one in tests. */
export interface Clock {
	now(): number;
	/** Rejects as soon as `signal` aborts. */
	sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const SYSTEM_CLOCK: Clock = { now: steadyNow, sleep: wait };

export interface FlowSettings {
	maxThrottleWaitMs: number;
	maxOutageWaitMs: number;
	continueOnFail: boolean;
	/** This run's Max Messages (Requests) per Second; the pacer keeps the lowest of the runs sharing it. */
	maxPerSecond?: number;
}

/** Why a message does not leave; 'stop' once the run is stopping. */
export type HeldBack = Refusal | 'stop';

/** A 429 without a Retry-After pauses every sender for one rate-limit window. */
const THROTTLE_PAUSE_MS = RATE_LIMIT_WINDOW_MS;

/** How many lower limits the API announced a run tells as they come; the lowest after them is told at the end (see lowerLimitNotice). */
const LIMIT_NOTICES = 3;

/** Refusals that hold for every template hold for lookups, which have none. */
const ANY_TEMPLATE = '';

/** How far ahead a sender takes its slot; beyond it, it asks again (see Pacer.reserveWithin). */
const SLOT_HORIZON_MS = RATE_LIMIT_WINDOW_MS / 2;

/** However short a wait a 429 asks for, it costs the message at least this much of its budget. */
export const MIN_THROTTLE_CHARGE_MS = 250;

/**
 * One message's passage through the flow. Its throttle budget counts how long the API has kept it
 * waiting (its own 429s and pauses of every sender) against Max Wait When Throttled. A pause covering
 * time already charged for its own 429 costs only the part beyond it; all times are on the pacer's
 * clock, so a pause and its 429 end at the same instant.
 */
export class Passage {
	/** Set while this message is the breaker's probe. */
	probeToken: number | undefined;
	/** Its last attempt's request, as the pacer recorded it leaving. */
	departure: Departure | undefined;
	/** When the API first failed it (a 503, no answer), when it was tried again after that. */
	failingSince: number | undefined;
	waitedMs = 0;
	private chargedUntil = 0;

	constructor(
		readonly itemIndex: number,
		readonly templateCodeId: string,
		private readonly maxThrottleWaitMs: number,
	) {}

	/** The message's own 429: its pause ends at `until`. */
	chargeOwn429(delayMs: number, until: number): void {
		this.waitedMs += delayMs;
		this.chargedUntil = Math.max(this.chargedUntil, until);
	}

	/** Charges the part of `pause` not counted yet; false (nothing charged) when that is beyond the budget. */
	chargePause(pause: Pause): boolean {
		const uncharged = Math.max(0, pause.until - Math.max(pause.until - pause.ms, this.chargedUntil));
		if (this.waitedMs + uncharged > this.maxThrottleWaitMs) return false;
		this.waitedMs += uncharged;
		this.chargedUntil = Math.max(this.chargedUntil, pause.until);
		return true;
	}
}

/**
 * One run's flow: when each message may leave and when none should any more. Senders ask it for a
 * slot before every request and report each answer to it. The pacer it is given must share its clock.
 */
export class FlowControl {
	/** The refusals that stopped further messages (all of them, or one template's). */
	readonly stops: Refusal[] = [];
	/** Without Continue On Fail: the first item whose failure stopped the run. */
	firstFailure: number | undefined;
	private readonly stopEarly: StopEarly;
	private readonly pauses: PauseLog;
	private readonly throttling: Throttling = { answers: 0, atWindowEdge: 0, atSharedWindowEdge: 0, waitedMs: 0 };
	/** Where the paused time counted in throttling.waitedMs ends: overlapping pauses count once. */
	private countedUntil = 0;
	/** The first "too many requests" since the API last answered anything else (undefined: its last answer was another). */
	private throttledSince: number | undefined;
	/** The API answered nothing but 429s for Max Wait When Throttled: what every message still to leave comes out with. */
	private throttledOut: Refusal | undefined;
	/**
	 * A limit announced lower is told once, and a still lower one at most twice more in a run: answers from API
	 * nodes with different limits, or a limit that changes with every answer, would repeat it with each.
	 */
	private readonly limitsTold: number[] = [];
	private lowestLimitUntold: number | undefined;

	constructor(
		private readonly pacer: Pacer,
		private readonly settings: FlowSettings,
		private readonly notices: Notices,
		private readonly clock: Clock = SYSTEM_CLOCK,
		private readonly signal?: AbortSignal,
	) {
		this.stopEarly = new StopEarly(settings.maxOutageWaitMs, () => clock.now());
		this.pauses = new PauseLog(notices, () => clock.now());
	}

	get stopping(): boolean {
		return this.firstFailure !== undefined;
	}

	begin(): void {
		this.pacer.join(this.settings.maxPerSecond);
	}

	/** Nothing was asked for a while (Get Status's pause between rounds): a 429 before it began no unbroken run of them. */
	resumedAfterPause(): void {
		this.throttledSince = undefined;
	}

	/** A refusal that holds for every message still to leave (the account's, the API failing for good, throttled out); undefined while one may go. */
	get halted(): Refusal | undefined {
		return this.throttledOut ?? this.stopEarly.blocking(ANY_TEMPLATE);
	}

	end(): void {
		this.pacer.leave(this.settings.maxPerSecond);
	}

	summarise(): void {
		this.pauses.summarise();
		if (this.lowerSettingShared !== undefined) {
			notice(
				this.notices,
				`Another run with this credential is set to ${this.lowerSettingShared} a second (Max Messages or Max Requests per Second): while they overlapped, this one went at that pace too. Runs on one account share one pace, at the lowest setting among them.`,
			);
		}
		// The lowest limit the API announced once the notices were used up: the pace the run ended at.
		if (this.lowestLimitUntold !== undefined) this.tellLimit(this.lowestLimitUntold);
		const { recoveries, probes } = this.stopEarly.breaker;
		if (recoveries > 0) {
			notice(this.notices, `The API failed ${recoveries > 1 ? `${recoveries} times` : 'once'} during this run: sending paused and resumed once it answered again (${probes} probe message(s)).`);
		}
	}

	/** What the API's limit cost this run, when it answered "too many requests" or paused every sender. */
	get throttled(): Throttling | undefined {
		return this.throttling.answers > 0 || this.throttling.waitedMs > 0 ? { ...this.throttling } : undefined;
	}

	start(itemIndex: number, templateCodeId: string): Passage {
		return new Passage(itemIndex, templateCodeId, this.settings.maxThrottleWaitMs);
	}

	/** Waits until this message may leave; resolves to undefined to send now, or to why not. */
	async slot(passage: Passage): Promise<HeldBack | undefined> {
		// A probe keeps its pass through its own retries; any other sender waits while the API is failing.
		const held = this.heldBack(passage) ?? (passage.probeToken === undefined ? await this.passBreaker(passage) : undefined);
		return held ?? (await this.waitForSlot(passage));
	}

	/**
	 * What one attempt's answer says to every sender. 'again': a 429 or code 9 this message waits out (charged to
	 * its budget). A refusal: the wait is beyond its budget. undefined: the answer is for the sender.
	 */
	answered(passage: Passage, outcome: FlowAnswer, rateLimit?: RateLimitState): 'again' | Refusal | undefined {
		const { departure } = passage;
		if (departure && (tookIt(outcome) || outcome.statusCode !== undefined)) this.pacer.answered(departure, this.clock.now() - departure.at);
		if (rateLimit) {
			const lowered = this.pacer.rateLimitHeaders(rateLimit, departure);
			if (lowered !== undefined) this.lowerLimitNotice(lowered);
		}
		if (tookIt(outcome) || outcome.kind !== 'rejected' || !throttled(outcome)) {
			this.throttledSince = undefined;
			return undefined;
		}
		this.throttledSince ??= this.clock.now();
		this.throttling.answers++;
		const askedMs = outcome.retryAfterMs ?? THROTTLE_PAUSE_MS;
		const chargeMs = Math.max(askedMs, MIN_THROTTLE_CHARGE_MS);
		const { waitedMs } = passage;
		if (waitedMs + chargeMs > this.settings.maxThrottleWaitMs) {
			// Every sender waits as the API asked: one that may not wait that long gives up before its
			// request leaves (see waitForSlot), so a wait the run cannot afford stops the requests.
			this.pacer.tooManyRequests(chargeMs);
			const waited = waitedMs > 0 ? `after waiting ${duration(waitedMs)} on 429s, ` : '';
			const reason = `the API kept asking to slow down (HTTP ${outcome.statusCode}: ${outcome.reason}): ${waited}it asked for ${duration(askedMs)} more, beyond ${optionName('maxThrottleWait')} (${secondsSetting(this.settings.maxThrottleWaitMs)})`;
			this.stopIfThrottledOut(passage, outcome);
			return { scope: 'throttled', itemIndex: passage.itemIndex, templateCodeId: passage.templateCodeId, reason, statusCode: outcome.statusCode, apiCode: outcome.apiCode };
		}
		// However little each message has waited (a share of 1 a second spreads the 429s thin), nothing but 429s for this long stops the run.
		const out = this.stopIfThrottledOut(passage, outcome);
		if (out) return out;
		// A wait of one window or less is the window itself: at its edge, only this request waits for it.
		const { kind, until, atReset } = this.pacer.tooManyRequests(chargeMs, departure, askedMs > RATE_LIMIT_WINDOW_MS, rateLimit);
		if (kind !== 'overLimit') this.throttling[kind]++;
		// Tried again at the slot the API's Reset named, the message waits that long, not what a Retry-After of a second asked.
		const chargedMs = atReset ? Math.max(until - this.clock.now(), MIN_THROTTLE_CHARGE_MS) : chargeMs;
		passage.chargeOwn429(chargedMs, Math.max(until, this.clock.now() + chargedMs));
		return 'again';
	}

	/** How long the API has been failing: this message (0 before it was tried again), or every message, whichever is longer. */
	failingFor(passage: Passage): number {
		const now = this.clock.now();
		return now - Math.min(passage.failingSince ?? now, this.stopEarly.breaker.failingSince ?? now);
	}

	/** Waits before trying a failed message again; a wait the API asked for that long is told, as a pause is. */
	async backoff(passage: Passage, { delayMs: ms, asked }: { delayMs: number; asked: boolean }): Promise<void> {
		passage.failingSince ??= this.clock.now();
		if (asked) this.pauses.pausing(ms, 'serverUnavailable');
		await this.clock.sleep(ms, this.signal);
	}

	/** The message's last answer in this run. */
	finalOutcome(passage: Passage, outcome: FlowAnswer): void {
		if (tookIt(outcome)) this.pacer.accepted();
		const stop = this.stopEarly.record(passage.itemIndex, passage.templateCodeId, outcome, passage.probeToken, passage.failingSince);
		if (stop) this.stops.push(stop);
	}

	failed(itemIndex: number): void {
		if (!this.settings.continueOnFail && (this.firstFailure === undefined || itemIndex < this.firstFailure)) this.firstFailure = itemIndex;
	}

	/**
	 * However the message ended, its probe pass goes back. One it reported on is already back, or the breaker
	 * has given up and reads no pass again; tokens are never reused, so a later probe's pass stays.
	 */
	finish(passage: Passage): void {
		if (passage.probeToken !== undefined) this.stopEarly.breaker.releaseProbe(passage.probeToken);
	}

	private heldBack(passage: Passage): HeldBack | undefined {
		return this.stopping ? 'stop' : (this.throttledOut ?? this.stopEarly.blocking(passage.templateCodeId));
	}

	/**
	 * When the API has answered nothing but 429s for Max Wait When Throttled (from the first of them, after
	 * any other answer), every further message would wait as long in vain: each budget counts from its own
	 * first request, so 1,000 rows would ask for hours. The run stops asking, and those not sent say why.
	 * Returns that stop (undefined while there is none), naming the message at hand and the API's last 429.
	 */
	private stopIfThrottledOut({ itemIndex, templateCodeId }: Passage, last?: RejectedOutcome): Refusal | undefined {
		if (this.throttledOut || this.throttledSince === undefined) return this.throttledOut;
		const throttledForMs = this.clock.now() - this.throttledSince;
		if (throttledForMs < this.settings.maxThrottleWaitMs) return undefined;
		const said = last ? ` (${withStatus(last)})` : ' and empty rate-limit windows';
		const reason = `the API answered nothing but "too many requests"${said} for ${duration(throttledForMs)}, beyond ${optionName('maxThrottleWait')} (${secondsSetting(this.settings.maxThrottleWaitMs)}): the run stopped asking`;
		this.throttledOut = { scope: 'throttled', itemIndex, templateCodeId, reason, ...(last ? { statusCode: last.statusCode, apiCode: last.apiCode } : {}) };
		this.stops.push(this.throttledOut);
		return this.throttledOut;
	}

	private async passBreaker(passage: Passage): Promise<HeldBack | undefined> {
		for (;;) {
			const gate = this.stopEarly.breaker.gate();
			if ('pass' in gate) {
				passage.probeToken = gate.probe;
				return undefined;
			}
			const held = this.heldBack(passage);
			if (held) return held;
			// StopEarly holds the give-up back as the run's refusal; this is its stand-in.
			if ('gaveUp' in gate) return { scope: 'server', itemIndex: passage.itemIndex, templateCodeId: passage.templateCodeId, reason: gate.gaveUp };
			await this.clock.sleep(gate.waitMs, this.signal);
		}
	}

	private async waitForSlot(passage: Passage): Promise<HeldBack | undefined> {
		const { pacer } = this;
		let reserved = false;
		let sending = false;
		const heldOrTooLong = () => {
			const held = this.heldBack(passage);
			if (held) return held;
			const pause = pacer.pause();
			if (pause.ms === 0) return undefined;
			if (!passage.chargePause(pause)) {
				this.stopIfThrottledOut(passage);
				return throttledByPause(pause.ms, pause.cause, this.settings.maxThrottleWaitMs, passage);
			}
			this.pauses.pausing(pause.ms, pause.cause);
			this.countPause(pause);
			return undefined;
		};
		try {
			const first = heldOrTooLong();
			if (first) return first;
			// Even a 0 ms wait goes through a timer on purpose: without that yield, unthrottled runs were
			// measured about 20% slower (n8n's helper opens a new connection per request; docs/benchmarks.md).
			let slotIn = pacer.reserveWithin(SLOT_HORIZON_MS);
			while (slotIn === undefined) {
				await this.clock.sleep(SLOT_HORIZON_MS, this.signal);
				const held = heldOrTooLong();
				if (held) return held;
				slotIn = pacer.reserveWithin(SLOT_HORIZON_MS);
			}
			reserved = true;
			await this.clock.sleep(slotIn, this.signal);
			let attempt = pacer.tryDepart();
			while ('waitMs' in attempt) {
				const held = heldOrTooLong();
				if (held) return held;
				await this.clock.sleep(attempt.waitMs, this.signal);
				attempt = pacer.tryDepart();
			}
			passage.departure = attempt.left;
			this.noteSharedSetting(pacer.maxRate);
			const held = this.heldBack(passage);
			sending = held === undefined;
			return held;
		} finally {
			if (reserved && !sending) pacer.release();
		}
	}

	/** The account's pace kept a setting lower than this run's (another run's): the lowest, for the summary. */
	private lowerSettingShared: number | undefined;

	private noteSharedSetting(shared: number): void {
		const own = this.settings.maxPerSecond;
		if (own === undefined || shared <= 0 || (own > 0 && shared >= own)) return;
		this.lowerSettingShared = Math.min(shared, this.lowerSettingShared ?? shared);
	}

	/** A pause a sender waits through: the part of it not counted yet. */
	private countPause({ ms, until }: Pause): void {
		this.throttling.waitedMs += Math.max(0, until - Math.max(until - ms, this.countedUntil));
		this.countedUntil = Math.max(this.countedUntil, until);
	}

	private lowerLimitNotice(limit: number): void {
		if (this.limitsTold.some((told) => told <= limit)) return;
		if (this.limitsTold.length >= LIMIT_NOTICES) {
			this.lowestLimitUntold = Math.min(limit, this.lowestLimitUntold ?? limit);
			return;
		}
		this.limitsTold.push(limit);
		this.tellLimit(limit);
	}

	private tellLimit(limit: number): void {
		const setting = this.settings.maxPerSecond ?? this.pacer.maxRate;
		notice(
			this.notices,
			`The API announced a limit of ${limit} messages per second (X-RateLimit-Limit), ${setting > 0 ? `lower than the ${setting} set in ${optionPath('maxPerSecond')}` : 'and no limit was set'}: messages are sent at ${limit} per second.`,
		);
	}
}

export function throttledByPause(pauseMs: number, cause: PauseCause, budgetMs: number, item: { itemIndex: number; templateCodeId: string }): Refusal {
	const why = cause === 'windowUsedUp' ? "the API's rate-limit window (X-RateLimit-Remaining: 0) resets" : 'the API asked every sender to wait (429)';
	return {
		scope: 'throttled',
		itemIndex: item.itemIndex,
		templateCodeId: item.templateCodeId,
		reason: `${why} in ${duration(pauseMs)}, beyond ${optionName('maxThrottleWait')} (${secondsSetting(budgetMs)})`,
	};
}
