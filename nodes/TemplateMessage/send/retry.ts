import type { Outcome } from './outcome';

export interface RetryPolicy {
	/** Attempts in all, the first one included. */
	maxAttempts: number;
	/** First backoff; doubled on each attempt, with full jitter. */
	baseDelayMs: number;
	maxDelayMs: number;
	/** The longest wait a server may ask for (Retry-After) before the item is given up. */
	maxServerWaitMs: number;
	/** Also retry "delivery unknown" outcomes: may message a recipient twice. */
	retryUnknownDelivery: boolean;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
	maxAttempts: 5,
	baseDelayMs: 500,
	maxDelayMs: 30_000,
	maxServerWaitMs: 120_000,
	retryUnknownDelivery: false,
};

export type RetryDecision =
	| { retry: false; outcome: Outcome }
	| { retry: true; delayMs: number; rateLimited: boolean };

/**
 * Whether to try an item again after `outcome`, on attempt number `attempt` (1-based).
 * Only outcomes where the message was certainly not accepted are retried, unless the policy
 * explicitly allows retrying unknown deliveries.
 */
export function decideRetry(outcome: Outcome, attempt: number, policy: RetryPolicy, random = Math.random): RetryDecision {
	if (outcome.kind === 'accepted' || attempt >= policy.maxAttempts) return { retry: false, outcome };
	const retryable = outcome.kind === 'rejected' ? outcome.transient : policy.retryUnknownDelivery;
	if (!retryable) return { retry: false, outcome };

	const serverWait = outcome.kind === 'rejected' ? outcome.retryAfterMs : undefined;
	if (serverWait !== undefined && serverWait > policy.maxServerWaitMs) {
		return {
			retry: false,
			outcome: { ...outcome, reason: `${outcome.reason} (the API asked to wait ${Math.ceil(serverWait / 1000)} s, longer than the node waits)` },
		};
	}
	const rateLimited = outcome.kind === 'rejected' && outcome.statusCode === 429;
	// Without a Retry-After, a 429 still pauses every sender for at least one rate-limit window.
	const delayMs = serverWait ?? (rateLimited ? Math.max(1000, backoffMs(attempt, policy, random)) : backoffMs(attempt, policy, random));
	return { retry: true, delayMs, rateLimited };
}

/** Exponential backoff with full jitter: uniform in [0, min(max, base·2^(attempt-1))]. */
export function backoffMs(attempt: number, policy: RetryPolicy, random = Math.random): number {
	const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
	return Math.round(random() * ceiling);
}
