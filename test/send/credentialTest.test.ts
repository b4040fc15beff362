import { credentialTestVerdict, testCredential } from '../../nodes/TemplateMessage/send/credentialTest';

const BASE_URL = 'https://api.example.com';
const verdict = (probe: Parameters<typeof credentialTestVerdict>[1]) => credentialTestVerdict(` ${BASE_URL}/ `, probe);

describe('what the credential dialog says about one test request', () => {
	test('an answer other than 401, 403 and 404 from the send endpoint means the token was accepted', () => {
		for (const status of [200, 400, 406, 422]) expect(verdict({ status })).toEqual({ status: 'OK', message: 'Connection successful: the API accepted the token' });
	});

	test('a rejected token, a missing endpoint, a redirect and a failing server each say what to check', () => {
		expect(verdict({ status: 401 })).toEqual({ status: 'Error', message: 'Token rejected (HTTP 401): check the JWT' });
		expect(verdict({ status: 403 })).toEqual({ status: 'Error', message: 'Token rejected (HTTP 403): check the JWT' });
		expect(verdict({ status: 404 }).message).toBe('No send endpoint at this address (HTTP 404): check the Base URL, which ends before /api/v2 (https://api.example.com, not https://api.example.com/api/v2)');
		expect(verdict({ status: 308 }).message).toBe('The Base URL redirects (HTTP 308): enter the address the API answers at, often its https:// form');
		expect(verdict({ status: 503 })).toEqual({ status: 'Error', message: `${BASE_URL}/ answered HTTP 503: the API is reachable but failing, so the token could not be checked. Try again later` });
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
