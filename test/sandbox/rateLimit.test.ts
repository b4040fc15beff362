/**
 * The sandbox's rate limit as a provider's may be: counted as requests arrive, before the latency of
 * their answer; a strict sliding window or fixed windows; X-RateLimit-Reset in each form providers
 * use. On an injected clock: no verdict depends on how fast the machine is.
 */
import type { AddressInfo } from 'node:net';
import axios from 'axios';

interface RateWindow {
	(now: number): boolean;
	window(now: number): { remaining: number; resetMs: number };
}
const { rateWindow, rateLimitHeaders, busiestSecond } = require('../../sandbox/rateLimit') as {
	rateWindow: (perSecond: number, kind?: string) => RateWindow;
	rateLimitHeaders: (limit: number, state: { remaining: number; resetMs: number }, form?: string) => Record<string, string>;
	busiestSecond: () => ((now: number) => void) & { most(): number };
};
const { createSandbox } = require('../../sandbox/server') as {
	createSandbox: (options: { token: string; rateLimit?: number; latencyMs?: number; now?: () => number }) => { server: import('node:http').Server; stats: Record<string, number> };
};

describe('windows', () => {
	test('sliding: at most the limit in any one second, a slot frees when the oldest leaves it', () => {
		const take = rateWindow(2);
		expect([take(0), take(600), take(900)]).toEqual([true, true, false]);
		expect(take.window(900)).toEqual({ remaining: 0, resetMs: 100 });
		expect([take(1000), take(1500)]).toEqual([true, false]);
	});

	test('fixed: at most the limit in each whole second, all free at the next', () => {
		const take = rateWindow(2, 'fixed');
		expect([take(0), take(600), take(900)]).toEqual([true, true, false]);
		expect(take.window(900)).toEqual({ remaining: 0, resetMs: 100 });
		// Two at the end of one second and two at the start of the next: four within 200 ms, as fixed windows allow.
		expect([take(1000), take(1100), take(1200)]).toEqual([true, true, false]);
	});

	test('an unknown kind is refused', () => {
		expect(() => rateWindow(2, 'leaky')).toThrow('SANDBOX_RATE_WINDOW must be sliding or fixed, not leaky');
	});
});

test('X-RateLimit-Reset in each form: seconds with a fraction, whole seconds, milliseconds, none', () => {
	const state = { remaining: 0, resetMs: 40 };
	expect(rateLimitHeaders(25, state)).toEqual({ 'x-ratelimit-limit': '25', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '0.040' });
	expect(rateLimitHeaders(25, state, 'seconds')['x-ratelimit-reset']).toBe('1');
	expect(rateLimitHeaders(25, state, 'ms')['x-ratelimit-reset']).toBe('40');
	expect(rateLimitHeaders(25, state, 'none')).toEqual({ 'x-ratelimit-limit': '25', 'x-ratelimit-remaining': '0' });
	expect(() => rateLimitHeaders(25, state, 'minutes')).toThrow('SANDBOX_RATE_RESET must be one of fraction, seconds, ms, none, not minutes');
});

test('the busiest second counts every arrival within one second', () => {
	const arrived = busiestSecond();
	for (const at of [0, 100, 999, 1000, 1001, 1002]) arrived(at);
	expect(arrived.most()).toBe(5);
});

test('a send is counted when it arrives, not when its answer is ready: a lookup after it meets the limit', async () => {
	const sandbox = createSandbox({ token: 'tok', rateLimit: 1, latencyMs: 300, now: () => 0 });
	await new Promise<void>((resolve) => sandbox.server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(sandbox.server.address() as AddressInfo).port}`;
	try {
		const headers = { authorization: 'tok' };
		const sent = axios.post(`${url}/api/v2/push/message`, { phone_number: '6281234567890', message: { type: 'template', template: { template_code_id: 'tpl', payload: [] } } }, { headers });
		// The send has arrived (its answer waits 300 ms); the lookup comes after it, on the same frozen clock.
		while (sandbox.stats.busiestSecond < 1) await new Promise((resolve) => setImmediate(resolve));
		const lookup = await axios.get(`${url}/api/v2/message/x/status`, { headers, validateStatus: () => true });
		expect(lookup.status).toBe(429);
		expect((await sent).status).toBe(200);
		expect(sandbox.stats.busiestSecond).toBe(2);
	} finally {
		await new Promise((resolve) => sandbox.server.close(resolve));
	}
});
