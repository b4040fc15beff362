/**
 * The send stage's timing, on a simulated clock: pace, 429s and rate-limit windows, a failing API's
 * pause and probes, stopping. Exact figures, every time: the clock moves only when every sender waits.
 */
import { ARRIVAL_ROOM_MS, FIRST_COOL_DOWN_MS } from '../../nodes/TemplateMessage/shared/flowLimits';
import { FlowControl, MIN_THROTTLE_CHARGE_MS, Passage } from '../../nodes/TemplateMessage/flow/flowControl';
import type { FlowAnswer } from '../../nodes/TemplateMessage/flow/stopEarly';
import { TAKEN } from '../../nodes/TemplateMessage/flow/stopEarly';
import { readRateLimit } from '../../nodes/TemplateMessage/api/headers';
import { SimulatedClock } from '../helpers/simulatedClock';
import { Pacer } from '../../nodes/TemplateMessage/flow/pacer';
import type { SimulatedAnswer } from '../helpers/simulatedRun';
import { accepted, busiestSecond, internalError, simulateRun, simulateRuns, tooManyRequests } from '../helpers/simulatedRun';

const { slidingWindow } = require('../../sandbox/rateLimit') as { slidingWindow: (perSecond: number) => (now: number) => boolean };

const all = (count: number, status: string) => Array.from({ length: count }, () => status);

