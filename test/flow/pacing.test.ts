import type { Outcome } from '../../nodes/TemplateMessage/shared/contracts';
import type { DepartureTry } from '../../nodes/TemplateMessage/flow/pacer';
import { accountPacer, Pacer, sharedPacer } from '../../nodes/TemplateMessage/flow/pacer';
import { runPool } from '../../nodes/TemplateMessage/flow/pool';
import { readOptions } from '../../nodes/TemplateMessage/shared/options';
import { fieldError } from '../../nodes/TemplateMessage/shared/optionSpec';
import { backoffMs, decideRetry } from '../../nodes/TemplateMessage/flow/retry';
import { fingerprint } from '../../nodes/TemplateMessage/shared/fingerprint';
import { SentMemory } from '../../nodes/TemplateMessage/send/sentMemory';
import { ARRIVAL_ROOM_MS } from '../../nodes/TemplateMessage/shared/flowLimits';
import type { RateLimitState } from '../../nodes/TemplateMessage/api/headers';
import { readRateLimit } from '../../nodes/TemplateMessage/api/headers';

/** How long tryDepart asks to wait: 0 when the request left. */
const waitOf = (attempt: DepartureTry): number => ('waitMs' in attempt ? attempt.waitMs : 0);

/** The retry policy of a run with no option set. */
const defaults = readOptions({}, 'run', 2, fieldError);

