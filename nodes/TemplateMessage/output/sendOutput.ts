import type { IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { PreparedMessage, ReadMessage, SendResult, SendRun, Skip } from '../shared/contracts';
import { isInvalid, optionPath } from '../shared/contracts';
import { notice } from '../shared/notice';
import { notSentError, sendFailedError } from './errors';
import { failedItem, failureDetails, itemSummary, sentItem, skippedItem, stoppedBy } from './items';
import { runSummary, statusOf } from './runSummary';

/**
 * A real run's output: one item per input item, in order, from what was read (the invalid items'
 * errors), what was skipped as a repeat, and what the send stage says became of each message.
 * Without Continue On Fail the run's first failure is thrown instead, saying what became of the
 * rest; otherwise the run is summed up above the output.
 */
export function sendOutput(
	ctx: IExecuteFunctions,
	prepared: ReadMessage[],
	skipped: Map<number, Skip>,
	run: SendRun,
	includeRequestPayload: boolean,
): INodeExecutionData[] {
	const node = ctx.getNode();
	const output = prepared.map((message, itemIndex): INodeExecutionData | undefined => {
		if (isInvalid(message)) return failedItem(message.invalid, itemIndex, { delivery: 'invalid' }, message.given);
		const repeat = skipped.get(itemIndex);
		if (repeat !== undefined) return skippedItem(message, itemIndex, repeat.reason, { duplicateOf: repeat.duplicateOf });
		const result = run.results[itemIndex];
		return result && resultItem(node, result, message, itemIndex, includeRequestPayload);
	});
	const accepted = output.filter((item) => item !== undefined && statusOf(item.json) === 'sent').length;
	// An item the run never reached (it stopped without Continue On Fail) was not sent either.
	const notSent = output.filter((item) => item === undefined || statusOf(item.json) === 'notSent').length;

	if (run.stops.length > 0) {
		const [first] = run.stops;
		ctx.logger.warn(
			`Template Message stopped sending early: ${first.scope} refusal at item ${first.itemIndex}${first.statusCode !== undefined ? ` (HTTP ${first.statusCode})` : ''}: ${first.reason}. ${accepted} sent, ${notSent} not sent.`,
			{ nodeName: node.name },
		);
	}
	if (run.stoppedAt !== undefined) {
		const error = failureOf(node, run.results[run.stoppedAt], prepared[run.stoppedAt], run.stoppedAt);
		// n8n shows no output, and no hint, for a node that threw: the run's summary goes in the error.
		error.description = [error.description, `Run: ${runSummary(output)}`, accepted > 0 ? "n8n's Retry On Fail will not send the accepted ones again." : '']
			.filter(Boolean)
			.join(' ');
		throw error;
	}
	const items = output as INodeExecutionData[];
	notice(ctx, runSummary(items));
	return items;
}

const FORGET_HINT = 'feed this row to a Template Message node set to Forget Sent Messages';
const SENT_BEFORE = `Sent by an earlier execution of this workflow (Send Once: the API took it then): not sent again. To send it again, ${FORGET_HINT}.`;
const IN_DOUBT =
	`In doubt: an earlier execution of this workflow recorded this message but never learnt whether the API took it (its worker was killed, n8n crashed, it was cancelled mid-request, the answer was unreadable, or it is still sending it). Not sent again, so that nobody gets it twice. Once you know it did not arrive, ${FORGET_HINT}, or turn on ${optionPath('sendInDoubt')}.`;

/** The output item of one message the send stage handled. */
function resultItem(node: INode, result: SendResult, message: PreparedMessage, itemIndex: number, includeRequestPayload: boolean): INodeExecutionData {
	const { request, key } = message;
	const recipient = { phone_number: request.phone_number, template_code_id: request.message.template.template_code_id, ...(key === undefined ? {} : { messageKey: key }) };
	switch (result.kind) {
		case 'sentBefore':
			return result.concurrent
				? skippedItem(
						message,
						itemIndex,
						'Another execution of this workflow recorded the same message at the same moment (Send Once): not sent here, so that it is not sent twice. Run again if it did not arrive.',
						{ sentBefore: true, concurrentExecution: true },
					)
				: skippedItem(message, itemIndex, SENT_BEFORE, { sentBefore: true });
		case 'inDoubt':
			return skippedItem(message, itemIndex, IN_DOUBT, { inDoubt: true });
		case 'notRecorded':
			return failedItem(failureOf(node, result, message, itemIndex), itemIndex, { delivery: 'notSent', ...recipient });
		case 'fault':
			return failedItem(failureOf(node, result, message, itemIndex), itemIndex, { delivery: 'unknown', ...recipient });
		case 'notSent': {
			const summary = itemSummary(message, result.attempts, includeRequestPayload);
			return failedItem(notSentError(node, result.refusal, itemIndex), itemIndex, { delivery: 'notSent', stoppedBy: stoppedBy(result.refusal), ...summary });
		}
		case 'sent':
		case 'failed': {
			const summary = itemSummary(message, result.attempts, includeRequestPayload);
			if (result.sentInEarlierTry) summary.sentInEarlierTry = true;
			if (result.kind === 'sent') return sentItem(result.msgid, itemIndex, summary);
			return failedItem(failureOf(node, result, message, itemIndex), itemIndex, failureDetails(result.outcome, summary));
		}
	}
}

/** The error of an item that failed: on its output item, and what the run throws when it stops at that item. */
function failureOf(node: INode, result: SendResult | undefined, message: ReadMessage, itemIndex: number) {
	if (isInvalid(message)) return message.invalid;
	switch (result?.kind) {
		case 'failed':
			return sendFailedError(node, result.outcome, itemIndex);
		case 'notRecorded':
			return new NodeOperationError(node, `Not sent: Send Once could not record the message in n8n's database (${result.reason}) [item ${itemIndex}]`, {
				itemIndex,
				description: 'Nothing was sent for this item. Run it again once n8n\'s database is reachable, or set Send Once to Off.',
			});
		default:
			return new NodeOperationError(node, `Delivery unknown: the node could not finish handling this item (${result?.kind === 'fault' ? result.reason : 'no result'}) [item ${itemIndex}]`, {
				itemIndex,
				description: 'The message may have been sent. Check with the recipient or the provider before sending this item again.',
			});
	}
}
