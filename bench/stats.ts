/** Summaries of a few samples: the median and the range, printed the same way everywhere. */
export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export const fixed = (value: number, digits = 1) => value.toFixed(digits);

/** "median (min–max)". */
export function spread(values: number[], digits = 1): string {
	return `${fixed(median(values), digits)} (${fixed(Math.min(...values), digits)}–${fixed(Math.max(...values), digits)})`;
}

/** Per-round ratios a[i] / b[i]: runs in the same round share the machine's state of the moment. */
export function ratios(a: number[], b: number[]): number[] {
	return a.map((value, round) => value / b[round]);
}
