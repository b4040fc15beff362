import type { IExecuteFunctions, INodeExecutionData, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { invalidItemError } from '../output/errors';
import { errorOutputItem } from '../output/rows';
import { failuresAsRows, routesToErrorOutput } from '../shared/howRun';
import { readForgetAll, readForgetKey, readRunIndex } from '../request/parameters';
import { ForgetTries } from '../sendOnce/forgetTries';
import { tryMemoryName } from '../shared/tryMemory';
import { MessageRecord } from '../sendOnce/record';
import { FORGET_KEY_DEFAULT, MESSAGE_KEY_FIELD } from '../shared/contracts';
import { FIELD, OPERATION_NAME, SEND_ONCE_CHOICE } from '../shared/fieldNames';

/** Its entry in the Operation field. */
export const menuEntry: INodePropertyOptions = {
	name: OPERATION_NAME.forget,
	value: 'forget',
	action: 'Forget sent messages',
	description: `Clear keys from this workflow's ${FIELD.sendOnce} record, so that those messages can be sent again`,
};

/** The canvas subtitle, an expression. */
export const subtitle = '"Forget sent messages"';

export const properties: INodeProperties[] = [
	{
		displayName: 'Forget',
		name: 'forget',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'The Key of Each Input Item', value: 'keys', description: 'A later run sends these messages again' },
			{
				name: 'Everything This Workflow Remembers',
				value: 'all',
				description: "Clears the workflow's whole record, including what Remove Duplicates nodes of this workflow keep with scope Workflow",
			},
		],
		default: 'keys',
	},
	{
		displayName: MESSAGE_KEY_FIELD,
		name: 'forgetKey',
		type: 'string',
		default: FORGET_KEY_DEFAULT,
		displayOptions: { show: { forget: ['keys'] } },
		description:
			`The key as ${FIELD.sendOnce} recorded it: a sent item's messageKey, your own key, or for ${SEND_ONCE_CHOICE.recipientTemplate} the number as sent and the template code ID joined by |, e.g. 6281234567890|3f2a…:order_confirmed`,
	},
];

/** A key the record did not hold: mistyped, or a number not written as Send writes it. */
const NOT_HELD = `${FIELD.sendOnce} holds no message with this key for this workflow: nothing was forgotten. A key is the messageKey of the row that sent it; for ${SEND_ONCE_CHOICE.recipientTemplate}, the number as sent (digits only, with the country code) and the Template Code ID, joined by |.`;

/** A Send's failed row without a key (see readForgetKey). */
const NEVER_RECORDED = `This row is a Send's failed row without a messageKey: its message never reached ${FIELD.sendOnce}'s record, so there is nothing to forget.`;

/** A key a running execution of this workflow holds (see MessageRecord.forget). */
const BUSY = `An execution of this workflow running now is sending this message, or recording it as sent before: nothing was forgotten (forgotten now, a run beside it could send the message a second time, or that execution would record the key again). Run the Forget again once that execution has ended.`;

function notClearedReason(held: number): string {
	const keys = held === 1 ? 'one message' : `${held.toLocaleString('en-US')} messages`;
	return `Nothing was cleared: an execution of this workflow running now is sending ${keys}, or recording ${held === 1 ? 'it' : 'them'} as sent before (cleared now, a run beside it could send a message a second time, or leave one in doubt unsent). Run the Forget again once that execution has ended.`;
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const itemCount = this.getInputData().length;
	const continueOnFail = failuresAsRows(this);
	const node = this.getNode();
	const routed = routesToErrorOutput(this);
	// Opened outside the store's calls: a workflow not saved, an n8n without the store, say their own fix.
	const record = MessageRecord.open(this);
	if (readForgetAll(this)) {
		const cleared = await storeCall(this, async () => await record.forgetAll(), continueOnFail, STORE_FAILED_ALL);
		const pairedItem = Array.from({ length: itemCount }, (_, item) => ({ item }));
		if (!(cleared instanceof NodeOperationError)) {
			const { count, heldByRuns } = cleared;
			return [[{ json: heldByRuns === 0 ? { forgotten: 'all', count } : { forgotten: false, count, reason: notClearedReason(heldByRuns) }, pairedItem }]];
		}
		const details = { success: false, description: cleared.description ?? undefined };
		return [[{ ...(routed ? errorOutputItem(node, cleared.message, details, 0) : { json: { error: cleared.message, details } }), pairedItem }]];
	}
	const keys = Array.from({ length: itemCount }, (_, itemIndex) => {
		try {
			return readForgetKey(this, itemIndex);
		} catch (error) {
			const invalid = invalidItemError(node, error, itemIndex, this.getInputData()[itemIndex]?.json.row_number);
			invalid.description = `Map the key to forget: the default, ${FORGET_KEY_DEFAULT.slice(1)}, takes it from any row a Template Message node with ${FIELD.sendOnce} put out.`;
			if (!continueOnFail) throw invalid;
			return invalid;
		}
	});
	const valid = keys.filter((key): key is string => typeof key === 'string');
	const tries = new ForgetTries(this.getContext('node'), tryMemoryName(this, 'forget', readRunIndex(this), () => valid));
	// n8n up to 1.11x tries again Max Tries − 1 times whatever the tries after its first put out: a retry keeps
	// what the tries did, or a third would find nothing and forget again.
	const retrying = tries.retrying(valid);
	const found = await storeCall(this, async () => await record.forget(valid, tries), continueOnFail, STORE_FAILED);
	if (!(found instanceof NodeOperationError) && !keys.some((key) => key instanceof NodeOperationError) && !retrying) tries.clear();
	const failed = (error: NodeOperationError, itemIndex: number) => {
		const details = { success: false, itemIndex, description: error.description ?? undefined };
		return routed ? errorOutputItem(node, error.message, details, itemIndex) : { json: { error: error.message, details }, pairedItem: { item: itemIndex } };
	};
	return [
		keys.map((key, itemIndex) => {
			if (key === undefined) return { json: { forgotten: false, messageKey: null, reason: NEVER_RECORDED }, pairedItem: { item: itemIndex } };
			if (typeof key !== 'string') return failed(key, itemIndex);
			if (found instanceof NodeOperationError) return failed(new NodeOperationError(node, `${found.message} [item ${itemIndex}]`, { itemIndex, description: found.description ?? undefined }), itemIndex);
			const json = found.busy.has(key) ? { forgotten: false, messageKey: key, reason: BUSY } : found.held.has(key) ? { forgotten: true, messageKey: key } : { forgotten: false, messageKey: key, reason: NOT_HELD };
			return { json, pairedItem: { item: itemIndex } };
		}),
	];
}

const STORE_FAILED = "n8n's store of sent messages failed: whether this key was forgotten is not known. Run the Forget again: a key already gone is said to be so.";
const STORE_FAILED_ALL = "n8n's store of sent messages failed: whether the record was cleared is not known. Run the Forget again.";

/** A call to n8n's store: with Continue On Fail, its failure is every row's (the store failed, no key in particular), said with `description`; without, the node's. */
async function storeCall<T>(ctx: IExecuteFunctions, call: () => Promise<T>, continueOnFail: boolean, description: string): Promise<T | NodeOperationError> {
	let failure: NodeOperationError;
	try {
		return await call();
	} catch (error) {
		failure = error instanceof NodeOperationError ? error : new NodeOperationError(ctx.getNode(), error as Error);
	}
	failure.description = description;
	if (!continueOnFail) throw failure;
	return failure;
}
