/**
 * Milliseconds on a clock that never steps: the wall clock's reading when the package loaded, advanced by
 * the process's monotonic clock. The pace, the waits, Send Once's block sizes and every "how long since"
 * are measured on it, so a wall clock stepped back or forward mid-run (an NTP correction of minutes)
 * neither holds every request that long nor lets a burst out. Times the API names (a Retry-After date, a
 * Reset in Unix time) are read against the wall clock (api/headers.ts): they are dates, not intervals.
 */
const origin = Date.now() - performance.now();

/** Whole milliseconds, as Date.now gives them (every count and wait built on it expects them). */
export function steadyNow(): number {
	return Math.floor(origin + performance.now());
}