describe('the pace', () => {
	test('25 a second: starts 40 ms apart, never 26 in a second, whatever the concurrency', async () => {
		const run = await simulateRun({ items: 100, maxPerSecond: 25, maxConcurrency: 10 });
		expect(run.statuses).toEqual(all(100, 'sent'));
		const times = run.requests.map((request) => request.at);
		const gaps = times.slice(1).map((at, i) => at - times[i]);
		// Each 26th start waits a little more: room for the clocks' whole milliseconds (the answers here all take as long).
		expect(gaps.filter((gap) => gap !== 40)).toEqual([40 + ARRIVAL_ROOM_MS, 40 + ARRIVAL_ROOM_MS, 40 + ARRIVAL_ROOM_MS]);
		expect(busiestSecond(times)).toBe(25);
	});

	test('2.5 a second is kept: starts 400 ms apart, 5 every 2 s, never more than 3 in a second', async () => {
		const run = await simulateRun({ items: 11, maxPerSecond: 2.5, maxConcurrency: 5 });
		expect(run.statuses).toEqual(all(11, 'sent'));
		const times = run.requests.map((request) => request.at - run.requests[0].at);
		expect(times).toEqual([0, 400, 800, 1200, 1600, 2000, 2400, 2800, 3200, 3600, 4000]);
		expect(busiestSecond(times)).toBe(3);
	});

	/** A provider that accepts at most `perSecond` in any one second (the sandbox's window), 429 past it. */
	const limitedTo = (perSecond: number) => {
		const take = slidingWindow(perSecond);
		return ({ itemIndex, now }: { itemIndex: number; now: number }) => (take(now) ? accepted(itemIndex) : tooManyRequests({ 'Retry-After': '1' }));
	};

	test('paced at the provider\'s limit of 10 a second, 5 at once: no 429, every message sent once', async () => {
		const run = await simulateRun({ items: 30, maxPerSecond: 10, maxConcurrency: 5, script: limitedTo(10) });
		expect(run.statuses).toEqual(all(30, 'sent'));
		expect(run.requests.map((request) => request.answer)).toEqual(Array(30).fill(200));
		expect(busiestSecond(run.requests.map((request) => request.at))).toBe(10);
	});

	test('two runs of one account at once share its pace: together they stay within the limit', async () => {
		const provider = limitedTo(10);
		const runs = await simulateRuns([0, 1].map(() => ({ items: 20, maxPerSecond: 10, maxConcurrency: 5, script: provider })));
		for (const run of runs) expect(run.statuses).toEqual(all(20, 'sent'));
		const requests = runs.flatMap((run) => run.requests);
		expect(requests.filter((request) => request.answer === 429)).toEqual([]);
		// Paced apart, the two would start 20 a second.
		expect(busiestSecond(requests.map((request) => request.at).sort((a, b) => a - b))).toBe(10);
	});

	test('a Limit lower than the setting becomes the pace, and the run says so once', async () => {
		const run = await simulateRun({ items: 30, maxPerSecond: 25, script: ({ itemIndex }) => ({ ...accepted(itemIndex), headers: { 'X-RateLimit-Limit': '5' } }) });
		expect(run.statuses).toEqual(all(30, 'sent'));
		expect(busiestSecond(run.requests.slice(10).map((request) => request.at))).toBe(5);
		expect(run.hints).toEqual(['The API announced a limit of 5 messages per second (X-RateLimit-Limit), lower than the 25 set in Options → Max Messages per Second: messages are sent at 5 per second.']);
	});

	test('a Limit announced as 20 and 25 on alternate answers (two API nodes behind a balancer) is told once, not with every answer', async () => {
		const run = await simulateRun({
			items: 400,
			maxPerSecond: 25,
			maxConcurrency: 10,
			script: ({ itemIndex, index }) => ({ ...accepted(itemIndex), headers: { 'X-RateLimit-Limit': index % 2 ? '20' : '25', 'X-RateLimit-Remaining': '10' } }),
		});
		expect(run.statuses).toEqual(all(400, 'sent'));
		// Was 200 hints, each kept in the execution's data, and 200 log lines.
		expect(run.hints).toEqual(['The API announced a limit of 20 messages per second (X-RateLimit-Limit), lower than the 25 set in Options → Max Messages per Second: messages are sent at 20 per second.']);
		expect(run.logs.filter((line) => line.startsWith('The API announced'))).toHaveLength(1);
	});

	test('a Limit lower with every answer, no pace set: four are told (three as they come, the lowest at the end), however many answers come', async () => {
		const run = await simulateRun({
			items: 300,
			maxPerSecond: 0,
			maxConcurrency: 10,
			script: ({ itemIndex, index }) => ({ ...accepted(itemIndex), headers: { 'X-RateLimit-Limit': String(1_000_000 - index), 'X-RateLimit-Remaining': String(999_000 - index) } }),
		});
		expect(run.statuses).toEqual(all(300, 'sent'));
		// Was a hint and a log line for each of the 300 answers.
		expect(run.hints.filter((hint) => hint.startsWith('The API announced'))).toHaveLength(4);
		expect(run.logs.filter((line) => line.startsWith('The API announced'))).toHaveLength(4);
	});

	test('a Limit lowered five times (50 to 10): three told as they come, and the pace the run ended at told at its end', async () => {
		const limitAt = (index: number) => [50, 40, 30, 20, 10][Math.min(4, Math.floor(index / 20))];
		const run = await simulateRun({
			items: 100,
			maxPerSecond: 0,
			maxConcurrency: 5,
			script: ({ itemIndex, index }) => ({ ...accepted(itemIndex), headers: { 'X-RateLimit-Limit': String(limitAt(index)), 'X-RateLimit-Remaining': String(limitAt(index) - 1) } }),
		});
		const told = run.hints.filter((hint) => hint.startsWith('The API announced')).map((hint) => /limit of (\d+)/.exec(hint)?.[1]);
		expect(told).toEqual(['50', '40', '30', '10']);
	});

	test.each([1, 5, 10])('Remaining 0 holds every sender until Reset, at Max Concurrent Requests %p: the only 429s are requests already on their way', async (maxConcurrency) => {
		// The provider allows 10 a second and says what is left of its window, without a Limit header.
		const latencyMs = 20;
		let windowStart: number | undefined;
		let used = 0;
		const remainingZeroSent: number[] = [];
		const run = await simulateRun({
			items: 30,
			maxPerSecond: 50,
			maxConcurrency,
			latencyMs,
			script: ({ itemIndex, now }) => {
				if (windowStart === undefined || now - windowStart >= 1000) [windowStart, used] = [now, 0];
				const headers = { 'X-RateLimit-Reset': ((windowStart + 1000 - now) / 1000).toFixed(3) };
				if (used >= 10) return tooManyRequests({ ...headers, 'X-RateLimit-Remaining': '0' });
				if (++used === 10) remainingZeroSent.push(now);
				return { ...accepted(itemIndex), headers: { ...headers, 'X-RateLimit-Remaining': String(10 - used) } };
			},
		});
		expect(run.statuses).toEqual(all(30, 'sent'));
		const throttled = run.requests.filter((request) => request.answer === 429);
		// Each left while the answer saying Remaining 0 was on its way back.
		for (const { at } of throttled) expect(remainingZeroSent.some((sent) => sent <= at && at <= sent + latencyMs)).toBe(true);
		if (maxConcurrency === 1) expect(throttled).toEqual([]);
	});

	test('a Limit lowered mid-run and raised again: the pace follows it down and back up', async () => {
		const limitAt = (index: number) => (index >= 40 && index < 80 ? '5' : '25');
		const run = await simulateRun({ items: 200, maxPerSecond: 25, script: ({ itemIndex, index }) => ({ ...accepted(itemIndex), headers: { 'X-RateLimit-Limit': limitAt(index) } }) });
		expect(run.statuses).toEqual(all(200, 'sent'));
		const times = run.requests.map((request) => request.at);
		expect(busiestSecond(times.slice(50, 80))).toBeLessThanOrEqual(5);
		expect(busiestSecond(times.slice(-25))).toBeGreaterThan(20);
	});
});

