import type { Outcome, RetryPolicy } from '../shared/contracts';
import { duration } from '../shared/duration';
import { optionName } from '../shared/options';

const FIRST_BACKOFF_MS = 500;
const LONGEST_BACKOFF_MS = 30_000;

/** `asked`: the wait is the server's Retry-After (an API down for a while says how long), not the node's own backoff. */
export type RetryDecision = { retry: false; outcome: Outcome } | { retry: true; delayMs: number; asked: boolean };

/**
 * `tries` is 1-based, 429s not counted (they are the flow's, see FlowControl.answered). Only outcomes certainly
 * not accepted are retried, unless the policy allows retrying unknown deliveries. `failingForMs`: how long the
 * API has been failing this message (see FlowControl.failingFor); with the wait a Retry-After asks, no longer
 * than Max Wait for the API to Recover: a 503 asking 100 s five times would keep each message 400 s.
 */
export function decideRetry(outcome: Outcome, tries: number, policy: RetryPolicy, random = Math.random, failingForMs = 0): RetryDecision {
	if (outcome.kind === 'accepted' || tries >= policy.maxAttempts) return { retry: false, outcome };
	const retryable = outcome.kind === 'rejected' ? outcome.transient : policy.retryUnknownDelivery;
	if (!retryable) return { retry: false, outcome };

	const serverWait = outcome.kind === 'rejected' ? outcome.retryAfterMs : undefined;
	if (serverWait !== undefined && serverWait > policy.maxThrottleWait) {
		return {
			retry: false,
			outcome: { ...outcome, reason: `${outcome.reason} (the API asked to wait ${duration(serverWait)}, longer than the node waits)` },
		};
	}
	if (serverWait !== undefined && failingForMs + serverWait > policy.maxOutageWait) {
		const failing = failingForMs > 0 ? `, after failing for ${duration(failingForMs)}` : '';
		return { retry: false, outcome: { ...outcome, reason: `${outcome.reason} (the API asked to wait ${duration(serverWait)}${failing}, beyond ${optionName('maxOutageWait')})` } };
	}
	return { retry: true, delayMs: serverWait ?? backoffMs(tries, random), asked: serverWait !== undefined };
}

/** Exponential backoff with full jitter: uniform in [0, min(longest, first·2^(attempt-1))]. */
export function backoffMs(attempt: number, random = Math.random): number {
	const ceiling = Math.min(LONGEST_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempt - 1));
	return Math.round(random() * ceiling);
}
