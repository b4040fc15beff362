'use strict';
/**
 * A provider's limit of `perSecond` requests, counted as they arrive. `take(now)` says whether one
 * more is allowed now, and counts it if so; `take.window(now)` says how many are left and in how many
 * ms one more will be, as the provider's X-RateLimit-Remaining and X-RateLimit-Reset headers do.
 *   'sliding'  at most `perSecond` in any one second: a slot frees when the oldest leaves the second
 *   'fixed'    at most `perSecond` in each whole second of the clock: all free at the next second
 */
function rateWindow(perSecond, kind = 'sliding') {
	if (kind === 'fixed') return fixedWindow(perSecond);
	if (kind === 'sliding') return slidingWindow(perSecond);
	throw new Error(`SANDBOX_RATE_WINDOW must be sliding or fixed, not ${kind}`);
}

function slidingWindow(perSecond) {
	const acceptedAt = [];
	const forget = (now) => {
		while (acceptedAt.length > 0 && acceptedAt[0] <= now - 1000) acceptedAt.shift();
	};
	function take(now = Date.now()) {
		forget(now);
		if (acceptedAt.length >= perSecond) return false;
		acceptedAt.push(now);
		return true;
	}
	take.window = (now = Date.now()) => {
		forget(now);
		return { remaining: Math.max(0, perSecond - acceptedAt.length), resetMs: acceptedAt.length > 0 ? acceptedAt[0] + 1000 - now : 0 };
	};
	return take;
}

function fixedWindow(perSecond) {
	let second = -1;
	let used = 0;
	const turn = (now) => {
		if (Math.floor(now / 1000) !== second) [second, used] = [Math.floor(now / 1000), 0];
	};
	function take(now = Date.now()) {
		turn(now);
		if (used >= perSecond) return false;
		used++;
		return true;
	}
	take.window = (now = Date.now()) => {
		turn(now);
		return { remaining: Math.max(0, perSecond - used), resetMs: (second + 1) * 1000 - now };
	};
	return take;
}

/**
 * The forms X-RateLimit-Reset takes at providers (this provider's docs give no unit): seconds with a
 * fraction (`0.040`), whole seconds rounded up (`1`), milliseconds (`40`), or no header at all.
 */
const RESET_FORMS = {
	fraction: (ms) => (ms / 1000).toFixed(3),
	seconds: (ms) => String(Math.ceil(ms / 1000)),
	ms: (ms) => String(Math.ceil(ms)),
	none: () => undefined,
};

/** The X-RateLimit-* headers for a window's state, with Reset in `form`. */
function rateLimitHeaders(limit, { remaining, resetMs }, form = 'fraction') {
	const write = RESET_FORMS[form];
	if (!write) throw new Error(`SANDBOX_RATE_RESET must be one of ${Object.keys(RESET_FORMS).join(', ')}, not ${form}`);
	const reset = write(resetMs);
	return { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(remaining), ...(reset === undefined ? {} : { 'x-ratelimit-reset': reset }) };
}

/** The most of `times` (ms, in order) within any one second, kept as they come. */
function busiestSecond() {
	const recent = [];
	let most = 0;
	function arrived(now) {
		recent.push(now);
		while (now - recent[0] >= 1000) recent.shift();
		most = Math.max(most, recent.length);
	}
	arrived.most = () => most;
	arrived.reset = () => {
		recent.length = 0;
		most = 0;
	};
	return arrived;
}

module.exports = { rateWindow, slidingWindow, fixedWindow, rateLimitHeaders, busiestSecond, RESET_FORMS };
