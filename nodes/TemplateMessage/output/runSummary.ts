import type { ItemStatus, Throttling, WindowEdge } from '../shared/contracts';
import { duration } from '../shared/duration';
import { capitalised } from '../shared/words';

/** How the summary counts each status but sent, in this order. */
const WORDS: Record<Exclude<ItemStatus, 'sent'>, string> = {
	failed: 'refused',
	unknown: 'delivery unknown',
	notSent: 'not sent',
	invalid: 'invalid',
	skipped: 'skipped',
	inDoubt: 'in doubt (not sent: see the rows)',
};

/** An item a stopped run never reached (undefined) was not sent. */
export function runSummary(statuses: Array<ItemStatus | undefined>, throttled?: Throttling): string {
	const counts = new Map<ItemStatus, number>();
	for (const status of statuses.map((status) => status ?? 'notSent')) counts.set(status, (counts.get(status) ?? 0) + 1);
	const rest = (Object.entries(WORDS) as Array<[ItemStatus, string]>).filter(([status]) => counts.has(status)).map(([status, word]) => `${counts.get(status)} ${word}`);
	return `Sent ${counts.get('sent') ?? 0} of ${statuses.length} item(s)${rest.length > 0 ? `: ${rest.join(', ')}` : ''}.${throttled ? ` ${throttleSentence(throttled)}` : ''}`;
}

const EDGE_WORDS: Record<WindowEdge, string> = {
	atWindowEdge: "the edge of the API's one-second window",
	atSharedWindowEdge: "the edge of the account's one-second window, with other senders using it too",
};

function throttleSentence(throttling: Throttling): string {
	const { answers, waitedMs } = throttling;
	const edges = (Object.entries(EDGE_WORDS) as Array<[WindowEdge, string]>)
		.filter(([edge]) => throttling[edge] > 0)
		.map(([edge, words]) => `${throttling[edge] === answers ? (answers === 1 ? 'at' : 'all at') : `${throttling[edge]} of them at`} ${words}`);
	const edge = edges.length === 0 ? '' : `, ${edges.join('; ')} (only that request waited)`;
	const said = `${answers} ${answers === 1 ? 'answer was' : 'answers were'} "too many requests" (HTTP 429 or code 9)${edge}`;
	return waitedMs > 0 ? `Waited ${duration(waitedMs)} for the API's rate limit: ${said}.` : `${capitalised(said)}.`;
}
