import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { truncate } from '../shared/bounded';
import { Claims } from './claims';
import type { DeliveryContext } from './delivery';
import { deliver } from './delivery';
import { notSentError, sendFailedError } from '../output/errors';
import type { PreparedMessage, Refusal, Skip, RunOptions } from '../shared/contracts';
import { failedItem, failureDetails, itemSummary, sentItem, skippedItem, stoppedBy } from '../output/items';
import type { PauseCause } from './pacer';
import { sharedPacer } from './pacer';
import { runPool } from './pool';
import { hasControlCharacter } from '../request/text';
import { Redactor } from './redact';
import { notice } from '../shared/notice';
import { runSummary, statusOf } from '../output/runSummary';
import { fingerprint } from '../shared/fingerprint';
import { MessageRecord } from './messageRecord';
import { SentMemory } from './sentMemory';
import { StopEarly } from './stopEarly';
import { CREDENTIAL_TYPE, sendEndpoint } from './transport';
import { optionPath } from '../shared/contracts';

type Failure = ReturnType<typeof sendFailedError> | NodeOperationError;

/**
 * Sends every valid request (the invalid ones are already errors) but the repeats to skip, paced,
 * with bounded concurrency, and returns one output item per input item, in order. Without Continue On Fail
 * the first failure stops the run and is thrown once every request on the wire has come back;
 * with it, refusals that hold for every message stop further sends (see StopEarly). With Send
 * Once, each message is recorded in the workflow's record before it is sent, and its record is
 * forgotten again when the API surely did not take it.
 */
