/**
 * Copies data the node did not make (an API answer) into something small and flat enough to
 * keep, show and serialise: depth, entries and string lengths are capped, and every string
 * goes through `clean` (the token's redaction) before it is cut, so a cut never leaves part of
 * an echoed secret behind. Recursion never goes deeper than `maxDepth`.
 */
export interface Bounds {
	maxDepth: number;
	maxEntries: number;
	maxStringLength: number;
}

export const ANSWER_BOUNDS: Bounds = { maxDepth: 6, maxEntries: 30, maxStringLength: 1000 };

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
