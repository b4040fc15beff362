import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { RunOptions, SendOnce } from '../shared/contracts';
import { DEFAULT_RETRY_POLICY, MAX_TIMEOUT_MS, RUN_OPTIONS } from '../shared/contracts';

export function readRunOptions(ctx: IExecuteFunctions): RunOptions {
	const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
	const number = (value: unknown, fallback: number, min: number) =>
		typeof value === 'number' && Number.isFinite(value) ? Math.max(min, value) : fallback;
	const flag = (name: keyof typeof RUN_OPTIONS) => options[name] === true;
	const dryRun = flag('dryRun');
	return {
		sendOnce: ctx.getNodeParameter('sendOnce', 0, 'off') as SendOnce,
		maxRemembered: Math.floor(number(options.maxRemembered, RUN_OPTIONS.maxRemembered.default, 1)),
		sendInDoubt: flag('sendInDoubt'),
		dryRun,
		includeInputFields: flag('includeInputFields'),
		// Version 1 (saved with 0.1.0) put the request on every row of a dry run.
		includeRequestPayload: flag('includeRequestPayload') || (dryRun && ctx.getNode().typeVersion < 2),
		skipDuplicates: flag('skipDuplicates'),
		maxConcurrency: Math.floor(number(options.maxConcurrency, RUN_OPTIONS.maxConcurrency.default, 1)),
		maxPerSecond: number(options.maxPerSecond, RUN_OPTIONS.maxPerSecond.default, 0),
		timeoutMs: Math.min(number(options.timeout, RUN_OPTIONS.timeout.default, 1), MAX_TIMEOUT_MS),
		maxOutageWaitMs: number(options.maxOutageWait, RUN_OPTIONS.maxOutageWait.default, 0) * 1000,
		retry: {
			...DEFAULT_RETRY_POLICY,
			maxAttempts: Math.floor(number(options.maxAttempts, RUN_OPTIONS.maxAttempts.default, 1)),
			maxThrottleWaitMs: number(options.maxThrottleWait, RUN_OPTIONS.maxThrottleWait.default, 0) * 1000,
			retryUnknownDelivery: flag('retryUnknownDelivery'),
		},
	};
}
