import type { Outcome, RetryPolicy } from '../shared/contracts';
import { RUN_OPTIONS } from '../shared/contracts';

/** A 429 without a Retry-After pauses every sender for one rate-limit window. */
export const THROTTLE_PAUSE_MS = 1000;

/** However short a wait a 429 asks for, it costs the item at least this much of its budget. */
const MIN_THROTTLE_CHARGE_MS = 250;

export type RetryDecision =
	| { retry: false; outcome: Outcome }
	/**
	 * The API kept asking this item to slow down for longer than the policy waits: not sent. Its
	 * last 429 still asked every sender to wait `pauseMs`.
	 */
	| { retry: false; throttled: string; pauseMs: number }
	| { retry: true; delayMs: number; rateLimited: boolean };

/**
 * Whether to try an item again after `outcome`, on try number `tries` (1-based, 429s not
 * counted), the item having waited `throttledMs` on 429s so far. Only outcomes where the message
 * was certainly not accepted are retried, unless the policy explicitly allows retrying unknown
 * deliveries. A 429 is flow control, not failure: it is retried for as long as the item's
 * throttle budget lasts, however many times.
 */
export function decideRetry(outcome: Outcome, tries: number, policy: RetryPolicy, throttledMs = 0, random = Math.random): RetryDecision {
	if (outcome.kind === 'accepted') return { retry: false, outcome };
	if (outcome.kind === 'rejected' && outcome.statusCode === 429) {
		const askedMs = outcome.retryAfterMs ?? THROTTLE_PAUSE_MS;
		const delayMs = throttleCharge(askedMs);
		if (throttledMs + delayMs > policy.maxThrottleWaitMs) {
			return { retry: false, throttled: throttledReason(outcome.reason, throttledMs, askedMs, policy), pauseMs: delayMs };
		}
		return { retry: true, delayMs, rateLimited: true };
	}
	if (tries >= policy.maxAttempts) return { retry: false, outcome };
	const retryable = outcome.kind === 'rejected' ? outcome.transient : policy.retryUnknownDelivery;
	if (!retryable) return { retry: false, outcome };

	const serverWait = outcome.kind === 'rejected' ? outcome.retryAfterMs : undefined;
	if (serverWait !== undefined && serverWait > policy.maxThrottleWaitMs) {
		return {
			retry: false,
			outcome: { ...outcome, reason: `${outcome.reason} (the API asked to wait ${Math.ceil(serverWait / 1000)} s, longer than the node waits)` },
		};
	}
	return { retry: true, delayMs: serverWait ?? backoffMs(tries, policy, random), rateLimited: false };
}

/** What a 429 costs the item's throttle budget, and the pause it causes: however short a wait it asks for, a little. */
export function throttleCharge(delayMs: number): number {
	return Math.max(delayMs, MIN_THROTTLE_CHARGE_MS);
}

function throttledReason(reason: string, throttledMs: number, askedMs: number, policy: RetryPolicy): string {
	const waited = throttledMs > 0 ? `after waiting ${Math.round(throttledMs / 1000)} s on 429s, ` : '';
	return `the API kept asking to slow down (HTTP 429: ${reason}): ${waited}it asked for ${Math.ceil(askedMs / 1000)} s more, beyond ${RUN_OPTIONS.maxThrottleWait.displayName} (${Math.round(policy.maxThrottleWaitMs / 1000)} s)`;
}

/** Exponential backoff with full jitter: uniform in [0, min(max, base·2^(attempt-1))]. */
export function backoffMs(attempt: number, policy: RetryPolicy, random = Math.random): number {
	const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
	return Math.round(random() * ceiling);
}
