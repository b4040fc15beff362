import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { lookupError, statusRows, statusSummary } from '../output/statusRows';
import { booleanOf, runOptionRefused } from '../shared/optionSpec';
import { readCredentials } from '../request/credentials';
import { atDefault, failedSendDetails, readRunParameter, readWithDetailsText } from '../request/parameters';
import { hasLoneSurrogate, isEmptyValue } from '../request/text';
import { invalidItemError } from '../output/errors';
import { Redactor } from '../api/redact';
import { lookupAll, notAsked } from '../lookup/lookupAll';
import { readStatusOptions, statusOptionPath, statusOptionsProperty, statusOptionsSet } from '../shared/statusOptions';
import { MAX_MSGID_LENGTH, truncate } from '../shared/bounded';
import { FIELD, OPERATION_NAME } from '../shared/fieldNames';
import { notice } from '../shared/notice';
import { failuresAsRows, routesToErrorOutput } from '../shared/howRun';
import type { StatusInput } from '../shared/status';
import type { ItemStatus } from '../shared/contracts';
import { MESSAGE_ID_DEFAULT, WITHOUT_OWN_MSGID } from '../shared/contracts';
import { isObject } from '../shared/jsonObject';

/** Its entry in the Operation field. */
export const menuEntry: INodePropertyOptions = {
	name: OPERATION_NAME.getStatus,
	value: 'getStatus',
	action: 'Get the delivery status of a message',
	description: 'Look up whether a sent message was delivered, read, failed or rejected, by the msgid a Send put out',
};

/** The canvas subtitle, an expression. */
export const subtitle = '"Get delivery status"';

export const properties: INodeProperties[] = [
	{
		displayName:
			"Execute step first runs the nodes before this one that have no output in the editor, and a Send among them sends its messages again: pin the Send's output (or turn on its Send Once) before trying Get Status on its own.",
		name: 'executeStepNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: FIELD.messageId,
		name: 'messageId',
		type: 'string',
		default: MESSAGE_ID_DEFAULT,
		placeholder: 'e.g. 3f2a9c1e-8b4d-4e1a-9c2f-1d2e3f4a5b6c',
		description:
			"The msgid the API gave the message when it was sent: by default each input item's msgid, so the whole output of a Send (or rows of a sheet holding its msgid column) can come in. An item without one comes out with deliveryStatus null and the reason, and nothing is asked for it.",
	},
	statusOptionsProperty,
];

/**
 * One row per input item: its message's latest status and history. Rows without a msgid, unknown
 * msgids and unreadable answers are that row's result; a lookup that failed (a refused token, an API
 * that keeps failing) fails the run, or its row with Continue On Fail.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const continueOnFail = failuresAsRows(this);
	const settings = lookupSettings(this);
	const given: unknown[] = [];
	const atDefaultMessageId = atDefault(this, 'messageId', MESSAGE_ID_DEFAULT);
	const inputs = items.map((item, itemIndex): StatusInput => {
		let value: unknown;
		try {
			value = readWithDetailsText(this, 'messageId', itemIndex, FIELD.messageId, MESSAGE_ID_DEFAULT, 'msgid');
		} catch (error) {
			const invalid = invalidItemError(this.getNode(), error, itemIndex, item.json.row_number);
			if (!continueOnFail) throw invalid;
			return { invalid };
		}
		// A Send's row whose own status says it has no msgid, written back to a sheet without its details: the
		// msgid cell beside it is an earlier message's, whose status is not this row's.
		if (atDefaultMessageId && failedSendDetails(item.json) === undefined && hasNoMsgidOfItsOwn(item.json)) return { noMsgid: noMsgidReason(item.json) };
		given[itemIndex] = value;
		return msgidOf(value, item.json);
	});
	const lookups = inputs.filter((input) => 'msgid' in input).length;
	const credentials = lookups > 0 ? await readCredentials(this) : undefined;
	const run = credentials
		? await lookupAll(this, inputs, credentials, { ...settings, continueOnFail })
		: { results: inputs.map(notAsked), stoppedAt: undefined, redactor: new Redactor('') };

	if (run.stoppedAt !== undefined && !continueOnFail) {
		const error = lookupError(this.getNode(), run.results[run.stoppedAt], run.stoppedAt);
		if (error) throw error;
	}
	const summary = statusSummary(run.results, run.redactor, settings.wait);
	if (summary) notice(this, summary);
	return [
		statusRows(
			this.getNode(),
			items.map((item, itemIndex) => ({
				itemIndex,
				result: run.results[itemIndex],
				msgid: asGiven(given[itemIndex]),
				phone: inputPhone(item.json),
				fields: settings.includeInputFields ? item.json : undefined,
			})),
			routesToErrorOutput(this),
		),
	];
}

/** What the lookups run with: the request settings and the wait, as given under Options. */
function lookupSettings(ctx: IExecuteFunctions) {
	const set = statusOptionsSet(ctx.getNode().parameters.statusOptions, (name) => readRunParameter(ctx, `statusOptions.${name}`, statusOptionPath(name)));
	return readStatusOptions(set, ctx.getNode().typeVersion, runOptionRefused(ctx.getNode()));
}

