import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiCodeInfo, NOT_FOUND_CODE } from '../shared/apiCodes';
import { statusEndpoint } from '../shared/baseUrl';
import type { FailedOutcome, Outcome, SendCredentials } from '../shared/contracts';
import { unreachable } from '../shared/contracts';
import { withStatus } from '../shared/words';
import { MAX_REASON_LENGTH, truncate } from '../shared/bounded';
import { noticesOf } from '../shared/notice';
import type { StatusInput, StatusResult } from '../shared/status';
import { DOCUMENTED_STATUSES, lookupFailsTheNode } from '../shared/status';
import type { StatusOptionValues, WaitSettings } from '../shared/statusOptions';
import type { Clock, Passage } from '../flow/flowControl';
import { FlowControl, SYSTEM_CLOCK } from '../flow/flowControl';
import { accountPacer } from '../flow/pacer';
import { runPool } from '../flow/pool';
import type { FlowAnswer } from '../flow/stopEarly';
import { TAKEN } from '../flow/stopEarly';
import { Redactor } from '../api/redact';
import { apiCode, apiReason } from '../api/outcome';
import { isObject } from '../shared/jsonObject';
import { decideRetry } from '../flow/retry';
import { isFinalStatus, progress, readStatusAnswer } from './statusAnswer';
import type { StatusAttempt } from '../api/transport';
import { getStatus } from '../api/transport';

/**
 * Get Status's options, read as a Send reads its own (shared/statusOptions.ts, in milliseconds): maxPerSecond
 * is the same setting as a send's: the pacer is the account's, at the lowest setting of the runs using it (see accountPacer);
 * maxAttempts counts the tries of a lookup that failed on the API's side or on the way, 429s not counted.
 */
export type LookupSettings = StatusOptionValues & { continueOnFail: boolean };

export interface LookupRun {
	/** Undefined where the run stopped (without Continue On Fail) before the item was looked up. */
	results: Array<StatusResult | undefined>;
	/** Without Continue On Fail: the first item whose lookup failed. */
	stoppedAt?: number;
	/** What keeps the credential's token out of the answers' texts, for what is built from them (the run summary). */
	redactor: Redactor;
}

/** What lookEach works with: the flow, one GET, the clock the flow runs on (a simulated one in tests). */
export interface LookupContext {
	flow: FlowControl;
	get: (msgid: string) => Promise<StatusAttempt>;
	clock: Clock;
	redact: (text: string) => string;
	node: INode;
	signal?: AbortSignal;
}

/** Lookups have no template: the flow's per-template stops never apply to them. */
const NO_TEMPLATE = '';

/**
 * Looks up each item's message status with the care of a send: paced by the pacer the account's sends
 * use (same credential: one pace in this process, at the lowest setting among its runs), a 429 or an empty rate window waited out
 * within Max Wait When Throttled, a failing API paused for and probed, a refusal that holds for every
 * lookup (401, 403, a redirect, a 404 not in the API's error shape) stopping the rest. Per-row results (no
 * msgid, not found, an unreadable answer) never stop anything; without Continue On Fail a failed lookup
 * stops the others.
 */
export async function lookupAll(ctx: IExecuteFunctions, inputs: StatusInput[], credentials: SendCredentials, settings: LookupSettings): Promise<LookupRun> {
	const redactor = new Redactor(credentials.token);
	const signal = ctx.getExecutionCancelSignal?.();
	const flow = new FlowControl(
		// The same key as sendAll's: lookups and sends with one credential share the account's pace, at the lowest setting among them.
		accountPacer(credentials, settings.maxPerSecond),
		{ maxThrottleWaitMs: settings.maxThrottleWait, maxOutageWaitMs: settings.maxOutageWait, continueOnFail: settings.continueOnFail, maxPerSecond: settings.maxPerSecond },
		noticesOf(ctx),
		SYSTEM_CLOCK,
		signal,
	);
	const baseUrl = String(credentials.decrypted.data?.baseUrl ?? '');
	const get = async (msgid: string) => await getStatus(ctx, statusEndpoint(baseUrl, msgid), settings.timeout, credentials.decrypted, redactor);
	const results = await lookEach(inputs, { flow, get, clock: SYSTEM_CLOCK, redact: (text) => redactor.text(text), node: ctx.getNode(), signal }, settings);
	flow.summarise();
	return { results, stoppedAt: flow.firstFailure, redactor };
}

