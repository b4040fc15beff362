import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { SendOnce } from '../request/messageKey';
import { MAX_TIMEOUT_MS } from './deadline';
import type { RetryPolicy } from './retry';
import { DEFAULT_RETRY_POLICY } from './retry';

/** The 25 requests a second providers in this market document; the pacer keeps its own margin. */
export const DEFAULT_MAX_PER_SECOND = 25;

/** How long a run waits for a failing API to come back before it stops sending. */
export const DEFAULT_MAX_OUTAGE_WAIT_SECONDS = 120;

/** How many Send Once keys a workflow's record keeps (the oldest go first): n8n's Remove Duplicates' default history size. */
export const DEFAULT_MAX_REMEMBERED = 10_000;

/** Options that hold for the whole run, read once from the first item. */
export interface RunOptions {
	sendOnce: SendOnce;
	maxRemembered: number;
	dryRun: boolean;
	includeInputFields: boolean;
	includeRequestPayload: boolean;
	skipDuplicates: boolean;
	maxConcurrency: number;
	maxPerSecond: number;
	timeoutMs: number;
	/** How long the API may keep failing before the run stops sending (0: at once). */
	maxOutageWaitMs: number;
	retry: RetryPolicy;
}

export function readRunOptions(ctx: IExecuteFunctions): RunOptions {
	const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
	const number = (value: unknown, fallback: number, min: number) =>
		typeof value === 'number' && Number.isFinite(value) ? Math.max(min, value) : fallback;
	return {
		sendOnce: ctx.getNodeParameter('sendOnce', 0, 'off') as SendOnce,
		maxRemembered: Math.floor(number(options.maxRemembered, DEFAULT_MAX_REMEMBERED, 1)),
		dryRun: options.dryRun === true,
		includeInputFields: options.includeInputFields === true,
		includeRequestPayload: options.includeRequestPayload === true,
		skipDuplicates: options.skipDuplicates === true,
		maxConcurrency: Math.floor(number(options.maxConcurrency, 10, 1)),
		maxPerSecond: number(options.maxPerSecond, DEFAULT_MAX_PER_SECOND, 0),
		timeoutMs: Math.min(number(options.timeout, 30_000, 1), MAX_TIMEOUT_MS),
		maxOutageWaitMs: number(options.maxOutageWait, DEFAULT_MAX_OUTAGE_WAIT_SECONDS, 0) * 1000,
		retry: {
			...DEFAULT_RETRY_POLICY,
			maxAttempts: Math.floor(number(options.maxAttempts, DEFAULT_RETRY_POLICY.maxAttempts, 1)),
			maxThrottleWaitMs: number(options.maxThrottleWait, DEFAULT_RETRY_POLICY.maxThrottleWaitMs / 1000, 0) * 1000,
			retryUnknownDelivery: options.retryUnknownDelivery === true,
		},
	};
}
