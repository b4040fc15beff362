import type { FailedOutcome, Outcome, Refusal } from '../shared/contracts';
import { apiCodeInfo, isApiAnswer, refusalScope, throttled } from '../shared/apiCodes';
import type { ProbeToken } from './breaker';
import { Breaker } from './breaker';
import { steadyNow } from '../shared/steadyClock';

/** What an answer that is not a failure tells the flow, for any operation: the API took the request. */
export const TAKEN = { kind: 'taken' } as const;

/** An answer as the flow reads it: taken (a Send's accepted outcome, or TAKEN), or how it failed. */
export type FlowAnswer = Outcome | typeof TAKEN;

export function tookIt(answer: FlowAnswer): answer is Extract<FlowAnswer, { kind: 'accepted' | 'taken' }> {
	return answer.kind === 'accepted' || answer.kind === 'taken';
}

/**
 * Decides, from each message's final outcome, when the rest of the run would fail the same way: after
 * a refusal that holds for the account nothing more is sent, after one for a template nothing more
 * with it. Failures on the API's side go to the Breaker instead. A 429 (or code 9) counts neither way: the API is
 * there and asks to slow down. One instance per run.
 */
export class StopEarly {
	private account: Refusal | undefined;
	/** Refusals in a row whose code says "this recipient" while their status says "this account". */
	private contradictions: { count: number; signature: string } = { count: 0, signature: '' };
	private readonly templates = new Map<string, Refusal>();
	readonly breaker: Breaker;

	constructor(giveUpAfterMs: number, now: () => number = steadyNow) {
		this.breaker = new Breaker(giveUpAfterMs, now);
	}

	blocking(templateCodeId: string): Refusal | undefined {
		return this.account ?? this.templates.get(templateCodeId);
	}

	/** Returns the refusal when it is the one that stops others. */
	/** `failingSince`: when the API first failed this message, if it was tried again after that. */
	record(itemIndex: number, templateCodeId: string, outcome: FlowAnswer, probe?: ProbeToken, failingSince?: number): Refusal | undefined {
		if (tookIt(outcome)) {
			this.breaker.answered(probe);
			this.contradictions.count = 0;
			return undefined;
		}
		if (throttled(outcome)) {
			this.breaker.releaseProbe(probe);
			return undefined;
		}
		if (isServerFailure(outcome)) {
			const gaveUp = this.breaker.failed(outcome.reason, probe, failingSince);
			if (gaveUp === undefined || this.account) return undefined;
			return (this.account = refusal('server', itemIndex, templateCodeId, outcome, gaveUp));
		}
		if (outcome.errorCode === 'ERR_CANCELED') this.breaker.releaseProbe(probe);
		else this.breaker.answered(probe);
		const scope = this.believedScope(outcome);
		if (scope === 'account' && !this.account) {
			const repeated = refusalScope(outcome) === 'item' ? `${outcome.reason}; ${this.contradictions.count} recipients in a row were refused the same way with HTTP ${outcome.statusCode}, which says the account` : outcome.reason;
			return (this.account = refusal(scope, itemIndex, templateCodeId, outcome, repeated));
		}
		if (scope === 'template' && !this.templates.has(templateCodeId)) {
			const stop = refusal(scope, itemIndex, templateCodeId, outcome);
			this.templates.set(templateCodeId, stop);
			return stop;
		}
		return undefined;
	}

	/**
	 * The provider's code decides a refusal's scope before the HTTP status (see refusalScope), but after
	 * CONTRADICTIONS_TO_STOP identical 401/403 "recipient" refusals in a row, with nothing accepted
	 * between, the recipients are not what is wrong: stop as for the account (docs/reliability.md). A 403
	 * with a code the provider does not document is what a recipient who blocked the business gets: a
	 * list where one in ten did meets three in a row, so only UNDOCUMENTED_TO_STOP in a row stop.
	 */
	private believedScope(outcome: FailedOutcome): ReturnType<typeof refusalScope> {
		const scope = refusalScope(outcome);
		if (scope !== 'item' || outcome.kind !== 'rejected' || (outcome.statusCode !== 401 && outcome.statusCode !== 403)) {
			this.contradictions.count = 0;
			return scope;
		}
		const signature = `${outcome.statusCode}/${String(outcome.apiCode)}`;
		this.contradictions = { count: signature === this.contradictions.signature ? this.contradictions.count + 1 : 1, signature };
		const toStop = apiCodeInfo(outcome.apiCode) === undefined ? UNDOCUMENTED_TO_STOP : CONTRADICTIONS_TO_STOP;
		return this.contradictions.count >= toStop ? 'account' : scope;
	}
}

const CONTRADICTIONS_TO_STOP = 3;
const UNDOCUMENTED_TO_STOP = 10;

/** The API failed rather than refused: a 5xx, a 503 that outlasted the retries, no connection, no answer. */
function isServerFailure(outcome: FailedOutcome): boolean {
	if (outcome.errorCode === 'ERR_CANCELED') return false;
	// The API's documented code decides before the status: a 500 with code 45 is the token refused, not the API failing.
	if (outcome.kind === 'rejected' && isApiAnswer(outcome.apiCode)) return false;
	// A 2xx the node could not read as accepted: the API answered, and may well have taken it.
	if (outcome.statusCode !== undefined && outcome.statusCode >= 200 && outcome.statusCode < 300) return false;
	if (outcome.kind === 'unknown') return true;
	return outcome.transient || outcome.statusCode === undefined || outcome.statusCode >= 500;
}

function refusal(scope: Refusal['scope'], itemIndex: number, templateCodeId: string, outcome: FailedOutcome, reason = outcome.reason): Refusal {
	return { scope, itemIndex, templateCodeId, reason, statusCode: outcome.statusCode, apiCode: outcome.apiCode };
}
