import type { Outcome, Refusal } from '../shared/contracts';
import { refusalScope } from '../shared/apiCodes';
import type { ProbeToken } from './breaker';
import { Breaker } from './breaker';

/**
 * Decides, from the final outcome of each message of one run, when the rest would fail the same
 * way: after a refusal that holds for the account nothing more is sent, after one that holds for a
 * template nothing more with that template. Failures on the API's side pause the run instead (see
 * Breaker); it stops only once the API has kept failing for `giveUpAfterMs`. A 429 counts neither
 * way: the API is there and asks to slow down. One instance per run: a later run starts fresh.
 */
export class StopEarly {
	private account: Refusal | undefined;

	private readonly templates = new Map<string, Refusal>();

	readonly breaker: Breaker;

	constructor(giveUpAfterMs: number, now: () => number = Date.now) {
		this.breaker = new Breaker(giveUpAfterMs, now);
	}

	/** Why a message with this template must not be sent, if it must not. */
	blocking(templateCodeId: string): Refusal | undefined {
		return this.account ?? this.templates.get(templateCodeId);
	}

	/**
	 * Records a message's final outcome (`probe`: it was let through as the breaker's probe);
	 * returns the refusal when it is the one that stops others.
	 */
	record(itemIndex: number, templateCodeId: string, outcome: Outcome, probe?: ProbeToken): Refusal | undefined {
		if (outcome.kind === 'accepted') {
			this.breaker.answered(probe);
			return undefined;
		}
		if (outcome.kind === 'rejected' && outcome.statusCode === 429) {
			this.breaker.neutral(probe);
			return undefined;
		}
		if (isServerFailure(outcome)) {
			const gaveUp = this.breaker.failed(outcome.reason, probe);
			if (gaveUp === undefined || this.account) return undefined;
			return (this.account = refusal('server', itemIndex, templateCodeId, outcome, gaveUp));
		}
		if (outcome.errorCode === 'ERR_CANCELED') this.breaker.neutral(probe);
		else this.breaker.answered(probe);
		const scope = refusalScope(outcome);
		if (scope === 'account' && !this.account) return (this.account = refusal(scope, itemIndex, templateCodeId, outcome));
		if (scope === 'template' && !this.templates.has(templateCodeId)) {
			const stop = refusal(scope, itemIndex, templateCodeId, outcome);
			this.templates.set(templateCodeId, stop);
			return stop;
		}
		return undefined;
	}
}

/** The API failed rather than refused: a 5xx, a 503 that outlasted the retries, no connection, no answer. */
function isServerFailure(outcome: Exclude<Outcome, { kind: 'accepted' }>): boolean {
	if (outcome.errorCode === 'ERR_CANCELED') return false;
	if (outcome.kind === 'unknown') return true;
	return outcome.transient || outcome.statusCode === undefined || outcome.statusCode >= 500;
}

function refusal(scope: Refusal['scope'], itemIndex: number, templateCodeId: string, outcome: Exclude<Outcome, { kind: 'accepted' }>, reason = outcome.reason): Refusal {
	return { scope, itemIndex, templateCodeId, reason, statusCode: outcome.statusCode, apiCode: outcome.apiCode };
}