describe('Pacer', () => {
	const clock = (start = 1_000_000) => {
		let now = start;
		return { now: () => now, advance: (ms: number) => (now += ms) };
	};

	test('starts are spaced exactly 1/rate apart, however many callers reserve at once', () => {
		const time = clock();
		const pacer = new Pacer(25, time.now);
		const waits = Array.from({ length: 50 }, () => pacer.reserve());
		expect(waits[0]).toBe(0);
		expect(waits[49]).toBe(49 * 40);
		waits.slice(1).forEach((wait, i) => expect(wait - waits[i]).toBe(40));
	});

	test('a sender that woke up late cannot squeeze an extra request into a one-second window', () => {
		const time = clock();
		const pacer = new Pacer(4, time.now);
		const slots = [pacer.reserve(), pacer.reserve(), pacer.reserve(), pacer.reserve(), pacer.reserve()];
		expect(slots).toEqual([0, 250, 500, 750, 1000]);
		// The first sender is 100 ms late; the others are on time.
		time.advance(100);
		expect(waitOf(pacer.tryDepart())).toBe(0);
		time.advance(150);
		expect(waitOf(pacer.tryDepart())).toBe(0);
		time.advance(250);
		expect(waitOf(pacer.tryDepart())).toBe(0);
		time.advance(250);
		expect(waitOf(pacer.tryDepart())).toBe(0);
		// Slot 1000 has come, but four requests left since 100: the fifth waits until a window of
		// one second and the room has passed since the first, at 1100 + ARRIVAL_ROOM_MS.
		time.advance(250);
		expect(waitOf(pacer.tryDepart())).toBe(100 + ARRIVAL_ROOM_MS);
		time.advance(100 + ARRIVAL_ROOM_MS);
		expect(waitOf(pacer.tryDepart())).toBe(0);
	});

	test.each([0.1, 0.5, 1, 2, 5, 25, 100, 1000])('at %p a second the pace is the setting within 2%%, and no one-second window holds more', (rate) => {
		const time = clock();
		const pacer = new Pacer(rate, time.now);
		const departures: number[] = [];
		const count = Math.max(10, 2 * rate);
		for (let i = 0; i < count; i++) {
			time.advance(pacer.reserve());
			for (let wait = waitOf(pacer.tryDepart()); wait > 0; wait = waitOf(pacer.tryDepart())) time.advance(wait);
			departures.push(time.now());
		}
		const measured = ((count - 1) * 1000) / (departures[count - 1] - departures[0]);
		expect(Math.abs(measured - rate) / rate).toBeLessThanOrEqual(0.02);
		const mostInOneSecond = Math.max(...departures.map((start) => departures.filter((at) => at >= start && at < start + 1000).length));
		expect(mostInOneSecond).toBeLessThanOrEqual(Math.max(1, Math.floor(rate)));
	});

	test.each([
		[2.5, 3],
		[7.9, 8],
		[1.5, 2],
	])('a setting of %p above 1 with a fraction is its pace within 2%%, never more than %p in any one second', (setting, roundedUp) => {
		const time = clock();
		const pacer = new Pacer(setting, time.now);
		const departures: number[] = [];
		for (let i = 0; i < 40; i++) {
			time.advance(pacer.reserve());
			for (let wait = waitOf(pacer.tryDepart()); wait > 0; wait = waitOf(pacer.tryDepart())) time.advance(wait);
			departures.push(time.now());
		}
		const measured = (39 * 1000) / (departures[39] - departures[0]);
		expect(Math.abs(measured - setting) / setting).toBeLessThanOrEqual(0.02);
		expect(Math.max(...departures.map((start) => departures.filter((at) => at >= start && at < start + 1000).length))).toBeLessThanOrEqual(roundedUp);
	});

	test('no slot is taken beyond the horizon, so that a pace that rises is not held to slots taken at a lower one', () => {
		const time = clock();
		const pacer = new Pacer(2, time.now);
		expect([pacer.reserveWithin(1000), pacer.reserveWithin(1000), pacer.reserveWithin(1000)]).toEqual([0, 500, 1000]);
		// The next slot, 1,500 ms ahead, is beyond the horizon: none taken, the sender asks again later.
		expect(pacer.reserveWithin(1000)).toBeUndefined();
		time.advance(600);
		expect(pacer.reserveWithin(1000)).toBe(900);
	});

	test('a pause is waited out whole, whatever the horizon', () => {
		const time = clock();
		const pacer = new Pacer(10, time.now);
		pacer.tooManyRequests(3000);
		expect(pacer.reserveWithin(1000)).toBe(3000);
	});

	test('slots given back move the schedule back, never before now', () => {
		const time = clock();
		const pacer = new Pacer(10, time.now);
		expect([pacer.reserve(), pacer.reserve(), pacer.reserve(), pacer.reserve()]).toEqual([0, 100, 200, 300]);
		// The senders holding 200 and 300 stopped: the next one takes 200.
		pacer.release();
		pacer.release();
		expect(pacer.reserve()).toBe(200);
		// Giving back more than was reserved does not put the schedule in the past.
		for (let i = 0; i < 10; i++) pacer.release();
		time.advance(50);
		expect(pacer.reserve()).toBe(0);
		expect(pacer.reserve()).toBe(100);
	});

	test('without a limit, departures are never held back', () => {
		const pacer = new Pacer(0);
		expect(Array.from({ length: 100 }, () => waitOf(pacer.tryDepart())).every((wait) => wait === 0)).toBe(true);
	});

	test('an idle pacer does not bank a burst', () => {
		const time = clock();
		const pacer = new Pacer(10, time.now);
		pacer.reserve();
		time.advance(10_000);
		expect([pacer.reserve(), pacer.reserve(), pacer.reserve()]).toEqual([0, 100, 200]);
	});

	test('no limit: never waits, except after a 429', () => {
		const time = clock();
		const pacer = new Pacer(0, time.now);
		expect([pacer.reserve(), pacer.reserve()]).toEqual([0, 0]);
		pacer.tooManyRequests(2000);
		expect(pacer.reserve()).toBe(2000);
	});

	test('a 429 pauses everyone and slows down; accepted messages speed it up again to the limit', () => {
		const time = clock();
		const pacer = new Pacer(20, time.now);
		pacer.tooManyRequests(1000);
		expect(pacer.reserve()).toBe(1000);
		expect(pacer.currentRate).toBe(16);
		expect(pacer.reserve()).toBe(1000 + 1000 / 16);
		for (let i = 0; i < 200; i++) pacer.accepted();
		expect(pacer.currentRate).toBe(20);
	});

	test('alone after a 429 cut, the room the headers show is taken in one step after half a second of accepted messages, not a tenth of the setting a second', () => {
		const time = clock();
		const pacer = new Pacer(25, time.now);
		pacer.join();
		pacer.tooManyRequests(1000);
		expect(pacer.currentRate).toBe(20);
		time.advance(1000);
		// Alone on the account: the API's window holds what this pace sent in the last second.
		for (let sent = 1; sent <= 10; sent++) {
			time.advance(50);
			const attempt = pacer.tryDepart();
			if (!('left' in attempt)) throw new Error(`held ${attempt.waitMs} ms`);
			pacer.answered(attempt.left, 20);
			pacer.rateLimitHeaders({ limit: 25, remaining: 25 - sent }, attempt.left);
			pacer.accepted();
		}
		expect(pacer.currentRate).toBe(25);
	});

	describe('a share of 1 refused with nothing of its own in the API\'s window', () => {
		const time = clock();
		/** The next request leaves, when the pace lets it: it is returned, and how long it waited. */
		const leave = (pace: Pacer) => {
			const from = time.now();
			time.advance(pace.reserve());
			let attempt = pace.tryDepart();
			while (!('left' in attempt)) {
				time.advance(attempt.waitMs);
				attempt = pace.tryDepart();
			}
			return { departure: attempt.left, waitedMs: time.now() - from };
		};
		/** One request through the pace, answered `roundTripMs` later with the account's window full and these headers. */
		const send = (pace: Pacer, state: RateLimitState | undefined, roundTripMs = 20) => {
			const { departure } = leave(pace);
			time.advance(roundTripMs);
			pace.answered(departure, roundTripMs);
			if (state) pace.rateLimitHeaders(state, departure);
			return departure;
		};
		const full = (reset?: string) => readRateLimit({ 'x-ratelimit-limit': '25', 'x-ratelimit-remaining': '0', ...(reset === undefined ? {} : { 'x-ratelimit-reset': reset }) })!;
		/** A pace whose share is 1 a second: others use the 24 its first answer leaves. */
		const atShareOfOne = () => {
			const pace = new Pacer(25, time.now);
			pace.join();
			send(pace, full('0.030'));
			expect(pace.currentRate).toBe(1);
			return pace;
		};

		test('tries again when the API\'s Reset says a slot frees, not a second later at the same full moment; at most once a second', () => {
			const pace = atShareOfOne();
			const state = full('0.030');
			expect(pace.tooManyRequests(1000, send(pace, state), false, state)).toEqual({ kind: 'atSharedWindowEdge', until: time.now() + 30, atReset: true });
			const retry = leave(pace);
			expect(retry.waitedMs).toBe(30);
			expect(pace.currentRate).toBe(1);
			// Refused again at that slot (another sender took it first): it waits its second.
			time.advance(20);
			pace.answered(retry.departure, 20);
			const again = full('0.010');
			pace.rateLimitHeaders(again, retry.departure);
			pace.tooManyRequests(1000, retry.departure, false, again);
			expect(leave(pace).waitedMs).toBeGreaterThan(900);
		});

		// Its own second: a second after the refused request left and the room (4 ms, and 2 learned from the
		// 429 at its window's edge), from its answer 20 ms later.
		const ownSecond = 1000 + ARRIVAL_ROOM_MS + 2 - 20;
		test.each([
			['a whole second', full('1'), ownSecond],
			['0', full('0'), ownSecond],
			['none', full(), ownSecond],
			['none in a 429 without rate-limit headers (an earlier answer\'s Reset is not this one\'s)', undefined, ownSecond],
			// Beyond the window, exact: Remaining 0 from others holds every sender until it.
			['5 s in RateLimit-Reset, its unit known', readRateLimit({ 'ratelimit-limit': '25', 'ratelimit-remaining': '0', 'ratelimit-reset': '5' })!, 5000],
		])('with a Reset of %s, the answer names no slot within the window: it is not tried at the Reset', (_, state, waitMs) => {
			const pace = atShareOfOne();
			expect(pace.tooManyRequests(1000, send(pace, state), false, state).atReset).toBeUndefined();
			expect(leave(pace).waitedMs).toBe(waitMs);
		});
	});

	test('the 429s of requests that left together slow the pace once; a 429 after the pause slows it again', () => {
		const time = clock();
		const pacer = new Pacer(20, time.now);
		for (let i = 0; i < 10; i++) pacer.tooManyRequests(1000);
		expect(pacer.currentRate).toBe(16);
		time.advance(1000);
		pacer.tooManyRequests(1000);
		expect(pacer.currentRate).toBeCloseTo(12.8);
	});
});

