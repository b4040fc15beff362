import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemResult, PreparedMessage, ReadMessage, SendRun } from '../shared/contracts';
import { statusOf } from '../shared/contracts';
import { logLine, notice } from '../shared/notice';
import { failureOf } from './errors';
import { rowsOf } from './rows';
import { runSummary } from './runSummary';

/**
 * `results`: undefined where the run stopped before the item. Without Continue On Fail the run's
 * first failure is thrown instead, saying what became of the rest.
 */
export function sendOutput(
	ctx: IExecuteFunctions,
	prepared: ReadMessage[],
	results: Array<ItemResult | undefined>,
	{ stoppedAt, stops, throttled }: Omit<SendRun, 'results'>,
	{ includeRequestPayload, includeInputFields }: { includeRequestPayload: boolean; includeInputFields: boolean },
	input: INodeExecutionData[],
): INodeExecutionData[] {
	const node = ctx.getNode();
	const statuses = results.map((result) => (result === undefined ? undefined : statusOf(result)));
	const accepted = statuses.filter((status) => status === 'sent').length;
	// An item the run never reached was not sent either.
	const notSent = statuses.filter((status) => status === undefined || status === 'notSent').length;

	if (stops.length > 0) {
		const [first] = stops;
		const refusal = `${first.scope} refusal at item ${first.itemIndex}${first.statusCode !== undefined ? ` (HTTP ${first.statusCode})` : ''}: ${first.reason}.`;
		// "Stopped early" only when something was left unsent: a one-item run, or a stop at the last item, held nothing back.
		logLine(
			ctx,
			notSent > 0
				? `Template Message stopped sending early: ${refusal} ${accepted} sent, ${notSent} not sent.`
				: `Template Message: ${refusal} It would have stopped the rest, but nothing was left to send: ${accepted} sent.`,
			'warn',
		);
	}
	if (stoppedAt !== undefined) {
		const error = failureOf(node, results[stoppedAt], stoppedAt);
		// n8n shows no output, and no hint, for a node that threw: the run's summary goes in the error.
		error.description = [error.description, `Run: ${runSummary(statuses, throttled)}`, accepted > 0 ? "n8n's Retry On Fail will not send the accepted ones again." : '']
			.filter(Boolean)
			.join(' ');
		throw error;
	}
	notice(ctx, runSummary(statuses, throttled));
	const sources = results.map((result, itemIndex) => ({
		itemIndex,
		// Every item has a result unless the run stopped, which threw above.
		result: result as ItemResult,
		message: result?.kind === 'invalid' ? undefined : (prepared[itemIndex] as PreparedMessage),
		includeRequest: includeRequestPayload,
	}));
	return rowsOf(ctx, sources, input, includeInputFields);
}
