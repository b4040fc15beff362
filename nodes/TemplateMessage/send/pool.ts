/**
 * Runs `task` for indexes 0..count-1 with at most `concurrency` at once; results keep index
 * order. Once `stop()` says so, or a task has thrown, no new task starts. It settles only when
 * every task it started has settled, so nothing a task does outlives the pool; then it returns
 * the results, or rejects with the first task's error.
 */
export async function runPool<T>(
	count: number,
	concurrency: number,
	task: (index: number) => Promise<T>,
	stop: () => boolean = () => false,
): Promise<Array<T | undefined>> {
	const results: Array<T | undefined> = Array.from({ length: count }, () => undefined);
	let next = 0;
	let failure: { error: unknown } | undefined;
	const worker = async () => {
		while (next < count && !failure && !stop()) {
			const index = next++;
			try {
				results[index] = await task(index);
			} catch (error) {
				failure ??= { error };
			}
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
	if (failure) throw failure.error;
	return results;
}
