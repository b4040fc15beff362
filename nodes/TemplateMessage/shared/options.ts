import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { BREAKER_THRESHOLD, COOL_DOWN_GROWTH, FIRST_COOL_DOWN_MS, LAST_COOL_DOWN_MS } from './flowLimits';
import { FIELD } from './fieldNames';
import type { OptionSpec, Refuse, Scope } from './optionSpec';
import { choiceOption, numberOption, optionPathOf, optionSpec, optionsCollection, readSwitch, readTable, setOptionsOf } from './optionSpec';

/** Node's timers take at most 2^31-1 ms; the node's own limit (Max Time per Request) is well below that. */
export const MAX_TIMEOUT_MS = 300_000;

/** The display names of the options another option's description names; each option's own field reads its name here. */
const NAME = {
	includeRequestPayload: 'Include Request Payload in Output',
	maxThrottleWait: 'Max Wait When Throttled',
	retryUnknownDelivery: 'Retry Unknown Deliveries',
} as const;

/**
 * Every option of Send, one entry each: the editor's field (display name, default, description), how the node
 * reads it, and when. The description, the readers and every message naming an option come from here. n8n
 * lists them alphabetically, so the names group them: the sending limits start with "Max", and the API's
 * alternative spellings, rarely needed, start with "Spelling in the API" and come last.
 */
