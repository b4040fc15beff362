import type { IExecuteFunctions, INodeExecutionData, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import * as forget from './forget.operation';
import * as getStatus from './getStatus.operation';
import * as send from './send.operation';
import { asTool, hasRequested, refuseToolWithErrorOutput } from '../shared/howRun';
import type { ItemStatus } from '../shared/contracts';

interface Operation {
	menuEntry: INodePropertyOptions;
	properties: INodeProperties[];
	subtitle: string;
	execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]>;
}

/** Every operation, in the order the editor lists them. One line each. */
const OPERATIONS: Operation[] = [send, getStatus, forget];

const operationProperty: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	options: OPERATIONS.map((operation) => operation.menuEntry),
	// A literal, as n8n's lint wants it.
	default: 'send',
};

const DEFAULT = OPERATIONS.find((operation) => operation.menuEntry.value === operationProperty.default) as Operation;

export const properties: INodeProperties[] = [
	operationProperty,
	...OPERATIONS.flatMap((operation) => updateDisplayOptions({ show: { operation: [operation.menuEntry.value] } }, operation.properties)),
];

/** `$parameter["operation"] === "forget" ? "Forget sent messages" : "Send template " + …`, the default last. */
export const subtitle = `={{ ${[
	...OPERATIONS.filter((operation) => operation !== DEFAULT).map((operation) => `$parameter["operation"] === ${JSON.stringify(operation.menuEntry.value)} ? ${operation.subtitle} : `),
	DEFAULT.subtitle,
].join('')} }}`;

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	refuseToolWithErrorOutput(this);
	const value = this.getNodeParameter('operation', 0, DEFAULT.menuEntry.value);
	const operation = OPERATIONS.find((candidate) => candidate.menuEntry.value === value);
	if (operation === undefined) throw new NodeOperationError(this.getNode(), `The operation "${String(value)}" is not known to this version of the node`);
	if (!asTool(this)) return await operation.execute.call(this);
	try {
		return await operation.execute.call(this);
	} catch (error) {
		// Cancelled, the chat is over; after a request left, a message may have gone out, which a row would hide.
		if (this.getExecutionCancelSignal?.()?.aborted === true || hasRequested(this)) throw new NodeOperationError(this.getNode(), error as Error);
		return [failedToolCall(this, error, operation === send)];
	}
}

/**
 * As a tool, a failure of the whole call before any request (a setting the model filled in out of bounds, a
 * credential the node refuses) is a row for each item too: n8n 1.x fails the chat with a thrown error, and 2.x
 * hands the agent its message without the description, which says what to do.
 */
function failedToolCall(ctx: IExecuteFunctions, error: unknown, sending: boolean): INodeExecutionData[] {
	const message = error instanceof Error ? error.message : String(error);
	const given = (error as { description?: unknown } | undefined)?.description;
	const description = `${typeof given === 'string' && given !== '' ? `${given} ` : ''}Nothing was done: no request left for the API.`;
	return ctx.getInputData().map((_item, item) => ({
		json: { ...(sending && { status: 'notSent' satisfies ItemStatus }), success: false, error: message, details: { description } },
		pairedItem: { item },
	}));
}
