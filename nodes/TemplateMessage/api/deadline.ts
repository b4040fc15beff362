import { sleep } from 'n8n-workflow';
import { abortableSleep } from '../shared/abortableSleep';
import { MAX_TIMEOUT_MS } from '../shared/options';

const WAIT_OVER = new Error('The wait is over');

/** Rejects with the abort reason as soon as `signal` aborts: raced here, not only passed down, as 1.77's sleep ignores it. */
export async function wait(ms: number, signal?: AbortSignal): Promise<void> {
	if (!signal) return await sleep(ms);
	if (signal.aborted) throw abortReason(signal);
	// A signal of its own: listeners a sleep adds to the execution's signal and never removes would pile up.
	const sleeping = new AbortController();
	let onAbort!: () => void;
	const aborted = new Promise<never>((_, reject) => {
		onAbort = () => reject(abortReason(signal));
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		await Promise.race([abortableSleep(ms, sleeping.signal), aborted]);
	} finally {
		signal.removeEventListener('abort', onAbort);
		sleeping.abort(WAIT_OVER);
	}
}

function abortReason(signal: AbortSignal): Error {
	return signal.reason instanceof Error ? signal.reason : new Error('The operation was aborted');
}

const ATTEMPT_OVER = new Error('The attempt is over');

/**
 * One attempt's deadline, up to the answer's last byte, joined with the execution's cancel signal:
 * `signal` aborts at whichever comes first. `end()` must be called when the attempt is over.
 */
export class AttemptDeadline {
	private readonly controller = new AbortController();
	readonly signal = this.controller.signal;
	/** Ended by its deadline, not by a cancel. */
	expired = false;
	private readonly timer = new AbortController();
	private readonly onCancel = () => this.controller.abort(this.cancel?.reason);

	constructor(
		readonly timeoutMs: number,
		private readonly cancel?: AbortSignal,
	) {
		if (cancel?.aborted) this.controller.abort(cancel.reason);
		cancel?.addEventListener('abort', this.onCancel, { once: true });
		// The timer's signal is this deadline's own: the sleep is given it directly, without wait()'s
		// race and second controller (about a tenth of the node's throughput with no rate limit).
		abortableSleep(Math.min(Math.max(1, timeoutMs), MAX_TIMEOUT_MS), this.timer.signal).then(
			() => {
				if (this.timer.signal.aborted) return;
				this.expired = true;
				this.controller.abort(new Error(`no complete answer within ${timeoutMs} ms`));
			},
			() => undefined,
		);
	}

	end(): void {
		// With a reason given, abort() does not build a DOMException (and its stack) for every request.
		this.timer.abort(ATTEMPT_OVER);
		this.cancel?.removeEventListener('abort', this.onCancel);
	}
}
