import type { ICredentialsDecrypted, IExecuteFunctions } from 'n8n-workflow';

import { messageKey } from '../request/messageKey';
import { fingerprint } from '../request/fingerprint';
import type { Claim, Claims } from './claims';
import { wait } from './deadline';
import type { Outcome } from './outcome';
import type { Pacer } from './pacer';
import type { SendRequestBody } from '../request/payload';
import type { Redactor } from '../output/redact';
import type { RetryPolicy } from './retry';
import { decideRetry } from './retry';
import type { Remembered, SentMemory } from './sentMemory';
import type { Refusal } from './stopEarly';
import { postMessage } from './transport';

export interface DeliveryContext {
	ctx: IExecuteFunctions;
	url: string;
	credentials: ICredentialsDecrypted;
	redactor: Redactor;
	timeoutMs: number;
	pacer: Pacer;
	retry: RetryPolicy;
	memory: SentMemory;
	/** Send Once: the workflow's record of messages sent by earlier executions. */
	claims?: Claims;
	signal?: AbortSignal;
	/**
	 * Checked before every request leaves: 'stop' once the run is stopping (a failure without
	 * Continue On Fail), or the earlier refusal that makes this message fail too.
	 */
	holdBack: (templateCodeId: string) => Refusal | 'stop' | undefined;
	/** The provider announced a limit lower than the setting; the pace now follows it. */
	onLowerLimit: (limit: number) => void;
}

export type Delivery =
	| { outcome: Outcome; attempts: number; remembered: boolean }
	| { notSent: Refusal; attempts: number }
	| { sentElsewhere: Exclude<Claim, 'send'> }
	| { notRecorded: string };

/**
 * Sends one item's message: paced, retried while it was certainly not accepted, and never sent
 * again if an earlier try of this node in the same execution already got it accepted (or may
 * have), nor, with Send Once, if an earlier execution recorded it. Resolves to undefined when the
 * run started stopping before this message was sent.
 */
export async function deliver(itemIndex: number, request: SendRequestBody, context: DeliveryContext): Promise<Delivery | undefined> {
	const { pacer, memory, claims, signal } = context;
	// n8n's Retry On Fail runs the node again on the same input items. The same item to the same
	// recipient with the same template is the same message in every try, whatever values an
	// expression computes at send time ({{ $now }}, a random id).
	const print = fingerprint(messageKey(request, 'recipientTemplate'));
	const earlier = memory.recall(itemIndex, print);
	if (earlier) return { outcome: outcomeOf(earlier), attempts: earlier.attempts, remembered: true };
	if (claims) {
		let claim: Claim;
		try {
			claim = await claims.claim(itemIndex);
		} catch (error) {
			return { notRecorded: error instanceof Error ? error.message : String(error) };
		}
		if (claim !== 'send') return { sentElsewhere: claim };
	}

	const templateCodeId = request.message.template.template_code_id;
	const holdBack = () => context.holdBack(templateCodeId);
	for (let attempt = 1; ; attempt++) {
		// Checked before waiting for a slot (nothing to wait for) and again once it has come.
		const held = holdBack() ?? (await waitForSlot(pacer, signal, holdBack));
		if (held === 'stop') return undefined;
		if (held) return { notSent: held, attempts: attempt - 1 };

		claims?.departing(itemIndex);
		const { outcome, rateLimit } = await postMessage(context.ctx, context.url, request, context.timeoutMs, context.credentials, context.redactor);
		if (rateLimit) {
			const lowered = pacer.rateLimitHeaders(rateLimit, context.retry.maxServerWaitMs);
			if (lowered !== undefined) context.onLowerLimit(lowered);
		}
		const decision = decideRetry(outcome, attempt, context.retry);
		if (decision.retry) {
			if (decision.rateLimited) pacer.tooManyRequests(decision.delayMs);
			else await wait(decision.delayMs, signal);
			continue;
		}
		const final = decision.outcome;
		if (final.kind === 'accepted') {
			pacer.accepted();
			memory.remember(itemIndex, print, { kind: 'accepted', msgid: final.msgid, attempts: attempt });
		} else if (final.kind === 'unknown') {
			memory.remember(itemIndex, print, { kind: 'unknown', reason: final.reason, attempts: attempt });
		} else {
			claims?.refused(itemIndex);
		}
		return { outcome: final, attempts: attempt, remembered: false };
	}
}

/** Waits for this sender's paced slot; says why not to send if the run says so meanwhile. */
async function waitForSlot(pacer: Pacer, signal: AbortSignal | undefined, holdBack: () => Refusal | 'stop' | undefined): Promise<Refusal | 'stop' | undefined> {
	let sending = false;
	try {
		// Even a 0 ms wait goes through a timer on purpose: without that yield between a response and
		// the next request, unthrottled runs were measured about 20% slower (n8n's helper opens a new
		// connection for every request; see docs/benchmarks.md).
		await wait(pacer.reserve(), signal);
		for (let delay = pacer.tryDepart(); delay > 0; delay = pacer.tryDepart()) await wait(delay, signal);
		const held = holdBack();
		sending = held === undefined;
		return held;
	} finally {
		// Cancelled, stopping or held back: the slot is given back.
		if (!sending) pacer.release();
	}
}

function outcomeOf(remembered: Remembered): Outcome {
	return remembered.kind === 'accepted'
		? { kind: 'accepted', msgid: remembered.msgid, statusCode: 200 }
		: { kind: 'unknown', reason: `${remembered.reason} (in an earlier try of this node)` };
}