describe('sharedPacer', () => {
	test('runs sending with one account share one pace, whatever their settings; other accounts do not', () => {
		const now = 5_000_000;
		const clock = () => now;
		const a = sharedPacer('https://api.example.com\u0000tokenA', 10, clock);
		expect(sharedPacer('https://api.example.com\u0000tokenA', 10, clock)).toBe(a);
		expect(sharedPacer('https://api.example.com\u0000tokenB', 10, clock)).not.toBe(a);
		expect(sharedPacer('https://api.example.com\u0000tokenA', 5, clock)).toBe(a);
		// Two runs reserving alternately get one common spacing.
		expect([a.reserve(), sharedPacer('https://api.example.com\u0000tokenA', 10, clock).reserve()]).toEqual([0, 100]);
	});

	test('runs with other settings on one account: the pace keeps the lowest while they overlap (0, no limit, is no setting), and goes back up when it leaves', () => {
		let now = 6_000_000;
		const pacer = sharedPacer('https://api.example.com\u0000tokenSettings', 25, () => now);
		pacer.join(25);
		expect(pacer.currentRate).toBe(25);
		pacer.join(0);
		expect(pacer.maxRate).toBe(25);
		pacer.join(10);
		expect([pacer.maxRate, pacer.currentRate]).toEqual([10, 10]);
		// Spaced at 10 a second for every run now: 100 ms apart.
		now += 1_000;
		const first = pacer.reserve();
		expect(pacer.reserve() - first).toBe(100);
		pacer.leave(10);
		expect(pacer.maxRate).toBe(25);
		// Accepted messages bring the pace back up to the setting, as after any slowdown.
		for (let accepted = 0; accepted < 200 && pacer.currentRate < 25; accepted++) pacer.accepted();
		expect(pacer.currentRate).toBe(25);
		pacer.leave(0);
		pacer.leave(25);
		expect(pacer.inUse).toBe(false);
	});

	test('a run at 0 (no limit) goes back to no limit once the run with a setting has left', () => {
		const pacer = new Pacer(25, () => 8_000_000);
		pacer.join(25);
		pacer.join(0);
		expect(pacer.currentRate).toBe(25);
		pacer.leave(25);
		expect([pacer.maxRate, pacer.currentRate]).toEqual([0, 0]);
		expect(pacer.reserve()).toBe(0);
		expect(pacer.reserve()).toBe(0);
	});

	test('a limit the API announced between two settings holds once the lower run has left', () => {
		const pacer = new Pacer(25, () => 9_000_000);
		pacer.join(25);
		pacer.rateLimitHeaders({ limit: 15, remaining: 14 });
		pacer.join(10);
		expect(pacer.currentRate).toBe(10);
		pacer.leave(10);
		for (let accepted = 0; accepted < 300; accepted++) pacer.accepted();
		expect(pacer.currentRate).toBe(15);
	});

	test('a run with a lower setting joining keeps a lower limit the API announced', () => {
		const pacer = new Pacer(25, () => 7_000_000);
		pacer.join(25);
		pacer.rateLimitHeaders({ limit: 8, remaining: 7 });
		pacer.join(20);
		expect(pacer.currentRate).toBe(8);
		pacer.leave(20);
		expect(pacer.currentRate).toBe(8);
	});

	test('two credentials that reach one account as one share its pace: a token with a space after it or "Bearer " in front, an address in capitals or with its default port', () => {
		const url = 'https://api.example.com/api/v2/push/message';
		const pacer = accountPacer({ url, token: 'eyJ.tok.en' }, 25);
		expect(accountPacer({ url, token: 'eyJ.tok.en \n' }, 25)).toBe(pacer);
		expect(accountPacer({ url, token: 'Bearer eyJ.tok.en' }, 25)).toBe(pacer);
		expect(accountPacer({ url, token: 'bearer  eyJ.tok.en' }, 25)).toBe(pacer);
		expect(accountPacer({ url: 'HTTPS://API.Example.com:443/api/v2/push/message', token: 'eyJ.tok.en' }, 25)).toBe(pacer);
		expect(accountPacer({ url: 'https://api.example.com/API/v2/push/message', token: 'eyJ.tok.en' }, 25)).not.toBe(pacer);
		expect(accountPacer({ url, token: 'eyJ.tok.en2' }, 25)).not.toBe(pacer);
	});

	test('an entry idle for over a minute is dropped', () => {
		let now = 9_000_000;
		const clock = () => now;
		const first = sharedPacer('idle-account', 10, clock);
		now += 61_000;
		expect(sharedPacer('idle-account', 10, clock)).not.toBe(first);
	});
});