export const OPTIONS = {
	defaultCountryCode: optionSpec(
		'item',
		{
			displayName: 'Default Country Code',
			type: 'string',
			default: '',
			placeholder: 'e.g. 62',
			description:
				'Says the numbers are local to this country: a leading 0 is replaced by it (0812… becomes 62812…), and a number without + or 00 that does not start with it is refused, as when a sheet dropped the 0. Write foreign numbers with +.',
		},
		(value) => value,
	),
	dryRun: optionSpec(
		'run',
		{
			displayName: 'Dry Run (Send Nothing)',
			type: 'boolean',
			default: false,
			description:
				`Whether to only build and check every item, and check the credential's form, without sending anything: each row shows the message its recipient would get (and the request body with ${NAME.includeRequestPayload}). Useful to check a sheet mapping before a real send.`,
		},
		readSwitch,
	),
	includeInputFields: optionSpec(
		'run',
		{
			displayName: 'Include Input Fields',
			type: 'boolean',
			default: false,
			description:
				"Whether to copy each input item's fields (a sheet's columns and row number, say) into its output row, so that a next step can write the result back to the same row. The node's own fields win when a name is the same.",
		},
		readSwitch,
	),
	includeRequestPayload: optionSpec(
		'run',
		{
			displayName: NAME.includeRequestPayload,
			type: 'boolean',
			default: false,
			description: 'Whether to add the request body that was sent, or in a dry run would be sent (never the token), to each output item',
		},
		// Version 1 (saved with 0.1.0) put the request on every row of a dry run.
		(value, context) => readSwitch(value, context) || (readSwitch(context.allOptions.dryRun, context) && context.typeVersion < 2),
	),
	maxAttempts: numberOption(
		{
			displayName: 'Max Attempts',
			default: 5,
			description:
				`How many times one message is tried in all when it was certainly not accepted (503, host unreachable). A 429 (too many requests) does not count: see ${NAME.maxThrottleWait}. A message that may have been sent is never tried again unless ${NAME.retryUnknownDelivery} is on.`,
		},
		{ min: 1, max: 10 },
	),
	maxConcurrency: numberOption(
		{
			displayName: 'Max Concurrent Requests',
			default: 10,
			description: 'How many requests may be waiting for an answer at the same time',
		},
		{ min: 1, max: 100 },
	),
	maxPerSecond: numberOption(
		{
			displayName: 'Max Messages per Second',
			// The 25 requests a second providers in this market document; the pacer keeps its own margin.
			default: 25,
			description:
				"Your provider's limit; 0 for no limit. Sends start evenly spaced, and never more than this many (a fraction rounded up) reach the API within one second: the node learns from each answer how late a request may have arrived. A fraction is kept over time: 2.5 sends 5 every 2 seconds. A 429 from the API slows the run down further, unless it came from the node's own timing at the edge of the API's window. Shared by all runs in one n8n process that use the same credential, at the lowest setting among them while they overlap (the run held back is told so); in queue mode each worker has its own, and workers left at the limit share it by the API's rate-limit headers (the limit divided by the number of workers, rounded down, meets no 429).",
		},
		{ min: 0, precision: 2 },
	),
	maxRemembered: numberOption(
		{
			displayName: 'Max Messages Remembered',
			// Above an ordinary sheet, at a cost per store call measured in docs/send-once.md.
			default: 50_000,
			description:
				`With ${FIELD.sendOnce}: how many messages the workflow's record keeps once a run is over (one record for all its nodes: the smallest setting among them cuts it). Beyond that the oldest are forgotten (a message seen again counts as new as its last run), a later run could send them again, and the run that pushed them out says how many. Set it above the number of rows your sheets will ever have.`,
		},
		{ min: 1, max: 1_000_000 },
	),
	/** Read in milliseconds, as given. */
	timeout: numberOption(
		{
			displayName: 'Max Time per Request',
			default: 30_000,
			description: `How long one request may take, from sending it to the last byte of the answer, in milliseconds (at most ${MAX_TIMEOUT_MS}). A timeout after the request went out makes the delivery unknown.`,
		},
		{ min: 1000, max: MAX_TIMEOUT_MS },
	),
	/** Given in seconds, read in milliseconds: how long the API may keep failing before the run stops sending (0: at once). */
	maxOutageWait: numberOption(
		{
			displayName: 'Max Wait for the API to Recover',
			default: 120,
			description:
				`In seconds. After ${BREAKER_THRESHOLD} messages in a row fail on the API's side (5xx, no connection, no answer), sending pauses and one message is tried again after ${FIRST_COOL_DOWN_MS / 1000} s, then ${(FIRST_COOL_DOWN_MS * COOL_DOWN_GROWTH) / 1000}, ${(FIRST_COOL_DOWN_MS * COOL_DOWN_GROWTH ** 2) / 1000}… up to ${LAST_COOL_DOWN_MS / 1000} s; once one is answered, sending resumes. If the API is still failing after this long, the run stops and the rest come out as not sent. A 503's Retry-After is waited when it fits within this and Max Wait When Throttled. 0 stops at once.`,
		},
		{ min: 0, max: 86400, seconds: true },
	),
	/** Given in seconds, read in milliseconds: in all, by 429s, Retry-After or an empty rate window, before the item is given up as not sent. */
	maxThrottleWait: numberOption(
		{
			displayName: NAME.maxThrottleWait,
			default: 120,
			description:
				'In seconds. A 429 (too many requests) or a rate-limit window with nothing left slows the run down and is tried again, however many times; one message that the API keeps waiting longer than this in all comes out as not sent, with the reason (without On Error: Continue, the node fails there). After this long with nothing but 429s, the run stops asking.',
		},
		{ min: 0, max: 86400, seconds: true },
	),
	retryUnknownDelivery: optionSpec(
		'run',
		{
			displayName: NAME.retryUnknownDelivery,
			type: 'boolean',
			default: false,
			description:
				'Whether to also retry a message whose delivery is unknown (timeout after sending, 502/504, unreadable answer). Warning: the API may already have accepted it, so the recipient can get it twice.',
		},
		readSwitch,
	),
	sendInDoubt: optionSpec(
		'run',
		{
			displayName: 'Send Messages in Doubt',
			type: 'boolean',
			default: false,
			description:
				`Whether to send, with ${FIELD.sendOnce}, the messages an earlier execution recorded but never learnt the fate of (its worker was killed, n8n crashed, it was cancelled mid-request, or the API gave no readable answer). Warning: some of them did reach their recipient, who then gets them twice. Off, they come out as in doubt and are not sent.`,
		},
		readSwitch,
	),
	skipDuplicates: optionSpec(
		'run',
		{
			displayName: 'Skip Duplicate Messages',
			type: 'boolean',
			default: false,
			description:
				`Whether to send at most one message per recipient and content within one run: an item with the same phone number (after normalising), template and values as an earlier item of the run is not sent and comes out as skipped, naming the item it repeats. Across runs: ${FIELD.sendOnce}.`,
		},
		readSwitch,
	),
	buttonIndexFormat: choiceOption(
		{
			displayName: 'Spelling in the API: Button Index',
			type: 'options',
			options: [
				{ name: 'button.index=0', value: 'number', description: 'A number' },
				{ name: 'button.index="0"', value: 'string', description: 'A quoted number, as in the API examples' },
			],
			default: 'string',
			description: 'How the button index is written in the request',
		},
	),
	buttonTypeField: choiceOption(
		{
			displayName: 'Spelling in the API: Button Type Field',
			type: 'options',
			options: [
				{ name: 'button.sub_type', value: 'sub_type', description: 'As in the API examples' },
				{ name: 'button.sub_types', value: 'sub_types', description: 'As in the API field reference' },
			],
			default: 'sub_type',
			description: 'The API documentation spells this field two ways; pick the one your account accepts',
		},
	),
	dynamicUrlSubType: choiceOption(
		{
			displayName: 'Spelling in the API: Dynamic URL Button Type',
			type: 'options',
			options: [
				{ name: 'button.sub_type=url', value: 'url', description: 'As in the API examples' },
				{ name: 'button.sub_type=url_dynamic', value: 'url_dynamic', description: 'As in the API field reference' },
			],
			default: 'url',
			description: 'The sub type sent for a dynamic URL button',
		},
	),
	quickReplyValueField: choiceOption(
		{
			displayName: 'Spelling in the API: Quick Reply Value',
			type: 'options',
			options: [
				{ name: 'Both', value: 'both', description: 'Send the value in both fields' },
				{ name: 'parameter.payload', value: 'payload', description: 'As in the API field reference' },
				{ name: 'parameter.text', value: 'text', description: 'As in the API quick reply example' },
			],
			default: 'payload',
			description: 'Which field of the quick reply parameter carries the payload text',
		},
	),
};

