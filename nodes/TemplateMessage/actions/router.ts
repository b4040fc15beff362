import type { IExecuteFunctions, INodeExecutionData, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import * as forget from './forget.operation';
import * as getStatus from './getStatus.operation';
import * as send from './send.operation';
import { refuseToolWithErrorOutput } from '../shared/howRun';

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
	return await operation.execute.call(this);
}
