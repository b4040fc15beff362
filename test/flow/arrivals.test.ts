/**
 * The provider counts arrivals, not departures: the pace against a strict window when requests reach
 * the API late, the rate-limit headers read for what they can mean, and a 429 at a window's edge. On a
 * simulated clock against the sandbox's own windows and headers: exact figures on any machine.
 */
import { ARRIVAL_ROOM_MS } from '../../nodes/TemplateMessage/shared/flowLimits';
import type { SimulatedAnswer } from '../helpers/simulatedRun';
import { accepted, busiestSecond, simulateRun, simulateRuns, tooManyRequests } from '../helpers/simulatedRun';

interface RateWindow {
	(now: number): boolean;
	window(now: number): { remaining: number; resetMs: number };
}
const { rateWindow, rateLimitHeaders } = require('../../sandbox/rateLimit') as {
	rateWindow: (perSecond: number, kind?: 'sliding' | 'fixed') => RateWindow;
	rateLimitHeaders: (limit: number, state: { remaining: number; resetMs: number }, form?: string) => Record<string, string>;
};

/** The sandbox's provider: `perSecond` counted at arrival in its window, its headers on every answer with Reset in `form`. */
function provider(perSecond: number, { kind = 'sliding', form = 'fraction', others = 0, retryAfter = '1' }: { kind?: 'sliding' | 'fixed'; form?: string; others?: number; retryAfter?: string } = {}) {
	const take = rateWindow(perSecond - others, kind);
	return ({ itemIndex, now }: { itemIndex: number; now: number }): SimulatedAnswer => {
		const allowed = take(now);
		const state = take.window(now);
		const headers = rateLimitHeaders(perSecond, { ...state, remaining: Math.max(0, state.remaining) }, form);
		return allowed ? { ...accepted(itemIndex), headers } : tooManyRequests({ ...headers, 'Retry-After': retryAfter });
	};
}

const ideal = (count: number, rate: number) => ((count - 1) * 1000) / rate;

describe('arrivals, not departures', () => {
	test('the first request reaches the API 60 ms late (a cold connection): the 26th still arrives a second after it, no 429', async () => {
		const run = await simulateRun({ items: 75, maxPerSecond: 25, maxConcurrency: 10, script: provider(25), arrivalLagMs: (index) => (index === 0 ? 60 : 1) });
		expect(run.requests.map((request) => request.answer)).toEqual(Array(75).fill(200));
		expect(busiestSecond(run.requests.map((request) => request.at))).toBe(25);
		// Learned from the first answer, not kept as a margin on every request: 75 messages within 1% of their ideal time.
		expect(run.elapsedMs).toBeLessThanOrEqual(ideal(75, 25) * 1.01 + 60 + 20);
	});

	test('one at a time, the slow first answer comes back before any faster one: its lateness is still learned once they do', async () => {
		const run = await simulateRun({ items: 60, maxPerSecond: 25, maxConcurrency: 1, script: provider(25), arrivalLagMs: (index) => (index === 0 ? 60 : 1) });
		expect(run.requests.map((request) => request.answer)).toEqual(Array(60).fill(200));
		expect(busiestSecond(run.requests.map((request) => request.at))).toBe(25);
	});

	test('requests held up now and then (a busy event loop): no 429 against a strict window, the pace within 2%', async () => {
		const stalls = new Set([3, 40, 41, 77, 120, 121, 122, 160]);
		const run = await simulateRun({ items: 200, maxPerSecond: 25, maxConcurrency: 10, script: provider(25), arrivalLagMs: (index) => (stalls.has(index) ? 35 : 2) });
		expect(run.requests.filter((request) => request.answer !== 200)).toEqual([]);
		expect(run.statuses.every((status) => status === 'sent')).toBe(true);
		expect(run.elapsedMs).toBeLessThanOrEqual(ideal(200, 25) * 1.02);
	});

	test.each(['sliding', 'fixed'] as const)('a %s window at the limit, Remaining 0 on every answer: no pause, no 429, within 1%% of the ideal time', async (kind) => {
		const run = await simulateRun({ items: 200, maxPerSecond: 25, maxConcurrency: 10, script: provider(25, { kind }) });
		expect(run.requests.filter((request) => request.answer !== 200)).toEqual([]);
		expect(run.throttled).toBeUndefined();
		expect(run.elapsedMs).toBeLessThanOrEqual(ideal(200, 25) * 1.01 + 20);
	});
});

