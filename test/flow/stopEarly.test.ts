import { refusalScope } from '../../nodes/TemplateMessage/shared/apiCodes';
import type { Outcome } from '../../nodes/TemplateMessage/shared/contracts';
import { Breaker } from '../../nodes/TemplateMessage/flow/breaker';
import { BREAKER_THRESHOLD, FIRST_COOL_DOWN_MS } from '../../nodes/TemplateMessage/shared/flowLimits';
import { StopEarly } from '../../nodes/TemplateMessage/flow/stopEarly';

const refused = (statusCode: number, apiCode?: number, extra: Partial<Extract<Outcome, { kind: 'rejected' }>> = {}): Outcome => ({
	kind: 'rejected',
	statusCode,
	apiCode,
	transient: false,
	reason: `refused ${statusCode}`,
	...extra,
});
const accepted: Outcome = { kind: 'accepted', msgid: 'm', statusCode: 200 };

describe('refusalScope', () => {
	test.each([
		['401', refused(401), 'account'],
		['403', refused(403), 'account'],
		['404 (wrong Base URL)', refused(404), 'account'],
		['a redirect', refused(301, undefined, { redirect: true }), 'account'],
		['code 5, low balance', refused(406, 5), 'account'],
		['code 17', refused(401, 17), 'account'],
		['code 19', refused(406, 19), 'account'],
		['code 43', refused(401, 43), 'account'],
		['code 45', refused(401, 45), 'account'],
		['code 59, no such template', refused(406, 59), 'template'],
		['code 39, values do not match', refused(406, 39), 'item'],
		['a 400 without a code', refused(400), 'item'],
		['an unknown code', refused(406, 1234), 'item'],
		['404 with code 33, a recipient that does not exist', refused(404, 33), 'item'],
		['404 with code 59, a template that does not exist', refused(404, 59), 'template'],
		['403 with code 39', refused(403, 39), 'item'],
		['401 with code 17', refused(401, 17), 'account'],
		['403 with an undocumented code (one recipient blocked the business)', refused(403, 1234), 'item'],
		['404 with an undocumented code', refused(404, 4040), 'item'],
		['401 with an undocumented code (the credential failed)', refused(401, 1234), 'account'],
		['a delivery unknown', { kind: 'unknown', reason: 'timeout' } as Outcome, 'item'],
	])('%s: %s', (_name, outcome, scope) => {
		expect(refusalScope(outcome)).toBe(scope);
	});
});

describe('StopEarly', () => {
	test('an account-wide refusal blocks every template, once, naming the item', () => {
		const stop = new StopEarly(0);
		expect(stop.record(2, 'tpl-a', refused(401, 45))).toMatchObject({ scope: 'account', itemIndex: 2, statusCode: 401, apiCode: 45 });
		expect(stop.record(3, 'tpl-a', refused(401, 45))).toBeUndefined();
		expect(stop.blocking('tpl-b')).toMatchObject({ itemIndex: 2 });
	});

	test('a template-wide refusal blocks that template only', () => {
		const stop = new StopEarly(0);
		expect(stop.record(0, 'tpl-a', refused(406, 59))).toMatchObject({ scope: 'template', templateCodeId: 'tpl-a' });
		expect(stop.blocking('tpl-a')).toMatchObject({ itemIndex: 0 });
		expect(stop.blocking('tpl-b')).toBeUndefined();
	});

	test(`${BREAKER_THRESHOLD} failures in a row on the API's side with no time to wait stop the run; a success in between resets the count`, () => {
		const stop = new StopEarly(0);
		const failing: Outcome = { kind: 'rejected', statusCode: 500, transient: false, reason: 'Internal error' };
		for (let i = 0; i < BREAKER_THRESHOLD - 1; i++) expect(stop.record(i, 'tpl', failing)).toBeUndefined();
		stop.record(9, 'tpl', accepted);
		for (let i = 0; i < BREAKER_THRESHOLD - 1; i++) expect(stop.record(10 + i, 'tpl', failing)).toBeUndefined();
		const tripped = stop.record(20, 'tpl', { kind: 'rejected', errorCode: 'ECONNREFUSED', transient: true, reason: 'connection refused' });
		expect(tripped).toMatchObject({ scope: 'server', itemIndex: 20 });
		expect(tripped?.reason).toBe(`${BREAKER_THRESHOLD} messages in a row failed on the API's side, the last one with: connection refused`);
		expect(stop.blocking('other')).toBe(tripped);
	});

	test('429s neither stop a run nor count as failures, nor reset the count', () => {
		const stop = new StopEarly(0);
		const failing: Outcome = { kind: 'rejected', statusCode: 500, transient: false, reason: 'Internal error' };
		for (let i = 0; i < BREAKER_THRESHOLD - 1; i++) stop.record(i, 'tpl', failing);
		for (let i = 0; i < 50; i++) expect(stop.record(10 + i, 'tpl', refused(429, 9, { transient: true }))).toBeUndefined();
		expect(stop.blocking('tpl')).toBeUndefined();
		expect(stop.record(99, 'tpl', failing)).toMatchObject({ scope: 'server' });
	});

	test("a 5xx with one of the provider's documented codes is that refusal, not the API failing: the code decides the scope at once", () => {
		const stop = new StopEarly(0);
		expect(stop.record(0, 'tpl-a', refused(500, 45))).toMatchObject({ scope: 'account', itemIndex: 0, apiCode: 45 });
		const templates = new StopEarly(0);
		expect(templates.record(0, 'tpl-a', refused(503, 59))).toMatchObject({ scope: 'template', templateCodeId: 'tpl-a' });
		expect(templates.blocking('tpl-b')).toBeUndefined();
		// Documented item refusals at a 5xx neither stop the run nor count towards the breaker.
		const items = new StopEarly(0);
		for (let i = 0; i < 2 * BREAKER_THRESHOLD; i++) expect(items.record(i, 'tpl', refused(500, 39))).toBeUndefined();
		// The API's internal error (13) is the API failing.
		const internal = new StopEarly(0);
		for (let i = 0; i < BREAKER_THRESHOLD - 1; i++) expect(internal.record(i, 'tpl', refused(500, 13))).toBeUndefined();
		expect(internal.record(9, 'tpl', refused(500, 13))).toMatchObject({ scope: 'server' });
	});

	test("item refusals neither block nor count as the API's failures", () => {
		const stop = new StopEarly(0);
		for (let i = 0; i < 20; i++) expect(stop.record(i, 'tpl', refused(406, 39))).toBeUndefined();
		expect(stop.blocking('tpl')).toBeUndefined();
	});
});