describe('429 is flow control, not failure', () => {
	test('4 s of 429s with Retry-After: 1 over 40 items: every item is sent once, nothing stops', async () => {
		let throttledUntil: number | undefined;
		const run = await simulateRun({
			items: 40,
			script: ({ itemIndex, now }) => {
				throttledUntil ??= now + 4000;
				return now < throttledUntil ? tooManyRequests({ 'Retry-After': '1' }) : accepted(itemIndex);
			},
		});
		expect(run.statuses).toEqual(all(40, 'sent'));
		expect(run.requests.filter((request) => request.answer === 200)).toHaveLength(40);
		expect(run.stops).toEqual([]);
	});

	test.each<[string, Record<string, string>, number]>([
		['Retry-After: 1', { 'Retry-After': '1' }, 1000],
		['Retry-After: 15', { 'Retry-After': '15' }, 15_000],
		['the account\'s window full, Reset 0.5 (a share of 1 a second spreads the 429s thin)', { 'X-RateLimit-Limit': '25', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '0.5' }, 500],
	])('nothing but 429s (%s) for Max Wait When Throttled: the run stops asking, and every row not sent says why', async (_name, headers, askedMs) => {
		const run = await simulateRun({ items: 200, maxPerSecond: 25, maxConcurrency: 10, maxThrottleWait: 20, script: () => tooManyRequests(headers) });
		expect(run.statuses).toEqual(all(200, 'notSent'));
		// Within the setting and the last wait the API asked for. Was 417 s, 301 s and 285 s: each row's budget began at its own first request.
		expect(run.elapsedMs).toBeLessThanOrEqual(20_000 + askedMs + 1000);
		expect(run.stops).toEqual([expect.objectContaining({ scope: 'throttled', reason: expect.stringMatching(/^the API answered nothing but "too many requests" \(HTTP 429: Too many requests \(code 9\)\) for [23]\d s, beyond Max Wait When Throttled \(20 s\): the run stopped asking$/) })]);
		expect(run.results.filter((result) => result?.kind === 'heldBack' && result.heldBy === run.stops[0]).length).toBeGreaterThan(150);
	});

	test('a 429 after a quiet spell (one message every 10 s, Max Wait When Throttled 5 s) is no run of 429s: nothing stops, every row sent', async () => {
		const run = await simulateRun({ items: 5, maxPerSecond: 0.1, maxThrottleWait: 5, script: ({ itemIndex, index }) => (index === 1 ? tooManyRequests({ 'Retry-After': '1' }) : accepted(itemIndex)) });
		// The run's 429s are counted from the first of them, not from the API's last other answer 10 s before.
		expect(run.stops).toEqual([]);
		expect(run.statuses).toEqual(all(5, 'sent'));
	});

	test('429s for less than Max Wait When Throttled, then the API takes requests again: the run comes back, every row sent', async () => {
		let first: number | undefined;
		const run = await simulateRun({
			items: 200,
			maxPerSecond: 25,
			maxConcurrency: 10,
			maxThrottleWait: 20,
			script: ({ itemIndex, now }) => (now - (first ??= now) < 15_000 ? tooManyRequests({ 'Retry-After': '1' }) : accepted(itemIndex)),
		});
		expect(run.statuses).toEqual(all(200, 'sent'));
		expect(run.stops).toEqual([]);
	});

	test.each([10, 100])('after a 429 that paused every sender for 2 s, at Max Concurrent Requests %p, requests leave spaced at the pace again, not all at its end', async (maxConcurrency) => {
		const run = await simulateRun({ items: 200, maxConcurrency, latencyMs: 20, script: ({ itemIndex, index }) => (index === 5 ? tooManyRequests({ 'Retry-After': '2' }) : accepted(itemIndex)) });
		expect(run.statuses).toEqual(all(200, 'sent'));
		const gaps = run.requests.slice(1).map((request, index) => request.at - run.requests[index].at);
		// Was 10 (and 13) in the same millisecond: every sender holding a slot woke at the pause's end.
		expect(Math.min(...gaps.slice(6))).toBeGreaterThanOrEqual(1000 / 25 - 1);
	});

	test('Retry-After: 0 on every answer and no pace: each 429 costs 250 ms of a 2 s budget, so 9 tries 250 ms apart, then not sent', async () => {
		const run = await simulateRun({ items: 1, maxPerSecond: 0, maxThrottleWait: 2, latencyMs: 0, script: () => tooManyRequests({ 'Retry-After': '0' }) });
		expect(run.statuses).toEqual(['notSent']);
		expect(run.requests.map((request) => run.since(request.at))).toEqual([0, 250, 500, 750, 1000, 1250, 1500, 1750, 2000]);
		expect(run.results[0]).toMatchObject({ heldBy: { scope: 'throttled', statusCode: 429, apiCode: 9, reason: expect.stringMatching(/after waiting 2 s on 429s, it asked for 0 s more, beyond Max Wait When Throttled \(2 s\)$/) } });
	});

	test("429s whose X-RateLimit-Reset lies in the past (the server's clock an hour behind): the node waits its own second, not zero", async () => {
		const run = await simulateRun({
			items: 1,
			latencyMs: 0,
			script: ({ itemIndex, index, now }) => (index < 2 ? tooManyRequests({ 'X-RateLimit-Reset': String(Math.floor(now / 1000) - 3600) }) : accepted(itemIndex)),
		});
		expect(run.statuses).toEqual(['sent']);
		expect(run.requests.map((request) => run.since(request.at))).toEqual([0, 1000, 2000]);
	});

	test("a server clock an hour ahead: a Reset on its clock (its Date header) makes the run wait a second, not an hour", async () => {
		const run = await simulateRun({
			items: 1,
			latencyMs: 0,
			script: ({ itemIndex, index, now }) => {
				const serverNow = now + 3600_000;
				return index === 0 ? tooManyRequests({ Date: new Date(serverNow).toUTCString(), 'X-RateLimit-Reset': String(Math.floor(serverNow / 1000) + 1) }) : accepted(itemIndex);
			},
		});
		expect(run.statuses).toEqual(['sent']);
		expect(run.since(run.requests[1].at)).toBeGreaterThanOrEqual(1000);
		expect(run.since(run.requests[1].at)).toBeLessThanOrEqual(2000);
	});

	test('an account shared with another sender that takes 85% of each second: every message still goes, at the rate left', async () => {
		// The provider allows 20 a second; the other sender takes 17 at the start of each second.
		let windowStart: number | undefined;
		let used = 0;
		const run = await simulateRun({
			items: 30,
			script: ({ itemIndex, now }) => {
				if (windowStart === undefined || now - windowStart >= 1000) [windowStart, used] = [now, 17];
				if (used >= 20) return tooManyRequests({ 'X-RateLimit-Reset': ((windowStart + 1000 - now) / 1000).toFixed(3) });
				used++;
				return accepted(itemIndex);
			},
		});
		expect(run.statuses).toEqual(all(30, 'sent'));
		expect(run.requests.filter((request) => request.answer === 200)).toHaveLength(30);
		expect(run.requests.some((request) => request.answer === 429)).toBe(true);
	});

	test('an item the API keeps throttling beyond Max Wait When Throttled comes out not sent, with the reason; the others go', async () => {
		const run = await simulateRun({ items: 10, maxThrottleWait: 2, script: ({ itemIndex }) => (itemIndex === 3 ? tooManyRequests({ 'Retry-After': '1' }) : accepted(itemIndex)) });
		expect(run.statuses).toEqual(all(10, 'sent').map((status, i) => (i === 3 ? 'notSent' : status)));
		expect(run.requests.filter((request) => request.answer === 429)).toHaveLength(3);
		expect(run.results[3]).toEqual({
			kind: 'heldBack',
			attempts: 3,
			heldBy: {
				scope: 'throttled',
				itemIndex: 3,
				templateCodeId: 'tpl-a',
				statusCode: 429,
				apiCode: 9,
				reason: 'the API kept asking to slow down (HTTP 429: Too many requests (code 9)): after waiting 2 s on 429s, it asked for 1 s more, beyond Max Wait When Throttled (2 s)',
			},
		});
	});

	test.each([
		['Retry-After: 300 with Max Wait When Throttled 5 s', () => tooManyRequests({ 'Retry-After': '300' }), 5],
		['a 429 whose X-RateLimit-Reset is two hours away, with the default 120 s', (now: number) => tooManyRequests({ 'X-RateLimit-Reset': String(Math.floor(now / 1000) + 7200) }), 120],
		['a window with nothing left resetting in two hours, with the default 120 s', (now: number) => ({ ...accepted(0), headers: { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(Math.floor(now / 1000) + 7200) } }), 120],
	])('a wait the run cannot afford (%s) stops the requests: only those already on their way went', async (_, answer: (now: number) => SimulatedAnswer, maxThrottleWait) => {
		const run = await simulateRun({ items: 200, maxPerSecond: 0, maxConcurrency: 10, maxThrottleWait, script: ({ now }) => answer(now) });
		expect(run.requests.length).toBeLessThanOrEqual(10);
		const sent = run.requests.filter((request) => request.answer === 200).length;
		expect(run.statuses.filter((status) => status === 'notSent')).toHaveLength(200 - sent);
		const held = run.results.find((result) => result?.kind === 'heldBack');
		expect(held).toMatchObject({ heldBy: { scope: 'throttled', reason: expect.stringMatching(new RegExp(`beyond Max Wait When Throttled \\(${maxThrottleWait} s\\)$`)) } });
		expect(run.elapsedMs).toBeLessThan(1000);
	});

	test('a wait of 5 s or more leaves one log line when it begins and one hint at the end', async () => {
		const run = await simulateRun({ items: 20, script: ({ itemIndex, index }) => (index === 3 ? tooManyRequests({ 'Retry-After': '6' }) : accepted(itemIndex)) });
		expect(run.statuses).toEqual(all(20, 'sent'));
		expect(run.logs).toEqual(['Template Message is waiting 6 s: the API answered 429 (too many requests) and asked to wait']);
		expect(run.hints).toEqual([expect.stringMatching(/^The API made this run wait 1 time\(s\) for 5 s or more \(the longest 6 s\)/)]);
	});
});

