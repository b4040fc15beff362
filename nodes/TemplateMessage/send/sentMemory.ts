import type { IDataObject } from 'n8n-workflow';

/** What is remembered of an item whose message may have reached the recipient (an unknown one with a msgid its answer named, for Get Status). */
export type Remembered = { kind: 'accepted'; msgid: string; attempts: number } | { kind: 'unknown'; reason: string; attempts: number; msgid?: string };

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

const SENT_BY_RUN = 'sent-by-run';

/**
 * How many messages each run of the node in this execution sent (Loop Over Items runs it once per
 * batch), in n8n's per-execution contextData. A retried run (Retry On Fail) has the same index and
 * replaces its count.
 */
export function rememberSentByRun(context: IDataObject, runIndex: number, sent: number): void {
	const counts = (context[SENT_BY_RUN] ??= {}) as IDataObject;
	counts[runIndex] = sent;
}

/** What the runs of the node before `runIndex` in this execution sent. */
export function sentByEarlierRuns(context: IDataObject, runIndex: number): number {
	const counts = (context[SENT_BY_RUN] ?? {}) as IDataObject;
	return Object.entries(counts).reduce((sum, [run, sent]) => (Number(run) < runIndex ? sum + Number(sent) : sum), 0);
}
