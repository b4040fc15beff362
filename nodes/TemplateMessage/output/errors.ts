import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiCodeInfo } from '../shared/apiCodes';
import { BASE_URL_ENDS } from '../shared/baseUrl';
import { InvalidFieldError } from '../shared/InvalidFieldError';
import type { InvalidMessage, ItemResult, MessageInput, FailedOutcome, Outcome, Refusal } from '../shared/contracts';
import { CREDENTIAL_DISPLAY_NAME, unreachable } from '../shared/contracts';
import { truncate } from '../shared/bounded';
import { optionPath, OPTIONS } from '../shared/options';
import { FIELD, OPERATION_NAME } from '../shared/fieldNames';
import { withStatus } from '../shared/words';

const STATUS_HINTS: Record<number, string> = {
	400: 'The API refused the content of the message: check the template code id, the number of body values and the buttons against the template.',
	401: `The token was rejected: check the JWT in the ${CREDENTIAL_DISPLAY_NAME} credential.`,
	403: 'The token is not allowed to send this message: check the JWT and the template in the developer dashboard.',
	404: `The send endpoint was not found: check the Base URL in the ${CREDENTIAL_DISPLAY_NAME} credential. It ${BASE_URL_ENDS}.`,
	429: `The API is limiting how fast messages are sent: lower ${optionPath('maxPerSecond')}.`,
};

/**
 * The sentence that lets the user find the item's row. In a later run of the node in one execution
 * (a later batch of Loop Over Items) the index is the batch's, and no upstream index is named:
 * Loop Over Items passes on the pairing its input had, which for a sheet's rows is the trigger's
 * one item, not the row. The phone number cell, where there is one, finds the row.
 */
function whereFrom(itemIndex: number, runIndex: number, phoneNumber: unknown, rowNumber: unknown): string {
	if (runIndex === 0) return `Item ${itemIndex} is input row ${itemIndex + 1} (n8n counts items from 0).${sheetRow(rowNumber)}`;
	const phone = typeof phoneNumber === 'string' || typeof phoneNumber === 'number' ? `, Phone Number ${JSON.stringify(truncate(String(phoneNumber), 40))}` : '';
	return `Item ${itemIndex} is row ${itemIndex + 1} of this batch (run ${runIndex + 1} of this node in this execution${phone}; n8n counts items from 0).${sheetRow(rowNumber)}`;
}

/** n8n's Google Sheets node gives each row it reads its row in the sheet, `row_number`: the row a user opens. */
function sheetRow(rowNumber: unknown): string {
	const row = typeof rowNumber === 'string' && /^\d{1,9}$/.test(rowNumber.trim()) ? Number(rowNumber) : rowNumber;
	return typeof row === 'number' && Number.isSafeInteger(row) && row > 0 ? ` Its row_number (a Google Sheets row) is ${row}.` : '';
}

/** `rowNumber`: the input item's `row_number`, where a sheet gave one. */
export function invalidItemError(node: INode, error: unknown, itemIndex: number, rowNumber: unknown, runIndex = 0, phoneNumber?: unknown): NodeOperationError {
	if (error instanceof InvalidFieldError) {
		const row = whereFrom(itemIndex, runIndex, phoneNumber, rowNumber);
		return new NodeOperationError(node, `${error.field}: ${error.problem} [item ${itemIndex}]`, {
			itemIndex,
			description: error.hint ? `${error.hint}. ${row}` : row,
		});
	}
	if (error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error as Error, { itemIndex });
}

// Longest first: an error's field is named after the longest field name it starts with.
const FIELD_NAMES = [...Object.values(FIELD), ...Object.values(OPTIONS).map((option) => option.property.displayName)].sort((a, b) => b.length - a.length);

export function invalidMessage(node: INode, error: unknown, itemIndex: number, rowNumber: unknown, input?: MessageInput, runIndex = 0): InvalidMessage {
	const field = error instanceof InvalidFieldError ? (FIELD_NAMES.find((name) => error.field === name || error.field.startsWith(`${name} → `)) ?? error.field) : undefined;
	return { invalid: invalidItemError(node, error, itemIndex, rowNumber, runIndex, input?.phoneNumber), field, identifiedBy: identifiersOf(input) };
}

/**
 * What the stop at an invalid item means for what was sent: nothing of this run; in a later run of
 * the node in the same execution (a later batch), what its earlier runs sent went out.
 */
export function nothingSentText(runIndex: number, sentByEarlierRuns: number): string {
	if (runIndex === 0) return 'Nothing was sent.';
	const runs = runIndex === 1 ? 'Its earlier run' : `Its ${runIndex} earlier runs`;
	const sent = sentByEarlierRuns === 0 ? 'sent no message' : `sent ${sentByEarlierRuns === 1 ? '1 message' : `${sentByEarlierRuns} messages`}, which went out`;
	return `Nothing of this batch was sent. ${runs} in this execution (the earlier batches) ${sent}.`;
}

function identifiersOf(input: MessageInput | undefined): IDataObject {
	const values: IDataObject = {};
	for (const [column, value] of [['phone_number', input?.phoneNumber], ['template_code_id', input?.templateCodeId]] as const) {
		if (typeof value === 'string' || typeof value === 'number') values[column] = truncate(String(value), 100);
	}
	return values;
}

