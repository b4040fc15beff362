import type { ICredentialsDecrypted, IExecuteFunctions } from 'n8n-workflow';

import type { Claim, Claims } from './claims';
import { wait } from './deadline';
import type { Outcome, PreparedMessage, Refusal, RetryPolicy } from '../shared/contracts';
import { RUN_OPTIONS } from '../shared/contracts';
import type { Breaker, ProbeToken } from './breaker';
import type { Pacer, PauseCause } from './pacer';
import type { Redactor } from './redact';
import { decideRetry } from './retry';
import type { Remembered, SentMemory } from './sentMemory';
import { ThrottleBudget } from './throttleBudget';
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
	/** Pauses the run while the API is failing (see Breaker). */
	breaker: Pick<Breaker, 'gate' | 'probeNotSent'>;
	/**
	 * Checked before every request leaves: 'stop' once the run is stopping (a failure without
	 * Continue On Fail), or the earlier refusal that makes this message fail too.
	 */
	holdBack: (templateCodeId: string) => Refusal | 'stop' | undefined;
	/** The provider announced a limit lower than the setting; the pace now follows it. */
	onLowerLimit: (limit: number) => void;
	/** A sender is about to wait this long because the API asked every sender to. */
	onPause: (waitMs: number, cause: PauseCause) => void;
}

export type Delivery =
	/** `probe`: the message was let through as the breaker's probe (see Breaker). */
	| { outcome: Outcome; attempts: number; remembered: boolean; probe?: ProbeToken }
	| { notSent: Refusal; attempts: number }
	| { sentElsewhere: Exclude<Claim, 'send'> }
	| { notRecorded: string };

type Held = Refusal | 'stop';

/**
 * Sends one item's message: paced, retried while it was certainly not accepted, and never sent
 * again if an earlier try of this node in the same execution already got it accepted (or may
 * have), nor, with Send Once, if an earlier execution recorded it. Resolves to undefined when the
 * run started stopping before this message was sent.
 */
export async function deliver(itemIndex: number, { request, tryKey }: PreparedMessage, context: DeliveryContext): Promise<Delivery | undefined> {
	const { pacer, memory, claims, signal, breaker } = context;
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

	const templateCodeId = request.message.template.template_code_id;
	const holdBack = () => context.holdBack(templateCodeId);
	const throttle = new ThrottleBudget(context.retry.maxThrottleWaitMs);
	let probe: ProbeToken | undefined;
	let tries = 0;
	// Whether an earlier attempt may have been taken (retried only with Retry Unknown Deliveries):
	// then Send Once keeps the key, whatever the later attempts say.
	let uncertain = false;
	const surelyNotTaken = () => {
		if (!uncertain) claims?.refused(itemIndex);
	};
	// The probe's outcome reaches the breaker through the run's StopEarly (see sendAll).
	let reported = false;
	const notSent = (held: Held, attempts: number): Delivery | undefined => {
		if (probe !== undefined) breaker.probeNotSent(probe);
		reported = true;
		surelyNotTaken();
		return held === 'stop' ? undefined : { notSent: held, attempts };
	};
	try {
		for (let attempt = 1; ; attempt++) {
			// A probe keeps its pass through its own retries; any other sender waits while the API is failing.
			const passed: Held | { pass: true; probe?: ProbeToken } | undefined =
				holdBack() ?? (probe !== undefined ? undefined : await passBreaker(breaker, signal, holdBack, { itemIndex, templateCodeId }));
			if (typeof passed === 'object' && 'pass' in passed) probe = passed.probe;
			else if (passed !== undefined) return notSent(passed, attempt - 1);
			// Checked before waiting for a slot (nothing to wait for) and again once it has come.
			const held = await waitForSlot(context, throttle, holdBack, { itemIndex, templateCodeId });
			if (held) return notSent(held, attempt - 1);

			claims?.departing(itemIndex);
			const { outcome, rateLimit } = await postMessage(context.ctx, context.url, request, context.timeoutMs, context.credentials, context.redactor);
			if (rateLimit) {
				const lowered = pacer.rateLimitHeaders(rateLimit);
				if (lowered !== undefined) context.onLowerLimit(lowered);
			}
			if (outcome.kind === 'unknown') uncertain = true;
			const rateLimited = outcome.kind === 'rejected' && outcome.statusCode === 429;
			if (!rateLimited) tries++;
			const decision = decideRetry(outcome, tries, context.retry, throttle.waitedMs);
			if (decision.retry) {
				if (decision.rateLimited) {
					// The pause is what the item is charged (see throttleCharge).
					throttle.chargeOwn429(decision.delayMs, pacer.tooManyRequests(decision.delayMs));
				} else await wait(decision.delayMs, signal);
				continue;
			}
			if ('throttled' in decision) {
				// Every sender waits as the API asked: one that may not wait that long gives up before
				// its request leaves (see waitForSlot), so a wait the run cannot afford stops the requests.
				pacer.tooManyRequests(decision.pauseMs);
				const reason = decision.throttled;
				return notSent({ scope: 'throttled', itemIndex, templateCodeId, reason, statusCode: 429, apiCode: outcome.kind === 'rejected' ? outcome.apiCode : undefined }, attempt);
			}
			const final = decision.outcome;
			if (final.kind === 'accepted') {
				pacer.accepted();
				claims?.accepted(itemIndex);
				memory.remember(itemIndex, tryKey, { kind: 'accepted', msgid: final.msgid, attempts: attempt });
			} else if (final.kind === 'unknown') {
				memory.remember(itemIndex, tryKey, { kind: 'unknown', reason: final.reason, attempts: attempt });
			} else {
				surelyNotTaken();
			}
			reported = true;
			return { outcome: final, attempts: attempt, remembered: false, probe };
		}
	} finally {
		// Whatever else ended this item's sending (a cancel, a fault of the node's own), a probe that
		// will not report back lets another sender probe.
		if (probe !== undefined && !reported) breaker.probeNotSent(probe);
	}
}

