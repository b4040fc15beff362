'use strict';
/**
 * A provider's limit as a strict sliding window: at most `perSecond` accepted requests in any
 * one second. `take()` says whether one more is allowed now, and counts it if so;
 * `take.window()` says how many are left and in how many ms the oldest leaves the window, as
 * the provider's X-RateLimit-Remaining and X-RateLimit-Reset headers do.
 */
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

module.exports = { slidingWindow };
