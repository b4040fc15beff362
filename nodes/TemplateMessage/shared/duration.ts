/**
 * How long, as every message, summary and row writes it, to two figures or so: whole milliseconds under
 * a second, seconds to a tenth under 10 s and whole under a minute, minutes likewise under an hour, then
 * hours and whole minutes.
 */
export function duration(ms: number): string {
	if (!Number.isFinite(ms)) return 'without end';
	if (Math.round(ms) > 0 && Math.round(ms) < 1000) return `${Math.round(ms)} ms`;
	const seconds = twoFigures(ms / 1000);
	if (seconds < 60) return `${seconds} s`;
	const minutes = twoFigures(ms / 60_000);
	if (minutes < 60) return `${minutes} min`;
	const wholeMinutes = Math.round(ms / 60_000);
	const hours = `${Math.floor(wholeMinutes / 60)} h`;
	return wholeMinutes % 60 === 0 ? hours : `${hours} ${wholeMinutes % 60} min`;
}

/** A setting the editor takes in seconds, named in its own unit (Max Wait When Throttled (120 s)). */
export function secondsSetting(ms: number): string {
	return ms > 0 && ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

function twoFigures(value: number): number {
	const tenths = Math.round(value * 10) / 10;
	return tenths < 10 ? tenths : Math.round(value);
}