describe('a failing API pauses the run, which comes back when the API does', () => {
	const hiccup = (from: number, lastsMs: number) => {
		let until: number | undefined;
		return ({ itemIndex, index, now }: { itemIndex: number; index: number; now: number }) => {
			if (index === from) until = now + lastsMs;
			return until !== undefined && now < until ? internalError : accepted(itemIndex);
		};
	};

	test('500s for 300 ms from message 100 of 400: the messages that met them are tried again, and every row is sent', async () => {
		const run = await simulateRun({ items: 400, maxPerSecond: 0, script: hiccup(100, 300) });
		expect(run.statuses).toEqual(all(400, 'sent'));
		expect(run.requests.some((request) => request.answer === 500)).toBe(true);
		expect(run.requests.filter((request) => request.answer === 200)).toHaveLength(400);
	});

	test('the same hiccup with Max Attempts 1: only the messages sent during it fail; sending pauses, probes and resumes', async () => {
		const run = await simulateRun({ items: 400, maxPerSecond: 0, maxAttempts: 1, script: hiccup(100, 300) });
		const failed = run.requests.filter((request) => request.answer === 500).length;
		expect(run.statuses.filter((status) => status === 'failed')).toHaveLength(failed);
		expect(run.statuses.filter((status) => status === 'sent')).toHaveLength(400 - failed);
		// The 10 on their way when the hiccup began, and the 4 senders whose own failure came back
		// before the fifth opened the breaker: they had passed it and were leaving. The probe, a
		// second later, is answered.
		expect(failed).toBe(14);
		expect(run.stops).toEqual([]);
		expect(run.hints).toEqual(['The API failed once during this run: sending paused and resumed once it answered again (1 probe message(s)).']);
	});

	test('an API that keeps failing: 5 in a row, a probe after 1 s, the last one when it has failed for Max Wait for the API to Recover, then the run stops', async () => {
		const run = await simulateRun({ items: 50, maxConcurrency: 1, maxAttempts: 1, maxOutageWait: 3, latencyMs: 0, script: () => internalError });
		// The second pause would be 2 s; it is cut to end at the 3 s bound.
		expect(run.requests.map((request) => run.since(request.at))).toEqual([0, 40, 80, 120, 160, 160 + FIRST_COOL_DOWN_MS, 3000]);
		expect(run.statuses).toEqual([...all(7, 'failed'), ...all(43, 'notSent')]);
		expect(run.stops).toEqual([
			{ scope: 'server', itemIndex: 6, templateCodeId: 'tpl-a', statusCode: 500, apiCode: 13, reason: "7 messages in a row failed on the API's side over 3 s, 2 of them after pauses to let it recover, the last one with: Internal error (code 13)" },
		]);
	});

	test.each([100, 120])('503 with Retry-After: %p on every answer, the defaults: the run stops when the API has failed for Max Wait for the API to Recover, and says that it waited', async (retryAfter) => {
		const run = await simulateRun({ items: 200, maxPerSecond: 25, maxConcurrency: 10, script: () => ({ status: 503, headers: { 'Retry-After': String(retryAfter) }, body: 'Service Unavailable' }) });
		expect(run.statuses.every((status) => status === 'failed' || status === 'notSent')).toBe(true);
		// Was 802 s and 962 s: every message waited out each Retry-After up to Max Attempts, and the failing time counted from its last.
		expect(run.elapsedMs).toBeGreaterThanOrEqual(120_000);
		expect(run.elapsedMs).toBeLessThanOrEqual(121_000);
		expect(run.logs).toContain(`Template Message is waiting ${retryAfter === 100 ? '1.7' : '2'} min: the API answered that it is unavailable (503) and asked to try again later (Retry-After)`);
		expect(run.hints.join(' ')).toMatch(/Options → Max Wait for the API to Recover bounds how long one message waits/);
	});

	test('with Max Wait for the API to Recover at 0, five 500s in a row stop the run at once', async () => {
		const run = await simulateRun({ items: 20, maxConcurrency: 1, maxAttempts: 1, maxOutageWait: 0, script: () => internalError });
		expect(run.requests).toHaveLength(5);
		expect(run.statuses).toEqual([...all(5, 'failed'), ...all(15, 'notSent')]);
	});
});

