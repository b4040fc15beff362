/**
 * Runs `task` for 0..count-1, at most `concurrency` at once. Once `stop()` says so, or a task has thrown, no new
 * task starts. It settles only when every task it started has, so nothing a task does outlives the pool.
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