/** The result of an item with nothing to look up; undefined for one with a msgid. */
export function notAsked(input: StatusInput): StatusResult | undefined {
	if ('noMsgid' in input) return { kind: 'noMsgid', reason: input.noMsgid };
	if ('invalid' in input) return { kind: 'invalid', error: input.invalid };
	return undefined;
}

/**
 * Everything lookupAll does but reading n8n's context, so that it runs on a simulated clock too: one
 * lookup per item, then, with Wait Until, rounds of lookups for the rows still on their way (see keepAsking).
 */
export async function lookEach(inputs: StatusInput[], context: LookupContext, settings: LookupSettings): Promise<Array<StatusResult | undefined>> {
	const { flow, get, clock, redact, node, signal } = context;
	// Asked again (Wait Until), a row already has a status: a failed lookup then does not fail the run (see keepAsking).
	const lookOne = async (itemIndex: number, again = false): Promise<StatusResult | undefined> => {
		const input = inputs[itemIndex];
		if (!('msgid' in input)) return notAsked(input);
		try {
			const result = await lookUp(itemIndex, input.msgid, flow, () => get(input.msgid), settings, redact);
			if (!again && result !== undefined && lookupFailsTheNode(result)) flow.failed(itemIndex);
			return result;
		} catch (error) {
			// Cancelled: the run is over.
			if (signal?.aborted) throw new NodeOperationError(node, error as Error, { itemIndex });
			if (!again) flow.failed(itemIndex);
			const reason = redact(error instanceof Error ? error.message : String(error)).slice(0, 200);
			return { kind: 'failed', outcome: { kind: 'unknown', reason: `the node failed while looking this message up: ${reason}` }, attempts: 0 };
		}
	};
	flow.begin();
	try {
		const started = clock.now();
		const results = await runPool(inputs.length, settings.maxConcurrency, lookOne, () => flow.stopping);
		if (settings.wait) await keepAsking(results, settings.wait, started, lookOne, context, settings.maxConcurrency);
		return results;
	} finally {
		flow.end();
	}
}

/** The first pause before a row is asked again; each later one twice the one before, up to the longest. */
export const FIRST_ASK_AGAIN_MS = 2000;
export const LONGEST_ASK_AGAIN_MS = 60_000;

/** Rounds in which a msgid the API did not know at the first lookup is asked again: the rounds 2, 6 and 14 s after it start. */
export const UNKNOWN_MSGID_ROUNDS = 3;

/** How long after round `round` of lookups the next one starts (the first round is the first lookup). */
export function askAgainAfterMs(round: number): number {
	return Math.min(FIRST_ASK_AGAIN_MS * 2 ** (round - 1), LONGEST_ASK_AGAIN_MS);
}

/** A row to ask again: it has a status that is neither the one waited for nor final (failed, rejected) (or its msgid was not known yet: see keepAsking). */
function stillOnItsWay(result: StatusResult | undefined, wait: WaitSettings): result is Extract<StatusResult, { kind: 'status' }> {
	return result?.kind === 'status' && !hasReached(result, wait) && result.reading.final !== true;
}

function hasReached({ reading }: Extract<StatusResult, { kind: 'status' }>, { until }: WaitSettings): boolean {
	if (until === 'read') return reading.deliveryStatus === 'read' || reading.readAt !== null;
	return reading.deliveryStatus === 'delivered' || reading.deliveryStatus === 'read' || reading.deliveredAt !== null || reading.readAt !== null;
}

/**
 * Wait Until: asks the rows still on their way again, in rounds spaced out (2 s after the first lookup,
 * then 4, 8, … up to 60 s between rounds), the last one at the wait's end, until none is left. Every
 * lookup takes its slot from the flow as the first did, so with sends on the same credential they keep to
 * the one pace; a row is never asked again before its previous answer came and the pause passed. A row
 * asked again whose lookup fails keeps the status it had, and says why it has no newer one; it is asked
 * again in the next round, unless a refusal that holds for every lookup halted the flow, which ends the
 * rounds. A cancelled execution stops the wait at once.
 */
