import type { ICredentialsDecrypted, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { Outcome } from './outcome';
import type { Pacer } from './pacer';
import type { SendRequestBody } from './payload';
import type { RetryPolicy } from './retry';
import { decideRetry } from './retry';
import type { Remembered, SentMemory } from './sentMemory';
import { fingerprint } from './sentMemory';
import { postMessage } from './transport';

export interface DeliveryContext {
	ctx: IExecuteFunctions;
	url: string;
	credentials: ICredentialsDecrypted;
	timeoutMs: number;
	pacer: Pacer;
	retry: RetryPolicy;
	memory: SentMemory;
	signal?: AbortSignal;
	/** True once the run is stopping (a failure without Continue On Fail): nothing more is sent. */
	stopping: () => boolean;
}

export type Delivery = { outcome: Outcome; attempts: number; remembered: boolean };

/**
 * Sends one item's message: paced, retried while it was certainly not accepted, and never sent
 * again if an earlier run of this node in the same execution already got it accepted (or may have).
 * Waits go through n8n's `sleep` with the execution's cancel signal, so cancelling stops them.
 * Resolves to undefined when the run started stopping before this message was sent.
 */
export async function deliver(itemIndex: number, request: SendRequestBody, context: DeliveryContext): Promise<Delivery | undefined> {
	const { pacer, memory, signal } = context;
	const print = fingerprint(JSON.stringify(request));
	const earlier = memory.recall(itemIndex, print);
	if (earlier) return { outcome: outcomeOf(earlier), attempts: earlier.attempts, remembered: true };

	for (let attempt = 1; ; attempt++) {
		if (!(await waitForSlot(pacer, signal, context.stopping))) return undefined;
		const outcome = await postMessage(context.ctx, context.url, request, context.timeoutMs, context.credentials);
		const decision = decideRetry(outcome, attempt, context.retry);
		if (decision.retry) {
			if (decision.rateLimited) pacer.tooManyRequests(decision.delayMs);
			else await sleep(decision.delayMs, signal);
			continue;
		}
		const final = decision.outcome;
		if (final.kind === 'accepted') {
			pacer.accepted();
			memory.remember(itemIndex, print, { kind: 'accepted', msgid: final.msgid, attempts: attempt });
		} else if (final.kind === 'unknown') {
			memory.remember(itemIndex, print, { kind: 'unknown', reason: final.reason, attempts: attempt });
		}
		return { outcome: final, attempts: attempt, remembered: false };
	}
}

/** Waits for this sender's paced slot; false if the run started stopping meanwhile. */
async function waitForSlot(pacer: Pacer, signal: AbortSignal | undefined, stopping: () => boolean): Promise<boolean> {
	let sending = false;
	try {
		// Even a 0 ms wait goes through a timer on purpose: without that yield between a response and
		// the next request, unthrottled runs were measured about 20% slower (n8n's helper opens a new
		// connection for every request; see docs/benchmarks.md).
		await sleep(pacer.reserve(), signal);
		for (let wait = pacer.tryDepart(); wait > 0; wait = pacer.tryDepart()) await sleep(wait, signal);
		sending = !stopping();
		return sending;
	} finally {
		// Cancelled or stopping: the slot is given back.
		if (!sending) pacer.release();
	}
}

function outcomeOf(remembered: Remembered): Outcome {
	return remembered.kind === 'accepted'
		? { kind: 'accepted', msgid: remembered.msgid, statusCode: 200 }
		: { kind: 'unknown', reason: `${remembered.reason} (in an earlier try of this node)` };
}
