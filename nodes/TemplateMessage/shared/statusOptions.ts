import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { readOptions } from './options';

/** The status Get Status may keep asking for: delivered (read counts too), or read. */
export type WaitTarget = 'delivered' | 'read';

/** Waiting, when asked for: until each row has `until` or a final status, at most `limitMs` from the first lookup. */
export interface WaitSettings {
	until: WaitTarget;
	limitMs: number;
}

export interface StatusOptionValues {
	maxPerSecond: number;
	/** Undefined: ask once. */
	wait?: WaitSettings;
}

interface StatusOptionSpec {
	/** The editor's field, but its name, which is the spec's key. */
	property: Omit<INodeProperties, 'name'>;
}

/** The longest wait: a day (an execution holding its worker longer is better split into scheduled runs). */
const MAX_WAIT_MINUTES = 1440;
const DEFAULT_WAIT_MINUTES = 10;

/**
 * Every option of Get Status, one entry each: the editor's field, from which the Options collection, its
 * reading (readStatusOptions) and every message naming an option (statusOptionName) come. n8n lists them
 * alphabetically.
 */
export const STATUS_OPTIONS = {
	maxPerSecond: {
		property: {
			displayName: 'Max Requests per Second',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			// A literal, as n8n's lint wants it: Send's Max Messages per Second's default, so that both share one pace (getStatus.engine.test.ts holds them equal).
			default: 25,
			description:
				"Your provider's limit; 0 for no limit. Lookups and sends with the same credential and the same figure (a Send's Max Messages per Second) share one pace in an n8n process, so that together they stay within the account's limit.",
		},
	},
	waitLimit: {
		property: {
			displayName: 'Wait Limit (Minutes)',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: MAX_WAIT_MINUTES, numberPrecision: 2 },
			default: DEFAULT_WAIT_MINUTES,
			description:
				'With Wait Until Delivered or Read: how long to keep asking, from the first lookup. Rows that have not got there by then come out with their latest status and say so. The execution runs that long.',
		},
	},
	waitUntil: {
		property: {
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
		},
	},
} satisfies Record<string, StatusOptionSpec>;

export type StatusOptionName = keyof typeof STATUS_OPTIONS;

export function statusOptionName(name: StatusOptionName): string {
	return STATUS_OPTIONS[name].property.displayName;
}

export const statusOptionsProperty: INodeProperties = {
	displayName: 'Options',
	name: 'statusOptions',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: Object.entries(STATUS_OPTIONS).map(([name, { property }]) => {
		const { displayName, ...rest } = property;
		return { displayName, name, ...rest } as INodeProperties;
	}),
};

/** The Options collection as n8n gave it, made sure of: the rate as Send reads its own, the wait bounded. */
export function readStatusOptions(given: IDataObject, typeVersion: number): StatusOptionValues {
	const { maxPerSecond } = readOptions({ maxPerSecond: given.maxPerSecond }, 'run', typeVersion);
	const until = given.waitUntil === 'delivered' || given.waitUntil === 'read' ? given.waitUntil : undefined;
	if (until === undefined) return { maxPerSecond };
	const minutes = typeof given.waitLimit === 'number' && Number.isFinite(given.waitLimit) ? Math.min(Math.max(0, given.waitLimit), MAX_WAIT_MINUTES) : DEFAULT_WAIT_MINUTES;
	return { maxPerSecond, wait: { until, limitMs: Math.round(minutes * 60_000) } };
}
