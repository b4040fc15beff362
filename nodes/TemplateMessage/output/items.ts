import type { IDataObject, INodeExecutionData, NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ItemStatus, Outcome, Refusal, PreparedMessage, ReadMessage } from '../shared/contracts';
import { isInvalid } from '../shared/contracts';


/** What every item of a send says about itself. */
export function itemSummary({ request, preview, key }: PreparedMessage, attempts: number, includeRequest: boolean): IDataObject {
	const summary: IDataObject = {
		phone_number: request.phone_number,
		template_code_id: request.message.template.template_code_id,
		attempts,
	};
	if (key !== undefined) summary.messageKey = key;
	if (preview !== undefined) summary.preview = preview;
	if (includeRequest) summary.request = request as unknown as IDataObject;
	return summary;
}

/** An item not sent because it repeats an earlier item of the run, or a message sent by an earlier execution (or maybe sent: in doubt). */
export function skippedItem({ request, preview, key }: PreparedMessage, itemIndex: number, status: 'skipped' | 'inDoubt', reason: string, details: IDataObject): INodeExecutionData {
	const json: IDataObject = {
		status,
		success: false,
		skipped: true,
		reason,
		...details,
		phone_number: request.phone_number,
		template_code_id: request.message.template.template_code_id,
	};
	if (key !== undefined) json.messageKey = key;
	if (preview !== undefined) json.preview = preview;
	return { json, pairedItem: { item: itemIndex } };
}

export function sentItem(msgid: string, itemIndex: number, summary: IDataObject): INodeExecutionData {
	return { json: { status: 'sent', success: true, msgid, ...summary }, pairedItem: { item: itemIndex } };
}

/**
 * What a dry run puts out: the message its recipient would get (and, where asked for, the request
 * that would be sent), or why the item is invalid. An item that repeats an earlier one names it
 * (`duplicateOf`). Nothing was sent, so `success` is false, as on every row not sent.
 */
export function dryRunItem(prepared: ReadMessage, itemIndex: number, includeRequest: boolean, duplicateOf?: number): INodeExecutionData {
	if (isInvalid(prepared)) return failedItem(prepared.invalid, itemIndex, { ...deliveryOf('invalid'), dryRun: true }, prepared.given);
	const { request, preview, key } = prepared;
	const json: IDataObject = { status: 'dryRun', success: false, dryRun: true, phone_number: request.phone_number, template_code_id: request.message.template.template_code_id };
	if (key !== undefined) json.messageKey = key;
	if (preview !== undefined) json.preview = preview;
	if (duplicateOf !== undefined) json.duplicateOf = duplicateOf;
	if (includeRequest) json.request = request as unknown as IDataObject;
	return { json, pairedItem: { item: itemIndex } };
}

/**
 * A failed row's status, first in its details, and its `delivery`: the same word, the column a
 * failed row had before `status` was.
 */
export function deliveryOf(status: Exclude<ItemStatus, 'sent' | 'skipped' | 'inDoubt'>): IDataObject {
	return { status, delivery: status };
}

export function failureDetails(status: 'failed' | 'unknown', outcome: Exclude<Outcome, { kind: 'accepted' }>, summary: IDataObject): IDataObject {
	const details: IDataObject = { ...deliveryOf(status), ...summary };
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
 * would make the engine replace the json with the bare message.) `given`: an invalid item's phone
 * number and template code id as given.
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

/** Forget Sent Messages: the whole record forgotten, for every input item. */
export function forgottenAllItem(count: number | undefined, itemCount: number): INodeExecutionData {
	return { json: { forgotten: 'all', count }, pairedItem: Array.from({ length: itemCount }, (_, item) => ({ item })) };
}

/** Forget Sent Messages: one input item's key forgotten. */
export function forgottenItem(messageKey: string, itemIndex: number): INodeExecutionData {
	return { json: { forgotten: true, messageKey }, pairedItem: { item: itemIndex } };
}