async function keepAsking(
	results: Array<StatusResult | undefined>,
	wait: WaitSettings,
	started: number,
	lookOne: (itemIndex: number, again: boolean) => Promise<StatusResult | undefined>,
	{ flow, clock, node, signal }: LookupContext,
	concurrency: number,
): Promise<void> {
	const asks = results.map((result) => (result === undefined || result.kind === 'noMsgid' || result.kind === 'invalid' ? 0 : 1));
	const answeredAt = results.map(() => clock.now());
	const lastAskFailed: Array<string | undefined> = results.map(() => undefined);
	const ends = started + wait.limitMs;
	// Right after a Send, the API may not know a msgid yet: one it did not know at the first lookup is asked again in
	// the first rounds (2, 6 and 14 s after it); past them it is a msgid it does not know, and holds no one up.
	const neverKnown = results.map((result) => result?.kind === 'notFound');
	const askAgain = (round: number) => (itemIndex: number) => stillOnItsWay(results[itemIndex], wait) || (neverKnown[itemIndex] && round <= UNKNOWN_MSGID_ROUNDS && results[itemIndex]?.kind === 'notFound');
	let waiting = results.flatMap((_result, itemIndex) => (askAgain(1)(itemIndex) ? [itemIndex] : []));
	// A refusal that holds for every lookup (a refused token, the API failing for good) ends the rounds: none would be asked.
	for (let round = 1; waiting.length > 0 && !flow.stopping && !flow.halted; round++) {
		const left = ends - clock.now();
		if (left <= 0) break;
		try {
			await clock.sleep(Math.min(askAgainAfterMs(round), left), signal);
		} catch (error) {
			throw new NodeOperationError(node, error as Error, { description: 'The execution was cancelled while Get Status waited for statuses.' });
		}
		const rows = waiting;
		// A pause between rounds is no part of an unbroken run of 429s.
		flow.resumedAfterPause();
		const again = await runPool(rows.length, concurrency, async (index) => await lookOne(rows[index], true), () => flow.stopping);
		rows.forEach((itemIndex, index) => {
			const result = again[index];
			// Not asked (the run is stopping): the row keeps its last answer.
			if (result === undefined) return;
			asks[itemIndex]++;
			if (neverKnown[itemIndex] && results[itemIndex]?.kind === 'notFound') answeredAt[itemIndex] = clock.now();
			if (result.kind !== 'status') {
				// A row that has a status keeps it over a failed lookup; one still unknown is unknown again, or its lookup failed.
				lastAskFailed[itemIndex] = results[itemIndex]?.kind === 'notFound' && result.kind === 'notFound' ? undefined : whyNoNewerStatus(result);
				return;
			}
			// A status seen never goes back: an answer without one, or behind it (a store lagging behind), keeps it.
			const behind = behindStatusSeen(results[itemIndex], result);
			if (behind) {
				lastAskFailed[itemIndex] = behind;
				return;
			}
			const had = results[itemIndex];
			// When it was delivered and read stays known: an answer in another word may no longer say.
			results[itemIndex] =
				had?.kind === 'status' ? { ...result, reading: { ...result.reading, deliveredAt: result.reading.deliveredAt ?? had.reading.deliveredAt, readAt: result.reading.readAt ?? had.reading.readAt } } : result;
			lastAskFailed[itemIndex] = undefined;
			answeredAt[itemIndex] = clock.now();
		});
		waiting = rows.filter(askAgain(round + 1));
	}
	const now = clock.now();
	results.forEach((result, itemIndex) => {
		if (result?.kind === 'notFound' && neverKnown[itemIndex] && asks[itemIndex] > 1) {
			results[itemIndex] = { ...result, askedAgain: { asks: asks[itemIndex], waitedMs: answeredAt[itemIndex] - started, lastAskFailed: lastAskFailed[itemIndex] } };
		}
		if (result?.kind !== 'status') return;
		const reached = hasReached(result, wait);
		// A row still on its way waited to the end; one that got somewhere, to its last answer.
		const waitedMs = (stillOnItsWay(result, wait) ? now : answeredAt[itemIndex]) - started;
		results[itemIndex] = { ...result, wait: { until: wait.until, reached, asks: asks[itemIndex], waitedMs, lastAskFailed: lastAskFailed[itemIndex] } };
	});
}

