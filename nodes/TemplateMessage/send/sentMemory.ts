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

	private get entries(): Record<string, string> | undefined {
		return this.context[this.key] as Record<string, string> | undefined;
	}

	recall(itemIndex: number, fingerprint: string): Remembered | undefined {
		const entry = this.entries?.[itemIndex];
		if (entry === undefined) return undefined;
		const [print, kind, attempts, ...rest] = entry.split('\u0000');
		if (print !== fingerprint) return undefined;
		const value = rest.join('\u0000');
		return kind === 'a' ? { kind: 'accepted', msgid: value, attempts: Number(attempts) } : { kind: 'unknown', reason: value, attempts: Number(attempts) };
	}

	remember(itemIndex: number, fingerprint: string, outcome: Remembered): void {
		const value = outcome.kind === 'accepted' ? outcome.msgid : outcome.reason;
		const entries = this.entries ?? (this.context[this.key] = {} as Record<string, string>);
		entries[itemIndex] = [fingerprint, outcome.kind === 'accepted' ? 'a' : 'u', outcome.attempts, value].join('\u0000');
	}

	clear(): void {
		delete this.context[this.key];
	}
}