describe('X-RateLimit-Reset in each form the provider may use', () => {
	test.each(['fraction', 'seconds', 'ms', 'none'])('Reset as %s: every row sent, no 429, within 2%% of the ideal time', async (form) => {
		const run = await simulateRun({ items: 200, maxPerSecond: 25, maxConcurrency: 10, script: provider(25, { form }) });
		expect(run.statuses.every((status) => status === 'sent')).toBe(true);
		expect(run.requests.filter((request) => request.answer !== 200)).toEqual([]);
		expect(run.elapsedMs).toBeLessThanOrEqual(ideal(200, 25) * 1.02);
	});

	test('Reset in milliseconds (962) on a 429 from another sender is read as one second at most, not 962 s: every row still goes', async () => {
		const run = await simulateRun({
			items: 60,
			maxPerSecond: 25,
			script: ({ itemIndex, index }) => (index % 20 === 7 ? tooManyRequests({ 'X-RateLimit-Limit': '25', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '962' }) : accepted(itemIndex)),
		});
		expect(run.statuses.every((status) => status === 'sent')).toBe(true);
		expect(run.hints.join(' ')).not.toContain('beyond Max Wait When Throttled');
	});
});

describe('Remaining 0 read against what this pace sent', () => {
	test('others on the account leave it 5 of 25: Remaining 0 with few of ours pauses every sender for the window', async () => {
		const run = await simulateRun({ items: 30, maxPerSecond: 25, script: provider(25, { others: 20 }) });
		expect(run.statuses.every((status) => status === 'sent')).toBe(true);
		// The share left is 5 a second; 30 messages take about 6 s, not 1.2.
		expect(run.elapsedMs).toBeGreaterThanOrEqual(5000);
	});
});

describe('a 429 at the edge of the window', () => {
	// One request the provider counts as the 26th, though the record has it a second after the 1st: its own timing.
	const edgeOnce = (refused: number) => {
		const take = rateWindow(25);
		return ({ itemIndex, index, now }: { itemIndex: number; index: number; now: number }): SimulatedAnswer =>
			index === refused || !take(now) ? tooManyRequests({ 'Retry-After': '1' }) : accepted(itemIndex);
	};

	test('delays only that request: the others keep the pace, which is not cut; the summary counts it apart', async () => {
		const run = await simulateRun({ items: 100, maxPerSecond: 25, maxConcurrency: 10, script: edgeOnce(30) });
		expect(run.statuses.every((status) => status === 'sent')).toBe(true);
		expect(run.throttled).toEqual({ answers: 1, atWindowEdge: 1, atSharedWindowEdge: 0, waitedMs: 0 });
		const times = run.requests.map((request) => request.at);
		// No request waited a pause: no gap beyond one slot and the room (and the one the edge taught).
		const gaps = times.slice(1).map((at, i) => at - times[i]);
		expect(Math.max(...gaps)).toBeLessThanOrEqual(40 + ARRIVAL_ROOM_MS + 2);
		expect(run.elapsedMs).toBeLessThanOrEqual(ideal(101, 25) * 1.02);
	});

	test('a 429 asking for longer than a window (Retry-After: 3) is the API asking: every sender pauses for it', async () => {
		const run = await simulateRun({ items: 30, maxPerSecond: 25, script: ({ itemIndex, index }) => (index === 10 ? tooManyRequests({ 'Retry-After': '3' }) : accepted(itemIndex)) });
		expect(run.statuses.every((status) => status === 'sent')).toBe(true);
		expect(run.throttled).toEqual({ answers: 1, atWindowEdge: 0, atSharedWindowEdge: 0, waitedMs: 3000 });
	});
});

