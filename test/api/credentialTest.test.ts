import { credentialTestVerdict, testCredential } from '../../nodes/TemplateMessage/api/credentialTest';
import { baseUrlProblem } from '../../nodes/TemplateMessage/shared/baseUrl';
import { authorization, credentialProblem, tokenProblem } from '../../nodes/TemplateMessage/shared/credentialValues';

const BASE_URL = 'https://api.example.com';
const verdict = (answer: Parameters<typeof credentialTestVerdict>[1]) => credentialTestVerdict(` ${BASE_URL}/ `, answer);

describe('what the credential dialog says about one test request', () => {
	test('an answer other than 401, 403 and 404 from the send endpoint means the token was accepted', () => {
		for (const status of [200, 400, 406, 422]) expect(verdict({ status })).toEqual({ status: 'OK', message: 'Connection successful: the API accepted the token' });
	});

	test("a web page is not the API's answer, whatever its status: the Base URL is named, with the page's words", () => {
		expect(verdict({ status: 405, notJson: '405 Not Allowed (an HTML page)' })).toEqual({
			status: 'Error',
			message: `${BASE_URL}/ answered HTTP 405 with "405 Not Allowed (an HTML page)", not the API's JSON: check the Base URL, which ends before /api/v2 (https://api.example.com, not https://api.example.com/api/v2)`,
		});
		for (const status of [200, 400]) expect(verdict({ status, notJson: 'Dashboard (an HTML page)' }).status).toBe('Error');
		// The statuses that say more keep their own words.
		expect(verdict({ status: 401, notJson: 'Unauthorized (an HTML page)' }).message).toBe('Token rejected (HTTP 401): check the JWT');
		expect(verdict({ status: 404, notJson: 'Not Found (an HTML page)' }).message).toMatch(/^No send endpoint/);
	});

	test("the API's code decides before the status: a refused-token code in any answer is a rejected token", () => {
		expect(verdict({ status: 200, apiCode: 45 })).toEqual({ status: 'Error', message: 'Token rejected (HTTP 200, code 45: the token is invalid): check the JWT' });
		expect(verdict({ status: 406, apiCode: 43 })).toEqual({ status: 'Error', message: 'Token rejected (HTTP 406, code 43: no token was supplied): check the JWT' });
		expect(verdict({ status: 406, apiCode: 17 }).message).toMatch(/^Token rejected \(HTTP 406, code 17/);
		expect(verdict({ status: 406, apiCode: 19 }).message).toMatch(/^Token rejected \(HTTP 406, code 19/);
		// Other codes say the token got through: the status decides as before.
		for (const apiCode of [39, 5, 9, 59, 'X1']) expect(verdict({ status: 406, apiCode }).status).toBe('OK');
		expect(verdict({ status: 404, apiCode: 33 }).message).toMatch(/^No send endpoint/);
	});

	test('a rejected token, a missing endpoint, a redirect and a failing server each say what to check', () => {
		expect(verdict({ status: 401 })).toEqual({ status: 'Error', message: 'Token rejected (HTTP 401): check the JWT' });
		expect(verdict({ status: 403 })).toEqual({ status: 'Error', message: 'Token rejected (HTTP 403): check the JWT' });
		expect(verdict({ status: 404 }).message).toBe('No send endpoint at this address (HTTP 404): check the Base URL, which ends before /api/v2 (https://api.example.com, not https://api.example.com/api/v2)');
		expect(verdict({ status: 308 }).message).toBe('The Base URL redirects (HTTP 308): enter the address the API answers at, often its https:// form');
		expect(verdict({ status: 503 })).toEqual({ status: 'Error', message: `${BASE_URL}/ answered HTTP 503: the API is reachable but failing, so the token could not be checked. Try again later` });
		expect(verdict({ status: 429 })).toEqual({ status: 'Error', message: `${BASE_URL}/ answered HTTP 429 (too many requests): the API is reachable, but the token could not be checked. Try again in a moment` });
	});

	test.each([
		['ECONNREFUSED', `Nothing answers at ${BASE_URL}/ (connection refused): check the Base URL's host and port, and that the API runs and n8n's host can reach it`],
		['ENOTFOUND', `The host of ${BASE_URL}/ could not be found (DNS: ENOTFOUND): check the Base URL's spelling, and that n8n's host can resolve it`],
		['EAI_AGAIN', `The host of ${BASE_URL}/ could not be found (DNS: EAI_AGAIN): check the Base URL's spelling, and that n8n's host can resolve it`],
		['ECONNABORTED', `No answer from ${BASE_URL}/ within 10 s (timeout): check the Base URL, and that no firewall drops n8n's requests to it`],
		['ETIMEDOUT', `No answer from ${BASE_URL}/ within 10 s (timeout): check the Base URL, and that no firewall drops n8n's requests to it`],
		['UND_ERR_CONNECT_TIMEOUT', `No answer from ${BASE_URL}/ within 10 s (timeout): check the Base URL, and that no firewall drops n8n's requests to it`],
		['CERT_HAS_EXPIRED', `The https connection to ${BASE_URL}/ failed (CERT_HAS_EXPIRED): the server's certificate has expired: renew it, or ask the provider`],
		['DEPTH_ZERO_SELF_SIGNED_CERT', `The https connection to ${BASE_URL}/ failed (DEPTH_ZERO_SELF_SIGNED_CERT): the server's certificate is self-signed, which n8n does not trust: use a certificate from a public authority, or give n8n its CA with NODE_EXTRA_CA_CERTS`],
		['ERR_TLS_CERT_ALTNAME_INVALID', `The https connection to ${BASE_URL}/ failed (ERR_TLS_CERT_ALTNAME_INVALID): the certificate is for another host name: use the host name it was issued for`],
		['EPROTO', `The https connection to ${BASE_URL}/ failed (EPROTO): the address may speak plain http on this port: try its http:// form, or the https port`],
		['CERT_REVOKED', `The https connection to ${BASE_URL}/ failed (CERT_REVOKED): check the server's certificate`],
		['ECONNRESET', `${BASE_URL}/ closed the connection before answering (ECONNRESET): check the Base URL, and that it is the API's address`],
		['EHOSTUNREACH', `Could not reach ${BASE_URL}/ (EHOSTUNREACH: connect EHOSTUNREACH): check the Base URL`],
	])('a network error %s names the Base URL and the fix', (code, message) => {
		expect(verdict({ code, reason: `connect ${code}` })).toEqual({ status: 'Error', message });
	});
});

describe("the dialog's text never holds the token", () => {
	const credential = (token: string) => ({ id: '1', name: 'c', type: 'templateMessageApi', data: { baseUrl: BASE_URL, token } });
	const failingWith = (error: object) => ({ logger: {}, helpers: { request: async () => await Promise.reject(error) } }) as never;

	test("a network error's own text is shown without the token", async () => {
		const token = 'eyJhbGciOiJIUzI1NiJ9.abcdefghijklmnop';
		const result = await testCredential.call(failingWith({ code: 'EWEIRD', message: `socket failed while sending ${token}` }), credential(token));
		expect(result).toEqual({ status: 'Error', message: `Could not reach ${BASE_URL} (EWEIRD: socket failed while sending [redacted]): check the Base URL` });
	});

	test("a short token leaves the node's own words whole", async () => {
		const result = await testCredential.call(failingWith({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' }), credential('x'));
		expect(result.message).toBe(`Nothing answers at ${BASE_URL} (connection refused): check the Base URL's host and port, and that the API runs and n8n's host can reach it`);
	});
});

describe('a Base URL that cannot reach the send endpoint is refused, naming the part and the fix', () => {
	test.each([
		['https://api.example.com/?code=abc', 'has a query (the part from "?" on), which the node would put in front of /api/v2/push/message: remove it, and give the address alone'],
		['https://api.example.com?', 'has a query (the part from "?" on), which the node would put in front of /api/v2/push/message: remove it, and give the address alone'],
		['https://api.example.com/x?a=1#/y', 'has a query (the part from "?" on), which the node would put in front of /api/v2/push/message: remove it, and give the address alone'],
		['https://api.example.com/#/dashboard', 'has a fragment (the part from "#" on), which is never sent, so every message would go to the address before it: remove it, and give the address alone'],
		['https://api.example.com/#/x?code=1', 'has a fragment (the part from "#" on), which is never sent, so every message would go to the address before it: remove it, and give the address alone'],
		['https://api.example.com#', 'has a fragment (the part from "#" on), which is never sent, so every message would go to the address before it: remove it, and give the address alone'],
		['https://api.example.com/api/v1', "contains another API version's path (/api/v1); the node sends to /api/v2/push/message itself: remove /api/v1 and what follows it"],
		['https://api.example.com/api/v3/', "contains another API version's path (/api/v3); the node sends to /api/v2/push/message itself: remove /api/v3 and what follows it"],
		['https://api.example.com/gw/API/V1/push/message', "contains another API version's path (/API/V1); the node sends to /api/v2/push/message itself: remove /API/V1 and what follows it"],
		['https://api.example.com/API/V2', "ends with the API's own path (/API/V2); the node adds /api/v2/push/message itself"],
		['https://api.example.com/Api/v2/push/message', "ends with the API's own path (/Api/v2/push/message); the node adds /api/v2/push/message itself"],
		...['https://api.example.com/api/v2/..', 'https://api.example.com/gw/../', 'https://api.example.com/./gw', 'https://api.example.com/gw/%2E%2e'].map((baseUrl) => [baseUrl, 'has a "." or ".." step in its path, which moves the address every message goes to: give the address without it']),
		// As copied from an address bar or an e-mail: a URL parser reads "localhost:" as a scheme.
		...['api.example.com', 'api.example.com/', 'api.example.com:8443', 'localhost:5680', '//api.example.com'].map((baseUrl) => [
			baseUrl,
			'has no https:// in front: enter the address as https://api.example.com (or http:// for a server without TLS)',
		]),
		// A URL parser forgives these; n8n's HTTP client (2.x, 1.123) refuses them without sending, which read as "delivery unknown".
		...['https:/api.example.com', 'https:api.example.com', 'HTTP:/127.0.0.1:5680'].map((baseUrl) => [baseUrl, 'needs two slashes after its scheme: https://api.example.com, not https:/api.example.com']),
		// A URL reads "\\" as "/": each of these sent to /api/v2/push/message, not under /gw.
		...['https://api.example.com/gw\\..', 'https://api.example.com/gw/..\\', 'https://api.example.com/gw\\%2e%2e', 'https://api.example.com\\gw'].map((baseUrl) => [
			baseUrl,
			'contains a backslash (\\), which the address reads as "/": write "/" if one is meant',
		]),
		['https://api.example.com\u200b', 'contains a character that does not show (U+200B), copied along with the address: type the address again'],
		['\u2066https://api.example.com\u2069', 'contains a character that does not show (U+2066), copied along with the address: type the address again'],
	])('%s', (baseUrl, problem) => {
		expect(baseUrlProblem(baseUrl)).toBe(problem);
	});

	test('what works keeps working: a plain address, a path prefix, a trailing slash, a version-like word that is not /api/vN', () => {
		for (const baseUrl of ['https://api.example.com', ' https://api.example.com/ ', 'HTTPS://API.EXAMPLE.COM', 'https://bücher.example', 'http://[::1]:5680', 'http://127.0.0.1:5680', 'https://gw.example.com/whatsapp', 'https://gw.example.com/api', 'https://gw.example.com/api/v2beta', 'https://gw.example.com/v1', 'https://gw.example.com/v1.2/x', 'https://gw.example.com/..x']) {
			expect(baseUrlProblem(baseUrl)).toBeUndefined();
		}
	});

	test('the query and the fragment are named, never shown: they can hold a key', () => {
		expect(baseUrlProblem('https://api.example.com/?token=eyJsecret')).not.toMatch(/eyJsecret/);
		expect(baseUrlProblem('https://api.example.com/#token=eyJsecret')).not.toMatch(/eyJsecret/);
	});
});

describe('a JWT the API would only answer "Token invalid (code 45)" for is named before sending, never shown', () => {
	const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';

	test.each([
		[`"${jwt}"`, 'is in quotation marks, which would be sent as part of the token', 'Enter the token without the quotation marks around it.'],
		[`'${jwt}'`, 'is in quotation marks, which would be sent as part of the token', 'Enter the token without the quotation marks around it.'],
		[`\u201C${jwt}\u201D`, 'is in quotation marks, which would be sent as part of the token', 'Enter the token without the quotation marks around it.'],
		[`"${jwt}`, 'is in quotation marks, which would be sent as part of the token', 'Enter the token without the quotation marks around it.'],
		[`Bearer "${jwt}"`, 'is in quotation marks, which would be sent as part of the token', 'Enter the token without the quotation marks around it.'],
		[`Bearer Bearer ${jwt}`, 'starts with "Bearer Bearer"', 'Enter the token with one "Bearer " in front at most, or the token alone.'],
		[`bearer  BEARER ${jwt}`, 'starts with "Bearer Bearer"', 'Enter the token with one "Bearer " in front at most, or the token alone.'],
		// An HTTP header cannot carry these: n8n 1.78 failed every send as "delivery unknown", 2.x dropped them unseen.
		[`${jwt}\u200b`, 'contains a character no token has (U+200B, which does not show)', 'Copy the token again from the developer dashboard, as plain text.'],
		[`Bearer\u00a0${jwt}`, 'contains a character no token has (U+00A0, which does not show)', 'Copy the token again from the developer dashboard, as plain text.'],
		[`${jwt}é`, 'contains a character no token has (U+00E9)', 'Copy the token again from the developer dashboard, as plain text.'],
		[`${jwt.slice(0, 30)}\u2026`, 'ends in "…" (U+2026), as a token shown cut short does', 'Copy the whole token from the developer dashboard (its copy button), not the text shown.'],
	])('%s', (token, problem, fix) => {
		expect(tokenProblem(token)).toEqual({ problem, fix });
		expect(JSON.stringify(credentialProblem(BASE_URL, token))).not.toContain(jwt);
	});

	test('the token alone, with one "Bearer ", or with spaces around it is fine, and sent as entered but trimmed', () => {
		for (const token of [jwt, `Bearer ${jwt}`, ` ${jwt} `, `bearer ${jwt}`]) expect(credentialProblem(BASE_URL, token)).toBeUndefined();
		expect(authorization(` Bearer ${jwt} `)).toBe(`Bearer ${jwt}`);
	});

	test('the connection test says it without a request, naming the fix', async () => {
		const request = jest.fn();
		const context = { logger: {}, helpers: { request } } as never;
		const run = async (baseUrl: string, token: string) => await testCredential.call(context, { id: '1', name: 'c', type: 'templateMessageApi', data: { baseUrl, token } });
		expect(await run(BASE_URL, `"${jwt}"`)).toEqual({ status: 'Error', message: 'The JWT is in quotation marks, which would be sent as part of the token: enter the token without the quotation marks around it' });
		expect(await run(BASE_URL, `Bearer Bearer ${jwt}`)).toEqual({ status: 'Error', message: 'The JWT starts with "Bearer Bearer": enter the token with one "Bearer " in front at most, or the token alone' });
		expect(await run(`${BASE_URL}/?code=abc`, jwt)).toEqual({ status: 'Error', message: `The Base URL ${baseUrlProblem(`${BASE_URL}/?code=abc`)}` });
		expect(request).not.toHaveBeenCalled();
	});
});
