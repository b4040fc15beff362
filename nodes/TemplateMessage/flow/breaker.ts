import { BREAKER_THRESHOLD, COOL_DOWN_GROWTH, FIRST_COOL_DOWN_MS, LAST_COOL_DOWN_MS } from '../shared/flowLimits';
import { duration } from '../shared/duration';
import { steadyNow } from '../shared/steadyClock';

const PROBE_POLL_MS = 100;

/** Which probe a message is: only the probe out now may report on the breaker's behalf. */
export type ProbeToken = number;

export type Gate = { pass: true; probe?: ProbeToken } | { waitMs: number } | { gaveUp: string };

/**
 * After BREAKER_THRESHOLD failures in a row on the API's side, nothing is sent for a cool-down; then
 * one message goes as a probe. Any answer from the API closes the breaker; a failed probe lengthens the
 * cool-down. Once the API has been failing for `giveUpAfterMs` (0: at once), it gives up for good.
 * One instance per run.
 */
export class Breaker {
	private failuresInARow = 0;
	private firstFailureAt: number | undefined;
	/** When the API last answered: a message's failures from before it do not make the API's failing longer. */
	private answeredAt = -Infinity;
	private openUntil: number | undefined;
	private coolDownMs = FIRST_COOL_DOWN_MS;
	private probing: ProbeToken | undefined;
	private lastToken = 0;
	private gaveUp: string | undefined;
	/** Probes that got an answer or a failure while the breaker was open. */
	probes = 0;
	/** Times the breaker closed again after a probe was answered. */
	recoveries = 0;

	constructor(
		private readonly giveUpAfterMs: number,
		private readonly now: () => number = steadyNow,
	) {}

	/** Since when the API has been failing messages, with none answered since; undefined while it answers. */
	get failingSince(): number | undefined {
		return this.firstFailureAt;
	}

	gate(): Gate {
		if (this.gaveUp !== undefined) return { gaveUp: this.gaveUp };
		if (this.openUntil === undefined) return { pass: true };
		const now = this.now();
		if (this.probing !== undefined) return { waitMs: PROBE_POLL_MS };
		if (now < this.openUntil) return { waitMs: this.openUntil - now };
		this.probing = ++this.lastToken;
		return { pass: true, probe: this.probing };
	}

	/** Gives the probe pass back: unused, or answered without news of the API's health (a 429: it is there, and busy; a cancel). */
	releaseProbe(probe?: ProbeToken): void {
		if (probe !== undefined && probe === this.probing) this.probing = undefined;
	}

	/** Accepted, or refused for a reason of the message's own. */
	answered(probe?: ProbeToken): void {
		if (this.openUntil !== undefined && probe !== undefined && probe === this.probing) {
			this.probes++;
			this.recoveries++;
		}
		this.failuresInARow = 0;
		this.firstFailureAt = undefined;
		this.answeredAt = this.now();
		this.openUntil = undefined;
		this.coolDownMs = FIRST_COOL_DOWN_MS;
		this.probing = undefined;
	}

	/**
	 * The API failed a message: since `since`, when it was tried again (each try waiting out the API's
	 * Retry-After), else now. Returns the reason when this failure makes the breaker give up.
	 */
	failed(reason: string, probe?: ProbeToken, since?: number): string | undefined {
		const now = this.now();
		this.failuresInARow++;
		this.firstFailureAt = Math.min(this.firstFailureAt ?? now, Math.max(since ?? now, this.answeredAt));
		if (this.gaveUp !== undefined) return undefined;
		const isProbe = probe !== undefined && probe === this.probing;
		if (isProbe) {
			this.probing = undefined;
			this.probes++;
			this.coolDownMs = Math.min(LAST_COOL_DOWN_MS, this.coolDownMs * COOL_DOWN_GROWTH);
		}
		if (this.openUntil === undefined && this.failuresInARow < BREAKER_THRESHOLD) return undefined;
		const failingFor = now - this.firstFailureAt;
		// Within a poll of the bound counts as reaching it: timers may wake a millisecond early.
		if (failingFor + PROBE_POLL_MS > this.giveUpAfterMs) {
			const over = this.probes > 0 ? ` over ${duration(failingFor)}, ${this.probes} of them after pauses to let it recover` : '';
			this.gaveUp = `${this.failuresInARow} messages in a row failed on the API's side${over}, the last one with: ${reason}`;
			return this.gaveUp;
		}
		// A message already on its way failing while the breaker is open does not extend the pause.
		if (this.openUntil === undefined || isProbe) this.openUntil = now + Math.min(this.coolDownMs, this.firstFailureAt + this.giveUpAfterMs - now);
		return undefined;
	}
}
