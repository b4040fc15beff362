import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, NodeApiError } from 'n8n-workflow';
import * as n8nWorkflow from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { FailedOutcome, ItemResult, ItemStatus, PreparedMessage, Refusal, Skip } from '../shared/contracts';
import { FAILED_STATUS, statusOf, unreachable } from '../shared/contracts';
import { FIELD, OPERATION_NAME } from '../shared/fieldNames';
import { optionPath } from '../shared/options';
import { routesToErrorOutput } from '../shared/howRun';
import { failureOf } from './errors';

/** A dry run's valid item: checked, not sent. `skip`: a real run would skip it; `duplicateOf`: it repeats an item, and would go. */
interface DryRunResult {
	kind: 'dryRun';
	skip?: Skip;
	duplicateOf?: number;
}

/** One item's row, before it takes the shape its status and n8n's On Error setting give it. */
export interface RowSource {
	itemIndex: number;
	result: ItemResult | DryRunResult;
	/** Every result but an invalid item's has one. */
	message?: PreparedMessage;
	includeRequest: boolean;
	dryRun?: boolean;
}

/** What a result says, flat, for the columns to read: made by one switch over every kind (`said`). */
interface Said {
	status: ItemStatus | 'dryRun';
	msgid?: string;
	attempts?: number;
	outcome?: FailedOutcome;
	heldBy?: Refusal;
	duplicate?: Skip | { duplicateOf?: number };
	sentBefore?: 'earlier' | 'concurrent';
	sentInEarlierTry?: boolean;
	/** A dry run's item that a real run would skip. */
	wouldSkip?: boolean;
	/** The row carries the request it sent (or would send), with Include Request Payload. */
	hasRequest: boolean;
	/** The node could not finish handling it, or not record it: its row says no more than who and what. */
	unfinished: boolean;
	/** Fields of an invalid item as given, where its message could not be built. */
	identifiedBy?: IDataObject;
}

function said(result: ItemResult | DryRunResult): Said {
	switch (result.kind) {
		case 'sent':
			return { status: 'sent', msgid: result.msgid, attempts: result.attempts, sentInEarlierTry: result.sentInEarlierTry, hasRequest: true, unfinished: false };
		case 'refused':
			return { status: statusOf(result), outcome: result.outcome, attempts: result.attempts, sentInEarlierTry: result.sentInEarlierTry, hasRequest: true, unfinished: false };
		case 'deliveryUnknown':
			return { status: statusOf(result), msgid: result.outcome.msgid, outcome: result.outcome, attempts: result.attempts, sentInEarlierTry: result.sentInEarlierTry, hasRequest: true, unfinished: false };
		case 'fault':
			return { status: statusOf(result), hasRequest: false, unfinished: true };
		case 'heldBack':
			return { status: statusOf(result), heldBy: result.heldBy, attempts: result.attempts, hasRequest: true, unfinished: false };
		case 'notRecorded':
			return { status: statusOf(result), hasRequest: false, unfinished: true };
		case 'duplicate':
			return { status: statusOf(result), duplicate: result.duplicate, hasRequest: false, unfinished: false };
		case 'sentBefore':
			return { status: statusOf(result), sentBefore: result.by, hasRequest: false, unfinished: false };
		case 'inDoubt':
			return { status: statusOf(result), hasRequest: false, unfinished: false };
		case 'invalid':
			return { status: statusOf(result), identifiedBy: result.invalid.identifiedBy, hasRequest: false, unfinished: false };
		case 'dryRun':
			if (result.skip) return { status: 'dryRun', duplicate: result.skip, wouldSkip: true, hasRequest: false, unfinished: false };
			return { status: 'dryRun', duplicate: result.duplicateOf === undefined ? undefined : { duplicateOf: result.duplicateOf }, hasRequest: true, unfinished: false };
		default:
			return unreachable(result);
	}
}

/** What one row is built from: the item's source, what its result says, and a failed row's error. */
interface SendRowBasis extends Omit<RowSource, 'result'> {
	said: Said;
	/** A failed row's error: what n8n shows, and what the row's `error` and `description` say. */
	error?: NodeOperationError | NodeApiError;
}

interface Field {
	column: string;
	from(facts: SendRowBasis): unknown;
	/** Where a failed row keeps it: at the top only, at the top and under details, or (the default) under details only. */
	failedRow?: 'top' | 'both';
	/** Only a failed row has it, under details; not one of the row's columns. */
	detail?: true;
	/** Only in rows of node version 1, so that workflows saved with 0.1.0 keep reading it. */
	version1Only?: true;
	/**
	 * Left out, not null, where the row has none, with Include Input Fields too: n8n up to 1.x runs a node
	 * under Retry On Fail again whenever its first row has an `error`, null included, and every message would go again.
	 */
	neverNull?: true;
}