/** The msgid to look up, or why there is none. Refused before any request: nothing may change the path asked. */
function msgidOf(value: unknown, json: IDataObject): StatusInput {
	if (typeof value === 'number' && Number.isFinite(value)) {
		// Beyond 2^53 the digits were already lost on the way: the lookup would ask for another message.
		if (Number.isInteger(value) && !Number.isSafeInteger(value)) return { noMsgid: `${FIELD.messageId} ${value} is a number too large to keep its digits: format the column holding the msgid as text` };
		// A sheet keeps 15 digits of a number and gives a 16-digit one back with a 0 for its last: one ending in 0 may be
		// another message's (a database's or a Code node's 16 digits, which end otherwise, are asked for).
		if (Number.isInteger(value) && Math.abs(value) >= SHEET_DIGITS_LIMIT && value % 10 === 0) {
			return {
				noMsgid: `${FIELD.messageId} ${value} is a number of 16 digits ending in 0, as a sheet gives back one whose last digit it dropped (it keeps 15): format the column holding the msgid as text and write the msgid from the Send's output again; if its last digit really is 0 (a database's id), give it as text, e.g. {{ String($json.msgid) }}`,
			};
		}
		return { msgid: String(value) };
	}
	if (isEmptyValue(value)) return { noMsgid: noMsgidReason(json) };
	if (typeof value !== 'string') return { noMsgid: `${FIELD.messageId} is not a text (it is ${Array.isArray(value) ? 'a list' : `a ${typeof value}`}): map it to the msgid a Send put out.` };
	const msgid = value.trim();
	// "1.23457E+18": a sheet showed a long numeric msgid in scientific notation, and kept only what it showed.
	if (/^\d+([.,]\d+)?E\+\d+$/i.test(msgid)) return { noMsgid: `${FIELD.messageId} "${msgid}" is a number in scientific notation, as a sheet shows a long one: its digits were cut. Format the column holding the msgid as text; nothing was looked up.` };
	if (msgid.length > MAX_MSGID_LENGTH) return { noMsgid: `${FIELD.messageId} is ${msgid.length} characters long, longer than a msgid (at most ${MAX_MSGID_LENGTH}): nothing was looked up.` };
	// "." and ".." are steps in a URL's path, not a name; a lone surrogate cannot be put in a URL.
	if (msgid === '.' || msgid === '..' || hasLoneSurrogate(msgid)) return { noMsgid: `${FIELD.messageId} "${truncate(msgid, 40)}" cannot be a msgid: nothing was looked up.` };
	return { msgid };
}

/**
 * The msgid as the item gave it, spaces and all, whether or not it was looked up: a row written back to its
 * sheet is found by the cell's own text (Google Sheets' Update Row compares it whole). Null where there is
 * none, or one too long to be a msgid.
 */
function asGiven(value: unknown): string | null {
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_MSGID_LENGTH + MAX_PADDING) return null;
	return value;
}

/** The smallest number of 16 digits: a sheet's number cell keeps 15. */
const SHEET_DIGITS_LIMIT = 1e15;

/** Spaces around a msgid that a cell may hold and the output keeps. */
const MAX_PADDING = 64;

