import type { SendRequestBody } from './payload';

/**
 * For each request that repeats an earlier one, the index of the first: the same body means the
 * same recipient (the number is already normalised), template and values.
 */
export function findRepeats(requests: Array<SendRequestBody | undefined>): Map<number, number> {
	const first = new Map<string, number>();
	const repeats = new Map<number, number>();
	requests.forEach((request, itemIndex) => {
		if (request === undefined) return;
		const key = JSON.stringify(request);
		const earlier = first.get(key);
		if (earlier === undefined) first.set(key, itemIndex);
		else repeats.set(itemIndex, earlier);
	});
	return repeats;
}
