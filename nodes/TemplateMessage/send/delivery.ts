import type { Claim, Claims } from './claims';
import type { Outcome, PreparedMessage, Refusal, RetryPolicy, SendRequestBody } from '../shared/contracts';
import type { FlowControl, Held } from './flowControl';
import { decideRetry } from './retry';
import type { Remembered, SentMemory } from './sentMemory';
import type { Attempt } from './transport';

export interface DeliveryContext {
	/** One POST of a request (see transport.ts); never throws. */
	post: (request: SendRequestBody) => Promise<Attempt>;
	/** When a message may leave, and when none should any more. */
	flow: FlowControl;
	retry: RetryPolicy;
	memory: SentMemory;
	/** Send Once: the workflow's record of messages sent by earlier executions. */
	claims?: Claims;
}

export type Delivery =
	| { outcome: Outcome; attempts: number; remembered: boolean }
	| { notSent: Refusal; attempts: number }
	| { sentElsewhere: Exclude<Claim, 'send'> }
	| { notRecorded: string };

/**
 * Sends one item's message: when the flow lets it, retried while it was certainly not accepted,
 * and never sent again if an earlier try of this node in the same execution already got it
 * accepted (or may have), nor, with Send Once, if an earlier execution recorded it. Resolves to
 * undefined when the run started stopping before this message was sent.
 */
export async function deliver(itemIndex: number, { request, tryKey }: PreparedMessage, { post, flow, retry, memory, claims }: DeliveryContext): Promise<Delivery | undefined> {
	// n8n's Retry On Fail runs the node again on the same input items: the same item is the same
	// message in every try (see PreparedMessage.tryKey).
	const earlier = memory.recall(itemIndex, tryKey);
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

	const turn = flow.start(itemIndex, request.message.template.template_code_id);
	let tries = 0;
	// Whether an earlier attempt may have been taken (retried only with Retry Unknown Deliveries):
	// then Send Once keeps the key, whatever the later attempts say.
	let uncertain = false;
	const notSent = (held: Held, attempts: number): Delivery | undefined => {
		if (!uncertain) claims?.refused(itemIndex);
		return held === 'stop' ? undefined : { notSent: held, attempts };
	};
	try {
		for (let attempt = 1; ; attempt++) {
			const held = await flow.slot(turn);
			if (held) return notSent(held, attempt - 1);

			claims?.departing(itemIndex);
			const { outcome, rateLimit } = await post(request);
			if (outcome.kind === 'unknown') uncertain = true;
			const throttled = flow.answered(turn, outcome, rateLimit);
			if (throttled === 'again') continue;
			if (throttled) return notSent(throttled, attempt);
			const decision = decideRetry(outcome, ++tries, retry);
			if (decision.retry) {
				await flow.backoff(decision.delayMs);
				continue;
			}
			const final = decision.outcome;
			flow.settled(turn, final);
			if (final.kind === 'accepted') {
				claims?.accepted(itemIndex);
				memory.remember(itemIndex, tryKey, { kind: 'accepted', msgid: final.msgid, attempts: attempt });
			} else if (final.kind === 'unknown') {
				memory.remember(itemIndex, tryKey, { kind: 'unknown', reason: final.reason, attempts: attempt });
			} else if (!uncertain) claims?.refused(itemIndex);
			return { outcome: final, attempts: attempt, remembered: false };
		}
	} finally {
		// Whatever ended this item's sending (held back, a cancel, a fault of the node's own).
		flow.done(turn);
	}
}

function outcomeOf(remembered: Remembered): Outcome {
	return remembered.kind === 'accepted'
		? { kind: 'accepted', msgid: remembered.msgid, statusCode: 200 }
		: { kind: 'unknown', reason: `${remembered.reason} (in an earlier try of this node)` };
}
