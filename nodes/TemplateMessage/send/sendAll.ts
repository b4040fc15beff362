import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { truncate } from '../shared/bounded';
import { Claims } from './claims';
import type { DeliveryContext } from './delivery';
import { deliver } from './delivery';
import type { PreparedMessage, Refusal, RunOptions, SendCredentials, SendResult, SendRun } from '../shared/contracts';
import type { PauseCause } from './pacer';
import { sharedPacer } from './pacer';
import { runPool } from './pool';
import { Redactor } from './redact';
import { notice } from '../shared/notice';
import { fingerprint } from '../shared/fingerprint';
import { MessageRecord } from './messageRecord';
import { SentMemory } from './sentMemory';
import { StopEarly } from './stopEarly';
import { optionPath } from '../shared/contracts';

/**
 * Sends every message given (undefined: an item not to send), paced, with bounded concurrency,
 * and says what became of each. Without Continue On Fail the first failure stops further sends
 * (`stoppedAt`) once every request on the wire has come back; with it, refusals that hold for
 * every message stop further sends (see StopEarly). With Send Once, each message is recorded in
 * the workflow's record before it is sent, and its record is forgotten again when the API surely
 * did not take it. The results are plain: the node turns them into output items and errors.
 */
export async function sendAll(
	ctx: IExecuteFunctions,
	messages: Array<PreparedMessage | undefined>,
	credentials: SendCredentials,
	options: RunOptions,
	continueOnFail: boolean,
): Promise<SendRun> {
	const node = ctx.getNode();
	const claims =
		options.sendOnce === 'off'
			? undefined
			: new Claims(MessageRecord.open(ctx, options.maxRemembered), keysToSend(messages), {
					concurrency: options.maxConcurrency,
					maxPerSecond: options.maxPerSecond,
					sendInDoubt: options.sendInDoubt,
				});
	const redactor = new Redactor(credentials.token);
	const signal = ctx.getExecutionCancelSignal?.();
	const pacer = sharedPacer(`${credentials.url}\u0000${fingerprint(credentials.token)}`, options.maxPerSecond);

	const runIndex = Number(ctx.getWorkflowDataProxy(0).$runIndex ?? 0);
	const memory = new SentMemory(ctx.getContext('node'), `sent-run-${runIndex}`);
	const stopEarly = new StopEarly(options.maxOutageWaitMs);
	const pauses = new PauseNotices(ctx);
	const stops: Refusal[] = [];
	let stoppedAt: number | undefined;
	const failed = (itemIndex: number) => {
		if (!continueOnFail && (stoppedAt === undefined || itemIndex < stoppedAt)) stoppedAt = itemIndex;
	};
	const context: DeliveryContext = {
		ctx,
		url: credentials.url,
		credentials: credentials.decrypted,
		redactor,
		timeoutMs: options.timeoutMs,
		pacer,
		retry: options.retry,
		memory,
		claims,
		signal,
		breaker: stopEarly.breaker,
		holdBack: (templateCodeId) => (stoppedAt !== undefined ? 'stop' : stopEarly.blocking(templateCodeId)),
		onLowerLimit: (limit) => lowerLimitNotice(ctx, limit, options.maxPerSecond),
		onPause: (waitMs, cause) => pauses.pausing(waitMs, cause),
	};

	const sendOne = async (itemIndex: number): Promise<SendResult | undefined> => {
		const message = messages[itemIndex];
		if (message === undefined) return undefined;
		try {
			const delivery = await deliver(itemIndex, message, context);
			if (!delivery) return undefined;
			if ('sentElsewhere' in delivery) {
				return delivery.sentElsewhere === 'inDoubt' ? { status: 'inDoubt' } : { status: 'skipped', sentBefore: delivery.sentElsewhere === 'raced' ? 'concurrent' : 'earlier' };
			}
			if ('notRecorded' in delivery) {
				failed(itemIndex);
				return { status: 'notSent', notRecorded: truncate(redactor.text(delivery.notRecorded), 200) };
			}
			if ('notSent' in delivery) return { status: 'notSent', heldBy: delivery.notSent, attempts: delivery.attempts };
			const { outcome, attempts, remembered } = delivery;
			// Only what the API answered in this run says anything about the rest of it.
			const stop = remembered ? undefined : stopEarly.record(itemIndex, message.request.message.template.template_code_id, outcome, delivery.probe);
			if (stop) stops.push(stop);
			if (outcome.kind === 'accepted') return { status: 'sent', msgid: outcome.msgid, attempts, sentInEarlierTry: remembered };
			failed(itemIndex);
			return { status: outcome.kind === 'unknown' ? 'unknown' : 'failed', outcome, attempts, sentInEarlierTry: remembered };
		} catch (error) {
			// Cancelled: the run is over, the pool stops starting sends.
			if (signal?.aborted) throw new NodeOperationError(node, error as Error, { itemIndex });
			// A fault of the node's own while handling this item fails this item, never the run. The
			// request may have left, so it counts as possibly sent.
			claims?.departing(itemIndex);
			failed(itemIndex);
			return { status: 'unknown', fault: truncate(redactor.text(error instanceof Error ? error.message : String(error)), 200) };
		}
	};

	let results: Array<SendResult | undefined>;
	pacer.join();
	try {
		results = await runPool(messages.length, options.maxConcurrency, sendOne, () => stoppedAt !== undefined);
	} finally {
		pacer.leave();
		if (claims) await settleRecord(ctx, claims, options.maxRemembered);
	}
	pauses.summarise();
	const { recoveries, probes } = stopEarly.breaker;
	if (recoveries > 0) {
		notice(ctx, `The API failed ${recoveries > 1 ? `${recoveries} times` : 'once'} during this run: sending paused and resumed once it answered again (${probes} probe message(s)).`);
	}
	// n8n runs the node again (Retry On Fail) only after it failed: what this run sent need not be kept.
	if (stoppedAt === undefined && results.every((result) => result === undefined || result.status === 'sent' || result.status === 'skipped')) memory.clear();
	return { results, stoppedAt, stops };
}

