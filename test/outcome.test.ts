import { apiReason, classifyResponse, classifyTransportError, retryAfterMs } from '../nodes/TemplateMessage/outcome';

const response = (statusCode: number, body: unknown, headers: Record<string, unknown> = {}) => ({ statusCode, headers, body });

describe('classifyResponse', () => {
	test('accepted only with success: true and a msgid', () => {
		expect(classifyResponse(response(200, { msgid: 'm-1', success: true }))).toEqual({ kind: 'accepted', msgid: 'm-1', statusCode: 200 });
		expect(classifyResponse(response(200, '{"msgid":"m-2","success":true}'))).toMatchObject({ kind: 'accepted', msgid: 'm-2' });
	});

	test('success: false is a refusal with the API reason', () => {
		expect(classifyResponse(response(200, { success: false, errors: [{ message: 'Template not approved', code: 39 }] }))).toMatchObject({
			kind: 'rejected',
			transient: false,
			reason: 'Template not approved (code 39)',
		});
	});

	test('a 2xx without msgid or with an unreadable body is "delivery unknown"', () => {
		expect(classifyResponse(response(200, { success: true }))).toMatchObject({ kind: 'unknown' });
		expect(classifyResponse(response(200, '<html>ok</html>'))).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(/not JSON/) });
	});

	test('4xx/5xx keep status and the API reason; any body still shows', () => {
		expect(classifyResponse(response(406, { errors: [{ message: 'Invalid phone', code: 12 }, { message: 'Bad index' }] }))).toMatchObject({
			kind: 'rejected',
			statusCode: 406,
			transient: false,
			reason: 'Invalid phone (code 12); Bad index',
		});
		expect(classifyResponse(response(500, 'upstream exploded'))).toMatchObject({ kind: 'rejected', statusCode: 500, reason: 'upstream exploded' });
		expect(classifyResponse(response(400, ''))).toMatchObject({ reason: 'HTTP 400' });
	});

	test('429 and 503 are transient and carry the wait the server asked for', () => {
		expect(classifyResponse(response(429, {}, { 'Retry-After': '3' }))).toMatchObject({ kind: 'rejected', transient: true, retryAfterMs: 3000 });
		expect(classifyResponse(response(503, 'busy'))).toMatchObject({ kind: 'rejected', transient: true, retryAfterMs: undefined });
	});

	test('502 and 504 may have been passed on: delivery unknown', () => {
		expect(classifyResponse(response(502, 'Bad gateway'))).toMatchObject({ kind: 'unknown', statusCode: 502 });
		expect(classifyResponse(response(504, ''))).toMatchObject({ kind: 'unknown', statusCode: 504 });
	});
});

describe('retryAfterMs', () => {
	const now = Date.parse('2026-11-21T10:00:00Z');
	test('seconds, HTTP date, X-RateLimit-Reset as delay or epoch', () => {
		expect(retryAfterMs({ 'retry-after': '1.5' }, now)).toBe(1500);
		expect(retryAfterMs({ 'retry-after': 'Sat, 21 Nov 2026 10:00:04 GMT' }, now)).toBe(4000);
		expect(retryAfterMs({ 'x-ratelimit-reset': '2' }, now)).toBe(2000);
		expect(retryAfterMs({ 'x-ratelimit-reset': String(now / 1000 + 5) }, now)).toBe(5000);
		expect(retryAfterMs({}, now)).toBeUndefined();
		expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
	});
});

describe('classifyTransportError', () => {
	test('no connection: certainly not sent, worth retrying', () => {
		expect(classifyTransportError({ message: 'x', cause: { code: 'ECONNREFUSED' } })).toMatchObject({ kind: 'rejected', transient: true, errorCode: 'ECONNREFUSED' });
		expect(classifyTransportError({ code: 'ENOTFOUND' })).toMatchObject({ kind: 'rejected', transient: true });
	});

	test('a reset before the body was written is safe to retry; after, it is unknown', () => {
		const clientRequest = (writableFinished: boolean) => ({ method: 'POST', path: '/api/v2/push/message', writableFinished });
		expect(classifyTransportError({ code: 'ECONNRESET', request: clientRequest(false) })).toMatchObject({ kind: 'rejected', transient: true });
		expect(classifyTransportError({ code: 'ECONNRESET', request: clientRequest(true) })).toMatchObject({ kind: 'unknown' });
		// axios via follow-redirects: the wrapper's own state is not the ClientRequest's.
		const wrapper = { writableFinished: false, _currentRequest: clientRequest(true) };
		expect(classifyTransportError({ cause: { code: 'ECONNRESET', request: wrapper } })).toMatchObject({ kind: 'unknown' });
		expect(classifyTransportError({ code: 'ECONNRESET', request: { writableFinished: false } })).toMatchObject({ kind: 'unknown' });
		expect(classifyTransportError({ code: 'ECONNRESET' })).toMatchObject({ kind: 'unknown' });
	});

	test('timeouts are unknown, cancellation is a plain stop', () => {
		expect(classifyTransportError({ cause: { code: 'ECONNABORTED' } })).toMatchObject({ kind: 'unknown', reason: 'no answer before the timeout', errorCode: 'ECONNABORTED' });
		expect(classifyTransportError({ code: 'ERR_CANCELED' })).toMatchObject({ kind: 'rejected', transient: false });
		expect(classifyTransportError(new Error('weird'))).toMatchObject({ kind: 'unknown', reason: 'network error' });
	});
});

test('apiReason reads message, error and nested error fields', () => {
	expect(apiReason({ message: 'Token expired' })).toBe('Token expired');
	expect(apiReason({ error: { message: 'Nope' } })).toBe('Nope');
	expect(apiReason('text')).toBeUndefined();
});
