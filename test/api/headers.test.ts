/** What an answer's headers say: Retry-After and the rate-limit headers in each form. */
import { readRateLimit, retryAfterMs } from '../../nodes/TemplateMessage/api/headers';

describe('retryAfterMs', () => {
	const now = Date.parse('2026-11-21T10:00:00Z');
	test('seconds, HTTP date, X-RateLimit-Reset as delay or epoch', () => {
		expect(retryAfterMs({ 'retry-after': '1.5' }, now)).toBe(1500);
		expect(retryAfterMs({ 'retry-after': 'Sat, 21 Nov 2026 10:00:04 GMT' }, now)).toBe(4000);
		expect(retryAfterMs({ 'x-ratelimit-reset': '0.4' }, now)).toBe(400);
		// X-RateLimit-Reset's delay has no documented unit (whole seconds, or milliseconds read as seconds): one window at most.
		expect(retryAfterMs({ 'x-ratelimit-reset': '2' }, now)).toBe(1000);
		expect(retryAfterMs({ 'x-ratelimit-reset': '962' }, now)).toBe(1000);
		expect(retryAfterMs({ 'x-ratelimit-reset': String(now / 1000 + 5) }, now)).toBe(5000);
		expect(retryAfterMs({ 'x-ratelimit-reset': String(now + 2500) }, now)).toBe(2500);
		// A reset time already past (the server's clock is behind) says nothing: the node's own wait applies.
		expect(retryAfterMs({ 'x-ratelimit-reset': String(now / 1000 - 3600) }, now)).toBeUndefined();
		expect(retryAfterMs({ 'x-ratelimit-reset': String(now - 1) }, now)).toBeUndefined();
		expect(retryAfterMs({ 'x-ratelimit-reset': String(now + 1000) }, now)).toBe(1000);
		expect(retryAfterMs({ 'x-ratelimit-reset': '0.3' }, now)).toBe(300);
		expect(retryAfterMs({}, now)).toBeUndefined();
		expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
	});

	test('a Retry-After of more digits than a count has is as long as 9 nines of seconds, never Infinity', () => {
		expect(retryAfterMs({ 'retry-after': '9'.repeat(400) }, now)).toBe(999_999_999_000);
		expect(retryAfterMs({ 'retry-after': '1234567890' }, now)).toBe(999_999_999_000);
	});

	test("a time the server names is measured on its own clock (its Date header), however far ours is off", () => {
		const hourAhead = now + 3_600_000;
		const date = { date: new Date(hourAhead).toUTCString() };
		expect(retryAfterMs({ ...date, 'x-ratelimit-reset': String(hourAhead / 1000 + 2) }, now)).toBe(2000);
		expect(retryAfterMs({ ...date, 'retry-after': new Date(hourAhead + 3000).toUTCString() }, now)).toBe(3000);
		expect(readRateLimit({ ...date, 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(hourAhead + 1500) }, now)?.resetMs).toBe(1500);
		const hourBehind = { date: new Date(now - 3_600_000).toUTCString() };
		expect(retryAfterMs({ ...hourBehind, 'x-ratelimit-reset': String((now - 3_600_000) / 1000 + 4) }, now)).toBe(4000);
		// A Date that does not parse leaves our clock in charge.
		expect(retryAfterMs({ date: 'yesterday', 'x-ratelimit-reset': String(now / 1000 + 5) }, now)).toBe(5000);
	});
});

describe('readRateLimit', () => {
	test('reads limit, remaining (both spellings the provider documents) and reset', () => {
		expect(readRateLimit({ 'X-RateLimit-Limit': '25', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '0.2' }, 0)).toEqual({ limit: 25, remaining: 0, resetMs: 200, resetUnitGuessed: true });
		expect(readRateLimit({ 'x-ratelmit-remaining': '3' }, 0)).toEqual({ limit: undefined, remaining: 3, resetMs: undefined });
		expect(readRateLimit({ 'x-ratelimit-reset': '1700000001' }, 1_700_000_000_000)).toBeUndefined();
		expect(readRateLimit({ 'x-ratelimit-limit': '-5', 'x-ratelimit-remaining': 'lots' }, 0)).toBeUndefined();
	});
});

