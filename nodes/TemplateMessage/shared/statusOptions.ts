import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { BREAKER_THRESHOLD } from './flowLimits';
import { MAX_TIMEOUT_MS, OPTIONS } from './options';
import type { OptionSpec, Refuse } from './optionSpec';
import { choiceOption, numberOption, optionPathOf, optionsCollection, readTable, reworded, setOptionsOf } from './optionSpec';

/** The status Get Status may keep asking for: delivered (read counts too), or read. */
export type WaitTarget = 'delivered' | 'read';

/** Waiting, when asked for: until each row has `until` or a final status, at most `limitMs` from the first lookup. */
export interface WaitSettings {
	until: WaitTarget;
	limitMs: number;
}

/** The longest wait: a day (an execution holding its worker longer is better split into scheduled runs). */
const MAX_WAIT_MINUTES = 1440;

/**
 * Every option of Get Status, one entry each, from the same specs as Send's (shared/options.ts): the request
 * settings are Send's, in the words of lookups, so that they are read, bounded and defaulted as a Send's are.
 * The Options collection, its reading and every message naming an option come from here. n8n lists them
 * alphabetically.
 */
export const STATUS_OPTIONS = {
	includeInputFields: reworded(OPTIONS.includeInputFields, {
		description:
			"Whether to copy each input item's fields (a sheet's columns and row number, say) into its output row, so that a next step can write the status back to the same row, also for a row without a usable msgid. The node's own fields win when a name is the same.",
	}),
	maxAttempts: reworded(OPTIONS.maxAttempts, {
		description:
			"How many times one lookup is tried in all when it failed on the API's side or the network's (503, host unreachable, no answer: a lookup changes nothing, so it is safe to ask again). A 429 (too many requests) does not count.",
	}),
	maxConcurrency: reworded(OPTIONS.maxConcurrency, { displayName: 'Max Concurrent Requests', description: 'How many lookups may be waiting for an answer at the same time' }),
	maxPerSecond: reworded(OPTIONS.maxPerSecond, {
		displayName: 'Max Requests per Second',
		description:
			"Your provider's limit; 0 for no limit. Lookups and sends with the same credential share one pace in an n8n process, at the lowest figure among the runs using it (a Send's Max Messages per Second too), so that together they stay within the account's limit.",
	}),
	timeout: reworded(OPTIONS.timeout, { description: `How long one lookup may take, from asking to the last byte of the answer, in milliseconds (at most ${MAX_TIMEOUT_MS})` }),
	maxOutageWait: reworded(OPTIONS.maxOutageWait, {
		description: `In seconds. After ${BREAKER_THRESHOLD} lookups in a row fail on the API's side (5xx, no connection, no answer), looking up pauses and one is tried again, spaced out; once one is answered, the rest go. If the API is still failing after this long, the run stops and the rest come out without a status, with the reason. A 503's Retry-After is waited when it fits within this and Max Wait When Throttled. 0 stops at once.`,
	}),
	maxThrottleWait: reworded(OPTIONS.maxThrottleWait, {
		description:
			'In seconds. A 429 (too many requests) or a rate-limit window with nothing left slows the lookups down and is tried again; one lookup that the API keeps waiting longer than this in all comes out without a status, with the reason (without On Error: Continue, the node fails there; a row asked again under Wait Until keeps its last status). After this long with nothing but 429s, the lookups stop.',
	}),
	waitLimit: numberOption(
		{
			displayName: 'Wait Limit (Minutes)',
			default: 10,
			description:
				'With Wait Until Delivered or Read: how long to keep asking, from the first lookup. The last round starts then and asks every row still on its way, at the account\'s pace (3,000 rows take 2 minutes more at 25 a second). Rows that have not got there come out with their latest status and say so.',
		},
		{ min: 0, max: MAX_WAIT_MINUTES, precision: 2 },
	),
	waitUntil: choiceOption({
		displayName: 'Wait Until',
		type: 'options',
		options: [
			{ name: 'Ask Once', value: 'once', description: 'One lookup per row: the status now' },
			{ name: 'Delivered', value: 'delivered', description: 'Ask again, spaced out, until each row is delivered (or read), failed or rejected, or the wait limit is reached' },
			{
				name: 'Read',
				value: 'read',
				description: 'Ask again, spaced out, until each row is read, failed or rejected, or the wait limit is reached. Many recipients turn read receipts off: read may never come.',
			},
		],
		default: 'once',
		description: 'Whether to keep asking until each message has got somewhere',
	}),
} satisfies Record<string, OptionSpec<unknown>>;

export const statusOptionsProperty: INodeProperties = optionsCollection('statusOptions', STATUS_OPTIONS);

/** What the lookups run with: Send's request settings as given here, and the wait, when asked for. */
export type StatusOptionValues = Omit<ReturnType<typeof readTable<typeof STATUS_OPTIONS>>, 'waitLimit' | 'waitUntil'> & {
	/** Undefined: ask once. */
	wait?: WaitSettings;
};

/** Where the editor shows a Get Status option: `Options → <its name>`. */
export function statusOptionPath(name: string): string {
	return optionPathOf(STATUS_OPTIONS[name as keyof typeof STATUS_OPTIONS].property.displayName);
}

/** The options set in the collection as saved (`set`), each read by its own path with `read`. */
export function statusOptionsSet(set: unknown, read: (name: string) => unknown): IDataObject {
	return setOptionsOf(STATUS_OPTIONS, set, read);
}

/** The Options collection as n8n gave it, read as a Send reads its own. */
export function readStatusOptions(collection: IDataObject, typeVersion: number, refuse: Refuse): StatusOptionValues {
	const { waitLimit, waitUntil, ...settings } = readTable(STATUS_OPTIONS, collection, typeVersion, refuse);
	if (waitUntil === 'once') return settings;
	return { ...settings, wait: { until: waitUntil, limitMs: Math.round(waitLimit * 60_000) } };
}
