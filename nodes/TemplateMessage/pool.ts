/**
 * Runs `task` for indexes 0..count-1 with at most `concurrency` at once; results keep index
 * order. Once `stop()` says so, no new task starts (those running finish).
 */
export async function runPool<T>(
	count: number,
	concurrency: number,
	task: (index: number) => Promise<T>,
	stop: () => boolean = () => false,
): Promise<Array<T | undefined>> {
	const results: Array<T | undefined> = Array.from({ length: count }, () => undefined);
	let next = 0;
	const worker = async () => {
		while (next < count && !stop()) {
			const index = next++;
			results[index] = await task(index);
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
	return results;
}