describe('others on the account: the headers are the counter every sender shares', () => {
	const ratio = (run: { elapsedMs: number }, count: number, rate: number) => run.elapsedMs / ideal(count, rate);
	const refusedShare = (requests: Array<{ answer: number }>) => requests.filter((request) => request.answer === 429).length / requests.length;

	test('another sender uses 80% of the account: the pace takes the 5 a second left; 1,000 rows within 1.1× their ideal time, no 429', async () => {
		const run = await simulateRun({ items: 1000, maxPerSecond: 25, script: provider(25, { others: 20 }) });
		expect(run.statuses.every((status) => status === 'sent')).toBe(true);
		expect(ratio(run, 1000, 5)).toBeLessThanOrEqual(1.1);
		expect(run.requests.filter((request) => request.answer === 429)).toEqual([]);
	});

	test('alone on the account, each request 0 to 14 ms late: the record\'s count and the API\'s differ by a request now and then, which is not taken for others', async () => {
		const run = await simulateRun({ items: 500, maxPerSecond: 25, maxConcurrency: 10, script: provider(25), arrivalLagMs: (index) => (index * 7919) % 15 });
		expect(run.requests.filter((request) => request.answer !== 200)).toEqual([]);
		expect(run.elapsedMs).toBeLessThanOrEqual(ideal(500, 25) * 1.02);
	});

	// Queue-mode workers left at the default: each pacer learns its share from the headers alone.
	const atDefaults = async (workers: number, form = 'fraction') => {
		const shared = provider(25, { form });
		const total = 2000;
		const runs = await simulateRuns(
			Array.from({ length: workers }, () => ({ items: total / workers, maxPerSecond: 25, maxConcurrency: 5, script: shared })),
			{ pacers: 'each' },
		);
		expect(runs.every((run) => run.statuses.every((status) => status === 'sent'))).toBe(true);
		return { runs, ratio: Math.max(...runs.map((run) => run.elapsedMs)) / ideal(total, 25), refused: refusedShare(runs.flatMap((run) => run.requests)) };
	};

	test.each([2, 4, 8])('%p workers left at the default 25 on an account of 25: 429s under 2%% of their requests, within 5%% of the ideal time (eight: 5.1%%); each 429 counted at the account\'s window shared with other senders, as the run summary says', async (workers) => {
		const { runs, ratio, refused } = await atDefaults(workers);
		expect(refused).toBeLessThan(0.02);
		// Eight: 1.0503 (1.049 before a rise in others' use needed an answer's proof, OwnInWindow).
		expect(ratio).toBeLessThanOrEqual(workers === 8 ? 1.051 : 1.05);
		const tooMany = runs.flatMap((run) => run.requests).filter((request) => request.answer === 429).length;
		const counted = (kind: 'answers' | 'atWindowEdge' | 'atSharedWindowEdge') => runs.reduce((sum, run) => sum + (run.throttled?.[kind] ?? 0), 0);
		// None is put down to a worker filling the API's window alone.
		expect({ answers: counted('answers'), atWindowEdge: counted('atWindowEdge'), atSharedWindowEdge: counted('atSharedWindowEdge') }).toEqual({ answers: tooMany, atWindowEdge: 0, atSharedWindowEdge: tooMany });
	});

	/**
	 * Workers at the default, each with its own sequence of late answers (a busy event loop): four in five
	 * up to 9 ms late, the fifth up to `slowestAnswerMs`; requests up to `requestLagMs` late.
	 */
	const withLateAnswers = (workers: number, { total, maxConcurrency, slowestAnswerMs, requestLagMs = 0 }: { total: number; maxConcurrency: number; slowestAnswerMs: number; requestLagMs?: number }) => {
		const shared = provider(25);
		const spread = (index: number, worker: number, prime: number) => ((index * prime + worker * 7331) % 9967) / 9967;
		return simulateRuns(
			Array.from({ length: workers }, (_, worker) => ({
				items: total / workers,
				maxPerSecond: 25,
				maxConcurrency,
				script: shared,
				arrivalLagMs: requestLagMs === 0 ? undefined : (index: number) => Math.floor(spread(index, worker, 7919) * (requestLagMs + 1)),
				answerLagMs: (index: number) => {
					const r = spread(index, worker, 6271);
					return r < 0.8 ? Math.floor(r * 10) : Math.floor(slowestAnswerMs * 5 * (r - 0.8));
				},
			})),
			{ pacers: 'each' },
		);
	};

	test.each([2, 4])('%p workers at the default, one answer in five up to 60 ms late (a busy event loop holding answers, not requests): their shares still fill the account, 24.5 a second or more from the 5th second to the 35th, 429s under 2%%', async (workers) => {
		const runs = await withLateAnswers(workers, { total: 2000, maxConcurrency: 5, slowestAnswerMs: 60, requestLagMs: 10 });
		expect(runs.every((run) => run.statuses.every((status) => status === 'sent'))).toBe(true);
		const requests = runs.flatMap((run) => run.requests);
		expect(refusedShare(requests)).toBeLessThan(0.02);
		const acceptedAt = requests.filter((request) => request.answer === 200).map((request) => request.at);
		const first = Math.min(...acceptedAt);
		// 24.6 and 24.8; 23.8 and 24.2 when a rise in others' use was taken from the record's likely count
		// of its own requests, which a late answer puts late, missing those at the window's start.
		expect(acceptedAt.filter((at) => at >= first + 5000 && at < first + 35000).length / 30).toBeGreaterThanOrEqual(24.5);
	});

	test.each([1, 2, 4])('%p worker(s) at the default, one answer in five up to 400 ms late: with others, 429s under 2%%; alone, no 429 and within 5%% of the ideal time, its own requests not taken for others\' use', async (workers) => {
		const total = 1200;
		const runs = await withLateAnswers(workers, { total, maxConcurrency: 10, slowestAnswerMs: 400 });
		expect(runs.every((run) => run.statuses.every((status) => status === 'sent'))).toBe(true);
		const requests = runs.flatMap((run) => run.requests);
		if (workers === 1) {
			expect(requests.filter((request) => request.answer === 429)).toEqual([]);
			// 1.048; 1.109 when a rise in others' use was taken from the likely count: alone, it took a share.
			expect(runs[0].elapsedMs).toBeLessThanOrEqual(ideal(total, 25) * 1.05);
		} else expect(refusedShare(requests)).toBeLessThan(0.02);
	});

	/** Numbers in [0, 1) drawn from `seed`, the same on every machine. */
	const drawn = (seed: number) => {
		let state = seed >>> 0;
		return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
	};

	/**
	 * The benchmark's campaign (bench/queuePace.js) on one schedule: 1,200 rows in two executions per
	 * worker, each taken at a moment within the first 1.8 s (n8n started the real runs' executions 0.1 to
	 * 1.8 s after the first call), requests up to 10 ms late, one answer in five up to 60 ms late. Returns
	 * the time to the last accepted message against the ideal, the share of 429s, and the longest any
	 * worker waited from its first request to its first accepted message.
	 */
	const benchCampaign = async (workers: number, seed: number, retryAfter = '1') => {
		const shared = provider(25, { retryAfter });
		const draw = drawn(seed * 7919 + workers);
		const executions = 2 * workers;
		const runs = await simulateRuns(
			Array.from({ length: executions }, (_, index) => {
				const late = drawn(seed * 104729 + index * 31 + workers);
				return {
					items: 1200 / executions,
					maxPerSecond: 25,
					maxConcurrency: 5,
					script: shared,
					startAfterMs: Math.floor(draw() * 1800),
					arrivalLagMs: () => Math.floor(late() * 11),
					answerLagMs: () => {
						const r = late();
						return r < 0.8 ? Math.floor(r * 10) : Math.floor(300 * (r - 0.8));
					},
				};
			}),
			{ pacers: Array.from({ length: executions }, (_, index) => index % workers) },
		);
		expect(runs.every((run) => run.statuses.every((status) => status === 'sent'))).toBe(true);
		const requests = runs.flatMap((run) => run.requests);
		const lastAccepted = Math.max(...requests.filter((request) => request.answer === 200).map((request) => runs[0].since(request.at)));
		const waits = Array.from({ length: workers }, (_, worker) => {
			const own = runs.filter((_run, index) => index % workers === worker).flatMap((run) => run.requests);
			return Math.min(...own.filter((request) => request.answer === 200).map((request) => request.at)) - Math.min(...own.map((request) => request.at));
		});
		return { ratio: lastAccepted / ideal(1200, 25), refused: refusedShare(requests), longestFirstWaitMs: Math.max(...waits) };
	};
	const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

	test.each([
		[2, 0.1, 1.052],
		[4, 0.8, 1.073],
		[8, 2.6, 1.088],
	])('%p workers on the benchmark\'s campaign, 8 schedules from fixed seeds: every worker has a message accepted within 4 s of its first request; on average, 429s under %p%% of requests and the last message within %p× the ideal time', async (workers, most429s, mostRatio) => {
		const results = [];
		for (let seed = 1; seed <= 8; seed++) results.push(await benchCampaign(workers, seed));
		// At most 0, 1.4 and 3.6 s; 429s 0.08%, 0.54% and 2.33%; 1.051, 1.071 and 1.086 × the ideal. When a
		// share of 1 refused tried again a second later, a worker waited up to 26 s (four) and 23 s (eight)
		// for its first message, with 429s on 1.35% and 3.94% of requests.
		expect(Math.max(...results.map((result) => result.longestFirstWaitMs))).toBeLessThanOrEqual(4000);
		expect(mean(results.map((result) => result.refused)) * 100).toBeLessThan(most429s);
		expect(mean(results.map((result) => result.ratio))).toBeLessThanOrEqual(mostRatio);
	});

	test.each([
		[2, 0.8, 1.18],
		[3, 1.8, 1.3],
	])('%p workers on the benchmark\'s campaign, the API asking for 2 s after a 429 (Retry-After: 2, longer than a window), 8 schedules: a worker paused by it is not crowded out when it comes back; on average, 429s under %p%% and the last message within %p× the ideal time', async (workers, most429s, mostRatio) => {
		const results = [];
		for (let seed = 1; seed <= 8; seed++) results.push(await benchCampaign(workers, seed, '2'));
		// 0.47% and 1.52%, 1.157 and 1.287 ×. A version that took a third of the window free as proof that others'
		// use fell, and let a pace alone step into all the room after one answer, handed the account over faster
		// when a peer finished (the campaign above 1.044, 1.066 and 1.080 ×), but took the room of a peer paused for
		// 2 s too: 1.25% and 2.46%, 1.223 and 1.388 × (a review, 2026-11-29; not kept).
		expect(mean(results.map((result) => result.refused)) * 100).toBeLessThan(most429s);
		expect(mean(results.map((result) => result.ratio))).toBeLessThanOrEqual(mostRatio);
	});

	test.each([2, 4])('%p workers at the default, each running two executions, the jobs taken 150 ms apart: 429s under 2%%; the last to start is not held to the share it started with', async (workers) => {
		const shared = provider(25);
		const total = 1200;
		const executions = 2 * workers;
		const runs = await simulateRuns(
			Array.from({ length: executions }, (_, index) => ({ items: total / executions, maxPerSecond: 25, maxConcurrency: 5, script: shared, startAfterMs: index * 150 })),
			{ pacers: Array.from({ length: executions }, (_, index) => index % workers) },
		);
		expect(runs.every((run) => run.statuses.every((status) => status === 'sent'))).toBe(true);
		expect(refusedShare(runs.flatMap((run) => run.requests))).toBeLessThan(0.02);
		// 1.02 and 1.06 (four took 1.11 when a pace sharing the account waited for 3 answers before a step
		// up, and 1.28 when slots were taken at any distance: a share of 1 a second kept its spacing).
		expect(Math.max(...runs.map((run) => run.elapsedMs)) / ideal(total, 25)).toBeLessThanOrEqual(workers === 2 ? 1.05 : 1.06);
	});

	test('2 workers at the default, one with three times the rows of the other: once the first is done, the one left takes the room at once, within 2% of the ideal time', async () => {
		const shared = provider(25);
		const rowsOf = [150, 450];
		const runs = await simulateRuns(
			Array.from({ length: 4 }, (_, index) => ({ items: rowsOf[index % 2], maxPerSecond: 25, maxConcurrency: 5, script: shared })),
			{ pacers: [0, 1, 0, 1] },
		);
		expect(runs.every((run) => run.statuses.every((status) => status === 'sent'))).toBe(true);
		expect(refusedShare(runs.flatMap((run) => run.requests))).toBeLessThan(0.02);
		// 1.016; 1.024 when the pace, alone again, stepped up a tenth of its setting a second.
		expect(Math.max(...runs.map((run) => run.elapsedMs)) / ideal(1200, 25)).toBeLessThanOrEqual(1.02);
	});

	test('2 workers at the default, the second taking its jobs a second after the first: it joined a full account at a share of 1 a second, and once the first is done it takes the room within 8% of the ideal time', async () => {
		const shared = provider(25);
		const startsAt = [0, 1000, 1400, 2000];
		const runs = await simulateRuns(
			startsAt.map((startAfterMs) => ({ items: 300, maxPerSecond: 25, maxConcurrency: 5, script: shared, startAfterMs })),
			{ pacers: [0, 1, 0, 1] },
		);
		expect(runs.every((run) => run.statuses.every((status) => status === 'sent'))).toBe(true);
		expect(refusedShare(runs.flatMap((run) => run.requests))).toBeLessThan(0.02);
		// 1.076; 1.151 when a pace sharing the account waited for 3 answers, 3 s at 1 a second, before each step up.
		expect(Math.max(...runs.map((run) => run.elapsedMs)) / ideal(1200, 25)).toBeLessThanOrEqual(1.08);
	});

	test.each(['seconds', 'none'])('2 and 4 workers at the default, X-RateLimit-Reset as %s: Remaining 0 from the others holds a slot, not a second', async (form) => {
		for (const workers of [2, 4]) {
			const { ratio, refused } = await atDefaults(workers, form);
			expect({ workers, refused: refused < 0.02, ratio: ratio <= 1.05 }).toEqual({ workers, refused: true, ratio: true });
		}
	});
});

describe('queue mode: workers pace apart, each with its own pacer', () => {
	// Each worker keeps to its own setting; a fraction is rounded up per second (12.5 lets 13 through
	// in some seconds), so only whole shares add up to no more than the account's limit in every second.
	test.each([2, 4, 8])('%p workers each set to ⌊25 ÷ workers⌋ against an account-wide 25 a second: no 429, within 5%% of the ideal time for the total', async (workers) => {
		const shared = provider(25);
		const each = Math.floor(25 / workers);
		const total = 1200;
		const runs = await simulateRuns(
			Array.from({ length: workers }, () => ({ items: total / workers, maxPerSecond: each, maxConcurrency: 5, script: shared })),
			{ pacers: 'each' },
		);
		const requests = runs.flatMap((run) => run.requests);
		expect(requests.filter((request) => request.answer !== 200)).toEqual([]);
		expect(runs.every((run) => run.statuses.every((status) => status === 'sent'))).toBe(true);
		expect(Math.max(...runs.map((run) => run.elapsedMs))).toBeLessThanOrEqual(ideal(total, each * workers) * 1.05);
	});
});