export async function sendAll(
	ctx: IExecuteFunctions,
	requests: Array<PreparedMessage | NodeOperationError>,
	skip: Map<number, Skip>,
	options: RunOptions,
	continueOnFail: boolean,
): Promise<INodeExecutionData[]> {
	const node = ctx.getNode();
	const claims = options.sendOnce === 'off' ? undefined : new Claims(MessageRecord.open(ctx, options.maxRemembered), keysToSend(requests, skip), options.maxConcurrency);
	const credentials = await ctx.getCredentials<{ baseUrl: string; token: string }>(CREDENTIAL_TYPE);
	const token = checkedToken(ctx, String(credentials.token ?? ''));
	const redactor = new Redactor(token);
	const url = sendEndpoint(checkedBaseUrl(ctx, String(credentials.baseUrl ?? '')));
	const credentialRef = node.credentials?.[CREDENTIAL_TYPE];
	const signal = ctx.getExecutionCancelSignal?.();
	const pacer = sharedPacer(`${url}\u0000${fingerprint(token)}`, options.maxPerSecond);

	const runIndex = Number(ctx.getWorkflowDataProxy(0).$runIndex ?? 0);
	const memory = new SentMemory(ctx.getContext('node'), `sent-run-${runIndex}`);
	const stopEarly = new StopEarly(options.maxOutageWaitMs);
	const pauses = new PauseNotices(ctx);
	const stops: Refusal[] = [];
	let firstFailure: Failure | undefined;
	const fail = (error: Failure, itemIndex: number) => {
		if (!continueOnFail && (!firstFailure || itemIndex < Number(firstFailure.context.itemIndex))) firstFailure = error;
	};
	const context: DeliveryContext = {
		ctx,
		url,
		credentials: { id: credentialRef?.id ?? '', name: credentialRef?.name ?? '', type: CREDENTIAL_TYPE, data: credentials },
		redactor,
		timeoutMs: options.timeoutMs,
		pacer,
		retry: options.retry,
		memory,
		claims,
		signal,
		breaker: stopEarly.breaker,
		holdBack: (templateCodeId) => (firstFailure ? 'stop' : stopEarly.blocking(templateCodeId)),
		onLowerLimit: (limit) => lowerLimitNotice(ctx, limit, options.maxPerSecond),
		onPause: (waitMs, cause) => pauses.pausing(waitMs, cause),
	};

	const sendOne = async (itemIndex: number): Promise<INodeExecutionData | undefined> => {
		const prepared = requests[itemIndex];
		if (prepared instanceof NodeOperationError) return failedItem(prepared, itemIndex, { delivery: 'invalid' });
		const repeat = skip.get(itemIndex);
		if (repeat !== undefined) return skippedItem(prepared, itemIndex, repeat.reason, { duplicateOf: repeat.duplicateOf });
		const { request } = prepared;
		try {
			const delivery = await deliver(itemIndex, request, context);
			if (!delivery) return undefined;
			if ('sentElsewhere' in delivery) {
				return delivery.sentElsewhere === 'recordedBefore'
					? skippedItem(prepared, itemIndex, 'Sent by an earlier execution of this workflow (Send Once: the same message key was recorded then): not sent again', { sentBefore: true })
					: skippedItem(
							prepared,
							itemIndex,
							'Another execution of this workflow recorded the same message at the same moment (Send Once): not sent here, so that it is not sent twice. Run again if it did not arrive.',
							{ sentBefore: true, concurrentExecution: true },
						);
			}
			if ('notRecorded' in delivery) {
				const error = new NodeOperationError(node, `Not sent: Send Once could not record the message in n8n's database (${truncate(redactor.text(delivery.notRecorded), 200)}) [item ${itemIndex}]`, {
					itemIndex,
					description: 'Nothing was sent for this item. Run it again once n8n\'s database is reachable, or set Send Once to Off.',
				});
				fail(error, itemIndex);
				return failedItem(error, itemIndex, { delivery: 'notSent', phone_number: request.phone_number, template_code_id: request.message.template.template_code_id });
			}
			const summary = itemSummary(prepared, delivery.attempts, options.includeRequestPayload);
			if ('notSent' in delivery) {
				return failedItem(notSentError(node, delivery.notSent, itemIndex), itemIndex, { delivery: 'notSent', stoppedBy: stoppedBy(delivery.notSent), ...summary });
			}
			const { outcome } = delivery;
			if (delivery.remembered) summary.sentInEarlierTry = true;
			// Only what the API answered in this run says anything about the rest of it.
			const stop = delivery.remembered ? undefined : stopEarly.record(itemIndex, request.message.template.template_code_id, outcome, delivery.probe);
			if (stop) stops.push(stop);
			if (outcome.kind === 'accepted') return sentItem(outcome.msgid, itemIndex, summary);
			const error = sendFailedError(node, outcome, itemIndex);
			fail(error, itemIndex);
			return failedItem(error, itemIndex, failureDetails(outcome, summary));
		} catch (error) {
			// Cancelled: the run is over, the pool stops starting sends.
			if (signal?.aborted) throw new NodeOperationError(node, error as Error, { itemIndex });
			// A fault of the node's own while handling this item fails this item, never the run. The
			// request may have left, so it counts as possibly sent.
			claims?.departing(itemIndex);
			const reason = truncate(redactor.text(error instanceof Error ? error.message : String(error)), 200);
			const failure = new NodeOperationError(node, `Delivery unknown: the node could not finish handling this item (${reason}) [item ${itemIndex}]`, {
				itemIndex,
				description: 'The message may have been sent. Check with the recipient or the provider before sending this item again.',
			});
			fail(failure, itemIndex);
			return failedItem(failure, itemIndex, { delivery: 'unknown', phone_number: request.phone_number, template_code_id: request.message.template.template_code_id });
		}
	};

	let output: Array<INodeExecutionData | undefined>;
	pacer.join();
	try {
		output = await runPool(requests.length, options.maxConcurrency, sendOne, () => firstFailure !== undefined);
	} finally {
		pacer.leave();
		if (claims) await settleRecord(ctx, claims);
	}
	pauses.summarise();
	const { recoveries, probes } = stopEarly.breaker;
	if (recoveries > 0) {
		notice(ctx, `The API failed ${recoveries > 1 ? `${recoveries} times` : 'once'} during this run: sending paused and resumed once it answered again (${probes} probe message(s)).`);
	}
	const accepted = output.filter((item) => item !== undefined && statusOf(item.json) === 'sent').length;
	// An item the run never reached (it stopped without Continue On Fail) was not sent either.
	const notSent = output.filter((item) => item === undefined || statusOf(item.json) === 'notSent').length;

	if (stops.length > 0) {
		const [first] = stops;
		ctx.logger.warn(
			`Template Message stopped sending early: ${first.scope} refusal at item ${first.itemIndex}${first.statusCode !== undefined ? ` (HTTP ${first.statusCode})` : ''}: ${first.reason}. ${accepted} sent, ${notSent} not sent.`,
			{ nodeName: node.name },
		);
	}
	if (firstFailure) {
		firstFailure.description = [
			firstFailure.description,
			`${accepted} other item(s) were accepted before the run stopped${notSent ? ` and ${notSent} were not sent` : ''}. n8n's Retry On Fail will not send the accepted ones again.`,
		]
			.filter(Boolean)
			.join(' ');
		throw firstFailure;
	}
	if (!output.some((item) => item?.json.error !== undefined)) memory.clear();
	notice(ctx, runSummary(output as INodeExecutionData[]));
	return output as INodeExecutionData[];
}

