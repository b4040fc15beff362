import { duration } from '../shared/duration';
import type { Notices } from '../shared/notice';
import { optionPath } from '../shared/options';
import type { PauseCause } from './pacer';

/** What a long wait is for: a pause of every sender (see Pacer), or a message tried again when the API, down, said when. */
export type WaitCause = PauseCause | 'serverUnavailable';

/** Waits this long or longer are told: the run would otherwise seem to hang. */
const LONG_WAIT_MS = 5000;

/** One log line when a long pause begins (overlapping pauses are the same one), one hint at the end. */
export class PauseLog {
	private count = 0;
	private longestMs = 0;
	private lastCause: WaitCause = 'tooManyRequests';
	private toldUntil = 0;

	constructor(
		private readonly notices: Notices,
		private readonly now: () => number,
	) {}

	pausing(waitMs: number, cause: WaitCause): void {
		if (waitMs < LONG_WAIT_MS) return;
		const now = this.now();
		if (now < this.toldUntil) return;
		this.toldUntil = now + waitMs;
		this.count++;
		this.longestMs = Math.max(this.longestMs, waitMs);
		this.lastCause = cause;
		this.notices.log(`Template Message is waiting ${duration(waitMs)}: ${PAUSE_TEXT[cause]}`);
	}

	summarise(): void {
		if (this.count === 0) return;
		this.notices.hint(
			`The API made this run wait ${this.count} time(s) for ${duration(LONG_WAIT_MS)} or more (the longest ${duration(this.longestMs)}): ${PAUSE_TEXT[this.lastCause]}. ${optionPath(this.lastCause === 'serverUnavailable' ? 'maxOutageWait' : 'maxThrottleWait')} bounds how long one message waits.`,
		);
	}
}

const PAUSE_TEXT: Record<WaitCause, string> = {
	serverUnavailable: 'the API answered that it is unavailable (503) and asked to try again later (Retry-After)',
	tooManyRequests: 'the API answered 429 (too many requests) and asked to wait',
	windowUsedUp: "the API's rate-limit window has nothing left (X-RateLimit-Remaining: 0) until X-RateLimit-Reset",
};
