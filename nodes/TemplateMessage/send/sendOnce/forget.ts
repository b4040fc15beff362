import type { IExecuteFunctions } from 'n8n-workflow';

import { MessageRecord } from './record';

/** Forget Sent Messages: removes the keys in one call, or clears the whole record and says how many values it held. */
export async function forgetSent(ctx: IExecuteFunctions, keys: string[] | 'all'): Promise<number | undefined> {
	const record = MessageRecord.open(ctx);
	if (keys === 'all') return await record.forgetAll();
	await record.forget([...new Set(keys)]);
	return undefined;
}