/** The Send Once key of each message to send. */
function keysToSend(messages: Array<PreparedMessage | undefined>): Map<number, string> {
	const keys = new Map<number, string>();
	messages.forEach((message, itemIndex) => {
		if (message?.key !== undefined) keys.set(itemIndex, message.key);
	});
	return keys;
}

/**
 * Settles the run's record (see Claims.release); tells the user when keeping the record to its size
 * pushed keys out, since a later run would send those messages again. If settling fails, says so
 * without failing the run.
 */
async function settleRecord(ctx: IExecuteFunctions, claims: Claims, maxRemembered: number): Promise<void> {
	try {
		const { pushedOut } = await claims.release();
		if (pushedOut > 0) {
			notice(
				ctx,
				`Send Once keeps the newest ${maxRemembered} values of this workflow's record (${optionPath('maxRemembered')}): this run pushed out the ${pushedOut} oldest messages. A later run would send those messages again if their rows come back: raise ${optionPath('maxRemembered')} above the number of rows the workflow sends to (each message takes one value).`,
				'warn',
			);
		}
	} catch (error) {
		const reason = truncate(error instanceof Error ? error.message : String(error), 200);
		notice(ctx, `Send Once could not settle its record at the end of the run (${reason}): a later run may skip messages that were not sent (use Forget Sent Messages for their keys), or send again some that were.`, 'warn');
	}
}

function lowerLimitNotice(ctx: IExecuteFunctions, limit: number, setting: number): void {
	notice(ctx, `The API announced a limit of ${limit} messages per second (X-RateLimit-Limit), ${setting > 0 ? `lower than the ${setting} set in ${optionPath('maxPerSecond')}` : 'and no limit was set'}: messages are sent at ${limit} per second.`);
}

/** Waits this long or longer are told: the run would otherwise seem to hang. */
const LONG_WAIT_MS = 5000;

/**
 * Tells the user when the API makes the run wait: one log line when a long pause begins (pauses
 * that overlap it are the same one), and one execution hint at the end of the run.
 */
class PauseNotices {
	private count = 0;

	private longestMs = 0;

	private lastCause: PauseCause = 'tooManyRequests';

	private toldUntil = 0;

	constructor(private readonly ctx: IExecuteFunctions) {}

	pausing(waitMs: number, cause: PauseCause): void {
		if (waitMs < LONG_WAIT_MS) return;
		const now = Date.now();
		if (now < this.toldUntil) return;
		this.toldUntil = now + waitMs;
		this.count++;
		this.longestMs = Math.max(this.longestMs, waitMs);
		this.lastCause = cause;
		this.ctx.logger.info(`Template Message is waiting ${Math.ceil(waitMs / 1000)} s: ${PAUSE_TEXT[cause]}`, { nodeName: this.ctx.getNode().name });
	}

	summarise(): void {
		if (this.count === 0) return;
		const message = `The API made this run wait ${this.count} time(s) for ${LONG_WAIT_MS / 1000} s or more (the longest ${Math.ceil(this.longestMs / 1000)} s): ${PAUSE_TEXT[this.lastCause]}. ${optionPath('maxThrottleWait')} bounds how long one message waits.`;
		this.ctx.addExecutionHints?.({ message, location: 'outputPane' });
	}
}

const PAUSE_TEXT: Record<PauseCause, string> = {
	tooManyRequests: 'the API answered 429 (too many requests) and asked to wait',
	windowUsedUp: "the API's rate-limit window has nothing left (X-RateLimit-Remaining: 0) until X-RateLimit-Reset",
};