/** Waits while the breaker is open; resolves to the pass it gives, or why not to send. */
async function passBreaker(
	breaker: DeliveryContext['breaker'],
	signal: AbortSignal | undefined,
	holdBack: () => Held | undefined,
	item: { itemIndex: number; templateCodeId: string },
): Promise<Held | { pass: true; probe?: ProbeToken }> {
	for (;;) {
		const gate = breaker.gate();
		if ('pass' in gate) return gate;
		const held = holdBack();
		if (held) return held;
		// The run's StopEarly holds the give-up back as the run's refusal; this is its stand-in.
		if ('gaveUp' in gate) return { scope: 'server', itemIndex: item.itemIndex, templateCodeId: item.templateCodeId, reason: gate.gaveUp };
		await wait(gate.waitMs, signal);
	}
}

/**
 * Waits for this sender's paced slot, and through any pause the API asked every sender for; says
 * why not to send if the run says so meanwhile, or if the pause is longer than the item's throttle
 * budget has left.
 */
async function waitForSlot(
	context: DeliveryContext,
	throttle: ThrottleBudget,
	holdBack: () => Held | undefined,
	item: { itemIndex: number; templateCodeId: string },
): Promise<Held | undefined> {
	const { pacer, signal } = context;
	let reserved = false;
	let sending = false;
	try {
		const tooLong = () => {
			const pause = pacer.pause();
			if (pause.ms === 0) return undefined;
			if (!throttle.chargePause(pause)) return throttledByPause(pause.ms, pause.cause, context.retry.maxThrottleWaitMs, item);
			context.onPause(pause.ms, pause.cause);
			return undefined;
		};
		const first = holdBack() ?? tooLong();
		if (first) return first;
		// Even a 0 ms wait goes through a timer on purpose: without that yield between a response and
		// the next request, unthrottled runs were measured about 20% slower (n8n's helper opens a new
		// connection for every request; see docs/benchmarks.md).
		const slotIn = pacer.reserve();
		reserved = true;
		await wait(slotIn, signal);
		for (let delay = pacer.tryDepart(); delay > 0; delay = pacer.tryDepart()) {
			const held = holdBack() ?? tooLong();
			if (held) return held;
			await wait(delay, signal);
		}
		const held = holdBack();
		sending = held === undefined;
		return held;
	} finally {
		// Cancelled, stopping or held back: the slot is given back.
		if (reserved && !sending) pacer.release();
	}
}

export function throttledByPause(pauseMs: number, cause: PauseCause, budgetMs: number, item: { itemIndex: number; templateCodeId: string }): Refusal {
	const why = cause === 'windowUsedUp' ? "the API's rate-limit window (X-RateLimit-Remaining: 0) resets" : 'the API asked every sender to wait (429)';
	return {
		scope: 'throttled',
		itemIndex: item.itemIndex,
		templateCodeId: item.templateCodeId,
		reason: `${why} in ${Math.ceil(pauseMs / 1000)} s, beyond ${RUN_OPTIONS.maxThrottleWait.displayName} (${Math.round(budgetMs / 1000)} s)`,
	};
}

function outcomeOf(remembered: Remembered): Outcome {
	return remembered.kind === 'accepted'
		? { kind: 'accepted', msgid: remembered.msgid, statusCode: 200 }
		: { kind: 'unknown', reason: `${remembered.reason} (in an earlier try of this node)` };
}