export type OptionName = keyof typeof OPTIONS;
type Spec<Name extends OptionName> = (typeof OPTIONS)[Name];
type NamesOf<S extends Scope> = { [Name in OptionName]: Spec<Name>['scope'] extends S ? Name : never }[OptionName];
type ValuesOf<Names extends OptionName> = { [Name in Names]: ReturnType<Spec<Name>['read']> };

/** As the editor names it. */
export function optionName(name: OptionName): string {
	return OPTIONS[name].property.displayName;
}

/** Where the editor shows it. */
export function optionPath(name: OptionName): string {
	return optionPathOf(optionName(name));
}

export const optionsProperty: INodeProperties = optionsCollection('options', OPTIONS);

const OPTIONS_OF: Record<Scope, Record<string, OptionSpec<unknown>>> = {
	run: Object.fromEntries(Object.entries(OPTIONS).filter(([, spec]) => spec.scope === 'run')),
	item: Object.fromEntries(Object.entries(OPTIONS).filter(([, spec]) => spec.scope === 'item')),
};

/**
 * Reads the options of one scope from the Options collection as n8n gave it. `refuse` is the scope's
 * error: fieldError for an item's options, runOptionRefused(node) for the run's.
 */
export function readOptions<S extends Scope>(collection: IDataObject, scope: S, typeVersion: number, refuse: Refuse): ValuesOf<NamesOf<S>> {
	return readTable(OPTIONS_OF[scope], collection, typeVersion, refuse) as ValuesOf<NamesOf<S>>;
}

/**
 * The options of one scope that are set (`set`: the Options collection as saved), each read by its own path
 * with `read`: another scope's expressions are not evaluated, so one that fails for an item fails only where it is read.
 */
export function optionsOfScope(scope: Scope, set: unknown, read: (name: OptionName) => unknown): IDataObject {
	return setOptionsOf(OPTIONS_OF[scope], set, (name) => read(name as OptionName));
}

/** The options read once for the run, from the first item. */
export type RunOptionValues = ValuesOf<NamesOf<'run'>>;
/** The options read for each item: how one message is shaped. */
export type ItemOptionValues = ValuesOf<NamesOf<'item'>>;
