import type { IExecuteFunctions } from 'n8n-workflow';

import { MessageRecord } from './record';

/**
 * The Forget Sent Messages operation: removes the keys from the workflow's Send Once record in one
 * call, so that those messages can be sent again, or clears the whole record (then says how many
 * keys it held).
 */
export async function forgetSent(ctx: IExecuteFunctions, keys: string[] | 'all'): Promise<number | undefined> {
	const record = MessageRecord.open(ctx);
	if (keys === 'all') return await record.forgetAll();
	await record.forget([...new Set(keys)]);
	return undefined;
}
