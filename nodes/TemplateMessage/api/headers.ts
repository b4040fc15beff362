/**
 * What an answer's headers say: Retry-After, the rate-limit headers in each form providers and
 * gateways use, and one header read by name. Every value is bounded; a form that does not parse is
 * left out.
 */
import { RATE_LIMIT_WINDOW_MS } from '../shared/flowLimits';

const MAX_RETRY_AFTER_SECONDS = 999_999_999;

/** `Retry-After` (seconds or HTTP date), else the rate-limit headers' reset (see readRateLimit), in ms. */
export function retryAfterMs(headers: Record<string, unknown>, now = Date.now()): number | undefined {
	const retryAfter = header(headers, 'retry-after');
	if (retryAfter !== undefined) {
		// Bounded as every count is: more than 9 digits of seconds (31 years) is as long as 9 nines.
		if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.round(Math.min(Number(retryAfter), MAX_RETRY_AFTER_SECONDS) * 1000);
		const date = Date.parse(retryAfter);
		if (!Number.isNaN(date)) return Math.max(0, date - serverNow(headers, now));
	}
	return rateLimitState(headers, now).resetMs;
}

/**
 * The server's `Date`, else our clock: a time the server names is on its clock, so one an hour off
 * does not make the node wait an hour or not at all. Whole seconds: a wait is up to 1 s long, never short.
 */
function serverNow(headers: Record<string, unknown>, now: number): number {
	const date = Date.parse(header(headers, 'date') ?? '');
	return Number.isNaN(date) ? now : date;
}

/**
 * A reset read by its size: Unix time in ms (13+ digits) or in s (10+), else a delay in s. The IETF
 * draft's forms are delta-seconds by definition; X-RateLimit-Reset's delay has no documented unit
 * (`0.040`, `1` and `962` all occur), so it is read as one window at most.
 */
function readReset(reset: string | undefined, headers: Record<string, unknown>, now: number, unitGuessed: boolean): Pick<RateLimitState, 'resetMs' | 'resetUnitGuessed'> {
	if (reset === undefined || !/^\d+(\.\d+)?$/.test(reset)) return {};
	const value = Number(reset);
	const at = value >= 1e12 ? value : value >= 1e9 ? value * 1000 : undefined;
	if (at === undefined) return unitGuessed ? { resetMs: Math.min(Math.round(value * 1000), RATE_LIMIT_WINDOW_MS), resetUnitGuessed: true } : { resetMs: Math.round(value * 1000) };
	// A reset already past says nothing (read as "now", every 429 would be retried at once).
	const from = serverNow(headers, now);
	return at > from ? { resetMs: Math.round(at - from) } : {};
}

export interface RateLimitState {
	limit?: number;
	remaining?: number;
	resetMs?: number;
	/** The reset is X-RateLimit-Reset's delay, whose unit is guessed: a whole window or more of it says little. */
	resetUnitGuessed?: true;
}

/** A count in a header: 0 to 999,999,999, digits only (a sign, a fraction, NaN or garbage says nothing). */
function count(text: string | undefined): number | undefined {
	return text !== undefined && /^\d{1,9}$/.test(text) ? Number(text) : undefined;
}

/**
 * What the rate-limit headers say, in the first form found for each field: the provider's
 * `X-RateLimit-Limit/Remaining/Reset` (its documentation also spells one `X-RateLmit-Remaining`), the
 * IETF draft's separate `RateLimit-Limit/Remaining/Reset`, its older combined `RateLimit: limit=100,
 * remaining=50, reset=5`, and its newest `RateLimit: "default";r=50;t=30` with `RateLimit-Policy:
 * "default";q=100;w=60` (the limit per second is q/w, rounded down). Every value is read as the
 * X-RateLimit ones are: counts bounded, a reset by its size; a form that does not parse is left out.
 */
export function readRateLimit(headers: Record<string, unknown>, now = Date.now()): RateLimitState | undefined {
	const state = rateLimitState(headers, now);
	return state.limit === undefined && state.remaining === undefined ? undefined : state;
}