describe('stopping', () => {
	test('without Continue On Fail, the first failure stops new sends: no sender waiting for its slot sends after it', async () => {
		const run = await simulateRun({ items: 20, continueOnFail: false, script: ({ itemIndex }) => (itemIndex === 0 ? { status: 400, body: { errors: [{ message: 'bad', code: 39 }] } } : accepted(itemIndex)) });
		expect(run.firstFailure).toBe(0);
		// Item 0's answer comes 20 ms after it left: only item 1 (40 ms later) had not left yet, and it did not.
		expect(run.requests.map((request) => request.itemIndex)).toEqual([0]);
		expect(run.statuses.slice(1).every((status) => status === undefined)).toBe(true);
	});

	test('a template that does not exist stops that template only: the other template is all sent', async () => {
		const run = await simulateRun({
			items: 40,
			templateOf: (itemIndex) => (itemIndex % 2 === 0 ? 'tpl-missing' : 'tpl-b'),
			script: ({ itemIndex, templateCodeId }) => (templateCodeId === 'tpl-missing' ? { status: 406, body: { errors: [{ message: 'Template does not exist', code: 59 }] } } : accepted(itemIndex)),
		});
		expect(run.statuses.filter((_, i) => i % 2 === 1)).toEqual(all(20, 'sent'));
		// Item 0's refusal came back (20 ms) before item 2 was due (80 ms): every later item of its
		// template is held back, not sent to fail one by one.
		expect(run.requests.filter((request) => request.answer === 406)).toHaveLength(1);
		expect(run.statuses.filter((_, i) => i % 2 === 0)).toEqual(['failed', ...all(19, 'notSent')]);
		expect(run.statuses.filter((_, i) => i % 2 === 0 && run.statuses[i] === 'failed').length).toBe(run.requests.filter((request) => request.answer === 406).length);
		expect(run.stops).toEqual([expect.objectContaining({ scope: 'template', templateCodeId: 'tpl-missing', apiCode: 59 })]);
	});
});