/** The Send Once key of each item to send: valid, and not skipped as a repeat of an earlier one. */
function keysToSend(requests: Array<PreparedMessage | NodeOperationError>, skip: Map<number, Skip>): Map<number, string> {
	const keys = new Map<number, string>();
	requests.forEach((prepared, itemIndex) => {
		if (!(prepared instanceof NodeOperationError) && prepared.key !== undefined && !skip.has(itemIndex)) keys.set(itemIndex, prepared.key);
	});
	return keys;
}

/** Settles the run's record (see Claims.release); if that fails, says so without failing the run. */
async function settleRecord(ctx: IExecuteFunctions, claims: Claims): Promise<void> {
	try {
		await claims.release();
	} catch (error) {
		const reason = truncate(error instanceof Error ? error.message : String(error), 200);
		notice(ctx, `Send Once could not settle its record at the end of the run (${reason}): a later run may skip messages that were not sent (use Forget Sent Messages for their keys), or send again some that were.`, 'warn');
	}
}

/**
 * The credential's Base URL, refused when it would change what is sent: a `user:password@`
 * makes the HTTP client send Basic auth in place of the JWT.
 */
function checkedBaseUrl(ctx: IExecuteFunctions, baseUrl: string): string {
	let url: URL | undefined;
	try {
		url = new URL(baseUrl.trim());
	} catch {
		url = undefined;
	}
	const problem =
		url === undefined
			? 'is not a URL'
			: url.protocol !== 'https:' && url.protocol !== 'http:'
				? `uses ${url.protocol.replace(':', '')}; only http and https are allowed`
				: url.username !== '' || url.password !== ''
					? 'contains a user name or password, which would be sent in place of the JWT'
					: /\/api\/v2(\/|$)/.test(url.pathname)
						? `ends with the API's own path (${url.pathname.replace(/\/+$/, '')}); the node adds /api/v2/push/message itself`
						: undefined;
	if (problem) {
		throw new NodeOperationError(ctx.getNode(), `The credential's Base URL ${problem}`, {
			description: 'Set the Template Message API credential\'s Base URL to the plain address of the API, e.g. https://api.example.com; the JWT goes in its own field.',
		});
	}
	return baseUrl;
}

/** A token with a line break or control character cannot go into a header: said once, nothing sent. */
function checkedToken(ctx: IExecuteFunctions, token: string): string {
	if (hasControlCharacter(token.trim())) {
		throw new NodeOperationError(ctx.getNode(), 'The credential\'s JWT contains a line break or another control character', {
			description: 'Copy the token again from the developer dashboard into the Template Message API credential, as one line.',
		});
	}
	return token;
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
