import type { IDataObject } from 'n8n-workflow';

import { runScopedName } from '../shared/tryMemory';

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

/** The memory of one run of the node in this execution (see runScopedName). */
export function runMemory(context: IDataObject, runIndex: number): SentMemory {
	return new SentMemory(context, runScopedName(context, 'sent', runIndex));
}

const SENT_BY_RUN = 'sent-by-run';

/** What the node's runs in this execution sent: the runs before the latest, and the latest run's own count. */
interface SentByRun {
	before: number;
	run: number;
	sent: number;
}

/**
 * How many messages the runs of the node in this execution sent, in n8n's per-execution contextData. A
 * retried run (Retry On Fail) has the same index and replaces its count.
 */
export function rememberSentByRun(context: IDataObject, runIndex: number, sent: number): void {
	const counts = sentByRun(context, runIndex);
	if (runIndex > counts.run) context[SENT_BY_RUN] = { before: counts.before + counts.sent, run: runIndex, sent };
	else context[SENT_BY_RUN] = { ...counts, sent };
}

/** What the runs of the node before `runIndex` in this execution sent. */
export function sentByEarlierRuns(context: IDataObject, runIndex: number): number {
	const counts = sentByRun(context, runIndex);
	return runIndex > counts.run ? counts.before + counts.sent : counts.before;
}

/** The counts as kept, or as an execution saved before they were kept so kept them: one count per run index. */
function sentByRun(context: IDataObject, runIndex: number): SentByRun {
	const kept = context[SENT_BY_RUN] as Partial<SentByRun> | Record<string, number> | undefined;
	if (kept === undefined) return { before: 0, run: runIndex, sent: 0 };
	if (typeof kept.run === 'number' && typeof kept.before === 'number' && typeof kept.sent === 'number') return kept as SentByRun;
	const before = Object.entries(kept).reduce((sum, [run, sent]) => (Number(run) < runIndex ? sum + Number(sent) : sum), 0);
	return { before, run: runIndex, sent: Number((kept as Record<string, number>)[runIndex] ?? 0) };
}