describe('cancelling', () => {
	test('a cancel 1 s into a run paced at 5 a second: the 5 that left went, no sender waiting for its slot sends after it', async () => {
		const run = await simulateRun({ items: 50, maxPerSecond: 5, maxConcurrency: 10, cancelAt: 1000 });
		expect(run.error).toBeDefined();
		expect(run.requests.map((request) => run.since(request.at))).toEqual([0, 200, 400, 600, 800]);
		// The run ends with the cancel (the last answer came at 820 ms): nothing waits out the slots reserved up to 9 s ahead.
		expect(run.elapsedMs).toBe(1000);
	});

	test('a cancel while the API pauses every sender (Retry-After: 60): the run ends at once, nothing more is sent', async () => {
		const run = await simulateRun({ items: 20, maxConcurrency: 1, cancelAt: 5000, script: ({ itemIndex, index }) => (index === 2 ? tooManyRequests({ 'Retry-After': '60' }) : accepted(itemIndex)) });
		expect(run.error).toBeDefined();
		expect(run.requests).toHaveLength(3);
		expect(run.elapsedMs).toBe(5000);
	});
});

describe("a message's throttle budget", () => {
	test("an item's own 429 and the pause it causes are one wait, even on a clock that moves between calls", () => {
		let now = 1_000_000;
		const pacer = new Pacer(20, () => now++);
		const passage = new Passage(0, 'tpl', 2000);
		passage.chargeOwn429(1000, pacer.tooManyRequests(1000).until);
		passage.chargeOwn429(1000, pacer.tooManyRequests(1000).until);
		expect(passage.chargePause(pacer.pause())).toBe(true);
		expect(passage.waitedMs).toBe(2000);
	});

	test('a pause beyond what was charged costs only the part beyond it', () => {
		const passage = new Passage(0, 'tpl', 5000);
		passage.chargeOwn429(1000, 11_000);
		expect(passage.chargePause({ ms: 3000, until: 13_000 })).toBe(true);
		expect(passage.waitedMs).toBe(3000);
		expect(passage.chargePause({ ms: 2000, until: 13_000 })).toBe(true);
		expect(passage.waitedMs).toBe(3000);
	});

	test('a share of 1 refused and tried again at the slot the API\'s Reset named is charged that wait, not the second its Retry-After asked', async () => {
		const clock = new SimulatedClock();
		const pacer = new Pacer(25, clock.now);
		const flow = new FlowControl(pacer, { maxThrottleWaitMs: 120_000, maxOutageWaitMs: 60_000, continueOnFail: true }, { log: () => {}, hint: () => {} }, clock);
		flow.begin();
		const full = (reset: string) => readRateLimit({ 'x-ratelimit-limit': '25', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset });
		const tooMany = { kind: 'rejected' as const, reason: 'Too many requests', statusCode: 429, transient: true, retryAfterMs: 1000 };
		/** One attempt of `passage` through the flow, answered 20 ms later. */
		const attempt = (passage: Passage, outcome: FlowAnswer, reset: string) =>
			clock.run(
				(async () => {
					expect(await flow.slot(passage)).toBeUndefined();
					await clock.sleep(20);
					return flow.answered(passage, outcome, full(reset));
				})(),
			);
		// Others use the 24 the first answer leaves: this pace's share is 1 a second.
		await attempt(flow.start(0, 'tpl'), TAKEN, '0.030');
		await clock.run(clock.sleep(1000));
		const refused = flow.start(1, 'tpl');
		expect(await attempt(refused, tooMany, '0.030')).toBe('again');
		expect(refused.waitedMs).toBe(MIN_THROTTLE_CHARGE_MS);
		// Refused again at that slot: it waits its second, charged as the Retry-After asked.
		expect(await attempt(refused, tooMany, '0.030')).toBe('again');
		expect(refused.waitedMs).toBe(MIN_THROTTLE_CHARGE_MS + 1000);
	});

	test('a pause the budget cannot cover is refused and charges nothing', () => {
		const passage = new Passage(0, 'tpl', 2000);
		passage.chargeOwn429(1500, 11_500);
		expect(passage.chargePause({ ms: 1000, until: 12_100 })).toBe(false);
		expect(passage.waitedMs).toBe(1500);
	});
});

