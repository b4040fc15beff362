import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import * as n8nWorkflow from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';


/**
 * With "On Error: Continue (using error output)", n8n moves a failed item to the error output
 * when the item carries its error, or when its json holds only `error` (and `message`); from n8n
 * 2.36 on `details` may be there too. This node's failed items hold `error` and `details`, so on
 * an older n8n they would come out of the success output, where a workflow would treat them as
 * sent. There the item carries its error as well: it reaches the error output, where some versions
 * (1.123, and 2.38 and later) keep only the error message of an item that carries its error; the
 * message still names the item and the reason. n8n-workflow 2.36 is the first to export
 * `redactedHeaders`; the package always runs on the host's n8n-workflow.
 */
const hostRoutesItemsWithDetails = typeof (n8nWorkflow as Record<string, unknown>).redactedHeaders === 'function';

/**
 * The output items in the shape the node's On Error setting needs. With "Continue (using error
 * output)" failed items stay `{ error, details }`, which n8n routes (see above). Otherwise nothing
 * is routed, and a failed item also carries the columns a sent item has (success, phone number,
 * template code id) and its delivery, so that the Table view reads as one table; `details` stays.
 * Every row that is not routed as an error says what became of its item in `status`, keeps the
 * columns' one order and, with Include Input Fields, starts with its input item's fields (see
 * inColumnOrder), so a next step can write the result back to the row it came from.
 */
export function shapedForOnError(ctx: IExecuteFunctions, items: INodeExecutionData[], input: INodeExecutionData[], includeInputFields: boolean): INodeExecutionData[] {
	const node = ctx.getNode();
	const withColumns = (item: INodeExecutionData): INodeExecutionData => {
		const inputItem = includeInputFields ? input[(item.pairedItem as { item: number }).item] : undefined;
		return { ...item, json: inColumnOrder(item.json, inputItem?.json) };
	};
	if (node.onError !== 'continueErrorOutput') return items.map((item) => withColumns(readableFailure(item)));
	// A routed row keeps its status under details (see failedItem): n8n merges the input item into
	// it, and cannot add columns of its own to it.
	const isError = (item: INodeExecutionData) => typeof item.json.error === 'string';
	if (hostRoutesItemsWithDetails) return items.map((item) => (isError(item) ? item : withColumns(item)));
	return items.map((item, itemIndex) => (isError(item) ? { ...item, error: new NodeOperationError(node, item.json.error as string, { itemIndex }) } : withColumns(item)));
}

/**
 * Every column a row of this node can have, in the one order every row keeps, whatever its status.
 * With Include Input Fields, the input item's fields come first, and every one of these follows,
 * empty (null) where the row has none: no input value of the same name survives beside the result.
 */
const COLUMNS = [
	'status',
	'success',
	'msgid',
	'phone_number',
	'template_code_id',
	'error',
	'reason',
	'messageKey',
	'delivery',
	'attempts',
	'skipped',
	'sentBefore',
	'inDoubt',
	'concurrentExecution',
	'duplicateOf',
	'sentInEarlierTry',
	'dryRun',
	'preview',
	'request',
	'details',
] as const;
const COLUMN_NAMES: ReadonlySet<string> = new Set(COLUMNS);

function inColumnOrder(json: IDataObject, input: IDataObject | undefined): IDataObject {
	const row: IDataObject = {};
	if (input) for (const [name, value] of Object.entries(input)) if (!COLUMN_NAMES.has(name)) row[name] = value;
	for (const column of COLUMNS) if (column in json || input) row[column] = json[column] ?? null;
	for (const [name, value] of Object.entries(json)) if (!(name in row)) row[name] = value;
	return row;
}

function readableFailure(item: INodeExecutionData): INodeExecutionData {
	const { error, details } = item.json;
	if (typeof error !== 'string' || typeof details !== 'object' || details === null) return item;
	// The status moves up to the row's own columns.
	const { status, ...rest } = details as IDataObject;
	const { phone_number, template_code_id, messageKey, delivery } = rest;
	const json: IDataObject = { status, success: false };
	if (phone_number !== undefined) json.phone_number = phone_number;
	if (template_code_id !== undefined) json.template_code_id = template_code_id;
	if (messageKey !== undefined) json.messageKey = messageKey;
	Object.assign(json, { delivery, error, details: rest });
	return { ...item, json };
}
