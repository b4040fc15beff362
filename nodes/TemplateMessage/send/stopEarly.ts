import type { RefusalScope } from './apiCodes';
import { refusalScope } from './apiCodes';
import type { Outcome } from './outcome';

/** Consecutive failures on the API's side (5xx, no connection, no answer) that stop a run. */
export const BREAKER_THRESHOLD = 5;

/** The refusal that stopped further messages: what the items not sent point to. */
export interface Refusal {
	scope: RefusalScope | 'server';
	itemIndex: number;
	templateCodeId: string;
	reason: string;
	statusCode?: number;
	apiCode?: number | string;
}

/**
 * Decides, from the final outcome of each message of one run, when the rest would fail the same
 * way: after a refusal that holds for the account nothing more is sent, after one that holds for a
 * template nothing more with that template, and after BREAKER_THRESHOLD failures in a row on the
 * API's side nothing more at all. One instance per run: a later run starts fresh.
 */
export class StopEarly {
	private account: Refusal | undefined;

	private readonly templates = new Map<string, Refusal>();

	private serverFailuresInARow = 0;

	constructor(private readonly threshold = BREAKER_THRESHOLD) {}

	/** Why a message with this template must not be sent, if it must not. */
	blocking(templateCodeId: string): Refusal | undefined {
		return this.account ?? this.templates.get(templateCodeId);
	}

	/** Records a message's final outcome; returns the refusal when it is the one that stops others. */
	record(itemIndex: number, templateCodeId: string, outcome: Outcome): Refusal | undefined {
		if (outcome.kind === 'accepted') {
			this.serverFailuresInARow = 0;
			return undefined;
		}
		if (isServerFailure(outcome)) {
			this.serverFailuresInARow++;
			if (this.serverFailuresInARow < this.threshold || this.account) return undefined;
			this.account = refusal('server', itemIndex, templateCodeId, outcome, `${this.threshold} messages in a row failed on the API's side, the last one with: ${outcome.reason}`);
			return this.account;
		}
		this.serverFailuresInARow = 0;
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

/** The API failed rather than refused: a 5xx, a 429/503 that outlasted the retries, no connection, no answer. */
function isServerFailure(outcome: Exclude<Outcome, { kind: 'accepted' }>): boolean {
	if (outcome.kind === 'unknown') return true;
	if (outcome.errorCode === 'ERR_CANCELED') return false;
	return outcome.transient || outcome.statusCode === undefined || outcome.statusCode >= 500;
}

function refusal(scope: Refusal['scope'], itemIndex: number, templateCodeId: string, outcome: Exclude<Outcome, { kind: 'accepted' }>, reason = outcome.reason): Refusal {
	return { scope, itemIndex, templateCodeId, reason, statusCode: outcome.statusCode, apiCode: outcome.apiCode };
}