/**
 * Why a row's new answer does not replace the status it had: it says none, or a documented one it had
 * gone past (submitted after delivered); undefined when it does. A final status (failed) always does.
 */
function behindStatusSeen(had: StatusResult | undefined, now: Extract<StatusResult, { kind: 'status' }>): string | undefined {
	if (had?.kind !== 'status' || had.reading.deliveryStatus === null) return undefined;
	const said = now.reading.deliveryStatus;
	if (said === null) return `its answer held no status${now.reading.problems[0] ? ` (${now.reading.problems[0]})` : ''}`;
	if (isFinalStatus(said) || !DOCUMENTED_STATUSES.has(said)) return undefined;
	return progress(said) < progress(had.reading.deliveryStatus) ? `its answer said ${said}, behind the ${had.reading.deliveryStatus} it had reached` : undefined;
}

/** Why a row asked again has no newer status than its last: what its latest lookup came to, in words. */
function whyNoNewerStatus(result: Exclude<StatusResult, { kind: 'status' }>): string {
	switch (result.kind) {
		case 'failed':
			return withStatus(result.outcome);
		case 'heldBack':
			return result.heldBy.reason;
		case 'notFound':
			return 'the API no longer knows this msgid';
		case 'unreadable':
			return `its answer could not be read: ${result.reason}`;
		case 'noMsgid':
			return result.reason;
		case 'invalid':
			return result.error.message;
		default:
			return unreachable(result);
	}
}