describe('Breaker', () => {
	const clock = () => {
		let now = 0;
		return { now: () => now, advance: (ms: number) => (now += ms) };
	};
	const trip = (breaker: Breaker) => {
		for (let i = 0; i < BREAKER_THRESHOLD; i++) breaker.failed('Internal error');
	};

	test('after the threshold it pauses, lets one probe through, and an answered probe resumes sending', () => {
		const time = clock();
		const breaker = new Breaker(120_000, time.now);
		expect(breaker.gate()).toEqual({ pass: true });
		trip(breaker);
		expect(breaker.gate()).toEqual({ waitMs: FIRST_COOL_DOWN_MS });
		time.advance(FIRST_COOL_DOWN_MS);
		const gate = breaker.gate();
		expect(gate).toEqual({ pass: true, probe: expect.any(Number) });
		// Everyone else waits for the probe's answer.
		expect(breaker.gate()).toMatchObject({ waitMs: expect.any(Number) });
		breaker.answered((gate as { probe: number }).probe);
		expect(breaker.gate()).toEqual({ pass: true });
		expect([breaker.probes, breaker.recoveries]).toEqual([1, 1]);
	});

	test('each failed probe doubles the pause, up to 30 s; it gives up once the API has failed for the time allowed', () => {
		const time = clock();
		const breaker = new Breaker(60_000, time.now);
		trip(breaker);
		const pauses: number[] = [];
		for (;;) {
			const gate = breaker.gate();
			if ('gaveUp' in gate) break;
			if ('waitMs' in gate) {
				pauses.push(gate.waitMs);
				time.advance(gate.waitMs);
				continue;
			}
			expect(gate.probe).toEqual(expect.any(Number));
			breaker.failed('Internal error', gate.probe);
		}
		expect(pauses).toEqual([1000, 2000, 4000, 8000, 16000, 29000]);
		expect(time.now()).toBe(60_000);
		expect(breaker.gate()).toEqual({ gaveUp: expect.stringMatching(/^11 messages in a row failed on the API's side over 1 min, 6 of them after pauses to let it recover, the last one with: Internal error$/) });
	});

	test('a probe that was not sent lets the next sender probe', () => {
		const time = clock();
		const breaker = new Breaker(120_000, time.now);
		trip(breaker);
		time.advance(FIRST_COOL_DOWN_MS);
		const first = breaker.gate() as { probe: number };
		breaker.releaseProbe(first.probe);
		const second = breaker.gate() as { probe: number };
		expect(second).toEqual({ pass: true, probe: expect.any(Number) });
		expect(second.probe).not.toBe(first.probe);
		// An earlier probe reporting late does not clear the probe out now: no second probe goes.
		breaker.releaseProbe(first.probe);
		breaker.failed('late', first.probe);
		expect(breaker.gate()).toMatchObject({ waitMs: expect.any(Number) });
		expect(breaker.probes).toBe(0);
	});

	test('a failure of a message already on its way while the breaker is open does not extend the pause', () => {
		const time = clock();
		const breaker = new Breaker(120_000, time.now);
		trip(breaker);
		time.advance(500);
		breaker.failed('late');
		expect(breaker.gate()).toEqual({ waitMs: FIRST_COOL_DOWN_MS - 500 });
	});
});
