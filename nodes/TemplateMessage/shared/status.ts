import type { NodeOperationError } from 'n8n-workflow';

import type { FailedOutcome, Refusal } from './contracts';
import { givenUpThrottled, unreachable } from './contracts';
import type { WaitTarget } from './statusOptions';

// What passes between the parts of Get Status (the provider's `GET /api/v2/message/{msgid}/status`).

/**
 * The provider's documented statuses, in the order the run summary names them: how far each says a message
 * got (a final one no longer changes), and whether it reached its recipient. Any other word is none of these.
 */
export const DOCUMENTED_STATUSES: ReadonlyMap<string, { progress: 0 | 1 | 2; final: boolean; reached: boolean }> = new Map([
	['read', { progress: 2, final: true, reached: true }],
	['delivered', { progress: 1, final: false, reached: true }],
	['submitted', { progress: 0, final: false, reached: false }],
	['failed', { progress: 2, final: true, reached: false }],
	['rejected', { progress: 2, final: true, reached: false }],
] as const);

/** One entry of a message's status history, as the node keeps it. */
export interface HistoryEntry {
	status: string;
	/** ISO 8601; null when the API's timestamp could not be read. */
	at: string | null;
}

/** What a readable 2xx answer says (see lookup/statusAnswer.ts). */
export interface StatusReading {
	/** The latest status, as the provider spells it (trimmed, lower-cased, bounded); null when there is none. */
	deliveryStatus: string | null;
	/** Whether the status can no longer change (read, failed, rejected); null without a status. */
	final: boolean | null;
	statusAt: string | null;
	deliveredAt: string | null;
	readAt: string | null;
	failureCode: number | string | null;
	failureReason: string | null;
	/** Oldest first; the newest MAX_HISTORY entries at most. */
	history: HistoryEntry[];
	historyDropped: number;
	msgid: string | null;
	phoneNumber: string | null;
	/** What was odd in the answer, in words (unreadable timestamps, entries without a status, …). */
	problems: string[];
}

/** With Wait Until: what the row's waiting came to. */
export interface WaitOutcome {
	until: WaitTarget;
	/** The row has the status waited for (read counts as delivered). */
	reached: boolean;
	/** Lookups made for the row (each perhaps tried more than once: see attempts). */
	asks: number;
	/** From the first lookup to the row's last answer, or to the end of the wait when it never got there. */
	waitedMs: number;
	/** Its latest lookup failed (the row keeps the status before it): why, in words. */
	lastAskFailed?: string;
}

/** What became of one item's lookup. */
export type StatusResult =
	/** The API answered with the message's status (perhaps an odd one: see problems). */
	| { kind: 'status'; reading: StatusReading; attempts: number; wait?: WaitOutcome }
	/** No lookup was made: the item has no msgid (a row a Send did not take), or not one that can be asked for. */
	| { kind: 'noMsgid'; reason: string }
	/** No lookup was made: Message ID could not be read for this item (its expression failed), with Continue On Fail. */
	| { kind: 'invalid'; error: NodeOperationError }
	/** The API does not know this msgid (a 404 in the API's error shape, or its code 33 at any status). */
	| { kind: 'notFound'; outcome: FailedOutcome; attempts: number; /** With Wait Until: asked this often over this long, never known. */ askedAgain?: { asks: number; waitedMs: number; lastAskFailed?: string } }
	/** A 2xx the node could not read as a status (too large). Not the lookup's failure: this row's result. */
	| { kind: 'unreadable'; reason: string; attempts: number }
	/** The lookup failed: refused (401/403, …), the API failing, no answer, or throttled beyond the wait. */
	| { kind: 'failed'; outcome: FailedOutcome; attempts: number; /** A 404 that is not the API's: no status endpoint at the credential's Base URL. */ noEndpoint?: true }
	/** Not looked up: an earlier refusal holds for every lookup (a 401), or the API kept failing. */
	| { kind: 'heldBack'; heldBy: Refusal; attempts: number };

/** Whether a lookup's result is a failure of the node: without Continue On Fail the rest is not looked up, and the node fails. */
export function lookupFailsTheNode(result: StatusResult): boolean {
	switch (result.kind) {
		case 'failed':
			return true;
		case 'heldBack':
			return givenUpThrottled(result.heldBy);
		case 'status':
		case 'noMsgid':
		case 'invalid':
		case 'notFound':
		case 'unreadable':
			return false;
		default:
			return unreachable(result);
	}
}

/** An input item's msgid, or why there is none to look up. */
export type StatusInput = { msgid: string } | { noMsgid: string } | { invalid: NodeOperationError };
