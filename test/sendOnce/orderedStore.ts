/**
 * n8n's deduplication store as its code behaves (n8n-app's deduplication-helper.js): one ordered list of md5 hashes per
 * workflow, read and written whole by every call, the oldest dropped beyond maxEntries. `lost` collects the watched keys
 * that at some call had neither their value nor their pending mark in the list.
 */
import { createHash } from 'node:crypto';
import type { IExecuteFunctions } from 'n8n-workflow';

const stored = (value: string) => createHash('md5').update(`template-message:${value}`).digest('base64');

export function orderedStore(workflowId: string, seed: string[] = []) {
	const data = seed.map(stored);
	const watched: string[] = [];
	const lost = new Set<string>();
	const calls: Array<{ at: number; values: string[]; kind: 'record' | 'remove' }> = [];
	const check = () => {
		for (const key of watched) if (!data.includes(stored(key)) && !data.includes(stored(`${key}\u0000pending`))) lost.add(key);
	};
	const helpers = {
		async checkProcessedAndRecord(values: string[], _scope: unknown, options: { maxEntries?: number }) {
			calls.push({ at: Date.now(), values, kind: 'record' });
			const hashes = values.map((value) => createHash('md5').update(value).digest('base64'));
			const processed = values.filter((_, index) => data.includes(hashes[index]));
			for (const hash of hashes) if (!data.includes(hash)) data.push(hash);
			if (options.maxEntries) data.splice(0, data.length - options.maxEntries);
			check();
			return { new: values.filter((value) => !processed.includes(value)), processed };
		},
		async removeProcessed(values: string[]) {
			calls.push({ at: Date.now(), values, kind: 'remove' });
			for (const value of values) {
				const index = data.indexOf(createHash('md5').update(value).digest('base64'));
				if (index !== -1) data.splice(index, 1);
			}
			check();
		},
		async getProcessedDataCount() {
			return data.length;
		},
	};
	const ctx = { getNode: () => ({ name: 'Template Message' }), getWorkflow: () => ({ id: workflowId }), helpers } as unknown as IExecuteFunctions;
	return {
		ctx,
		calls,
		lost,
		watch: (...keys: string[]) => watched.push(...keys),
		has: (value: string) => data.includes(stored(value)),
		get size() {
			return data.length;
		},
	};
}
