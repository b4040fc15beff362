export interface Bounds {
	maxDepth: number;
	maxEntries: number;
	maxStringLength: number;
}

export const ANSWER_BOUNDS: Bounds = { maxDepth: 6, maxEntries: 30, maxStringLength: 1000 };

/** An API answer, capped to keep: each string is `clean`ed (redacted) before it is cut, so a cut leaves no piece of a secret. */
export function boundedCopy(value: unknown, clean: (text: string) => string, bounds: Bounds = ANSWER_BOUNDS, depth = 0): unknown {
	if (typeof value === 'string') return truncate(clean(value), bounds.maxStringLength);
	if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
	if (typeof value !== 'object') return undefined;
	if (depth >= bounds.maxDepth) return Array.isArray(value) ? '[…]' : '{…}';
	if (Array.isArray(value)) {
		const copy = value.slice(0, bounds.maxEntries).map((entry) => boundedCopy(entry, clean, bounds, depth + 1));
		if (value.length > bounds.maxEntries) copy.push(`… ${value.length - bounds.maxEntries} more`);
		return copy;
	}
	const copy: Record<string, unknown> = {};
	const keys = Object.keys(value);
	for (const key of keys.slice(0, bounds.maxEntries)) {
		copy[truncate(clean(key), 100)] = boundedCopy((value as Record<string, unknown>)[key], clean, bounds, depth + 1);
	}
	if (keys.length > bounds.maxEntries) copy['…'] = `${keys.length - bounds.maxEntries} more`;
	return copy;
}

export function truncate(text: string, max: number): string {
	return text.length > max ? `${text.slice(0, max)}…` : text;
}
