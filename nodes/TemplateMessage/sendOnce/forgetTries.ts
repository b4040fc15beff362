import type { IDataObject } from 'n8n-workflow';

import { fingerprint } from '../shared/fingerprint';

/** What a try of this Forget found of a key in the record, and whether it took it out. */
export interface Tried {
	held: boolean;
	removed: boolean;
}

/**
 * What the tries of one run of Forget in this execution did with each key, in n8n's per-execution
 * contextData (see tryMemoryName). n8n's Retry On Fail runs the node again when it failed or when its first
 * row carries an error (a key that could not be read, with On Error: Continue): a key an earlier try took
 * out is not taken out again (another execution may have sent its message again since, as asked), and one
 * an earlier try recorded to see whether it was there is not looked up again (it would find that write).
 * One short entry per key: a 64-bit fingerprint, whose rare collision would only report one key's finding
 * for another (both are still taken out).
 */
export class ForgetTries {
	constructor(
		private readonly context: IDataObject,
		private readonly name: string,
	) {}

	recall(key: string): Tried | undefined {
		return (this.context[this.name] as Record<string, Tried> | undefined)?.[fingerprint(key)];
	}

	found(key: string, held: boolean): void {
		this.entries()[fingerprint(key)] = { held, removed: false };
	}

	removed(keys: string[]): void {
		if (keys.length === 0) return;
		const entries = this.entries();
		for (const key of keys) entries[fingerprint(key)] = { ...entries[fingerprint(key)], removed: true };
	}

	/** Whether an earlier try did anything with one of these keys: this is a retry. */
	retrying(keys: string[]): boolean {
		return keys.some((key) => this.recall(key) !== undefined);
	}

	/** Nothing for a retry to know: every key was read and taken out. */
	clear(): void {
		delete this.context[this.name];
	}

	private entries(): Record<string, Tried> {
		return (this.context[this.name] ??= {}) as Record<string, Tried>;
	}
}
