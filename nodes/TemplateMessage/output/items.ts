import type { IDataObject, INodeExecutionData, NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { FailedOutcome, ItemStatus, Refusal, PreparedMessage, ReadMessage } from '../shared/contracts';
import { isInvalid } from '../shared/contracts';

/** A message's recipient, template, key and (unless left out) preview; shapedForOnError puts the columns in order. */
export function messageColumns({ request, preview, key }: PreparedMessage, withPreview = true): IDataObject {
	const columns: IDataObject = { phone_number: request.phone_number, template_code_id: request.message.template.template_code_id };
	if (key !== undefined) columns.messageKey = key;
	if (withPreview && preview !== undefined) columns.preview = preview;
	return columns;
}

export function itemSummary(message: PreparedMessage, attempts: number, includeRequest: boolean): IDataObject {
	const summary: IDataObject = { ...messageColumns(message), attempts };
	if (includeRequest) summary.request = message.request as unknown as IDataObject;
	return summary;
}

export function skippedItem(message: PreparedMessage, itemIndex: number, status: 'skipped' | 'inDoubt', reason: string, details: IDataObject): INodeExecutionData {
	return { json: { status, success: false, skipped: true, reason, ...details, ...messageColumns(message) }, pairedItem: { item: itemIndex } };
}

export function sentItem(msgid: string, itemIndex: number, summary: IDataObject): INodeExecutionData {
	return { json: { status: 'sent', success: true, msgid, ...summary }, pairedItem: { item: itemIndex } };
}

export function dryRunItem(prepared: ReadMessage, itemIndex: number, includeRequest: boolean, duplicateOf?: number): INodeExecutionData {
	if (isInvalid(prepared)) return failedItem(prepared.invalid, itemIndex, { ...deliveryOf('invalid'), dryRun: true }, prepared.given);
	const json: IDataObject = { status: 'dryRun', success: false, dryRun: true, ...messageColumns(prepared) };
	if (duplicateOf !== undefined) json.duplicateOf = duplicateOf;
	if (includeRequest) json.request = prepared.request as unknown as IDataObject;
	return { json, pairedItem: { item: itemIndex } };
}

/** `delivery`: the column a failed row had before `status` was, kept with the same word. */
export function deliveryOf(status: Exclude<ItemStatus, 'sent' | 'skipped' | 'inDoubt'>): IDataObject {
	return { status, delivery: status };
}

export function failureDetails(status: 'failed' | 'unknown', outcome: FailedOutcome, summary: IDataObject): IDataObject {
	const details: IDataObject = { ...deliveryOf(status), ...summary };
	if (outcome.statusCode !== undefined) details.httpCode = outcome.statusCode;
	if (outcome.errorCode !== undefined) details.errorCode = outcome.errorCode;
	if (outcome.apiCode !== undefined) details.apiCode = outcome.apiCode;
	return details;
}

export function stoppedBy(refusal: Refusal): IDataObject {
	const details: IDataObject = { scope: refusal.scope, itemIndex: refusal.itemIndex, reason: refusal.reason };
	if (refusal.statusCode !== undefined) details.httpCode = refusal.statusCode;
	if (refusal.apiCode !== undefined) details.apiCode = refusal.apiCode;
	return details;
}

/**
 * `error` and `details` only, so that "Continue (using error output)" routes the item to the error output
 * (setting `item.error` would make the engine replace the json with the bare message).
 */
export function failedItem(error: NodeOperationError | NodeApiError, itemIndex: number, { status, ...details }: IDataObject, given: IDataObject = {}): INodeExecutionData {
	return {
		json: {
			error: error.message,
			// The status first, as on every row.
			details: { ...(status === undefined ? {} : { status }), success: false, itemIndex, description: error.description ?? undefined, ...given, ...details },
		},
		pairedItem: { item: itemIndex },
	};
}

export function forgottenAllItem(count: number | undefined, itemCount: number): INodeExecutionData {
	return { json: { forgotten: 'all', count }, pairedItem: Array.from({ length: itemCount }, (_, item) => ({ item })) };
}

export function forgottenItem(messageKey: string, itemIndex: number): INodeExecutionData {
	return { json: { forgotten: true, messageKey }, pairedItem: { item: itemIndex } };
}