describe('decideRetry', () => {
	const rejected = (statusCode: number | undefined, transient: boolean, retryAfterMs?: number): Outcome => ({
		kind: 'rejected',
		statusCode,
		transient,
		retryAfterMs,
		reason: 'r',
	});
	const unknown: Outcome = { kind: 'unknown', reason: 'timeout' };

	test('transient refusals are retried up to the attempt cap', () => {
		expect(decideRetry(rejected(503, true), 1, defaults, () => 0.5)).toEqual({ retry: true, delayMs: 250, asked: false });
		expect(decideRetry(rejected(503, true), 5, defaults)).toMatchObject({ retry: false });
	});

	test('a 503 with Retry-After waits what it asks, while the API has failed the message for no longer than Max Wait for the API to Recover', () => {
		expect(decideRetry(rejected(503, true, 3000), 1, defaults)).toEqual({ retry: true, delayMs: 3000, asked: true });
		expect(decideRetry(rejected(503, true, 100_000), 2, defaults, Math.random, 20_000)).toEqual({ retry: true, delayMs: 100_000, asked: true });
		// Was tried again up to Max Attempts, each try waiting 100 s: 400 s a message.
		expect(decideRetry(rejected(503, true, 100_000), 2, defaults, Math.random, 100_000)).toMatchObject({
			retry: false,
			outcome: { reason: 'r (the API asked to wait 1.7 min, after failing for 1.7 min, beyond Max Wait for the API to Recover)' },
		});
		expect(decideRetry(rejected(503, true, 1000), 1, { ...defaults, maxOutageWait: 0 })).toMatchObject({ retry: false });
		// The node's own backoff is not the API's wait: Max Attempts bounds it.
		expect(decideRetry(rejected(503, true), 2, { ...defaults, maxOutageWait: 0 }, () => 0.5, 50_000)).toMatchObject({ retry: true, asked: false });
	});

	test('a 503 asking for longer than the node waits gives the item up with the reason', () => {
		const decision = decideRetry(rejected(503, true, 600_000), 1, defaults);
		expect(decision).toMatchObject({ retry: false, outcome: { reason: expect.stringMatching(/asked to wait 10 min/) } });
	});

	test('final refusals and unknown deliveries are not retried by default', () => {
		expect(decideRetry(rejected(400, false), 1, defaults)).toMatchObject({ retry: false });
		expect(decideRetry(unknown, 1, defaults)).toMatchObject({ retry: false, outcome: unknown });
		expect(decideRetry(unknown, 1, { ...defaults, retryUnknownDelivery: true })).toMatchObject({ retry: true });
	});

	test('backoff grows exponentially under a cap, with full jitter', () => {
		expect([1, 2, 3, 4].map((attempt) => backoffMs(attempt, () => 1))).toEqual([500, 1000, 2000, 4000]);
		expect(backoffMs(20, () => 1)).toBe(30_000);
		expect(backoffMs(3, () => 0)).toBe(0);
	});
});

