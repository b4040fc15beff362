import { truncate } from '../shared/bounded';
import type { Claim, Claims } from '../sendOnce/claims';
import { LOOKUPS } from '../sendOnce/record';
import type { PreparedMessage, RetryPolicy, SendRequestBody, SendResult, UnknownOutcome } from '../shared/contracts';
import type { FlowControl, HeldBack } from '../flow/flowControl';
import type { Progress } from './progress';
import type { Redactor } from '../api/redact';
import { decideRetry } from '../flow/retry';
import type { SentMemory } from './sentMemory';
import type { Attempt } from '../api/transport';
import { withStatus } from '../shared/words';

export interface DeliveryContext {
	/** One POST of a request (see transport.ts); never throws. */
	post: (request: SendRequestBody) => Promise<Attempt>;
	flow: FlowControl;
	retry: RetryPolicy;
	memory: SentMemory;
	/** Send Once only. */
	claims?: Claims;
	/** Takes the token out of texts the node did not write. */
	redactor: Redactor;
	/** Told of each message once it is done with. */
	progress?: Progress;
}

/**
 * Sends one item's message when the flow lets it, retried while certainly not accepted; never again if an earlier
 * try of this node in this execution got it (perhaps) accepted, nor, with Send Once, if an earlier execution
 * recorded it. Undefined when the run began stopping before it was sent.
 */
export async function deliver(itemIndex: number, { request, tryKey }: PreparedMessage, { post, flow, retry, memory, claims, redactor }: DeliveryContext): Promise<SendResult | undefined> {
	// Retry On Fail runs the node again on the same items: same item, same message (see PreparedMessage.tryKey).
	const earlier = memory.recall(itemIndex, tryKey);
	if (earlier?.kind === 'accepted') return { kind: 'sent', msgid: earlier.msgid, attempts: earlier.attempts, sentInEarlierTry: true };
	if (earlier) return { kind: 'deliveryUnknown', outcome: { kind: 'unknown', reason: `${earlier.reason} (in an earlier try of this node)`, msgid: earlier.msgid }, attempts: earlier.attempts, sentInEarlierTry: true };
	if (claims) {
		let claim: Claim;
		try {
			claim = await claims.claim(itemIndex);
		} catch (error) {
			const said = (error instanceof Error ? error.message : String(error)).trim();
			return { kind: 'notRecorded', cause: 'storeFailed', reason: said === '' ? 'its call failed without saying why' : truncate(redactor.text(said), 200) };
		}
		if (claim === 'overwritten') return { kind: 'notRecorded', cause: 'overwritten', reason: `other executions of this workflow wrote over its record at the same moment, at each of ${LOOKUPS} lookups` };
		if (claim === 'inDoubt') return { kind: 'inDoubt' };
		if (claim !== 'send') return { kind: 'sentBefore', by: claim === 'raced' ? 'concurrent' : 'earlier' };
	}

	const passage = flow.start(itemIndex, request.message.template.template_code_id);
	let tries = 0;
	// An earlier attempt may have been taken (tried again only with Retry Unknown Deliveries): whatever the later
	// attempts say, the message may have gone out, and Send Once keeps the key.
	let uncertain: UnknownOutcome | undefined;
	const mayHaveGone = (uncertainty: UnknownOutcome, after: string, attempts: number): SendResult => {
		const outcome: UnknownOutcome = { ...uncertainty, reason: `${uncertainty.reason}; ${after}` };
		memory.remember(itemIndex, tryKey, { kind: 'unknown', reason: outcome.reason, attempts, msgid: outcome.msgid });
		return { kind: 'deliveryUnknown', outcome, attempts, sentInEarlierTry: false };
	};
	const notSent = (held: HeldBack, attempts: number): SendResult | undefined => {
		if (uncertain) return mayHaveGone(uncertain, `not tried again: ${held === 'stop' ? 'the run stopped' : held.reason}`, attempts);
		claims?.refused(itemIndex);
		return held === 'stop' ? undefined : { kind: 'heldBack', heldBy: held, attempts };
	};
	try {
		for (let attempt = 1; ; attempt++) {
			const held = await flow.slot(passage);
			if (held) return notSent(held, attempt - 1);

			claims?.departing(itemIndex);
			const { outcome, rateLimit } = await post(request);
			if (outcome.kind === 'unknown') uncertain ??= outcome;
			// Refused (a 429, a 503 tried again): until the next attempt departs, a cancel in the wait leaves nothing that may have gone.
			else if (outcome.kind === 'rejected' && !uncertain) claims?.refused(itemIndex);
			const throttled = flow.answered(passage, outcome, rateLimit);
			if (throttled === 'again') continue;
			if (throttled) return notSent(throttled, attempt);
			const decision = decideRetry(outcome, ++tries, retry, Math.random, flow.failingFor(passage));
			if (decision.retry) {
				await flow.backoff(passage, decision);
				continue;
			}
			const final = decision.outcome;
			flow.finalOutcome(passage, final);
			if (final.kind === 'accepted') {
				claims?.accepted(itemIndex);
				memory.remember(itemIndex, tryKey, { kind: 'accepted', msgid: final.msgid, attempts: attempt });
				return { kind: 'sent', msgid: final.msgid, attempts: attempt, sentInEarlierTry: false };
			}
			if (final.kind === 'unknown') {
				memory.remember(itemIndex, tryKey, { kind: 'unknown', reason: final.reason, attempts: attempt, msgid: final.msgid });
				return { kind: 'deliveryUnknown', outcome: final, attempts: attempt, sentInEarlierTry: false };
			}
			if (uncertain) return mayHaveGone(uncertain, `tried again, it was refused (${withStatus(final)})`, attempt);
			claims?.refused(itemIndex);
			return { kind: 'refused', outcome: final, attempts: attempt, sentInEarlierTry: false };
		}
	} finally {
		// Whatever ended this item's sending (held back, a cancel, a fault of the node's own).
		flow.finish(passage);
	}
}
