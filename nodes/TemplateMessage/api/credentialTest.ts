import type { ICredentialsDecrypted, ICredentialTestFunctions, INodeCredentialTestResult } from 'n8n-workflow';

import { BASE_URL_ENDS, sendEndpoint } from '../shared/baseUrl';
import type { CredentialProblem } from '../shared/credentialValues';
import { authorization, credentialProblem } from '../shared/credentialValues';
import { apiCodeInfo } from '../shared/apiCodes';
import { parseAnswer } from './answer';
import { apiCode, errorAndCauses, textReason } from './outcome';
import { Redactor } from './redact';
import { credentialTestSender, exchange } from './transport';

export const CREDENTIAL_TEST_TIMEOUT_MS = 10_000;

/**
 * `apiCode`: the provider's code in the answer's body (errors[0].code), when it has one; `notJson`: the
 * body's words when it was text but not JSON (a web page), which no API answer is.
 */
export type TestAnswer = { status: number; apiCode?: number | string; notJson?: string } | { code: string; reason: string };

/** As much of a page's words as a message shows. */
const PAGE_WORDS = 120;

/** Enough for the provider's error shape; the rest of a larger answer is never read. */
const CREDENTIAL_TEST_ANSWER_BYTES = 16 * 1024;

const PLAIN_HTTP = 'the address may speak plain http on this port: try its http:// form, or the https port';

const TLS_FIXES: Record<string, string> = {
	CERT_HAS_EXPIRED: "the server's certificate has expired: renew it, or ask the provider",
	ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate is for another host name: use the host name it was issued for',
	DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is self-signed, which n8n does not trust: use a certificate from a public authority, or give n8n its CA with NODE_EXTRA_CA_CERTS",
	SELF_SIGNED_CERT_IN_CHAIN: "the server's certificate chain ends in an untrusted CA: give n8n that CA with NODE_EXTRA_CA_CERTS",
	UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server sends its certificate without the intermediate ones: the server must send the full chain",
	UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the certificate's issuer is not trusted by n8n: give n8n that CA with NODE_EXTRA_CA_CERTS",
	EPROTO: PLAIN_HTTP,
	ERR_SSL_WRONG_VERSION_NUMBER: PLAIN_HTTP,
};

/**
 * The API has only the send endpoint: an empty body has no recipient, so nothing is sent. A server
 * checks the token first: 401/403 for a bad one, another 4xx (missing content) means it was accepted.
 */
export function credentialTestVerdict(baseUrl: string, answer: TestAnswer, token = ''): INodeCredentialTestResult {
	const at = baseUrl.trim();
	const error = (message: string): INodeCredentialTestResult => ({ status: 'Error', message });
	// The spec shows the JWT alone; the node sends it as entered, so a refused "Bearer <JWT>" says what to try.
	const checkTheJwt = /^bearer\s/i.test(token) ? 'check the JWT, or enter it without "Bearer " in front (the node sends it as entered)' : 'check the JWT';
	if ('code' in answer) {
		const { code, reason } = answer;
		if (code === 'ECONNREFUSED') return error(`Nothing answers at ${at} (connection refused): check the Base URL's host and port, and that the API runs and n8n's host can reach it`);
		if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return error(`The host of ${at} could not be found (DNS: ${code}): check the Base URL's spelling, and that n8n's host can resolve it`);
		if (code === 'ECONNABORTED' || code === 'ETIMEDOUT' || code.startsWith('UND_ERR_') && code.endsWith('TIMEOUT'))
			return error(`No answer from ${at} within ${CREDENTIAL_TEST_TIMEOUT_MS / 1000} s (timeout): check the Base URL, and that no firewall drops n8n's requests to it`);
		const tlsFix = TLS_FIXES[code] ?? (/CERT|TLS|SSL/.test(code) ? 'check the server\'s certificate' : undefined);
		if (tlsFix) return error(`The https connection to ${at} failed (${code}): ${tlsFix}`);
		if (code === 'ERR_INVALID_CHAR') return error('The JWT contains a character an HTTP header cannot carry: copy it again from the developer dashboard');
		if (code === 'ECONNRESET') return error(`${at} closed the connection before answering (ECONNRESET): check the Base URL, and that it is the API's address`);
		return error(`Could not reach ${at} (${code}: ${reason}): check the Base URL`);
	}
	const { status } = answer;
	// What the API said decides before the status: a 200 or 406 with code 45 is a refused token too.
	const code = apiCodeInfo(answer.apiCode);
	if (code?.tokenRefused) return error(`Token rejected (HTTP ${status}, code ${String(answer.apiCode)}: ${code.meaning}): ${checkTheJwt}`);
	if (status >= 300 && status < 400) return error(`The Base URL redirects (HTTP ${status}): enter the address the API answers at, often its https:// form`);
	if (status === 401 || status === 403) return error(`Token rejected (HTTP ${status}): ${checkTheJwt}`);
	if (status === 404) return error(`No send endpoint at this address (HTTP 404): check the Base URL, which ${BASE_URL_ENDS}`);
	if (status >= 500 || status < 200) return error(`${at} answered HTTP ${status}: the API is reachable but failing, so the token could not be checked. Try again later`);
	// A 429 may come from a gateway before the token is looked at; the API's code 9 with another status comes after it.
	if (status === 429) return error(`${at} answered HTTP 429 (too many requests): the API is reachable, but the token could not be checked. Try again in a moment`);
	// A web page at 200, 400 or 405 is a site, a dashboard or a proxy, not the API: every send there would fail.
	if (answer.notJson !== undefined) return error(`${at} answered HTTP ${status} with "${answer.notJson}", not the API's JSON: check the Base URL, which ${BASE_URL_ENDS}`);
	return { status: 'OK', message: 'Connection successful: the API accepted the token' };
}