describe("the IETF draft's RateLimit headers, read like X-RateLimit-*", () => {
	const now = Date.parse('2026-11-21T10:00:00Z');

	test('the separate RateLimit-Limit, -Remaining and -Reset (delta-seconds)', () => {
		expect(readRateLimit({ 'RateLimit-Limit': '100', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '5' }, now)).toEqual({ limit: 100, remaining: 0, resetMs: 5000 });
		expect(readRateLimit({ 'ratelimit-remaining': '7' }, now)).toEqual({ limit: undefined, remaining: 7, resetMs: undefined });
		// The provider's own headers come first.
		expect(readRateLimit({ 'X-RateLimit-Remaining': '3', 'RateLimit-Remaining': '0', 'X-RateLimit-Reset': '1', 'RateLimit-Reset': '9' }, now)).toEqual({ limit: undefined, remaining: 3, resetMs: 1000, resetUnitGuessed: true });
	});

	test('the older combined RateLimit: limit=100, remaining=50, reset=5', () => {
		expect(readRateLimit({ RateLimit: 'limit=100, remaining=50, reset=5' }, now)).toEqual({ limit: 100, remaining: 50, resetMs: 5000 });
		expect(readRateLimit({ ratelimit: 'remaining=0, reset=2' }, now)).toEqual({ limit: undefined, remaining: 0, resetMs: 2000 });
		expect(retryAfterMs({ ratelimit: 'limit=10, remaining=0, reset=4' }, now)).toBe(4000);
	});

	test('the newest RateLimit: "default";r=50;t=30 with RateLimit-Policy: "default";q=100;w=60', () => {
		expect(readRateLimit({ RateLimit: '"default";r=0;t=30', 'RateLimit-Policy': '"default";q=100;w=60' }, now)).toEqual({ limit: 1, remaining: 0, resetMs: 30_000 });
		// A window of one second: the quota is the limit per second. Without a policy, no limit.
		expect(readRateLimit({ RateLimit: '"burst";r=3;t=1', 'RateLimit-Policy': '"burst";q=20;w=1' }, now)).toEqual({ limit: 20, remaining: 3, resetMs: 1000 });
		expect(readRateLimit({ RateLimit: '"default";r=50;t=30' }, now)).toEqual({ limit: undefined, remaining: 50, resetMs: 30_000 });
		// Several policies: the one with the fewest remaining holds.
		expect(readRateLimit({ RateLimit: '"day";r=900;t=3600, "second";r=0;t=1', 'RateLimit-Policy': '"day";q=1000;w=86400, "second";q=10;w=1' }, now)).toEqual({ limit: 10, remaining: 0, resetMs: 1000 });
		// A quota under one a second is no limit per second the pace can keep.
		expect(readRateLimit({ RateLimit: '"default";r=5;t=30', 'RateLimit-Policy': '"default";q=10;w=60' }, now)?.limit).toBeUndefined();
	});

	test.each([
		['a negative count', { 'RateLimit-Remaining': '-1', 'RateLimit-Limit': '-5' }],
		['a fraction', { 'RateLimit-Remaining': '0.5' }],
		['NaN', { 'RateLimit-Remaining': 'NaN', 'RateLimit-Limit': 'NaN' }],
		['a huge number', { 'RateLimit-Remaining': '1'.repeat(400), 'RateLimit-Limit': '9'.repeat(20) }],
		['garbage', { RateLimit: 'lots left, come back later' }],
		['the older form with a garbage value', { RateLimit: 'limit=abc, remaining=-3' }],
		['the older form repeated (two headers joined)', { RateLimit: 'limit=100, remaining=50, reset=5, limit=100, remaining=0, reset=5' }],
		['the older form as a huge header', { RateLimit: `remaining=0, reset=5, ${'x=1, '.repeat(500)}` }],
		['the newest form with a negative or missing r', { RateLimit: '"default";r=-1;t=30, "other";t=5' }],
		['the newest form with a parameter given twice', { RateLimit: '"default";r=0;r=50;t=30' }],
		['the newest form with NaN', { RateLimit: '"default";r=NaN;t=NaN' }],
	])('%s says nothing', (_name, headers) => {
		expect(readRateLimit(headers, now)).toBeUndefined();
	});

	test('a repeated header given as a list reads its first value, as X-RateLimit-Remaining does', () => {
		expect(readRateLimit({ 'ratelimit-remaining': ['0', '50'], 'ratelimit-reset': ['2', '9'] }, now)).toEqual({ limit: undefined, remaining: 0, resetMs: 2000 });
		expect(readRateLimit({ 'x-ratelimit-remaining': ['0', '50'] }, now)?.remaining).toBe(0);
	});

	test("a reset is bounded like X-RateLimit-Reset's: one past on the server's clock says nothing, one absurdly far is left to the pacer's cap and the throttle budget", () => {
		const date = { date: new Date(now + 3_600_000).toUTCString() };
		// An epoch in the delta-seconds header, on a server clock an hour ahead: read by its size, on that clock.
		expect(readRateLimit({ ...date, 'RateLimit-Remaining': '0', 'RateLimit-Reset': String((now + 3_600_000) / 1000 + 2) }, now)?.resetMs).toBe(2000);
		expect(readRateLimit({ ...date, RateLimit: `remaining=0, reset=${(now - 10_000) / 1000}` }, now)).toEqual({ limit: undefined, remaining: 0, resetMs: undefined });
		expect(readRateLimit({ RateLimit: '"default";r=0;t=-30' }, now)).toEqual({ limit: undefined, remaining: 0, resetMs: undefined });
		expect(readRateLimit({ 'RateLimit-Remaining': '0', 'RateLimit-Reset': 'tomorrow' }, now)).toEqual({ limit: undefined, remaining: 0, resetMs: undefined });
	});
});