describe('code 9 (too many requests) in any status is waited out like a 429', () => {
	const code9 = (status: number, headers: Record<string, string> = {}): SimulatedAnswer => ({ status, headers, body: { success: false, errors: [{ message: 'Too many requests', code: 9 }] } });

	test.each([200, 406, 500])('HTTP %p with code 9 and Retry-After: 2 on the first 3 answers: every sender waits 2 s, each item is accepted once', async (status) => {
		const run = await simulateRun({ items: 6, maxPerSecond: 0, maxConcurrency: 3, latencyMs: 0, script: ({ itemIndex, index }) => (index < 3 ? code9(status, { 'Retry-After': '2' }) : accepted(itemIndex)) });
		expect(run.statuses).toEqual(all(6, 'sent'));
		expect(run.results.map((result) => result?.kind === 'sent' && result.msgid)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `m-${i}`));
		// Retried after the wait, and no sooner: the 4th request leaves when the 2 s asked for are over.
		expect(run.requests.slice(0, 3).map((request) => run.since(request.at))).toEqual([0, 0, 0]);
		expect(Math.min(...run.requests.slice(3).map((request) => run.since(request.at)))).toBe(2000);
		expect(run.stops).toEqual([]);
	});

	test('a code 9 that asks for longer than Max Wait When Throttled: not sent, the reason names the status and the code', async () => {
		const run = await simulateRun({ items: 1, maxThrottleWait: 2, latencyMs: 0, script: () => code9(200, { 'Retry-After': '5' }) });
		expect(run.results[0]).toEqual({
			kind: 'heldBack',
			attempts: 1,
			heldBy: { scope: 'throttled', itemIndex: 0, templateCodeId: 'tpl-a', statusCode: 200, apiCode: 9, reason: 'the API kept asking to slow down (HTTP 200: Too many requests (code 9)): it asked for 5 s more, beyond Max Wait When Throttled (2 s)' },
		});
	});

	test('code 9 never stops the run, even under Max Attempts 1 and without Continue On Fail', async () => {
		const run = await simulateRun({ items: 4, maxAttempts: 1, continueOnFail: false, latencyMs: 0, script: ({ itemIndex, index }) => (index < 2 ? code9(200) : accepted(itemIndex)) });
		expect(run.statuses).toEqual(all(4, 'sent'));
		expect(run.firstFailure).toBeUndefined();
	});
});

