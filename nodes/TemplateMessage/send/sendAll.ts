import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { truncate } from '../shared/bounded';
import { FIELD, OPERATION_NAME } from '../shared/fieldNames';
import { Claims } from '../sendOnce/claims';
import type { DeliveryContext } from './delivery';
import { deliver } from './delivery';
import type { PreparedMessage, RunOptions, SendCredentials, SendResult, SendRun } from '../shared/contracts';
import { failsTheNode } from '../shared/contracts';
import { optionPath } from '../shared/options';
import { FlowControl, SYSTEM_CLOCK } from '../flow/flowControl';
import { accountPacer } from '../flow/pacer';
import { runPool } from '../flow/pool';
import { Progress } from './progress';
import { Redactor } from '../api/redact';
import { logLine, notice, noticesOf } from '../shared/notice';
import { MessageRecord } from '../sendOnce/record';
import { SentMemory } from './sentMemory';
import { tryMemoryName } from '../shared/tryMemory';
import { postMessage } from '../api/transport';

/**
 * Sends the messages (undefined: an item not to send). Without Continue On Fail the first failure stops further
 * sends (`stoppedAt`) once every request on the wire has come back; with it, refusals that hold for every message
 * do (see StopEarly). The node turns the plain results into output items and errors.
 */
export async function sendAll(
	ctx: IExecuteFunctions,
	messages: Array<PreparedMessage | undefined>,
	credentials: SendCredentials,
	options: RunOptions,
	continueOnFail: boolean,
	/** n8n's run index of the node in this execution: each batch of a loop keeps its own Retry On Fail memory. */
	runIndex: number,
): Promise<SendRun> {
	const node = ctx.getNode();
	const keys = new Map(messages.flatMap((message, itemIndex) => (message?.key === undefined ? [] : [[itemIndex, message.key] as const])));
	const claims =
		options.sendOnce === 'off'
			? undefined
			: new Claims(MessageRecord.open(ctx, options.maxRemembered), keys, {
					concurrency: options.maxConcurrency,
					maxPerSecond: options.maxPerSecond,
					sendInDoubt: options.sendInDoubt,
				});
	const redactor = new Redactor(credentials.token);
	const signal = ctx.getExecutionCancelSignal?.();
	const flow = new FlowControl(
		accountPacer(credentials, options.maxPerSecond),
		{ maxThrottleWaitMs: options.maxThrottleWait, maxOutageWaitMs: options.maxOutageWait, continueOnFail, maxPerSecond: options.maxPerSecond },
		noticesOf(ctx),
		SYSTEM_CLOCK,
		signal,
	);
	const memory = new SentMemory(
		ctx.getContext('node'),
		tryMemoryName(ctx, 'sent', runIndex, () => messages.map((message) => message?.tryKey)),
	);
	const context: DeliveryContext = {
		post: async (request) => await postMessage(ctx, credentials.url, request, options.timeout, credentials.decrypted, redactor),
		flow,
		retry: options,
		memory,
		claims,
		redactor,
		progress: new Progress(
			messages.filter((message) => message !== undefined).length,
			(line) => {
				logLine(ctx, line);
				// n8n shows it in the browser's console during a manual run only.
				ctx.sendMessageToUI?.(line);
			},
			SYSTEM_CLOCK.now,
		),
	};

	let results: Array<SendResult | undefined>;
	try {
		results = await sendEach(messages, context, { node, concurrency: options.maxConcurrency, signal });
	} finally {
		if (claims) await settleRecord(ctx, claims, options.maxRemembered);
	}
	flow.summarise();
	// n8n runs the node again (Retry On Fail) only after it failed, or when its first row carries an error (an
	// invalid item, with On Error: Continue): only when every item was sent need what this run sent not be kept.
	// Not in a try that found any in the memory: n8n up to 1.11x tries again Max Tries − 1 times whatever the
	// tries after its first put out, and a third try would send everything again.
	const everySent = results.every((result) => result !== undefined && (result.kind === 'sent' || result.kind === 'sentBefore'));
	const retried = results.some((result) => result !== undefined && 'sentInEarlierTry' in result && result.sentInEarlierTry);
	if (!flow.stopping && everySent && !retried) memory.clear();
	return { results, stoppedAt: flow.firstFailure, stops: flow.stops, throttled: flow.throttled };
}

/** Everything sendAll does but reading n8n's context, so that it runs on a simulated clock too. */
export async function sendEach(
	messages: Array<PreparedMessage | undefined>,
	context: DeliveryContext,
	{ node, concurrency, signal }: { node: INode; concurrency: number; signal?: AbortSignal },
): Promise<Array<SendResult | undefined>> {
	const { flow, claims, redactor, progress } = context;
	const sendOne = async (itemIndex: number): Promise<SendResult | undefined> => {
		const message = messages[itemIndex];
		if (message === undefined) return undefined;
		const result = await sendOrFault(itemIndex, message);
		progress?.handledOne(result);
		return result;
	};
	const sendOrFault = async (itemIndex: number, message: PreparedMessage): Promise<SendResult | undefined> => {
		try {
			const result = await deliver(itemIndex, message, context);
			if (result !== undefined && failsTheNode(result)) flow.failed(itemIndex);
			return result;
		} catch (error) {
			// Cancelled: the run is over, the pool stops starting sends.
			if (signal?.aborted) throw new NodeOperationError(node, error as Error, { itemIndex });
			// A fault of the node's own while handling this item fails this item, never the run. The
			// request may have left, so it counts as possibly sent.
			claims?.departing(itemIndex);
			flow.failed(itemIndex);
			return { kind: 'fault', fault: truncate(redactor.text(error instanceof Error ? error.message : String(error)), 200) };
		}
	};
	flow.begin();
	try {
		return await runPool(messages.length, concurrency, sendOne, () => flow.stopping);
	} finally {
		flow.end();
	}
}

/** Warns when keeping the record to its size pushed keys out (a later run would send them again); never fails the run. */
async function settleRecord(ctx: IExecuteFunctions, claims: Claims, maxRemembered: number): Promise<void> {
	try {
		const { pushedOut } = await claims.release();
		if (pushedOut > 0) {
			notice(
				ctx,
				`${FIELD.sendOnce} keeps the newest ${maxRemembered} values of this workflow's record (${optionPath('maxRemembered')}): this run pushed out the ${pushedOut} oldest messages. A later run would send those messages again if their rows come back: raise ${optionPath('maxRemembered')} above the number of rows the workflow sends to (each message takes one value).`,
				'warn',
			);
		}
	} catch (error) {
		const reason = truncate(error instanceof Error ? error.message : String(error), 200);
		notice(ctx, `${FIELD.sendOnce} could not settle its record at the end of the run (${reason}): a later run may skip messages that were not sent (use ${OPERATION_NAME.forget} for their keys), or send again some that were.`, 'warn');
	}
}
