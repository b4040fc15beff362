import type { IDataObject, INodeExecutionData, NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Outcome } from '../send/outcome';
import type { SendRequestBody } from '../request/payload';
import type { Refusal } from '../send/stopEarly';

/** What every item of a send says about itself. */
export function itemSummary(request: SendRequestBody, attempts: number, includeRequest: boolean): IDataObject {
	const summary: IDataObject = {
		phone_number: request.phone_number,
		template_code_id: request.message.template.template_code_id,
		attempts,
	};
	if (includeRequest) summary.request = request as unknown as IDataObject;
	return summary;
}

export function sentItem(msgid: string, itemIndex: number, summary: IDataObject): INodeExecutionData {
	return { json: { success: true, msgid, ...summary }, pairedItem: { item: itemIndex } };
}

/** What a dry run puts out: the request that would be sent, or why the item is invalid. */
export function dryRunItem(request: SendRequestBody | NodeOperationError, itemIndex: number): INodeExecutionData {
	if (!('phone_number' in request)) return failedItem(request, itemIndex, { delivery: 'invalid', dryRun: true });
	return {
		json: {
			dryRun: true,
			phone_number: request.phone_number,
			template_code_id: request.message.template.template_code_id,
			request: request as unknown as IDataObject,
		},
		pairedItem: { item: itemIndex },
	};
}

export function failureDetails(outcome: Exclude<Outcome, { kind: 'accepted' }>, summary: IDataObject): IDataObject {
	const details: IDataObject = { delivery: outcome.kind === 'unknown' ? 'unknown' : 'failed', ...summary };
	if (outcome.statusCode !== undefined) details.httpCode = outcome.statusCode;
	if (outcome.errorCode !== undefined) details.errorCode = outcome.errorCode;
	if (outcome.apiCode !== undefined) details.apiCode = outcome.apiCode;
	return details;
}

/** The refusal that held an item back, for its details. */
export function stoppedBy(refusal: Refusal): IDataObject {
	const details: IDataObject = { scope: refusal.scope, itemIndex: refusal.itemIndex, reason: refusal.reason };
	if (refusal.statusCode !== undefined) details.httpCode = refusal.statusCode;
	if (refusal.apiCode !== undefined) details.apiCode = refusal.apiCode;
	return details;
}

/**
 * n8n's shape for an item that failed under "On Error: Continue": `error` and `details` only, so
 * that "Continue (using error output)" routes it to the error output. (Setting `item.error`
 * would make the engine replace the json with the bare message.)
 */
export function failedItem(error: NodeOperationError | NodeApiError, itemIndex: number, details: IDataObject): INodeExecutionData {
	return {
		json: {
			error: error.message,
			details: { success: false, itemIndex, description: error.description ?? undefined, ...details },
		},
		pairedItem: { item: itemIndex },
	};
}