/** One item's lookup, tried again while the failure may pass (a GET changes nothing: any failure may be retried). */
async function lookUp(
	itemIndex: number,
	msgid: string,
	flow: FlowControl,
	get: () => Promise<StatusAttempt>,
	settings: LookupSettings,
	redact: (text: string) => string,
): Promise<StatusResult | undefined> {
	const passage: Passage = flow.start(itemIndex, NO_TEMPLATE);
	const policy = { maxAttempts: settings.maxAttempts, maxThrottleWait: settings.maxThrottleWait, maxOutageWait: settings.maxOutageWait, retryUnknownDelivery: true };
	let tries = 0;
	try {
		for (let attempt = 1; ; attempt++) {
			const held = await flow.slot(passage);
			if (held) return held === 'stop' ? undefined : { kind: 'heldBack', heldBy: held, attempts: attempt - 1 };
			const answer = await get();
			const outcome: FlowAnswer = answer.kind === 'answered' ? TAKEN : answer.outcome;
			const throttled = flow.answered(passage, outcome, answer.rateLimit);
			if (throttled === 'again') continue;
			if (throttled) return { kind: 'heldBack', heldBy: throttled, attempts: attempt };
			if (answer.kind === 'answered') {
				flow.finalOutcome(passage, TAKEN);
				if (saysNoSuchMessage(answer.body)) {
					const reason = redact(apiReason(answer.body) ?? 'data does not exist').slice(0, MAX_REASON_LENGTH);
					return { kind: 'notFound', outcome: { kind: 'rejected', statusCode: answer.statusCode, apiCode: NOT_FOUND_CODE, transient: false, reason }, attempts: attempt };
				}
				const reading = readStatusAnswer(answer.body, redact);
				if (reading.msgid !== null && reading.msgid !== msgid) return { kind: 'unreadable', reason: `it is about another message (msgid ${JSON.stringify(truncate(reading.msgid, 60))}), not the one asked for`, attempts: attempt };
				return { kind: 'status', reading, attempts: attempt };
			}
			const failed = answer.outcome;
			// The API answered, and said it has no such message: this row's result, in the API's own error
			// (a 404 in its error shape, or the provider's code 33, "data does not exist", at any status).
			const tokenRefused = apiCodeInfo(failed.apiCode)?.tokenRefused === true;
			if ((failed.statusCode === 404 && isApiError(failed) && !tokenRefused) || (failed.statusCode !== undefined && failed.apiCode === NOT_FOUND_CODE)) {
				flow.finalOutcome(passage, TAKEN);
				return { kind: 'notFound', outcome: failed, attempts: attempt };
			}
			// A 404 not the API's for a msgid with "/" or "%": a front before the API may refuse that path, not
			// the endpoint. This row's alone.
			if (failed.statusCode === 404 && !PLAIN_MSGID.test(msgid)) {
				flow.finalOutcome(passage, TAKEN);
				const outcome: FailedOutcome = { ...failed, kind: 'rejected', transient: false, apiCode: undefined, reason: `the server answered HTTP 404 with ${bodyKind(failed.body)}, not the API's error, for a msgid with characters a URL carries escaped` };
				return { kind: 'failed', outcome, attempts: attempt };
			}
			// A 404 that is not the API's (an HTML page, a body without its error): no status endpoint at this
			// Base URL. Every lookup would get the same: the flow stops the rest, as for a refused token.
			if (failed.statusCode === 404) {
				const outcome: FailedOutcome = { ...failed, kind: 'rejected', transient: false, apiCode: undefined, reason: `the server answered HTTP 404 with ${bodyKind(failed.body)}, not the API's error` };
				flow.finalOutcome(passage, outcome);
				return { kind: 'failed', outcome, attempts: attempt, noEndpoint: true };
			}
			// A 2xx too large to read: the API answered; asking again would bring the same.
			if (failed.statusCode !== undefined && failed.statusCode >= 200 && failed.statusCode < 300 && !isApiError(failed)) {
				flow.finalOutcome(passage, TAKEN);
				return { kind: 'unreadable', reason: failed.reason, attempts: attempt };
			}
			const decision = decideRetry(failed, ++tries, policy, Math.random, flow.failingFor(passage));
			if (decision.retry) {
				await flow.backoff(passage, decision);
				continue;
			}
			flow.finalOutcome(passage, forFlow(decision.outcome as FailedOutcome));
			return { kind: 'failed', outcome: decision.outcome as FailedOutcome, attempts: attempt };
		}
	} finally {
		flow.finish(passage);
	}
}

/** A msgid a URL's path carries as it is: a 404 not the API's for it says the endpoint is not there. */
const PLAIN_MSGID = /^[\w.~-]+$/;

/** The API's own error shape (`{"errors": [{message, code}]}`, or `success: false`), whatever its code. */
function isApiError(outcome: FailedOutcome): boolean {
	const { body } = outcome;
	return outcome.apiCode !== undefined || (isObject(body) && (Array.isArray(body.errors) || body.success === false));
}

/** What a 404 that is not the API's brought, in words. */
function bodyKind(body: unknown): string {
	if (body === undefined || body === null || (typeof body === 'string' && body.trim() === '')) return 'an empty body';
	if (typeof body === 'string' && /^\s*</.test(body)) return 'an HTML page';
	return isObject(body) || Array.isArray(body) ? "JSON without the API's error code" : 'a text';
}

/** A 2xx that refuses instead of answering: `{success: false, errors: [{code: 33}]}` and no history. */
function saysNoSuchMessage(body: unknown): boolean {
	return isObject(body) && body.history_status === undefined && apiCode(body) === NOT_FOUND_CODE;
}

/**
 * What the flow hears of a failed lookup. A refusal goes without the API's code, which speaks of sends
 * (a template, a balance): then a 401, a 403 or a redirect stops every further lookup, as each would fail
 * the same way, and any other refusal is this item's. Failures on the API's side go unchanged, for the
 * flow's pause and probe.
 */
function forFlow(outcome: FailedOutcome): Outcome {
	return outcome.kind === 'rejected' && apiCodeInfo(outcome.apiCode)?.tokenRefused !== true ? { ...outcome, apiCode: undefined } : outcome;
}