/** Why an item has no msgid, from what a Send put on its row (its status, flat or under details). */
function noMsgidReason(json: IDataObject): string {
	// A failed row's status is in its details (on the error output, the top holds the input's fields).
	const failed = failedSendDetails(json);
	const details = failed ?? (isObject(json.details) ? (json.details as IDataObject) : {});
	const status = [failed ? undefined : json.status, details.status, details.delivery].find((value): value is string => typeof value === 'string');
	// A repeat of another row of the run, or sent before (Send Once): whatever went out, went out on another row.
	if (status === 'skipped') {
		// A sheet writes a number and true back as text ("3", "TRUE").
		const duplicateOf = typeof json.duplicateOf === 'number' ? json.duplicateOf : typeof json.duplicateOf === 'string' && /^\d{1,9}$/.test(json.duplicateOf.trim()) ? Number(json.duplicateOf) : undefined;
		if (duplicateOf !== undefined) return `No msgid: the Send skipped this item as a repeat of item ${duplicateOf}: look it up by that row's msgid, if it has one.`;
		if (booleanOf(json.sentBefore) === true) return `No msgid: the Send skipped this item, as ${FIELD.sendOnce} found the same message sent before: look it up by the msgid on the row that sent it.`;
		return 'No msgid: the Send skipped this item (its status is skipped), so it cannot be looked up here.';
	}
	const besideMsgid = (typeof json.msgid === 'string' || typeof json.msgid === 'number') && String(json.msgid).trim() !== '' ? truncate(String(json.msgid).trim(), 40) : undefined;
	if (status === 'inDoubt') {
		const maybeIts =
			besideMsgid === undefined
				? ''
				: ` The msgid beside it (${besideMsgid}) was not looked up: it may be one an earlier row of unknown delivery kept for this message, or an earlier message's. To look such rows up, send only the rows with status inDoubt (a Filter) to a Get Status whose ${FIELD.messageId} is {{ $json.msgid }}.`;
		return `No msgid from this run: another run recorded this message and never learnt whether the API took it (its status is inDoubt): check the provider's log before sending it again.${maybeIts}`;
	}
	// A failed row beside a msgid: an earlier message's (the sheet's, or the input n8n laid under the row), or a
	// later one's whose write-back left this row's error and details in place.
	let beside = '';
	if (besideMsgid !== undefined && failed) beside = ` The msgid beside it (${besideMsgid}) is not this failed message's and was not looked up: clear error and details when a later send of the row writes it back.`;
	else if (besideMsgid !== undefined && hasNoMsgidOfItsOwn(json)) {
		beside = ` The msgid beside it (${besideMsgid}) is an earlier message's (a row of this status has none of its own) and was not looked up: write the msgid back as {{ $json.msgid ?? '' }} so that a row without one clears the cell.`;
	}
	if (status === 'unknown') return `No msgid: this message may have gone out (its status is unknown), but the API gave it no msgid to look it up by: check the provider's log before sending it again.${beside}`;
	if (status !== undefined) return `No msgid: the Send did not give this item one (its status is ${truncate(status, 40)}), so there is no status to look up.${beside}`;
	return `No msgid on this item: map ${FIELD.messageId} to the msgid a Send put out. Nothing was looked up.`;
}

/**
 * A Send's row, read at its top (a sheet without the details column), whose status says its message has no msgid
 * of its own (WITHOUT_OWN_MSGID). inDoubt is the Send's word alone; failed, notSent or invalid could be a sheet's
 * own column, and are the Send's with success false or its error beside them.
 */
function hasNoMsgidOfItsOwn(json: IDataObject): boolean {
	const status = typeof json.status === 'string' ? json.status.trim() : '';
	if (!Object.hasOwn(WITHOUT_OWN_MSGID, status) || !WITHOUT_OWN_MSGID[status as ItemStatus]) return false;
	return status === ('inDoubt' satisfies ItemStatus) || booleanOf(json.success) === false || (typeof json.error === 'string' && json.error.trim() !== '');
}

function inputPhone(json: IDataObject): string | null {
	const details = typeof json.details === 'object' && json.details !== null ? (json.details as IDataObject) : {};
	for (const value of [json.phone_number, details.phone_number]) {
		if (typeof value === 'string' && value.trim() !== '') return truncate(value.trim(), 40);
		if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	}
	return null;
}
