import { refusalScope } from '../../nodes/TemplateMessage/send/apiCodes';
import type { Outcome } from '../../nodes/TemplateMessage/send/outcome';
import { BREAKER_THRESHOLD, StopEarly } from '../../nodes/TemplateMessage/send/stopEarly';

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
		['403 with an undocumented code', refused(403, 1234), 'account'],
		['a delivery unknown', { kind: 'unknown', reason: 'timeout' } as Outcome, 'item'],
	])('%s: %s', (_name, outcome, scope) => {
		expect(refusalScope(outcome)).toBe(scope);
	});
});

describe('StopEarly', () => {
	test('an account-wide refusal blocks every template, once, naming the item', () => {
		const stop = new StopEarly();
		expect(stop.record(2, 'tpl-a', refused(401, 45))).toMatchObject({ scope: 'account', itemIndex: 2, statusCode: 401, apiCode: 45 });
		expect(stop.record(3, 'tpl-a', refused(401, 45))).toBeUndefined();
		expect(stop.blocking('tpl-b')).toMatchObject({ itemIndex: 2 });
	});

	test('a template-wide refusal blocks that template only', () => {
		const stop = new StopEarly();
		expect(stop.record(0, 'tpl-a', refused(406, 59))).toMatchObject({ scope: 'template', templateCodeId: 'tpl-a' });
		expect(stop.blocking('tpl-a')).toMatchObject({ itemIndex: 0 });
		expect(stop.blocking('tpl-b')).toBeUndefined();
	});

	test(`${BREAKER_THRESHOLD} failures in a row on the API's side trip the breaker; a success in between resets the count`, () => {
		const stop = new StopEarly();
		const failing: Outcome = { kind: 'rejected', statusCode: 500, transient: false, reason: 'Internal error' };
		for (let i = 0; i < BREAKER_THRESHOLD - 1; i++) expect(stop.record(i, 'tpl', failing)).toBeUndefined();
		stop.record(9, 'tpl', accepted);
		for (let i = 0; i < BREAKER_THRESHOLD - 1; i++) expect(stop.record(10 + i, 'tpl', failing)).toBeUndefined();
		const tripped = stop.record(20, 'tpl', { kind: 'rejected', errorCode: 'ECONNREFUSED', transient: true, reason: 'connection refused' });
		expect(tripped).toMatchObject({ scope: 'server', itemIndex: 20 });
		expect(tripped?.reason).toBe(`${BREAKER_THRESHOLD} messages in a row failed on the API's side, the last one with: connection refused`);
		expect(stop.blocking('other')).toBe(tripped);
	});

	test("item refusals neither block nor count as the API's failures", () => {
		const stop = new StopEarly();
		for (let i = 0; i < 20; i++) expect(stop.record(i, 'tpl', refused(406, 39))).toBeUndefined();
		expect(stop.blocking('tpl')).toBeUndefined();
	});
});
