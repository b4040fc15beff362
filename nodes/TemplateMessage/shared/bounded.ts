const MAX_DEPTH = 6;
const MAX_ENTRIES = 30;
const MAX_STRING_LENGTH = 1000;

/** An API answer, capped to keep: each string is `redact`ed before it is cut, so a cut leaves no piece of a secret. */
export function boundedCopy(value: unknown, redact: (text: string) => string, depth = 0): unknown {
	if (typeof value === 'string') return truncate(redact(value), MAX_STRING_LENGTH);
	// A number is text a server can echo the token in too (a token of digits as an error's code).
	if (typeof value === 'number') return redact(String(value)) === String(value) ? value : redact(String(value));
	if (typeof value === 'boolean' || value === null) return value;
	if (typeof value !== 'object') return undefined;
	if (depth >= MAX_DEPTH) return Array.isArray(value) ? '[…]' : '{…}';
	if (Array.isArray(value)) {
		const copy = value.slice(0, MAX_ENTRIES).map((entry) => boundedCopy(entry, redact, depth + 1));
		if (value.length > MAX_ENTRIES) copy.push(`… ${value.length - MAX_ENTRIES} more`);
		return copy;
	}
	const copy: Record<string, unknown> = {};
	const keys = Object.keys(value);
	for (const key of keys.slice(0, MAX_ENTRIES)) {
		copy[truncate(redact(key), 100)] = boundedCopy((value as Record<string, unknown>)[key], redact, depth + 1);
	}
	if (keys.length > MAX_ENTRIES) copy['…'] = `${keys.length - MAX_ENTRIES} more`;
	return copy;
}

/** The longest msgid the node keeps, whole: an id is copied exactly or not at all (a Send's, a Get Status's). */
export const MAX_MSGID_LENGTH = 256;

/** The longest reason a row keeps from an answer (the API's, or one about it); the rest is cut. */
export const MAX_REASON_LENGTH = 300;

export function truncate(text: string, max: number): string {
	return text.length > max ? `${text.slice(0, max)}…` : text;
}
