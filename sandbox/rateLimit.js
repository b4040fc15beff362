'use strict';
/**
 * A provider's limit as a strict sliding window: at most `perSecond` accepted requests in any
 * one second. `take()` says whether one more is allowed now, and counts it if so.
 */
function slidingWindow(perSecond) {
	const acceptedAt = [];
	return function take(now = Date.now()) {
		while (acceptedAt.length > 0 && acceptedAt[0] <= now - 1000) acceptedAt.shift();
		if (acceptedAt.length >= perSecond) return false;
		acceptedAt.push(now);
		return true;
	};
}

module.exports = { slidingWindow };