describe('runPool', () => {
	test('keeps order and never exceeds the concurrency', async () => {
		let running = 0;
		let peak = 0;
		const results = await runPool(40, 7, async (i) => {
			running++;
			peak = Math.max(peak, running);
			await new Promise((resolve) => setTimeout(resolve, (i * 7) % 5));
			running--;
			return i * 2;
		});
		expect(results).toEqual(Array.from({ length: 40 }, (_, i) => i * 2));
		expect(peak).toBe(7);
	});

	test('stops starting new tasks once told to', async () => {
		let stop = false;
		const started: number[] = [];
		const results = await runPool(
			20,
			2,
			async (i) => {
				started.push(i);
				if (i === 3) stop = true;
				return i;
			},
			() => stop,
		);
		expect(started.length).toBeLessThanOrEqual(5);
		expect(results.filter((r) => r === undefined).length).toBe(20 - started.length);
	});
});

describe('runPool when a task throws', () => {
	test('starts nothing more, waits for the tasks running, then rejects with the first error', async () => {
		const started: number[] = [];
		const finished: number[] = [];
		const run = runPool(20, 3, async (i) => {
			started.push(i);
			if (i === 1) throw new Error('task 1 broke');
			await new Promise((resolve) => setTimeout(resolve, 50));
			finished.push(i);
			return i;
		});
		await expect(run).rejects.toThrow('task 1 broke');
		// Tasks 0 and 2 were running when task 1 threw: the pool settled only after they had.
		expect(started).toEqual([0, 1, 2]);
		expect(finished.sort()).toEqual([0, 2]);
	});
});

