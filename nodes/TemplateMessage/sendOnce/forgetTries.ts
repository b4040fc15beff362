import type { IDataObject } from 'n8n-workflow';

import { fingerprint } from '../shared/fingerprint';

/** What a try of this Forget found of a key in the record, and whether it took it out. */
export interface Tried {
	held: boolean;
	removed: boolean;
}

const FORGET_RUN = /^forget-run-(\d+)$/;

/**
 * What the tries of one run of Forget in this execution did with each key, in n8n's per-execution
 * contextData. n8n's Retry On Fail runs the node again, at the same run index, when it failed or when its
 * first row carries an error (a key that could not be read, with On Error: Continue): a key an earlier try
 * took out is not taken out again (another execution may have sent its message again since, as asked), and
 * one an earlier try recorded to see whether it was there is not looked up again (it would find that write).
 */
export class ForgetTries {
	private constructor(
		private readonly context: IDataObject,
		private readonly name: string,
	) {}

	/** This run's tries; earlier runs' are dropped (n8n never runs an earlier index again). */
	static of(context: IDataObject, runIndex: number): ForgetTries {
		for (const name of Object.keys(context)) {
			const run = FORGET_RUN.exec(name);
			if (run && Number(run[1]) < runIndex) delete context[name];
		}
		return new ForgetTries(context, `forget-run-${runIndex}`);
	}

	recall(key: string): Tried | undefined {
		return (this.context[this.name] as Record<string, Tried> | undefined)?.[fingerprint(key)];
	}

	found(key: string, held: boolean): void {
		this.entries()[fingerprint(key)] = { held, removed: false };
	}

	removed(keys: string[]): void {
		const entries = this.entries();
		for (const key of keys) entries[fingerprint(key)] = { ...entries[fingerprint(key)], removed: true };
	}

	/** Nothing for a retry to know: every key was read and taken out. */
	clear(): void {
		delete this.context[this.name];
	}

	private entries(): Record<string, Tried> {
		return (this.context[this.name] ??= {}) as Record<string, Tried>;
	}
}
