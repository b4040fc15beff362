/** Polls `check` every `intervalMs` until it holds; fails with `what` after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000, intervalMs = 200): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await check())) {
		if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, intervalMs));
	}
}
