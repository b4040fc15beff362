import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import * as n8nWorkflow from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

// "Continue (using error output)" routes an item that carries its error, or whose json holds only
// `error` (and `message`), from n8n 2.36 on `details` too: 2.36 is the first n8n-workflow to export
// `redactedHeaders`, and the package runs on the host's. Before it our `{ error, details }` would
// leave by the success output as if sent, so the item carries its error as well; some versions
// (1.123, 2.38+) then keep only the message, which still names the item and the reason.
const hostRoutesItemsWithDetails = typeof (n8nWorkflow as Record<string, unknown>).redactedHeaders === 'function';

/**
 * Unless On Error routes them, failed rows also get a sent row's columns, so that the Table view reads as one
 * table. Input fields come first so that a next step can write the result back to the row it came from.
 */
export function shapedForOnError(ctx: IExecuteFunctions, items: INodeExecutionData[], input: INodeExecutionData[], includeInputFields: boolean): INodeExecutionData[] {
	const node = ctx.getNode();
	const withColumns = (item: INodeExecutionData): INodeExecutionData => {
		const inputItem = includeInputFields ? input[(item.pairedItem as { item: number }).item] : undefined;
		return { ...item, json: inColumnOrder(item.json, inputItem?.json) };
	};
	if (node.onError !== 'continueErrorOutput') return items.map((item) => withColumns(readableFailure(item)));
	// A routed row must stay { error, details }, its status under details; n8n merges the input item into it.
	const isError = (item: INodeExecutionData) => typeof item.json.error === 'string';
	if (hostRoutesItemsWithDetails) return items.map((item) => (isError(item) ? item : withColumns(item)));
	return items.map((item, itemIndex) => (isError(item) ? { ...item, error: new NodeOperationError(node, item.json.error as string, { itemIndex }) } : withColumns(item)));
}

// In the one order every row keeps. With Include Input Fields every one follows the input's fields,
// null where the row has none, so that no input value of the same name survives beside the result.
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
	const { status, ...rest } = details as IDataObject;
	const json: IDataObject = { status, success: false };
	for (const column of ['phone_number', 'template_code_id', 'messageKey']) {
		if (rest[column] !== undefined) json[column] = rest[column];
	}
	Object.assign(json, { delivery: rest.delivery, error, details: rest });
	return { ...item, json };
}
