import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import * as n8nWorkflow from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * With "On Error: Continue (using error output)", n8n moves a failed item to the error output
 * when the item carries its error, or when its json holds only `error` (and `message`); from n8n
 * 2.36 on `details` may be there too. This node's failed items hold `error` and `details`, so on
 * an older n8n they would come out of the success output. There the item carries its error as
 * well. Not from 2.36 on: n8n 2.38 replaces the json of an item that carries an error with the
 * error's message, which would drop the details. n8n-workflow 2.36 is the first to export
 * `redactedHeaders`; the package always runs on the host's n8n-workflow.
 */
const hostRoutesItemsWithDetails = typeof (n8nWorkflow as Record<string, unknown>).redactedHeaders === 'function';

export function routedToErrorOutput(ctx: IExecuteFunctions, items: INodeExecutionData[]): INodeExecutionData[] {
	const node = ctx.getNode();
	if (hostRoutesItemsWithDetails || node.onError !== 'continueErrorOutput') return items;
	return items.map((item, itemIndex) =>
		typeof item.json.error === 'string' ? { ...item, error: new NodeOperationError(node, item.json.error, { itemIndex }) } : item,
	);
}