describe('Pacer and the rate-limit headers', () => {
	test('a window with nothing left pauses everyone until it resets, and says how long and why', () => {
		let now = 1000;
		const pacer = new Pacer(10, () => now);
		expect(pacer.reserve()).toBe(0);
		expect(pacer.rateLimitHeaders({ limit: 25, remaining: 0, resetMs: 800 })).toBeUndefined();
		expect(pacer.pause()).toEqual({ ms: 800, until: 1800, cause: 'windowUsedUp' });
		expect(pacer.reserve()).toBe(800);
		now = 5000;
		expect(pacer.pause()).toMatchObject({ ms: 0, cause: 'windowUsedUp' });
		pacer.rateLimitHeaders({ remaining: 0, resetMs: 10 * 60_000 });
		// Not capped here: a sender that may not wait that long gives its item up (see delivery).
		expect(pacer.pause().ms).toBe(10 * 60_000);
	});

	test('a pause that begins after a sender reserved its slot holds that sender too', () => {
		let now = 0;
		const pacer = new Pacer(10, () => now);
		expect([pacer.reserve(), pacer.reserve()]).toEqual([0, 100]);
		pacer.rateLimitHeaders({ remaining: 0, resetMs: 700 });
		now = 100;
		expect(waitOf(pacer.tryDepart())).toBe(600);
		now = 700;
		expect(waitOf(pacer.tryDepart())).toBe(0);
	});

	test('an announced limit holds for the runs that saw it: the next run on an idle pacer starts from the setting', () => {
		const pacer = new Pacer(25, () => 0);
		pacer.join();
		expect(pacer.rateLimitHeaders({ limit: 2, remaining: 1 })).toBe(2);
		pacer.join();
		pacer.leave();
		expect(pacer.currentRate).toBe(2);
		pacer.leave();
		pacer.join();
		expect(pacer.currentRate).toBe(25);
	});

	test('an announced limit lower than the setting becomes the ceiling, a higher one is ignored', () => {
		const now = 0;
		const pacer = new Pacer(25, () => now);
		expect(pacer.rateLimitHeaders({ limit: 50, remaining: 40 })).toBeUndefined();
		expect(pacer.currentRate).toBe(25);
		expect(pacer.rateLimitHeaders({ limit: 10, remaining: 9 })).toBe(10);
		expect(pacer.currentRate).toBe(10);
		for (let i = 0; i < 100; i++) pacer.accepted();
		expect(pacer.currentRate).toBe(10);
		expect(pacer.rateLimitHeaders({ limit: 10, remaining: 9 })).toBeUndefined();
	});

	test('a limit the provider lowers and raises again mid-run: the pace follows it back up, never above the setting', () => {
		const pacer = new Pacer(20, () => 0);
		pacer.join();
		expect(pacer.rateLimitHeaders({ limit: 5 })).toBe(5);
		expect(pacer.rateLimitHeaders({ limit: 50 })).toBeUndefined();
		for (let i = 0; i < 200; i++) pacer.accepted();
		expect(pacer.currentRate).toBe(20);
	});

	test('without a setting, an announced limit paces the run', () => {
		const pacer = new Pacer(0, () => 0);
		expect(pacer.rateLimitHeaders({ limit: 5 })).toBe(5);
		pacer.reserve();
		expect(pacer.reserve()).toBe(200);
	});
});

describe('SentMemory', () => {
	test('recalls what was accepted or may have been, only for the same request', () => {
		const context = {};
		const memory = new SentMemory(context, 'sent-run-0');
		memory.remember(0, 'abc', { kind: 'accepted', msgid: 'm-1', attempts: 2 });
		memory.remember(3, 'def', { kind: 'unknown', reason: 'no answer before the timeout', attempts: 1 });

		const again = new SentMemory(context, 'sent-run-0');
		expect(again.recall(0, 'abc')).toEqual({ kind: 'accepted', msgid: 'm-1', attempts: 2 });
		expect(again.recall(3, 'def')).toEqual({ kind: 'unknown', reason: 'no answer before the timeout', attempts: 1 });
		expect(again.recall(0, 'other-request')).toBeUndefined();
		expect(again.recall(1, 'abc')).toBeUndefined();
		expect(new SentMemory(context, 'sent-run-1').recall(0, 'abc')).toBeUndefined();

		again.clear();
		expect(context).toEqual({});
	});

	test('fingerprints tell different requests apart', () => {
		expect(fingerprint('{"a":1}')).toBe(fingerprint('{"a":1}'));
		expect(fingerprint('{"a":1}')).not.toBe(fingerprint('{"a":2}'));
	});
});