function rateLimitState(headers: Record<string, unknown>, now: number): RateLimitState {
	const combined = header(headers, 'ratelimit');
	const older = combined === undefined ? undefined : olderRateLimit(combined);
	const newest = combined === undefined || older !== undefined ? undefined : newestRateLimit(combined, header(headers, 'ratelimit-policy'));
	const providers = header(headers, 'x-ratelimit-reset');
	const reset = providers ?? header(headers, 'ratelimit-reset') ?? older?.reset ?? newest?.reset;
	return {
		limit: count(header(headers, 'x-ratelimit-limit')) ?? count(header(headers, 'ratelimit-limit')) ?? count(older?.limit) ?? newest?.limit,
		remaining: count(header(headers, 'x-ratelimit-remaining')) ?? count(header(headers, 'x-ratelmit-remaining')) ?? count(header(headers, 'ratelimit-remaining')) ?? count(older?.remaining) ?? count(newest?.remaining),
		...readReset(reset, headers, now, providers !== undefined),
	};
}

/** Longer than any honest rate-limit header: not read at all. */
const MAX_RATE_LIMIT_HEADER = 1000;

/** `limit=100, remaining=50, reset=5`. A key given twice (two headers joined by a proxy) makes it unreadable. */
function olderRateLimit(text: string): { limit?: string; remaining?: string; reset?: string } | undefined {
	if (text.length > MAX_RATE_LIMIT_HEADER || !/^\s*(limit|remaining|reset)\s*=/i.test(text)) return undefined;
	const fields = new Map<string, string>();
	for (const part of text.split(',')) {
		const match = /^\s*([a-z-]+)\s*=\s*([^\s,;]*)\s*$/i.exec(part);
		if (!match) return undefined;
		const key = match[1].toLowerCase();
		if (fields.has(key)) return undefined;
		fields.set(key, match[2]);
	}
	return { limit: fields.get('limit'), remaining: fields.get('remaining'), reset: fields.get('reset') };
}

/**
 * `"default";r=50;t=30` (a list: the policy with the fewest remaining counts), its quota and window from
 * `RateLimit-Policy: "default";q=100;w=60` by the same name. Members not in this shape are left out.
 */
function newestRateLimit(text: string, policyText: string | undefined): { limit?: number; remaining?: string; reset?: string } | undefined {
	const limits = structuredList(text);
	let tightest: Map<string, string> | undefined;
	for (const member of limits) {
		const remaining = count(member.get('r'));
		if (remaining !== undefined && (tightest === undefined || remaining < (count(tightest.get('r')) ?? Infinity))) tightest = member;
	}
	if (!tightest) return undefined;
	const policy = policyText === undefined ? undefined : structuredList(policyText).find((member) => member.get('') === tightest.get(''));
	const quota = count(policy?.get('q'));
	const window = count(policy?.get('w')) ?? 1;
	const perSecond = quota !== undefined && window >= 1 ? Math.floor(quota / window) : undefined;
	return { limit: perSecond !== undefined && perSecond >= 1 ? perSecond : undefined, remaining: tightest.get('r'), reset: tightest.get('t') };
}

/** A structured-field list of `name;key=value;…` members, each as a map with its name under ''. At most 16 read. */
function structuredList(text: string): Array<Map<string, string>> {
	if (text.length > MAX_RATE_LIMIT_HEADER) return [];
	const members: Array<Map<string, string>> = [];
	for (const part of text.split(',').slice(0, 16)) {
		const [name, ...parameters] = part.trim().split(';');
		const member = new Map<string, string>([['', name.trim().replace(/^"(.*)"$/, '$1')]]);
		let readable = /^("[^"]*"|[a-z*][\w.*:/%-]*)$/i.test(name.trim());
		for (const parameter of parameters) {
			const match = /^\s*([a-z][a-z0-9_.*-]*)=(\S+)\s*$/i.exec(parameter);
			if (!match || member.has(match[1].toLowerCase())) readable = false;
			else member.set(match[1].toLowerCase(), match[2]);
		}
		if (readable) members.push(member);
	}
	return members;
}

export function header(headers: Record<string, unknown>, name: string): string | undefined {
	for (const [key, value] of Object.entries(headers ?? {})) {
		if (key.toLowerCase() === name) {
			const text = Array.isArray(value) ? value[0] : value;
			return text === undefined || text === null ? undefined : String(text).trim();
		}
	}
	return undefined;
}
