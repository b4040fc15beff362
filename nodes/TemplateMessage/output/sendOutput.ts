import type { IExecuteFunctions, INode, INodeExecutionData, NodeApiError } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ItemResult, PreparedMessage, ReadMessage, SendRun } from '../shared/contracts';
import { optionPath } from '../shared/contracts';
import { notice } from '../shared/notice';
import { notSentError, sendFailedError } from './errors';
import { deliveryOf, failedItem, failureDetails, itemSummary, messageColumns, sentItem, skippedItem, stoppedBy } from './items';
import { runSummary } from './runSummary';

/**
 * `results`: undefined where the run stopped before the item. Without Continue On Fail the run's
 * first failure is thrown instead, saying what became of the rest.
 */
export function sendOutput(
	ctx: IExecuteFunctions,
	prepared: ReadMessage[],
	results: Array<ItemResult | undefined>,
	{ stoppedAt, stops }: Omit<SendRun, 'results'>,
	includeRequestPayload: boolean,
): INodeExecutionData[] {
	const node = ctx.getNode();
	const output = results.map((result, itemIndex) => result && resultItem(node, result, prepared[itemIndex] as PreparedMessage, itemIndex, includeRequestPayload));
	const statuses = results.map((result) => result?.status);
	const accepted = statuses.filter((status) => status === 'sent').length;
	// An item the run never reached was not sent either.
	const notSent = statuses.filter((status) => status === undefined || status === 'notSent').length;

	if (stops.length > 0) {
		const [first] = stops;
		ctx.logger.warn(
			`Template Message stopped sending early: ${first.scope} refusal at item ${first.itemIndex}${first.statusCode !== undefined ? ` (HTTP ${first.statusCode})` : ''}: ${first.reason}. ${accepted} sent, ${notSent} not sent.`,
			{ nodeName: node.name },
		);
	}
	if (stoppedAt !== undefined) {
		const error = failureOf(node, results[stoppedAt], stoppedAt);
		// n8n shows no output, and no hint, for a node that threw: the run's summary goes in the error.
		error.description = [error.description, `Run: ${runSummary(statuses)}`, accepted > 0 ? "n8n's Retry On Fail will not send the accepted ones again." : '']
			.filter(Boolean)
			.join(' ');
		throw error;
	}
	notice(ctx, runSummary(statuses));
	return output as INodeExecutionData[];
}

const FORGET_HINT = 'feed this row to a Template Message node set to Forget Sent Messages';
const SENT_BEFORE = `Sent by an earlier execution of this workflow (Send Once: the API took it then): not sent again. To send it again, ${FORGET_HINT}.`;
const CONCURRENT =
	'Another execution of this workflow recorded the same message at the same moment (Send Once): not sent here, so that it is not sent twice. Run again if it did not arrive.';
const IN_DOUBT =
	`In doubt: an earlier execution of this workflow recorded this message but never learnt whether the API took it (its worker was killed, n8n crashed, it was cancelled mid-request, the answer was unreadable, or it is still sending it). Not sent again, so that nobody gets it twice. Once you know it did not arrive, ${FORGET_HINT}, or turn on ${optionPath('sendInDoubt')}.`;

/** `message`: every result but an invalid item's has one. */
function resultItem(node: INode, result: ItemResult, message: PreparedMessage, itemIndex: number, includeRequestPayload: boolean): INodeExecutionData {
	switch (result.status) {
		case 'invalid':
			return failedItem(result.invalid.invalid, itemIndex, deliveryOf('invalid'), result.invalid.given);
		case 'skipped':
			if ('duplicate' in result) return skippedItem(message, itemIndex, 'skipped', result.duplicate.reason, { duplicateOf: result.duplicate.duplicateOf });
			return result.sentBefore === 'concurrent'
				? skippedItem(message, itemIndex, 'skipped', CONCURRENT, { sentBefore: true, concurrentExecution: true })
				: skippedItem(message, itemIndex, 'skipped', SENT_BEFORE, { sentBefore: true });
		case 'inDoubt':
			return skippedItem(message, itemIndex, 'inDoubt', IN_DOUBT, { inDoubt: true });
		case 'sent': {
			const summary = itemSummary(message, result.attempts, includeRequestPayload);
			if (result.sentInEarlierTry) summary.sentInEarlierTry = true;
			return sentItem(result.msgid, itemIndex, summary);
		}
	}
	if ('fault' in result || 'notRecorded' in result) {
		return failedItem(failureOf(node, result, itemIndex), itemIndex, { ...deliveryOf(result.status), ...messageColumns(message, false) });
	}
	const summary = itemSummary(message, result.attempts, includeRequestPayload);
	if ('heldBy' in result) return failedItem(notSentError(node, result.heldBy, itemIndex), itemIndex, { ...deliveryOf('notSent'), stoppedBy: stoppedBy(result.heldBy), ...summary });
	if (result.sentInEarlierTry) summary.sentInEarlierTry = true;
	return failedItem(failureOf(node, result, itemIndex), itemIndex, failureDetails(result.status, result.outcome, summary));
}

/** Both the failed item's error and what the run throws when it stops at that item. */
function failureOf(node: INode, result: ItemResult | undefined, itemIndex: number): NodeOperationError | NodeApiError {
	if (result?.status === 'invalid') return result.invalid.invalid;
	if (result !== undefined && 'outcome' in result) return sendFailedError(node, result.outcome, itemIndex);
	if (result !== undefined && 'notRecorded' in result) {
		return new NodeOperationError(node, `Not sent: Send Once could not record the message in n8n's database (${result.notRecorded}) [item ${itemIndex}]`, {
			itemIndex,
			description: 'Nothing was sent for this item. Run it again once n8n\'s database is reachable, or set Send Once to Off.',
		});
	}
	return new NodeOperationError(node, `Delivery unknown: the node could not finish handling this item (${result !== undefined && 'fault' in result ? result.fault : 'no result'}) [item ${itemIndex}]`, {
		itemIndex,
		description: 'The message may have been sent. Check with the recipient or the provider before sending this item again.',
	});
}