describe("the IETF draft's RateLimit headers hold the senders like X-RateLimit-*", () => {
	test.each([
		['RateLimit-Limit: 5, RateLimit-Remaining: 0, RateLimit-Reset: 2', { 'RateLimit-Limit': '5', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '2' }],
		['RateLimit: remaining=0, reset=2', { RateLimit: 'limit=5, remaining=0, reset=2' }],
		['RateLimit: "default";r=0;t=2', { RateLimit: '"default";r=0;t=2', 'RateLimit-Policy': '"default";q=10;w=1' }],
	])('%s on the 3rd answer: nothing leaves for 2 s', async (_, headers) => {
		const run = await simulateRun({ items: 6, maxPerSecond: 0, maxConcurrency: 1, latencyMs: 0, script: ({ itemIndex, index }) => ({ ...accepted(itemIndex), headers: index === 2 ? headers : {} }) });
		expect(run.statuses).toEqual(all(6, 'sent'));
		const times = run.requests.map((request) => run.since(request.at));
		expect(times.slice(0, 4)).toEqual([0, 0, 0, 2000]);
		// After the wait, the limit a header announced (5 or 10 a second) is the pace.
		expect(Math.min(...times.slice(4))).toBeGreaterThan(2000);
	});

	test('a hostile reset (an epoch two hours ahead in a delta-seconds header) is bounded by Max Wait When Throttled as X-RateLimit-Reset is', async () => {
		const run = await simulateRun({ items: 50, maxPerSecond: 0, maxConcurrency: 5, maxThrottleWait: 10, latencyMs: 0, script: ({ itemIndex, now }) => ({ ...accepted(itemIndex), headers: { 'RateLimit-Remaining': '0', 'RateLimit-Reset': String(Math.floor(now / 1000) + 7200) } }) });
		expect(run.requests.length).toBeLessThanOrEqual(5);
		expect(run.statuses.filter((status) => status === 'notSent')).toHaveLength(50 - run.requests.length);
		expect(run.elapsedMs).toBeLessThan(1000);
	});
});