const FORGET_HINT = `feed this row to a Template Message node set to ${OPERATION_NAME.forget}`;
// The record holds keys only (n8n's deduplication store keeps strings), not which execution sent them: so both.
const SENT_BEFORE = `Sent before, earlier in this execution or by an earlier one of this workflow (${FIELD.sendOnce}: the API took it then): not sent again. To send it again, ${FORGET_HINT}.`;
const CONCURRENT =
	`Another execution of this workflow recorded the same message at the same moment (${FIELD.sendOnce}): not sent here, so that it is not sent twice. Run again if it did not arrive.`;
const IN_DOUBT =
	`In doubt: this message was recorded earlier (by an earlier execution of this workflow, or earlier in this one, Loop Over Items's batches included) but whoever sent it never learnt whether the API took it (its worker was killed, n8n crashed, it was cancelled mid-request, the answer was unreadable, or it is still sending it). Not sent again, so that nobody gets it twice. Once you know it did not arrive, ${FORGET_HINT}, or turn on ${optionPath('sendInDoubt')}.`;

const outcomeOf = ({ said }: SendRowBasis): Partial<FailedOutcome> => said.outcome ?? {};
const identifiedBy = ({ said }: SendRowBasis): IDataObject => said.identifiedBy ?? {};
const onlyTrue = (condition: boolean) => (condition ? true : undefined);

/**
 * Every field a row can have, in the one order every row keeps, and where its value comes from: the one place
 * a column is added. With Include Input Fields each column follows the input's fields, null where the row has
 * none, so that no input value of the same name survives beside the result.
 */
const FIELDS: Field[] = [
	{ column: 'status', from: ({ said }) => said.status, failedRow: 'top' },
	{ column: 'success', from: ({ said }) => said.status === 'sent', failedRow: 'both' },
	{ column: 'itemIndex', from: ({ itemIndex, error }) => (error ? itemIndex : undefined), detail: true },
	{ column: 'description', from: ({ error }) => error?.description ?? undefined, detail: true },
	// A row of unknown delivery keeps a msgid the answer named at its top, where Get Status's Message ID looks.
	{ column: 'msgid', from: ({ said }) => said.msgid, failedRow: 'both' },
	{ column: 'phone_number', from: (facts) => facts.message?.request.phone_number ?? identifiedBy(facts).phone_number, failedRow: 'both' },
	{ column: 'template_code_id', from: (facts) => facts.message?.request.message.template.template_code_id ?? identifiedBy(facts).template_code_id, failedRow: 'both' },
	{ column: 'error', from: ({ error }) => error?.message, failedRow: 'top', neverNull: true },
	{
		column: 'reason',
		from: ({ said }) => {
			if (said.status === 'inDoubt') return IN_DOUBT;
			if (said.sentBefore) return said.sentBefore === 'concurrent' ? CONCURRENT : SENT_BEFORE;
			return said.duplicate && 'reason' in said.duplicate ? said.duplicate.reason : undefined;
		},
	},
	{ column: 'messageKey', from: ({ message }) => message?.key, failedRow: 'both' },
	// A failed row's status under its 0.1.0 name, in 0.1.0's words: a message not sent after a refusal was `failed` there.
	{ column: 'delivery', from: ({ said, error }) => (error ? (said.status === 'notSent' ? 'failed' : said.status) : undefined), failedRow: 'both', version1Only: true },
	{ column: 'stoppedBy', from: ({ said }) => (said.heldBy ? stoppedBy(said.heldBy) : undefined), detail: true },
	{ column: 'attempts', from: ({ said }) => said.attempts },
	{ column: 'skipped', from: ({ said }) => onlyTrue(said.status === 'skipped' || said.status === 'inDoubt' || said.wouldSkip === true) },
	{ column: 'sentBefore', from: ({ said }) => onlyTrue(said.sentBefore !== undefined) },
	{ column: 'inDoubt', from: ({ said }) => onlyTrue(said.status === 'inDoubt') },
	{ column: 'concurrentExecution', from: ({ said }) => onlyTrue(said.sentBefore === 'concurrent') },
	{ column: 'duplicateOf', from: ({ said }) => said.duplicate?.duplicateOf },
	{ column: 'sentInEarlierTry', from: ({ said }) => onlyTrue(said.sentInEarlierTry === true) },
	{ column: 'dryRun', from: ({ dryRun }) => onlyTrue(dryRun === true) },
	{ column: 'preview', from: ({ said, message }) => (said.unfinished ? undefined : message?.preview) },
	{
		column: 'request',
		from: ({ said, message, includeRequest }) => (includeRequest && said.hasRequest ? message?.request : undefined),
	},
	{ column: 'httpCode', from: (facts) => outcomeOf(facts).statusCode, detail: true },
	{ column: 'errorCode', from: (facts) => outcomeOf(facts).errorCode, detail: true },
	{ column: 'apiCode', from: (facts) => outcomeOf(facts).apiCode, detail: true },
	// A failed row's other fields; see rowsOf.
	{ column: 'details', from: () => undefined, failedRow: 'top' },
];

/** The fields of one node version's rows. */
interface RowTable {
	fields: Field[];
	columns: Field[];
	columnNames: ReadonlySet<string>;
	/** The columns a failed row keeps at its top, beside its details. */
	failedRowTop: ReadonlySet<string>;
}