/** The node's `testedBy`: one request with the token as every send has it, no redirect followed, a bounded piece of the body read. */
export async function testCredential(this: ICredentialTestFunctions, credential: ICredentialsDecrypted): Promise<INodeCredentialTestResult> {
	const baseUrl = String(credential.data?.baseUrl ?? '');
	const wrong = credentialProblem(baseUrl, credential.data?.token);
	if (wrong) return { status: 'Error', message: `The ${wrong.field} ${wrong.problem}${credentialFix(wrong)}` };
	const token = authorization(credential.data?.token);
	const found = await askWithToken(this, baseUrl, token, CREDENTIAL_TEST_TIMEOUT_MS);
	// An unknown code shows the error's own text, and a page its words: the token is redacted from them, and
	// only from them (a short token would match pieces of the node's own words).
	const redactor = new Redactor(token);
	if ('code' in found) return credentialTestVerdict(baseUrl, { ...found, reason: redactor.text(found.reason) }, token);
	return credentialTestVerdict(baseUrl, found.notJson === undefined ? found : { ...found, notJson: redactor.text(found.notJson) }, token);
}

function credentialFix({ field, fix }: CredentialProblem): string {
	if (fix) return `: ${fix.charAt(0).toLowerCase()}${fix.slice(1).replace(/\.$/, '')}`;
	return field === 'JWT' ? ': copy it again, as one line' : '';
}

/** Through the sends' transport, leaving by `helpers.request`; at most CREDENTIAL_TEST_ANSWER_BYTES of the body are read. */
export async function askWithToken(ctx: ICredentialTestFunctions, baseUrl: string, token: string, timeoutMs: number): Promise<TestAnswer> {
	return await exchange(
		credentialTestSender(ctx, token, timeoutMs),
		{ method: 'POST', url: sendEndpoint(baseUrl), body: {}, json: true },
		{ timeoutMs, maxBytes: CREDENTIAL_TEST_ANSWER_BYTES },
		({ statusCode, answer }): TestAnswer => {
			if (!('text' in answer)) return { status: statusCode };
			const body = parseAnswer(answer.text);
			const page = typeof body === 'string' && body.trim() !== '' ? textReason(body) : undefined;
			return { status: statusCode, apiCode: apiCode(body), notJson: page && ([...page].length > PAGE_WORDS ? `${[...page].slice(0, PAGE_WORDS).join('')}…` : page) };
		},
		// An answer that began but was not read in time still has its status, which decides the verdict.
		(_outcome, error, statusCode): TestAnswer =>
			statusCode !== undefined ? { status: statusCode } : { code: networkCode(error) ?? 'unknown', reason: typeof (error as Error | undefined)?.message === 'string' ? (error as Error).message : String(error) },
	);
}

function networkCode(error: unknown): string | undefined {
	for (const { code } of errorAndCauses(error)) {
		if (typeof code === 'string' && code !== 'ERR_BAD_RESPONSE' && code !== 'ERR_BAD_REQUEST') return code;
	}
	return undefined;
}
