import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { customMessageKey } from '../request/messageKey';
import { MessageRecord } from './messageRecord';

/**
 * The Forget Sent Messages operation: removes the key of each input item from the workflow's
 * Send Once record in one call, or clears the whole record, so that those messages can be sent again.
 */
export async function forgetSent(ctx: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const record = MessageRecord.open(ctx);
	if (ctx.getNodeParameter('forget', 0, 'keys') === 'all') {
		const count = await record.forgetAll();
		return [{ json: { forgotten: 'all', count }, pairedItem: items.map((_, item) => ({ item })) }];
	}
	const keys = items.map((_, itemIndex) => {
		try {
			return customMessageKey(ctx.getNodeParameter('forgetKey', itemIndex, ''));
		} catch (error) {
			throw new NodeOperationError(ctx.getNode(), `${(error as Error).message} [item ${itemIndex}]`, {
				itemIndex,
				description: "Map the key to forget, e.g. {{ $json.messageKey }} from a Template Message node's output.",
			});
		}
	});
	await record.forget([...new Set(keys)]);
	return keys.map((messageKey, item) => ({ json: { forgotten: true, messageKey }, pairedItem: { item } }));
}
