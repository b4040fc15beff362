import type { IDataObject, INode, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { truncate } from '../shared/bounded';
import { duration } from '../shared/duration';
import type { FailedOutcome, Refusal } from '../shared/contracts';
import { CREDENTIAL_DISPLAY_NAME } from '../shared/contracts';
import { FIELD } from '../shared/fieldNames';
import type { StatusReading, StatusResult } from '../shared/status';
import { DOCUMENTED_STATUSES } from '../shared/status';
import type { WaitSettings } from '../shared/statusOptions';
import { apiError, REDIRECT_HINT, UNREACHABLE_HINT } from './errors';
import { errorOutputItem, inputFieldsBesides } from './rows';
import { capitalised, withStatus } from '../shared/words';

/** What one row is built from. */
interface StatusRowBasis {
	result: StatusResult;
	reading?: StatusReading;
	/** A lookup that failed: its error, whose message the row carries. */
	error?: NodeApiError | NodeOperationError;
	/** The input item's phone number, for rows whose answer has none. */
	inputPhone: string | null;
	inputMsgid: string | null;
}

/**
 * Every column of a Get Status row, in the one order every row keeps (null where it has no value; `error`
 * left out, as a Send row's: n8n 1.x would take a null one for a failure and look every row up again under
 * Retry On Fail), and where its value comes from: the one place a column is added.
 */
const COLUMNS: Array<{ column: string; from(facts: StatusRowBasis): unknown }> = [
	{ column: 'deliveryStatus', from: ({ reading }) => reading?.deliveryStatus ?? null },
	{ column: 'statusAt', from: ({ reading }) => reading?.statusAt ?? null },
	{ column: 'deliveredAt', from: ({ reading }) => reading?.deliveredAt ?? null },
	{ column: 'readAt', from: ({ reading }) => reading?.readAt ?? null },
	{ column: 'failureCode', from: ({ reading }) => reading?.failureCode ?? null },
	{ column: 'failureReason', from: ({ reading }) => reading?.failureReason ?? null },
	{ column: 'final', from: ({ reading }) => reading?.final ?? null },
	{ column: 'notFound', from: ({ result }) => result.kind === 'notFound' },
	{ column: 'reason', from: reasonOf },
	{ column: 'error', from: ({ error }) => error?.message },
	{ column: 'history', from: ({ reading }) => reading?.history ?? [] },
	{ column: 'historyDropped', from: ({ reading }) => reading?.historyDropped ?? 0 },
	// The msgid asked for: an answer naming another one is unreadable (see lookUp), never this row's.
	{ column: 'msgid', from: ({ reading, inputMsgid }) => inputMsgid ?? reading?.msgid ?? null },
	{ column: 'phone_number', from: ({ reading, inputPhone }) => reading?.phoneNumber ?? inputPhone },
];

const COLUMN_NAMES: ReadonlySet<string> = new Set(COLUMNS.map(({ column }) => column));

function reasonOf({ result, reading }: StatusRowBasis): string | null {
	switch (result.kind) {
		case 'noMsgid':
			return result.reason;
		case 'notFound': {
			const { askedAgain } = result;
			const lastFailed = askedAgain?.lastAskFailed === undefined ? '' : ` Its last lookup failed (${askedAgain.lastAskFailed}).`;
			const asked = askedAgain ? ` Asked ${askedAgain.asks} times over ${duration(askedAgain.waitedMs)} with Wait Until (a msgid sent a moment ago may not be known yet): it did not know it.${lastFailed}` : '';
			return `The API does not know this msgid (HTTP ${String(result.outcome.statusCode)}: ${result.outcome.reason}): it may belong to another account, be mistyped, or be too old to look up.${asked}`;
		}
		case 'unreadable':
			return `The API's answer could not be read: ${result.reason}.`;
		case 'status': {
			const said = [reading && reading.problems.length > 0 ? `${capitalised(reading.problems.join('; '))}.` : '', notReached(result)].filter(Boolean).join(' ');
			return said === '' ? null : said;
		}
		default:
			return null;
	}
}

/** With Wait Until, a row that did not get there (and is not final): how long it was waited for, and what it is still. */
function notReached(result: Extract<StatusResult, { kind: 'status' }>): string {
	const { wait, reading } = result;
	if (!wait || wait.reached || reading.final === true) return '';
	const still = reading.deliveryStatus === null ? 'still without a status' : `still ${reading.deliveryStatus}`;
	const readReceipts = wait.until === 'read' ? ' Many recipients turn read receipts off: read may never come.' : '';
	const failed = wait.lastAskFailed === undefined ? '' : ` Its last lookup brought no newer status (${wait.lastAskFailed}): this is the status it had before.`;
	return `Not ${wait.until} after waiting ${duration(wait.waitedMs)} (asked ${wait.asks} ${wait.asks === 1 ? 'time' : 'times'}): ${still}.${failed}${readReceipts}`;
}

export interface StatusRowInput {
	itemIndex: number;
	result: StatusResult | undefined;
	msgid: string | null;
	phone: string | null;
	/** Include Input Fields: the input item's fields, before the node's own (which win on a name). */
	fields?: IDataObject;
}

/**
 * One row per input item, paired with it. Items the run stopped before (no result) have none: the run throws.
 * Failed and held-back lookups carry their error in `error`, or go to n8n's error output as `{ error, details }`;
 * rows without a msgid, unknown msgids and odd answers are rows like any other.
 */
export function statusRows(node: INode, inputs: StatusRowInput[], routed: boolean): INodeExecutionData[] {
	return inputs.flatMap(({ itemIndex, result, msgid, phone, fields }) => {
		if (result === undefined) return [];
		const facts: StatusRowBasis = {
			result,
			reading: result.kind === 'status' ? result.reading : undefined,
			error: lookupError(node, result, itemIndex),
			inputPhone: phone,
			inputMsgid: msgid,
		};
		// A failed lookup, with "Continue (using error output)": to the error output as a Send's failed row, its
		// details the node's own columns (input fields are for the rows that go on).
		if (facts.error && routed) {
			const details: IDataObject = {};
			for (const { column, from } of COLUMNS) if (column !== 'error') details[column] = from(facts) as IDataObject[string];
			details.description = facts.error.description ?? null;
			return [errorOutputItem(node, facts.error.message, details, itemIndex)];
		}
		const json = inputFieldsBesides(fields, COLUMN_NAMES);
		for (const { column, from } of COLUMNS) {
			const value = from(facts);
			if (value !== undefined) json[column] = value as IDataObject[string];
		}
		return [{ json, pairedItem: { item: itemIndex } }];
	});
}

/** The error of a lookup that failed or was not made; undefined for per-row results. */
export function lookupError(node: INode, result: StatusResult | undefined, itemIndex: number): NodeApiError | NodeOperationError | undefined {
	if (result?.kind === 'failed') return result.noEndpoint ? noEndpointError(node, result.outcome, itemIndex) : lookupFailedError(node, result.outcome, itemIndex);
	if (result?.kind === 'heldBack') return heldBackError(node, result.heldBy, itemIndex);
	if (result?.kind === 'invalid') return result.error;
	return undefined;
}

function lookupFailedError(node: INode, outcome: FailedOutcome, itemIndex: number): NodeApiError {
	const status = outcome.statusCode !== undefined ? ` (HTTP ${outcome.statusCode})` : '';
	let message: string;
	let description: string;
	if (outcome.statusCode === undefined) {
		message = `Could not look up the status: ${outcome.reason} [item ${itemIndex}]`;
		description = `${UNREACHABLE_HINT}, then run the lookup again.`;
	} else if (outcome.statusCode === 401 || outcome.statusCode === 403) {
		message = `The API refused the status lookup${status}: ${outcome.reason} [item ${itemIndex}]`;
		description = `The token was refused${outcome.statusCode === 403 ? ', or may not look up messages' : ''}: check the JWT in the ${CREDENTIAL_DISPLAY_NAME} credential (copy it again from the developer dashboard). No further status was looked up: every lookup would have failed the same way.`;
	} else if (outcome.kind === 'rejected' && outcome.redirect) {
		message = `The API refused the status lookup${status}: ${outcome.reason} [item ${itemIndex}]`;
		description = REDIRECT_HINT;
	} else if (outcome.statusCode >= 500 || outcome.kind === 'unknown') {
		message = `The status lookup failed${status}: ${outcome.reason} [item ${itemIndex}]`;
		description = 'The API failed to answer this lookup, also when asked again. Run the lookup again later: it sends nothing to the recipient.';
	} else {
		message = `The API refused the status lookup${status}: ${outcome.reason} [item ${itemIndex}]`;
		description = `The reason above is the API's own. Check the ${FIELD.messageId} given for this item.`;
	}
	return apiError(node, outcome, { message, description }, itemIndex);
}

const NO_ENDPOINT_MESSAGE = "The status endpoint was not found at the credential's Base URL";
const NO_ENDPOINT_HINT = `The API answers a msgid it does not know with its own error (code 33); this answer came from something else: a Base URL with a wrong host or path, or a proxy in front of the API. Check the Base URL in the ${CREDENTIAL_DISPLAY_NAME} credential: the address the API's /api/v2/… paths are under, without them. No further status was looked up: every lookup would have failed the same way.`;

/** A 404 that is not the API's: the Base URL, not this msgid, is what is wrong. */
function noEndpointError(node: INode, outcome: FailedOutcome, itemIndex: number): NodeApiError {
	const response: JsonObject = { reason: outcome.reason, statusCode: 404 };
	return new NodeApiError(node, response, { message: `${NO_ENDPOINT_MESSAGE}: ${outcome.reason} [item ${itemIndex}]`, description: NO_ENDPOINT_HINT, httpCode: '404', itemIndex });
}

function heldBackError(node: INode, refusal: Refusal, itemIndex: number): NodeOperationError {
	if (refusal.scope === 'throttled') {
		return new NodeOperationError(node, `Not looked up: ${refusal.reason} [item ${itemIndex}]`, {
			itemIndex,
			description: "The API asked to slow down: run the lookup again later. Lookups share the account's limit with sends: a large send at the same time slows them down.",
		});
	}
	// Only a 404 that is not the API's stops the lookups (a 404 in its error shape is that row's notFound).
	if (refusal.scope === 'account' && refusal.statusCode === 404) {
		return new NodeOperationError(node, `Not looked up: ${NO_ENDPOINT_MESSAGE.charAt(0).toLowerCase()}${NO_ENDPOINT_MESSAGE.slice(1)} (item ${refusal.itemIndex}: ${refusal.reason}) [item ${itemIndex}]`, {
			itemIndex,
			description: NO_ENDPOINT_HINT,
		});
	}
	const said = withStatus(refusal);
	const why = refusal.scope === 'server' ? 'the API kept failing' : 'the API refused the lookup';
	return new NodeOperationError(node, `Not looked up: ${why} at item ${refusal.itemIndex} (${said}) [item ${itemIndex}]`, {
		itemIndex,
		description: 'No further status was looked up after that: every lookup would have failed the same way. Fix what it says, then run the lookup again.',
	});
}

/** The documented statuses first, in their table's order, then other words as they come. */
const ORDER = [...DOCUMENTED_STATUSES.keys()];
const MAX_REASONS = 3;

/**
 * "12 read, 30 delivered, 2 rejected: Send Outside Allowed Window, 1 not found"; with Wait Until, what was
 * reached: "Get Status, waiting up to 10 min for read: 30 read, 2 still delivered after 10 min, …".
 */
export function statusSummary(results: Array<StatusResult | undefined>, secrets: TextRedactor, wait?: WaitSettings): string | undefined {
	// Each label's reasons as shown, with the provider's own text in each (a code without the node's "code" before it).
	const counts = new Map<string, { count: number; reasons: Map<string, string> }>();
	// The labels that name a status word of the provider's that the node does not know ("still … after …" too), and the word.
	const unknownWords = new Map<string, string>();
	const add = (label: string, said?: string, shown = said) => {
		const entry = counts.get(label) ?? { count: 0, reasons: new Map<string, string>() };
		entry.count++;
		// One more than are named is enough to say there are more: a reason per row would be kept for every row.
		if (said && shown && entry.reasons.size <= MAX_REASONS) entry.reasons.set(truncate(shown, 80), said);
		counts.set(label, entry);
	};
	for (const result of results) {
		if (result === undefined) continue;
		if (result.kind === 'status') {
			const { deliveryStatus, failureReason, failureCode } = result.reading;
			const still = notReached(result) === '' ? undefined : ` after ${duration(result.wait!.waitedMs)}`;
			if (deliveryStatus === null) add(still ? `still without a status${still}` : LABELS.unreadable);
			else {
				const label = still ? `still ${deliveryStatus}${still}` : deliveryStatus;
				if (still || (failureReason === null && failureCode === null)) add(label);
				else add(label, failureReason ?? String(failureCode), failureReason ?? `code ${String(failureCode)}`);
				if (!ORDER.includes(deliveryStatus)) unknownWords.set(label, deliveryStatus);
			}
		} else add(LABELS[result.kind]);
	}
	if (counts.size === 0) return undefined;
	const rank = (label: string) => {
		const known = ORDER.indexOf(label);
		return known >= 0 ? known : label in TAIL ? ORDER.length + 1 + TAIL[label] : ORDER.length;
	};
	const sorted = [...counts.entries()].map(([label, entry], index) => ({ label, entry, index })).sort((a, b) => rank(a.label) - rank(b.label) || a.index - b.index);
	// The provider's words the node does not know are named up to a few: an API with a word per message would make a hint per row.
	const otherWords = sorted.filter(({ label }) => unknownWords.has(label));
	const folded = otherWords.length > MAX_OTHER_WORDS ? otherWords.slice(MAX_OTHER_WORDS - 1) : [];
	const foldedLabels = new Set(folded.map(({ label }) => label));
	// The provider's words and reasons, each redacted on its own, are joined here: pieces of the token in
	// separate answers could join into it, so none is named when they do (the provider's words alone,
	// without the node's "still … after …" or "code" between them, are what is checked).
	const fromServer: string[] = [];
	const named = sorted.flatMap(({ label, entry }) => {
		if (folded[0]?.label === label) return [`${folded.reduce((sum, other) => sum + other.entry.count, 0)} with ${folded.length} other statuses`];
		if (foldedLabels.has(label)) return [];
		const word = unknownWords.get(label);
		if (word !== undefined) fromServer.push(word);
		const reasons = [...entry.reasons].slice(0, MAX_REASONS);
		fromServer.push(...reasons.map(([, said]) => said));
		const why = reasons.length === 0 ? '' : `: ${reasons.map(([shown]) => shown).join('; ')}${entry.reasons.size > MAX_REASONS ? '; …' : ''}`;
		return [`${entry.count} ${label}${why}`];
	});
	const heading = `Get Status${wait ? `, waiting up to ${duration(wait.limitMs)} for ${wait.until}` : ''}`;
	const summary = `${heading}: ${named.join(', ')}`;
	if (!secrets.inPieces(fromServer)) return secrets.text(summary);
	const others = otherWords.reduce((sum, { entry }) => sum + entry.count, 0);
	const counted = sorted.filter(({ label }) => !unknownWords.has(label)).map(({ label, entry }) => `${entry.count} ${label}`);
	if (others > 0) counted.push(`${others} with ${otherWords.length === 1 ? 'another status' : `${otherWords.length} other statuses`}`);
	return `${heading} (the API's answers held the credential's token, in pieces: their words are left out): ${counted.join(', ')}`;
}

/** What keeps the credential's token out of a text built from the server's (api/redact.ts's Redactor). */
export interface TextRedactor {
	text(text: string): string;
	inPieces(pieces: string[]): boolean;
}

/** How many statuses of words the node does not know the summary names; the rest are counted together. */
const MAX_OTHER_WORDS = 6;

/** In the order the summary names them, after the statuses. */
const LABELS: Record<Exclude<StatusResult['kind'], 'status'>, string> = {
	notFound: 'not found',
	unreadable: 'without a readable status',
	noMsgid: 'without a usable msgid',
	invalid: 'not looked up (Message ID could not be read)',
	failed: 'not looked up (failed)',
	heldBack: 'not looked up (stopped)',
};

const TAIL: Record<string, number> = Object.fromEntries(Object.values(LABELS).map((label, index) => [label, index]));
