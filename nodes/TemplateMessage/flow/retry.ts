import type { Outcome, RetryPolicy } from '../shared/contracts';
import { duration } from '../shared/duration';

const FIRST_BACKOFF_MS = 500;
const LONGEST_BACKOFF_MS = 30_000;

export type RetryDecision = { retry: false; outcome: Outcome } | { retry: true; delayMs: number };

/**
 * `tries` is 1-based, 429s not counted (they are the flow's, see FlowControl.answered). Only outcomes certainly
 * not accepted are retried, unless the policy allows retrying unknown deliveries.
 */
export function decideRetry(outcome: Outcome, tries: number, policy: RetryPolicy, random = Math.random): RetryDecision {
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
	return { retry: true, delayMs: serverWait ?? backoffMs(tries, random) };
}

/** Exponential backoff with full jitter: uniform in [0, min(longest, first·2^(attempt-1))]. */
export function backoffMs(attempt: number, random = Math.random): number {
	const ceiling = Math.min(LONGEST_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempt - 1));
	return Math.round(random() * ceiling);
}
