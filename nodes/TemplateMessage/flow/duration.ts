/** A duration in a message: whole milliseconds under a second, else seconds to a tenth. */
export function seconds(ms: number): string {
	return ms > 0 && ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