/** The outcome comes from the transport with the token already redacted and its texts and body bounded. */
export function sendFailedError(node: INode, outcome: FailedOutcome, itemIndex: number): NodeApiError {
	const { reason } = outcome;
	const status = outcome.statusCode !== undefined ? ` (HTTP ${outcome.statusCode})` : '';
	let message: string;
	let description: string | undefined;
	if (outcome.kind === 'unknown') {
		message = `Delivery unknown${status}: ${reason} [item ${itemIndex}]`;
		description =
			outcome.msgid === undefined
				? 'The API may have accepted this message, so it was not sent again to avoid a duplicate. Check with the recipient or the provider before sending this item again.'
				: `The API may have accepted this message, so it was not sent again to avoid a duplicate. Its answer named the msgid on this row: feed the row to a Template Message node set to ${OPERATION_NAME.getStatus} to learn whether it went out.`;
	} else if (outcome.statusCode === undefined) {
		message = `Could not reach the API: ${reason} [item ${itemIndex}]`;
		description = `The message was not sent${outcome.errorCode ? ` (${outcome.errorCode})` : ''}. ${UNREACHABLE_HINT}.`;
	} else {
		message = `The API refused the message${status}: ${reason} [item ${itemIndex}]`;
		description = refusalHint(outcome);
	}

	return apiError(node, outcome, { message, description }, itemIndex);
}

/** What reaching the API needs, for an error that never got an answer. */
export const UNREACHABLE_HINT = `Check the Base URL in the ${CREDENTIAL_DISPLAY_NAME} credential and that the API is reachable from n8n`;
/** Why a redirect is an error, for a send and a lookup alike. */
export const REDIRECT_HINT =
	"The Base URL does not point at the API itself, and redirects are not followed (they would send the request and the token elsewhere). Put the address the API really answers at (often https://) in the credential's Base URL.";

/** An answer's error, made once for sends and lookups: only the status and the API's body go in, never the request or its headers. */
export function apiError(node: INode, outcome: FailedOutcome, { message, description }: { message: string; description?: string }, itemIndex: number): NodeApiError {
	const response: JsonObject = { reason: outcome.reason };
	if (outcome.statusCode !== undefined) response.statusCode = outcome.statusCode;
	if (outcome.apiCode !== undefined) response.code = outcome.apiCode;
	if (outcome.body !== undefined) response.body = outcome.body as JsonObject;
	return new NodeApiError(node, response, { message, description, httpCode: outcome.statusCode !== undefined ? String(outcome.statusCode) : undefined, itemIndex });
}

function refusalHint(outcome: Extract<Outcome, { kind: 'rejected' }>): string {
	const code = apiCodeInfo(outcome.apiCode);
	if (code) return `Code ${String(outcome.apiCode)}: ${code.meaning}. ${code.hint}`;
	if (outcome.redirect) return REDIRECT_HINT;
	const statusCode = outcome.statusCode ?? 0;
	return (
		STATUS_HINTS[statusCode] ??
		(statusCode >= 500
			? 'The API failed while handling this message and said it was not sent. Try this item again later.'
			: 'The reason above is the API\'s own. Fix the item or the template, then send this item again.')
	);
}

const SCOPE_TEXT: Record<Refusal['scope'], string> = {
	account: 'the API refused the account',
	template: 'the API refused this template',
	server: 'the API kept failing',
	item: 'the API refused an earlier message',
	throttled: 'the API kept this message waiting',
};

export function notSentError(node: INode, refusal: Refusal, itemIndex: number): NodeOperationError {
	if (refusal.scope === 'throttled') {
		return new NodeOperationError(node, `Not sent: ${refusal.reason} [item ${itemIndex}]`, {
			itemIndex,
			description: `The API asked to slow down and this message was not sent: send it again later, or raise ${optionPath('maxThrottleWait')}. Other senders on the same account share its limit.`,
		});
	}
	const said = withStatus(refusal);
	return new NodeOperationError(node, `Not sent: ${SCOPE_TEXT[refusal.scope]} at item ${refusal.itemIndex} (${said}) [item ${itemIndex}]`, {
		itemIndex,
		description:
			refusal.scope === 'template'
				? `No message with template "${refusal.templateCodeId}" was sent after that refusal: it would have failed the same way. Fix the template, then send the items marked notSent again.`
				: 'No further message was sent after that refusal: every one would have failed the same way. Fix what it says, then send the items marked notSent again.',
	});
}

/** A failed item's error, on its row and, when the run stops at it, thrown. Only failed kinds come here (`FAILED`, rows.ts). */
export function failureOf(node: INode, result: ItemResult | undefined, itemIndex: number): NodeOperationError | NodeApiError {
	if (result === undefined) return unfinishedError(node, 'no result', itemIndex);
	switch (result.kind) {
		case 'invalid':
			return result.invalid.invalid;
		case 'refused':
		case 'deliveryUnknown':
			return sendFailedError(node, result.outcome, itemIndex);
		case 'heldBack':
			return notSentError(node, result.heldBy, itemIndex);
		case 'notRecorded':
			return new NodeOperationError(node, `Not sent: ${FIELD.sendOnce} could not record the message in n8n's database (${result.reason}) [item ${itemIndex}]`, {
				itemIndex,
				description:
					result.cause === 'overwritten'
						? `Nothing was sent for this item: run it again, or set ${FIELD.sendOnce} to Off.`
						: `Nothing was sent for this item. Run it again once n8n's database is reachable, or set ${FIELD.sendOnce} to Off.`,
			});
		case 'fault':
			return unfinishedError(node, result.fault, itemIndex);
		case 'sent':
		case 'duplicate':
		case 'sentBefore':
		case 'inDoubt':
			return unfinishedError(node, `a ${result.kind} item taken for a failure`, itemIndex);
		default:
			return unreachable(result);
	}
}

function unfinishedError(node: INode, why: string, itemIndex: number): NodeOperationError {
	return new NodeOperationError(node, `Delivery unknown: the node could not finish handling this item (${why}) [item ${itemIndex}]`, {
		itemIndex,
		description: 'The message may have been sent. Check with the recipient or the provider before sending this item again.',
	});
}
