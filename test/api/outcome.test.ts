import { Readable } from 'node:stream';

import { parseAnswer, readAnswer } from '../../nodes/TemplateMessage/api/answer';
import { apiReason, classifyResponse, classifyTransportError } from '../../nodes/TemplateMessage/api/outcome';
import { isThrottle, throttled } from '../../nodes/TemplateMessage/shared/apiCodes';

const response = (statusCode: number, body: unknown, headers: Record<string, unknown> = {}) => ({ statusCode, headers, body });

const clientRequest = (writableFinished: boolean) => ({ method: 'POST', path: '/api/v2/push/message', writableFinished });

describe('classifyResponse', () => {
	test('accepted only with success: true and a msgid', () => {
		expect(classifyResponse(response(200, { msgid: 'm-1', success: true }))).toEqual({ kind: 'accepted', msgid: 'm-1', statusCode: 200 });
		// A number is the same id, kept as its text.
		expect(classifyResponse(response(200, { msgid: 900000, success: true }))).toEqual({ kind: 'accepted', msgid: '900000', statusCode: 200 });
		for (const msgid of ['', null, Number.NaN, {}, [], true]) expect(classifyResponse(response(200, { msgid, success: true })).kind).toBe('unknown');
		// The transport parses the answer; a body still in text form was not JSON.
		expect(classifyResponse(response(200, '{"msgid":"m-2","success":true}'))).toMatchObject({ kind: 'unknown' });
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

	test("one of the provider's documented codes decides before the status: a 2xx or a gateway status with it was not taken", () => {
		const tokenInvalid = { errors: [{ message: 'Token invalid', code: 45 }] };
		for (const status of [200, 202, 502, 504, 524]) {
			expect(classifyResponse(response(status, tokenInvalid))).toMatchObject({ kind: 'rejected', statusCode: status, apiCode: 45, transient: false, reason: 'Token invalid (code 45)' });
		}
		expect(classifyResponse(response(200, { errors: [{ message: 'Template not found', code: 59 }] }))).toMatchObject({ kind: 'rejected', apiCode: 59 });
		// An undocumented code, or none, says nothing of whether a 2xx or a gateway passed the message on.
		expect(classifyResponse(response(200, { errors: [{ message: 'Odd', code: 1 }] }))).toMatchObject({ kind: 'unknown' });
		expect(classifyResponse(response(502, { errors: [{ message: 'Bad gateway', code: 'upstream' }] }))).toMatchObject({ kind: 'unknown' });
		// Not worth trying again at a 503 either.
		expect(classifyResponse(response(503, tokenInvalid))).toMatchObject({ kind: 'rejected', transient: false });
		expect(classifyResponse(response(503, 'busy'))).toMatchObject({ kind: 'rejected', transient: true });
		// The API's internal error (13) says it failed, not whether the message went out: behind a gateway's status or a
		// 2xx it stays unknown, never tried again on its own.
		const internal = { errors: [{ message: 'Internal server error', code: 13 }] };
		for (const status of [200, 502, 504]) expect(classifyResponse(response(status, internal))).toMatchObject({ kind: 'unknown', statusCode: status });
		// With success: false too: Retry On Fail or a later Send Once run would post it again.
		expect(classifyResponse(response(200, { ...internal, success: false }))).toMatchObject({ kind: 'unknown', apiCode: 13, reason: 'Internal server error (code 13)' });
		// Accepted stays accepted, whatever else the body holds; success: true without a msgid is unknown, never refused.
		expect(classifyResponse(response(200, { ...tokenInvalid, success: true, msgid: 'm-1' }))).toMatchObject({ kind: 'accepted' });
		expect(classifyResponse(response(200, { ...tokenInvalid, success: true }))).toMatchObject({ kind: 'unknown' });
	});

	test('4xx/5xx keep status and the API reason; any body still shows', () => {
		expect(classifyResponse(response(406, { errors: [{ message: 'Invalid phone', code: 12 }, { message: 'Bad index' }] }))).toMatchObject({
			kind: 'rejected',
			statusCode: 406,
			transient: false,
			reason: 'Invalid phone (code 12); Bad index',
		});
		expect(classifyResponse(response(500, { errors: [{ message: 'Internal error', code: 13 }] }))).toMatchObject({ kind: 'rejected', statusCode: 500, reason: 'Internal error (code 13)' });
		expect(classifyResponse(response(400, ''))).toMatchObject({ reason: 'HTTP 400' });
	});

	test('429 and 503 are transient and carry the wait the server asked for', () => {
		expect(classifyResponse(response(429, {}, { 'Retry-After': '3' }))).toMatchObject({ kind: 'rejected', transient: true, retryAfterMs: 3000 });
		expect(classifyResponse(response(503, 'busy'))).toMatchObject({ kind: 'rejected', transient: true, retryAfterMs: undefined });
	});

	test("Envoy's 503 after a reset of a request it passed on, or after its own retries, is \"delivery unknown\"; one that never reached the API is tried again", () => {
		const envoy = (reason: string) => `upstream connect error or disconnect/reset before headers. ${reason}`;
		for (const reason of ['reset reason: connection termination', 'reset reason: remote reset', 'retried and the latest reset reason: local reset', 'reset reason: protocol error', 'retried and the latest reset reason: remote connection failure']) {
			expect(classifyResponse(response(503, envoy(reason)))).toMatchObject({ kind: 'unknown', statusCode: 503 });
		}
		for (const reason of ['reset reason: connection failure, transport failure reason: delayed connect error: 111', 'reset reason: local connection failure', 'reset reason: connection timeout', 'reset reason: overflow', 'reset reason: remote refused stream reset']) {
			expect(classifyResponse(response(503, envoy(reason)))).toMatchObject({ kind: 'rejected', transient: true });
		}
		expect(classifyResponse(response(503, 'no healthy upstream'))).toMatchObject({ kind: 'rejected', transient: true });
	});

	test('a 503 page of a front that answers so for a request it passed on (Varnish, Fastly, Heroku) is "delivery unknown"', () => {
		const pages = [
			'Error 503 first byte timeout\n\nfirst byte timeout\n\nGuru Mediation:\n\nDetails: cache-ams21 1700000000\n\nVarnish cache server',
			'<!DOCTYPE html><html><head><title>503 Backend fetch failed</title></head><body><h1>Error 503 Backend fetch failed</h1><h3>Guru Meditation:</h3><p>XID: 32770</p><hr><p>Varnish cache server</p></body></html>',
			'Error 503 between bytes timeout',
			'<!DOCTYPE html>\n<html>\n  <head>\n    <title>Application Error</title>\n  </head>\n  <body><iframe src="//www.herokucdn.com/error-pages/application-error.html"></iframe></body>\n</html>',
		];
		for (const page of pages) expect(classifyResponse(response(503, page))).toMatchObject({ kind: 'unknown', statusCode: 503 });
		// A server's own 503 still says it did not take the request.
		for (const page of ['Service Unavailable', '<html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center><hr><center>nginx</center></body></html>', 'No server is available to handle this request.']) {
			expect(classifyResponse(response(503, page))).toMatchObject({ kind: 'rejected', transient: true });
		}
	});

	test("a text answer's reason is one line; an HTML page is named by its title, or its text", () => {
		expect(classifyResponse(response(503, 'Error 503\n\n  first byte timeout\n'))).toMatchObject({ reason: 'Error 503 first byte timeout' });
		expect(classifyResponse(response(502, '<!DOCTYPE html>\n<html><head><title>\n502 Bad Gateway </title><style>h1 {}</style></head><body><h1>502</h1></body></html>'))).toMatchObject({ reason: '502 Bad Gateway (an HTML page)' });
		expect(classifyResponse(response(500, '<html><head><script>var x = "<b>";</script></head><body><b>Internal</b>\nServer Error</body></html>'))).toMatchObject({ reason: 'Internal Server Error (an HTML page)' });
		expect(classifyResponse(response(500, '<html><body><img src="x"></body></html>'))).toMatchObject({ reason: 'an HTML page' });
		// Text that merely starts with a bracket is not a page.
		expect(classifyResponse(response(503, '<busy> try later'))).toMatchObject({ reason: '<busy> try later' });
	});

	test('gateway statuses that can follow a forwarded request are "delivery unknown": 502, 504, 520 to 527', () => {
		for (const status of [502, 504, 520, 521, 522, 523, 524, 525, 526, 527]) {
			expect(classifyResponse(response(status, 'origin error'))).toMatchObject({ kind: 'unknown', statusCode: status });
		}
		expect(classifyResponse(response(519, 'x'))).toMatchObject({ kind: 'rejected' });
		expect(classifyResponse(response(528, 'x'))).toMatchObject({ kind: 'rejected' });
	});

	test('a 500 is the API\'s own failure only in the provider\'s error shape; any other 500 may come from a proxy after forwarding', () => {
		// The API saying it failed the request: surely not taken, so worth trying again.
		expect(classifyResponse(response(500, { errors: [{ message: 'Internal error', code: 13 }] }))).toMatchObject({ kind: 'rejected', apiCode: 13, transient: true });
		// Another code in that shape (a gateway's JSON error, say) is not taken as the API's own word.
		expect(classifyResponse(response(500, { errors: [{ message: 'Upstream error', code: 1 }] }))).toMatchObject({ kind: 'rejected', apiCode: 1, transient: false });
		for (const body of ['upstream exploded', '', '<html>500</html>', { message: 'Internal Server Error' }]) {
			expect(classifyResponse(response(500, body))).toMatchObject({ kind: 'unknown', statusCode: 500 });
		}
	});
});

describe('classifyTransportError', () => {
	test('no connection: certainly not sent, worth retrying', () => {
		expect(classifyTransportError({ message: 'x', cause: { code: 'ECONNREFUSED' } })).toMatchObject({ kind: 'rejected', transient: true, errorCode: 'ECONNREFUSED' });
		expect(classifyTransportError({ code: 'ENOTFOUND' })).toMatchObject({ kind: 'rejected', transient: true });
	});

	test("a request n8n's client refused to make (its address, a header) was not sent, and no retry changes that", () => {
		for (const code of ['ERR_INVALID_URL', 'ERR_INVALID_PROTOCOL', 'ERR_INVALID_CHAR', 'ERR_INVALID_HTTP_TOKEN', 'ERR_HTTP_INVALID_HEADER_VALUE']) {
			expect(classifyTransportError({ message: 'x', cause: { code } })).toMatchObject({ kind: 'rejected', transient: false, errorCode: code, reason: expect.stringMatching(/nothing was sent$/) });
		}
	});

	test('a reset before the body was written is safe to retry; after, it is unknown', () => {
		expect(classifyTransportError({ code: 'ECONNRESET', request: clientRequest(false) })).toMatchObject({ kind: 'rejected', transient: true });
		expect(classifyTransportError({ code: 'ECONNRESET', request: clientRequest(true) })).toMatchObject({ kind: 'unknown' });
		// axios via follow-redirects: the wrapper's own state is not the ClientRequest's.
		const wrapper = { writableFinished: false, _currentRequest: clientRequest(true) };
		expect(classifyTransportError({ cause: { code: 'ECONNRESET', request: wrapper } })).toMatchObject({ kind: 'unknown' });
		expect(classifyTransportError({ code: 'ECONNRESET', request: { writableFinished: false } })).toMatchObject({ kind: 'unknown' });
		expect(classifyTransportError({ code: 'ECONNRESET' })).toMatchObject({ kind: 'unknown' });
	});

	test('timeouts are unknown; a cancel is a plain stop only when the request surely never left', () => {
		expect(classifyTransportError({ cause: { code: 'ECONNABORTED' } })).toMatchObject({ kind: 'unknown', reason: 'no answer before the timeout', errorCode: 'ECONNABORTED' });
		expect(classifyTransportError({ code: 'ERR_CANCELED', request: clientRequest(false) })).toMatchObject({ kind: 'rejected', transient: false });
		expect(classifyTransportError({ code: 'ERR_CANCELED', request: clientRequest(true) })).toMatchObject({ kind: 'unknown', reason: 'the execution was cancelled while the request was on its way' });
		expect(classifyTransportError({ code: 'ERR_CANCELED' })).toMatchObject({ kind: 'unknown' });
		expect(classifyTransportError(new Error('weird'))).toMatchObject({ kind: 'unknown', reason: 'network error' });
	});
});

test('apiReason reads message, error and nested error fields', () => {
	expect(apiReason({ message: 'Token expired' })).toBe('Token expired');
	expect(apiReason({ error: { message: 'Nope' } })).toBe('Nope');
	expect(apiReason('text')).toBeUndefined();
});

describe('redirects and the API codes', () => {
	test('a 303 may follow a handled request: unknown; any other 3xx is a refusal that names the origin only', () => {
		expect(classifyResponse({ statusCode: 303, headers: { location: 'https://other.example/done?t=1' }, body: '' })).toMatchObject({
			kind: 'unknown',
			reason: 'the API answered with a redirect (HTTP 303 See Other to https://other.example), which follows a handled request; redirects are not followed',
		});
		expect(classifyResponse({ statusCode: 308, headers: { Location: '/v3/push' }, body: '' })).toMatchObject({
			kind: 'rejected',
			transient: false,
			redirect: true,
			reason: 'the API answered with a redirect (HTTP 308 to a relative address); redirects are not followed',
		});
	});

	test('the API code is read from errors[0].code, as a number when it is one', () => {
		expect(classifyResponse({ statusCode: 406, headers: {}, body: { errors: [{ message: 'x', code: '59' }] } })).toMatchObject({ apiCode: 59 });
		expect(classifyResponse({ statusCode: 401, headers: {}, body: { errors: [{ message: 'x', code: 45 }] } })).toMatchObject({ apiCode: 45 });
		expect(classifyResponse({ statusCode: 400, headers: {}, body: { message: 'x' } })).toMatchObject({ apiCode: undefined });
	});
});

describe('code 9 (too many requests) is a throttle at any HTTP status', () => {
	const tooMany = { success: false, errors: [{ message: 'Too many requests', code: 9 }] };

	test.each([200, 201, 400, 406, 429, 500, 502, 503, 504])('HTTP %p with code 9: not taken, tried again after the wait the server names', (status) => {
		expect(classifyResponse(response(status, tooMany, { 'Retry-After': '2' }))).toEqual({
			kind: 'rejected',
			statusCode: status,
			body: tooMany,
			apiCode: 9,
			reason: 'Too many requests (code 9)',
			transient: true,
			retryAfterMs: 2000,
		});
	});

	test('a 2xx with code 9 and no success field is a throttle too; code 9 as text counts; success: true with a msgid stays accepted', () => {
		expect(classifyResponse(response(200, { errors: [{ message: 'Slow down', code: '9' }] }, { 'X-RateLimit-Reset': '0.3' }))).toMatchObject({ kind: 'rejected', transient: true, apiCode: 9, retryAfterMs: 300 });
		expect(classifyResponse(response(200, { msgid: 'm-9', success: true, errors: [{ code: 9 }] }))).toEqual({ kind: 'accepted', msgid: 'm-9', statusCode: 200 });
	});

	test('other codes at 200 with success: false stay refusals that are not retried; a 429 without code 9 stays a throttle', () => {
		expect(classifyResponse(response(200, { success: false, errors: [{ message: 'x', code: 39 }] }))).toMatchObject({ kind: 'rejected', transient: false, apiCode: 39 });
		expect(classifyResponse(response(429, 'slow down'))).toMatchObject({ kind: 'rejected', transient: true, reason: 'slow down' });
	});

	test('throttled() is what the flow and the stop-early rules wait out instead of counting', () => {
		expect(throttled(classifyResponse(response(200, tooMany)))).toBe(true);
		expect(throttled(classifyResponse(response(502, tooMany)))).toBe(true);
		expect(throttled(classifyResponse(response(429, {})))).toBe(true);
		expect(throttled(classifyResponse(response(200, { success: false, errors: [{ code: 5 }] })))).toBe(false);
		expect(throttled(classifyResponse(response(200, { msgid: 'm', success: true })))).toBe(false);
		expect(isThrottle(undefined, 9)).toBe(true);
		expect(isThrottle(200, 13)).toBe(false);
	});
});

describe('the code before the status, and a msgid the answer named', () => {
	test('a 429 with one of the provider\'s refusals (45: the token, 5: the balance) is that refusal, not a throttle that waiting ends', () => {
		for (const code of [45, 5, 59, 39]) {
			const outcome = classifyResponse(response(429, { errors: [{ message: 'refused', code }] }, { 'Retry-After': '1' }));
			expect(outcome).toMatchObject({ kind: 'rejected', transient: false, apiCode: code });
			expect(throttled(outcome)).toBe(false);
		}
		// The API's internal error (13) says nothing of the request: the 429 decides.
		expect(throttled(classifyResponse(response(429, { errors: [{ message: 'x', code: 13 }] })))).toBe(true);
		expect(isThrottle(429, 45)).toBe(false);
		expect(isThrottle(429, 'RATE')).toBe(true);
	});

	test.each([429, 500, 503, 400])('HTTP %p whose body says success: true with a msgid: delivery unknown, the msgid kept, never sent again', (status) => {
		expect(classifyResponse(response(status, { msgid: 'm-1', success: true }, { 'Retry-After': '1' }))).toMatchObject({ kind: 'unknown', msgid: 'm-1', statusCode: status, reason: `the API answered HTTP ${status} with success: true and a msgid` });
	});

	test('a 2xx naming a msgid without success: true is delivery unknown with that msgid; a number beyond 2^53 is no msgid', () => {
		expect(classifyResponse(response(200, { msgid: 'm-1', success: 'true' }))).toEqual({ kind: 'unknown', statusCode: 200, body: { msgid: 'm-1', success: 'true' }, msgid: 'm-1', reason: 'the API answered HTTP 200 with a msgid but without success: true' });
		expect(classifyResponse(response(200, { msgid: 2 ** 60, success: true }))).toMatchObject({ kind: 'unknown', reason: 'the API answered HTTP 200 without success: true and a msgid (its msgid is a number too large to keep its digits)' });
		expect(classifyResponse(response(200, { msgid: 2 ** 60, success: true }))).not.toHaveProperty('msgid');
	});

	test('a 303 follows a handled POST (unknown); after a GET, a status lookup, it is a redirect', () => {
		expect(classifyResponse(response(303, '', { location: 'https://x.example/a' }))).toMatchObject({ kind: 'unknown' });
		expect(classifyResponse(response(303, '', { location: 'https://x.example/a' }), Date.now(), 'GET')).toEqual({
			kind: 'rejected',
			statusCode: 303,
			transient: false,
			redirect: true,
			reason: 'the API answered with a redirect (HTTP 303 to https://x.example); redirects are not followed',
		});
	});

	test("a redirect carrying one of the API's documented codes is the API answering: its code decides", () => {
		const location = { location: 'https://x.example/a' };
		expect(classifyResponse(response(303, { success: false, errors: [{ message: 'Token invalid', code: 45 }] }, location))).toMatchObject({ kind: 'rejected', apiCode: 45, transient: false, reason: 'Token invalid (code 45)' });
		expect(classifyResponse(response(302, { success: false, errors: [{ message: 'Data does not exist', code: 33 }] }, location), Date.now(), 'GET')).toMatchObject({ kind: 'rejected', apiCode: 33 });
		expect(classifyResponse(response(307, { errors: [{ message: 'Too many requests', code: 9 }] }, { ...location, 'Retry-After': '2' }))).toMatchObject({ kind: 'rejected', apiCode: 9, transient: true, retryAfterMs: 2000 });
		// After a POST, a 303 says the request was handled: a recipient's or a template's code beside it may follow a message that went out.
		expect(classifyResponse(response(303, { success: false, errors: [{ message: 'Invalid phone number', code: 39 }] }, location))).toMatchObject({ kind: 'unknown', reason: expect.stringContaining('redirect (HTTP 303 See Other') });
		expect(classifyResponse(response(302, { success: false, errors: [{ message: 'Invalid phone number', code: 39 }] }, location))).toMatchObject({ kind: 'rejected', redirect: true });
		expect(classifyResponse(response(302, { success: false, errors: [{ message: 'Balance is not enough', code: 5 }] }, location))).toMatchObject({ kind: 'rejected', apiCode: 5 });
		// Not the API's answer (its internal error says nothing of where the message is; no code at all): still a redirect.
		expect(classifyResponse(response(303, { success: false, errors: [{ message: 'Internal error', code: 13 }] }, location))).toMatchObject({ kind: 'unknown', reason: expect.stringContaining('redirect (HTTP 303 See Other') });
		expect(classifyResponse(response(302, { success: false, errors: [{ message: 'Moved' }] }, location))).toMatchObject({ kind: 'rejected', redirect: true });
	});

	test("a msgid written as a JSON number of 16 digits or more keeps its digits; nothing else is touched", () => {
		expect(parseAnswer('{"msgid": 1234567890123456789, "success": true}')).toEqual({ msgid: '1234567890123456789', success: true });
		expect(parseAnswer('{"msgid":-12345678901234567}')).toEqual({ msgid: '-12345678901234567' });
		expect(parseAnswer('[{"msgid" : 1234567890123456789 }]')).toEqual([{ msgid: '1234567890123456789' }]);
		expect(parseAnswer('{"msgid": 123456, "n": 1234567890123456789}')).toEqual({ msgid: 123456, n: Number('1234567890123456789') });
		expect(parseAnswer('{"note": "\\"msgid\\": 1234567890123456789}"}')).toEqual({ note: '"msgid": 1234567890123456789}' });
		expect(parseAnswer('{"msgid": 1234567890123456789.5}')).toEqual({ msgid: Number('1234567890123456789.5') });
	});
});

describe('an answer with a UTF-8 byte order mark', () => {
	test('the mark before JSON is skipped; text stays text', () => {
		expect(parseAnswer('\uFEFF{"msgid":"m-1","success":true}')).toEqual({ msgid: 'm-1', success: true });
		expect(parseAnswer('{"a":1}')).toEqual({ a: 1 });
		expect(parseAnswer('\uFEFF<html>ok</html>')).toBe('\uFEFF<html>ok</html>');
		// Only one mark, only in front.
		expect(parseAnswer('\uFEFF\uFEFF{}')).toBe('\uFEFF\uFEFF{}');
		expect(parseAnswer('{}\uFEFF')).toBe('{}\uFEFF');
	});

	test('read from the stream as the transport reads it: accepted, with its msgid', async () => {
		const stream = Readable.from([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"msgid":"m-bom","success":true}')]);
		const answer = await readAnswer(stream, new AbortController().signal);
		expect('text' in answer && classifyResponse(response(200, parseAnswer(answer.text)))).toEqual({ kind: 'accepted', msgid: 'm-bom', statusCode: 200 });
	});
});

