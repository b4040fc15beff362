import type { IDataObject } from 'n8n-workflow';

/** What is remembered of an item whose message may have reached the recipient. */
export type Remembered = { kind: 'accepted'; msgid: string; attempts: number } | { kind: 'unknown'; reason: string; attempts: number };

/**
 * Remembers, for one run of the node in one execution, which items were (or may have been) accepted, so that
 * n8n's Retry On Fail, which runs the node again with all its items, does not send them twice. It lives in n8n's
 * per-execution contextData: gone with the execution, unseen by others, at most one short entry per item.
 */
export class SentMemory {
	constructor(
		private readonly context: IDataObject,
		private readonly key: string,
	) {}

	recall(itemIndex: number, tryKey: string): Remembered | undefined {
		const { tryKey: remembered, ...outcome } = ((this.context[this.key] as IDataObject | undefined)?.[itemIndex] ?? {}) as Remembered & { tryKey?: string };
		return remembered === tryKey ? outcome : undefined;
	}

	remember(itemIndex: number, tryKey: string, outcome: Remembered): void {
		const entries = (this.context[this.key] ??= {}) as IDataObject;
		entries[itemIndex] = { tryKey, ...outcome };
	}

	clear(): void {
		delete this.context[this.key];
	}
}
