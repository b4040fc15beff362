import type { INodeProperties } from 'n8n-workflow';

import type { RunOptionName } from '../shared/contracts';
import { MAX_TIMEOUT_MS, RUN_OPTIONS } from '../shared/contracts';

const defaultOf = (name: Exclude<RunOptionName, SwitchName>) => RUN_OPTIONS[name].default;
type SwitchName = 'dryRun' | 'includeInputFields' | 'includeRequestPayload' | 'retryUnknownDelivery' | 'sendInDoubt' | 'skipDuplicates';

/**
 * Settings for the whole run. n8n lists them alphabetically, so the names group them: the sending
 * limits start with "Max", and the API's alternative spellings, rarely needed, start with
 * "Spelling in the API" and come last, each option named by the field it writes.
 */
export const optionsProperty: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: RUN_OPTIONS.defaultCountryCode.displayName,
			name: 'defaultCountryCode',
			type: 'string',
			default: defaultOf('defaultCountryCode'),
			placeholder: 'e.g. 62',
			description: 'Replaces a leading 0 of a local number, e.g. 0812… becomes 62812…',
		},
		{
			displayName: RUN_OPTIONS.dryRun.displayName,
			name: 'dryRun',
			type: 'boolean',
			default: false,
			description:
				"Whether to only build and check every item, and check the credential's form, without sending anything: each row shows the message its recipient would get (and the request body with Include Request Payload in Output). Useful to check a sheet mapping before a real send.",
		},
		{
			displayName: RUN_OPTIONS.includeInputFields.displayName,
			name: 'includeInputFields',
			type: 'boolean',
			default: false,
			description:
				"Whether to copy each input item's fields (a sheet's columns and row number, say) into its output row, so that a next step can write the result back to the same row. The node's own fields win when a name is the same.",
		},
		{
			displayName: RUN_OPTIONS.includeRequestPayload.displayName,
			name: 'includeRequestPayload',
			type: 'boolean',
			default: false,
			description: 'Whether to add the request body that was sent, or in a dry run would be sent (never the token), to each output item',
		},
		{
			displayName: RUN_OPTIONS.maxAttempts.displayName,
			name: 'maxAttempts',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 10, numberPrecision: 0 },
			default: defaultOf('maxAttempts'),
			description:
				'How many times one message is tried in all when it was certainly not accepted (503, host unreachable). A 429 (too many requests) does not count: see Max Wait When Throttled. A message that may have been sent is never tried again unless Retry Unknown Deliveries is on.',
		},
		{
			displayName: RUN_OPTIONS.maxConcurrency.displayName,
			name: 'maxConcurrency',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 100, numberPrecision: 0 },
			default: defaultOf('maxConcurrency'),
			description: 'How many requests may be waiting for an answer at the same time',
		},
		{
			displayName: RUN_OPTIONS.maxPerSecond.displayName,
			name: 'maxPerSecond',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: defaultOf('maxPerSecond'),
			description:
				"Your provider's limit; 0 for no limit. Sends start evenly spaced, and never more than this many leave within one second and 10 ms, so that network jitter does not tip the provider's window over. A 429 from the API slows the run down further. Shared by all runs in one n8n process that use the same credential; in queue mode each worker has its own.",
		},
		{
			displayName: RUN_OPTIONS.maxRemembered.displayName,
			name: 'maxRemembered',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 1_000_000, numberPrecision: 0 },
			default: defaultOf('maxRemembered'),
			description:
				"With Send Once: how many messages the workflow's record keeps once a run is over. Beyond that the oldest are forgotten (a message seen again counts as new as its last run), a later run could send them again, and the run that pushed them out says how many. Set it above the number of rows your sheets will ever have.",
		},
		{
			displayName: RUN_OPTIONS.timeout.displayName,
			name: 'timeout',
			type: 'number',
			typeOptions: { minValue: 1000, maxValue: MAX_TIMEOUT_MS, numberPrecision: 0 },
			default: defaultOf('timeout'),
			description:
				`How long one request may take, from sending it to the last byte of the answer, in milliseconds (at most ${MAX_TIMEOUT_MS}). A timeout after the request went out makes the delivery unknown.`,
		},
		{
			displayName: RUN_OPTIONS.maxOutageWait.displayName,
			name: 'maxOutageWait',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 86400, numberPrecision: 0 },
			default: defaultOf('maxOutageWait'),
			description:
				"In seconds. After 5 messages in a row fail on the API's side (5xx, no connection, no answer), sending pauses and one message is tried again after 1 s, then 2, 4… up to 30 s; once one is answered, sending resumes. If the API is still failing after this long, the run stops and the rest come out as not sent. 0 stops at once.",
		},
		{
			displayName: RUN_OPTIONS.maxThrottleWait.displayName,
			name: 'maxThrottleWait',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 86400, numberPrecision: 0 },
			default: defaultOf('maxThrottleWait'),
			description:
				'In seconds. A 429 (too many requests) or a rate-limit window with nothing left slows the run down and is tried again, however many times; one message that the API keeps waiting longer than this in all comes out as not sent, with the reason.',
		},
		{
			displayName: RUN_OPTIONS.retryUnknownDelivery.displayName,
			name: 'retryUnknownDelivery',
			type: 'boolean',
			default: false,
			description:
				'Whether to also retry a message whose delivery is unknown (timeout after sending, 502/504, unreadable answer). Warning: the API may already have accepted it, so the recipient can get it twice.',
		},
		{
			displayName: RUN_OPTIONS.sendInDoubt.displayName,
			name: 'sendInDoubt',
			type: 'boolean',
			default: false,
			description:
				'Whether to send, with Send Once, the messages an earlier execution recorded but never learnt the fate of (its worker was killed, n8n crashed, it was cancelled mid-request, or the API gave no readable answer). Warning: some of them did reach their recipient, who then gets them twice. Off, they come out as in doubt and are not sent.',
		},
		{
			displayName: RUN_OPTIONS.skipDuplicates.displayName,
			name: 'skipDuplicates',
			type: 'boolean',
			default: false,
			description:
				'Whether to send at most one message per recipient and content within one run: an item with the same phone number (after normalising), template and values as an earlier item of the run is not sent and comes out as skipped, naming the item it repeats. Across runs: Send Once.',
		},
		{
			displayName: 'Spelling in the API: Button Index',
			name: 'buttonIndexFormat',
			type: 'options',
			options: [
				{ name: 'button.index=0', value: 'number', description: 'A number' },
				{ name: 'button.index="0"', value: 'string', description: 'A quoted number, as in the API examples' },
			],
			default: 'string',
			description: 'How the button index is written in the request',
		},
		{
			displayName: 'Spelling in the API: Button Type Field',
			name: 'buttonTypeField',
			type: 'options',
			options: [
				{ name: 'button.sub_type', value: 'sub_type', description: 'As in the API examples' },
				{ name: 'button.sub_types', value: 'sub_types', description: 'As in the API field reference' },
			],
			default: 'sub_type',
			description: 'The API documentation spells this field two ways; pick the one your account accepts',
		},
		{
			displayName: 'Spelling in the API: Dynamic URL Button Type',
			name: 'dynamicUrlSubType',
			type: 'options',
			options: [
				{ name: 'button.sub_type=url', value: 'url', description: 'As in the API examples' },
				{ name: 'button.sub_type=url_dynamic', value: 'url_dynamic', description: 'As in the API field reference' },
			],
			default: 'url',
			description: 'The sub type sent for a dynamic URL button',
		},
		{
			displayName: 'Spelling in the API: Quick Reply Value',
			name: 'quickReplyValueField',
			type: 'options',
			options: [
				{ name: 'Both', value: 'both', description: 'Send the value in both fields' },
				{ name: 'parameter.payload', value: 'payload', description: 'As in the API field reference' },
				{ name: 'parameter.text', value: 'text', description: 'As in the API quick reply example' },
			],
			default: 'payload',
			description: 'Which field of the quick reply parameter carries the payload text',
		},
	],
};
