/**
 * What others use of the account (other workers, other systems), as the rate-limit headers show it:
 * they are the counter every sender on the account shares. What the API counted in its window, less
 * what this pace had in it, is others' use; while they use some, this pace takes a whole number of
 * what they leave (a fraction would let one more through in some seconds, and everyone's rounded up
 * overfills the window), and steps up only into room the API showed.
 */

import type { OwnInWindow } from './arrivalRecord';

/**
 * How far each answer moves the estimate of what others use of the account's window down: a rise is
 * taken at once (a peer that started sending), a fall slowly (one that paused between two requests).
 * An answer proves a rise only as far as the fewest others it allows (OwnInWindow.most): a rise taken
 * from the likely count is noise at least as often, and held two workers' shares at 11 and 12 of 25.
 */
const SHARE_SMOOTHING = 0.15;
/** An estimate of others this close above a whole number still leaves that share: the headers count whole requests. */
const SHARE_TOLERANCE = 0.25;
/**
 * While sharing, a step up only when every answer since the last change left this many of the window
 * free: at the limit, the shares add up and Remaining stays near 0, so only room the API shows is taken.
 */
const STEP_UP_HEADROOM = 3;

export class AccountShare {
	/** How many of the account's window others use. */
	private othersPerWindow = 0;
	/** While sharing: the whole number this pace takes of what others leave. */
	private takes = 0;
	/** The least Remaining the headers showed since the pace last changed (Infinity: no headers since). */
	private leastRemaining = Infinity;

	/** Others use a whole request of the window or more: less is the record's and the API's counts differing by one now and then. */
	get sharing(): boolean {
		return this.othersPerWindow >= 1;
	}

	/** While sharing, the most this pace may take a second. */
	get share(): number {
		return this.takes;
	}

	/** An answer's headers: the account's limit and what remains of its window, and how many of the window's requests were this pace's. */
	observe(limit: number, remaining: number, own: OwnInWindow): void {
		const fewest = Math.max(0, limit - remaining - own.most);
		const likely = Math.max(0, limit - remaining - own.likely);
		if (fewest > this.othersPerWindow) this.othersPerWindow = fewest;
		else if (likely < this.othersPerWindow) this.othersPerWindow += SHARE_SMOOTHING * (likely - this.othersPerWindow);
		this.leastRemaining = Math.min(this.leastRemaining, remaining);
		if (this.sharing) this.takes = Math.max(1, Math.floor(limit - this.othersPerWindow + SHARE_TOLERANCE));
	}

	/** A 429 while sharing lowered the pace to `rate`: the share is at most that. */
	lowerTo(rate: number): void {
		this.takes = Math.min(this.takes, rate);
	}

	/** The pace changed: the room for its next step up is what the answers from now on show. */
	restart(): void {
		this.leastRemaining = Infinity;
	}

	get headersSinceRestart(): boolean {
		return this.leastRemaining !== Infinity;
	}

	/**
	 * How many requests a second a step up may add: alone, all the room every answer since the last
	 * change showed (a peer that finished leaves the account to this pace); while sharing, half of it at
	 * most, so that peers seeing the same room do not all take it, and one step when no answer had
	 * headers.
	 */
	step(): number {
		const room = this.leastRemaining;
		if (!this.sharing) return room;
		if (room === Infinity) return 1;
		return room >= STEP_UP_HEADROOM ? Math.max(1, Math.floor((room - 1) / 2)) : 0;
	}
}
