/** A pause every sender waits through, on the pacer's clock (see Pacer.pause). */
export interface Pause {
	ms: number;
	until: number;
}

/**
 * How long the API has kept one item waiting (its own 429s and pauses of every sender) against Max
 * Wait When Throttled. A pause covering time already charged for the item's own 429 costs only the
 * part beyond it; all times are on the pacer's clock, so a pause and its 429 end at the same instant.
 */
export class ThrottleBudget {
	private waited = 0;
	private chargedUntil = 0;

	constructor(private readonly budgetMs: number) {}

	get waitedMs(): number {
		return this.waited;
	}

	/** The item's own 429: its pause ends at `until`. */
	chargeOwn429(delayMs: number, until: number): void {
		this.waited += delayMs;
		this.chargedUntil = Math.max(this.chargedUntil, until);
	}

	/** Charges the part of `pause` not counted yet; false (nothing charged) when that is beyond the budget. */
	chargePause(pause: Pause): boolean {
		const start = pause.until - pause.ms;
		const uncharged = Math.max(0, pause.until - Math.max(start, this.chargedUntil));
		if (this.waited + uncharged > this.budgetMs) return false;
		this.waited += uncharged;
		this.chargedUntil = Math.max(this.chargedUntil, pause.until);
		return true;
	}
}
