import type { SendResult } from '../shared/contracts';
import { duration } from '../shared/duration';

/** A long run says where it is this often, and never more often: n8n shows nothing else until the end. */
export const PROGRESS_EVERY_MS = 10_000;

/**
 * Counts the messages a run has handled and, at most once every PROGRESS_EVERY_MS, says how far it
 * is ("1,200 of 50,000 handled, 1,180 sent, 24.9 a second, about 32 min left"). Only counts: no
 * recipient, value or secret is ever in the line.
 */
export class Progress {
	private handled = 0;
	private sent = 0;
	private readonly startedAt: number;
	private saidAt: number;

	constructor(
		private readonly total: number,
		private readonly say: (line: string) => void,
		private readonly now: () => number,
	) {
		this.startedAt = this.saidAt = now();
	}

	/** One message is done with, whatever became of it. */
	handledOne(result: SendResult | undefined): void {
		this.handled++;
		if (result?.kind === 'sent') this.sent++;
		const now = this.now();
		if (now - this.saidAt < PROGRESS_EVERY_MS || this.handled >= this.total) return;
		this.saidAt = now;
		this.say(progressLine(this.handled, this.total, this.sent, now - this.startedAt));
	}
}

export function progressLine(handled: number, total: number, sent: number, elapsedMs: number): string {
	const perSecond = handled / Math.max(elapsedMs / 1000, 0.001);
	const count = (value: number) => value.toLocaleString('en-US');
	return `Template Message: ${count(handled)} of ${count(total)} handled, ${count(sent)} sent, ${perSecond.toFixed(1)} a second, about ${duration(((total - handled) / perSecond) * 1000)} left`;
}