function rowTable(fields: Field[]): RowTable {
	const columns = fields.filter((field) => !field.detail);
	return {
		fields,
		columns,
		columnNames: new Set(columns.map((field) => field.column)),
		failedRowTop: new Set(fields.filter((field) => field.failedRow !== undefined).map((field) => field.column)),
	};
}

const VERSION_1_ROWS = rowTable(FIELDS);
const ROWS = rowTable(FIELDS.filter((field) => !field.version1Only));
const rowTableOf = (node: Pick<INode, 'typeVersion'>): RowTable => (node.typeVersion < 2 ? VERSION_1_ROWS : ROWS);

/** A Send row's columns in a node version's rows, in the one order every row keeps. */
export function sendColumnsOf(typeVersion: number): readonly string[] {
	return rowTableOf({ typeVersion }).columns.map(({ column }) => column);
}

/** A Send row's columns in the node's current version. */
export const SEND_COLUMNS = sendColumnsOf(2);

function stoppedBy(refusal: Refusal): IDataObject {
	const details: IDataObject = { scope: refusal.scope, itemIndex: refusal.itemIndex, reason: refusal.reason };
	if (refusal.statusCode !== undefined) details.httpCode = refusal.statusCode;
	if (refusal.apiCode !== undefined) details.apiCode = refusal.apiCode;
	return details;
}

// "Continue (using error output)" routes an item that carries its error, or whose json holds only
// `error` (and `message`), from n8n 2.36 on `details` too: 2.36 is the first n8n-workflow to export
// `redactedHeaders`, and the package runs on the host's. Before it our `{ error, details }` would
// leave by the success output as if sent, so the item carries its error as well; n8n 1.121 to 2.35
// then keep only the message, which still names the item and the reason (README).
const hostRoutesItemsWithDetails = typeof (n8nWorkflow as Record<string, unknown>).redactedHeaders === 'function';

/** A failed item as n8n's error output takes it (Send's rows and Get Status's alike): `{ error, details }`, made only here. */
export function errorOutputItem(node: INode, message: string, details: IDataObject, itemIndex: number): INodeExecutionData {
	const json = { error: message, details };
	const pairedItem = { item: itemIndex };
	if (hostRoutesItemsWithDetails) return { json, pairedItem };
	return { json, pairedItem, error: new NodeOperationError(node, message, { itemIndex }) };
}

/**
 * Every item's row, in input order. A failed row keeps its error's message and its details apart: flat with
 * the other rows' columns, or as `{ error, details }` when On Error routes it to the error output. Input
 * fields come first, so that a next step can write the result back to the row it came from.
 */
export function rowsOf(ctx: IExecuteFunctions, sources: RowSource[], input: INodeExecutionData[], includeInputFields: boolean): INodeExecutionData[] {
	const node = ctx.getNode();
	const routed = routesToErrorOutput(ctx);
	const table = rowTableOf(node);
	return sources.map((source) => {
		const { result, ...rest } = source;
		const facts: SendRowBasis = { ...rest, said: said(result), error: result.kind !== 'dryRun' && FAILED_STATUS[statusOf(result)] ? failureOf(node, result, source.itemIndex) : undefined };
		const values = new Map(table.fields.map((field) => [field.column, field.from(facts)]));
		const pairedItem = { item: source.itemIndex };
		if (facts.error && routed) return errorOutputItem(node, facts.error.message, detailsOf(table, values, true), source.itemIndex);
		const row = new Map([...values].filter(([name]) => table.columnNames.has(name) && (!facts.error || table.failedRowTop.has(name))));
		if (facts.error) row.set('details', detailsOf(table, values, false));
		return { json: inColumnOrder(table, row, includeInputFields ? input[source.itemIndex]?.json : undefined), pairedItem };
	});
}

/** Include Input Fields (Send's and Get Status's): the input item's fields, but those named as a column of the node's own, which win. */
export function inputFieldsBesides(input: IDataObject | undefined, columnNames: ReadonlySet<string>): IDataObject {
	const fields: IDataObject = {};
	if (input) for (const [name, value] of Object.entries(input)) if (!columnNames.has(name)) fields[name] = value;
	return fields;
}

/** A failed row's fields but its status (unless routed, where details carry it) and its error. */
function detailsOf(table: RowTable, values: Map<string, unknown>, withStatus: boolean): IDataObject {
	const details: IDataObject = {};
	for (const field of table.fields) {
		if (field.failedRow === 'top' && !(withStatus && field.column === 'status')) continue;
		const value = values.get(field.column);
		if (value !== undefined) details[field.column] = value as IDataObject[string];
	}
	return details;
}

function inColumnOrder(table: RowTable, values: Map<string, unknown>, input: IDataObject | undefined): IDataObject {
	const row = inputFieldsBesides(input, table.columnNames);
	for (const { column, neverNull } of table.columns) {
		const value = values.get(column);
		if (value !== undefined || (input && !neverNull)) row[column] = (value ?? null) as IDataObject[string];
	}
	return row;
}
