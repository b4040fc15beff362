import { apiCodeInfo, INTERNAL_ERROR_CODE, isApiAnswer, isThrottle } from '../shared/apiCodes';
import type { FailedOutcome, Outcome } from '../shared/contracts';
import { header, retryAfterMs } from './headers';
import { boundedCopy } from '../shared/bounded';
import { isObject } from '../shared/jsonObject';

export interface HttpResponse {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown; // bounded and token-redacted by the transport
}

/** `method`: a 303 follows a handled POST (a send); after a GET (a status lookup) it is a redirect like any other. */
export function classifyResponse(response: HttpResponse, now = Date.now(), method: 'POST' | 'GET' = 'POST'): Outcome {
	const { statusCode, headers, body } = response;

	if (statusCode >= 200 && statusCode < 300) {
		if (!isObject(body)) {
			return { kind: 'unknown', statusCode, body, reason: `the API answered HTTP ${statusCode} with a body that is not JSON` };
		}
		// What the API said decides before the status: "too many requests" in a 200 is a throttle too.
		if (body.success !== true && isThrottle(statusCode, apiCode(body))) return throttle(response, now);
		// The API's internal error says it failed, not whether the message went out before it did (see mayHaveBeenForwarded).
		if (body.success !== true && apiCode(body) === INTERNAL_ERROR_CODE) {
			const named = msgidIn(body);
			return { kind: 'unknown', statusCode, body, apiCode: INTERNAL_ERROR_CODE, reason: answerReason(statusCode, body), ...(named !== undefined && { msgid: named }) };
		}
		if (body.success === false) {
			return { kind: 'rejected', statusCode, body, apiCode: apiCode(body), transient: false, reason: apiReason(body) ?? 'the API answered success: false' };
		}
		const msgid = msgidIn(body);
		if (body.success === true && msgid !== undefined) return { kind: 'accepted', msgid, statusCode };
		// One of the provider's documented codes is the API saying no (a refused token, no balance): not taken.
		if (body.success !== true && saysNo(body)) return { kind: 'rejected', statusCode, body, apiCode: apiCode(body), transient: false, reason: answerReason(statusCode, body) };
		if (msgid !== undefined) return { kind: 'unknown', statusCode, body, msgid, reason: `the API answered HTTP ${statusCode} with a msgid but without success: true` };
		const unreadable = typeof body.msgid === 'number' ? ` (its msgid is a number too large to keep its digits)` : '';
		return { kind: 'unknown', statusCode, body, reason: `the API answered HTTP ${statusCode} without success: true and a msgid${unreadable}` };
	}

	if (statusCode >= 300 && statusCode < 400 && !redirectSaysNo(statusCode, body, method)) return classifyRedirect(statusCode, header(headers, 'location'), method);

	// Taken, says the body, refused or failed, says the status (a gateway rewrote one of them): it may have gone out.
	const msgid = isObject(body) && body.success === true ? msgidIn(body) : undefined;
	if (msgid !== undefined) return { kind: 'unknown', statusCode, body, msgid, reason: `the API answered HTTP ${statusCode} with success: true and a msgid` };

	const code = apiCode(body);
	// A 429, or the API's code 9 with whatever status (a gateway's 502 page carries no such code).
	if (isThrottle(statusCode, code)) return throttle(response, now);
	const reason = answerReason(statusCode, body);
	if (mayHaveBeenForwarded(statusCode, body)) {
		return { kind: 'unknown', statusCode, body, apiCode: code, reason };
	}
	// 503 is the server itself saying it did not take the request, and so is the provider's
	// documented internal error (code 13 with a 500, "try again later"): worth trying again. Another of its
	// documented codes with a 503 (a refused token) would get the same answer again.
	const transient = code === INTERNAL_ERROR_CODE ? statusCode === 500 || statusCode === 503 : statusCode === 503 && !saysNo(body);
	const retryAfter = transient ? retryAfterMs(headers, now) : undefined;
	return { kind: 'rejected', statusCode, body, apiCode: code, reason, transient, retryAfterMs: retryAfter };
}

/** The msgid an answer names: the spec shows it as a string; a whole number is the same id, kept as its text while its digits are exact. */
function msgidIn(body: Record<string, unknown>): string | undefined {
	const { msgid } = body;
	if (typeof msgid === 'string') return msgid === '' ? undefined : msgid;
	return typeof msgid === 'number' && Number.isSafeInteger(msgid) ? String(msgid) : undefined;
}

/** The API asked to slow down: not taken, tried again after the wait it names (see FlowControl.answered). */
function throttle({ statusCode, headers, body }: HttpResponse, now: number): Outcome {
	return { kind: 'rejected', statusCode, body, apiCode: apiCode(body), reason: answerReason(statusCode, body), transient: true, retryAfterMs: retryAfterMs(headers, now) };
}

function answerReason(statusCode: number, body: unknown): string {
	return apiReason(body) ?? (typeof body === 'string' && body.trim() !== '' ? textReason(body) : `HTTP ${statusCode}`);
}

/** A text answer on one line; a proxy's HTML page by its title (or its text), so that the message reads as words. */
export function textReason(text: string): string {
	const oneLine = (words: string) => words.replace(/\s+/g, ' ').trim();
	if (!/^\s*<(!doctype|html|head|body)\b/i.test(text)) return oneLine(text);
	const title = oneLine(/<title[^>]*>([^<]*)</i.exec(text)?.[1] ?? '');
	const words = title || oneLine(text.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' '));
	return words ? `${words} (an HTML page)` : 'an HTML page';
}

/**
 * Statuses a proxy in front of the API can give after passing the request on: 502, 504, Cloudflare's
 * 520 to 527, a 500 not in the provider's `{"errors": [...]}` shape (a page from whatever sits in
 * front), Envoy's 503 for a connection broken after it passed the request on (see
 * resetAfterForwarding), and the 503 pages of fronts that say no more (see forwardedPage). A 500 in that shape is the API itself failing the request. Any of these statuses with one of the
 * provider's documented codes that answer the request (see isApiAnswer; not its internal error, 13) is the API
 * itself answering. See docs/reliability.md.
 */
function mayHaveBeenForwarded(statusCode: number, body: unknown): boolean {
	// A proxy's page never carries the provider's documented codes: the API itself answered.
	if (saysNo(body)) return false;
	if (statusCode === 502 || statusCode === 504 || (statusCode >= 520 && statusCode <= 527)) return true;
	if (statusCode === 503) return resetAfterForwarding(body) || forwardedPage(body);
	return statusCode === 500 && apiCode(body) === undefined;
}

/**
 * Envoy (Istio, many API gateways) answers 503 "upstream connect error or disconnect/reset before
 * headers. reset reason: …" both when it could not reach the API and when the connection broke after
 * it passed the request on. Only a failed or timed-out connection, a full circuit breaker or a refused
 * stream surely kept the request from the API, and only when Envoy did not retry (an earlier try may
 * have been passed on).
 */
function resetAfterForwarding(body: unknown): boolean {
	if (typeof body !== 'string' || !/reset before headers/i.test(body)) return false;
	if (/retried/i.test(body)) return true;
	return !/reset reason:\s*((local |remote )?connection (failure|timeout)|overflow|(local |remote )?refused stream reset)/i.test(body);
}

/**
 * Fronts that answer 503 for a request they had passed on: Varnish (Fastly among others) for any
 * failure of its backend, a first-byte timeout included, in its "Guru Meditation" page; Heroku's
 * router for an app that timed out or closed the connection (H12, H13) as for one that was never
 * reached, in one "Application Error" page. Neither says which: unknown, never sent again.
 */
function forwardedPage(body: unknown): boolean {
	return typeof body === 'string' && /guru medi(?:t)?ation|varnish cache server|first byte timeout|between bytes timeout|backend fetch failed|<title>\s*application error\s*<\/title>/i.test(body);
}

/** An answer in the provider's error shape with one of its documented codes that answer the request (see isApiAnswer). */
export function saysNo(body: unknown): boolean {
	return isApiAnswer(apiCode(body));
}

/**
 * A redirect carrying one of the API's documented codes is the API answering, and its code decides, as at
 * any other status. But after a POST a redirect may follow a handled request (a 303 says so; a 302 is used
 * so too): there only a code that refuses before any message is handled (the token, the balance, too many
 * requests) is taken; beside a recipient's or a template's code, the redirect is read as one.
 */
function redirectSaysNo(statusCode: number, body: unknown, method: 'POST' | 'GET'): boolean {
	const code = apiCode(body);
	if (isThrottle(statusCode, code)) return true;
	if (method === 'POST') return apiCodeInfo(code)?.scope === 'account';
	return saysNo(body);
}

/**
 * Never followed: that would re-post the message, token included, wherever the server points.
 * A 303 follows a handled POST (delivery unknown); any other 3xx, or any after a GET, means a wrong Base URL.
 */
function classifyRedirect(statusCode: number, location: string | undefined, method: 'POST' | 'GET'): Outcome {
	const target = location ? ` to ${originOf(location)}` : '';
	if (statusCode === 303 && method === 'POST') {
		return { kind: 'unknown', statusCode, reason: `the API answered with a redirect (HTTP 303 See Other${target}), which follows a handled request; redirects are not followed` };
	}
	const reason = `the API answered with a redirect (HTTP ${statusCode}${target}); redirects are not followed`;
	return { kind: 'rejected', statusCode, transient: false, redirect: true, reason };
}

/** Only the origin is shown: a redirect's path and query are the server's to fill. */
function originOf(location: string): string {
	try {
		const url = new URL(location);
		return url.origin === 'null' ? 'another address' : url.origin;
	} catch {
		return 'a relative address';
	}
}

/** Codes Node.js gives when no request reached the server. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/** Codes of a request refused before it was made (its address or a header), which no retry changes. */
const NOT_MADE = new Set(['ERR_INVALID_URL', 'ERR_INVALID_PROTOCOL', 'ERR_INVALID_CHAR', 'ERR_INVALID_HTTP_TOKEN', 'ERR_HTTP_INVALID_HEADER_VALUE']);

const CODE_TEXT: Record<string, string> = {
	ECONNREFUSED: 'connection refused',
	ENOTFOUND: 'host name not found',
	EAI_AGAIN: 'host name lookup failed',
	EHOSTUNREACH: 'host unreachable',
	ENETUNREACH: 'network unreachable',
	ECONNRESET: 'connection reset',
	EPIPE: 'connection closed while sending',
	ECONNABORTED: 'no answer before the timeout',
	ETIMEDOUT: 'no answer before the timeout',
	ERR_CANCELED: 'the execution was cancelled',
	ERR_INVALID_URL: "n8n's HTTP client refused the address, built from the credential's Base URL: nothing was sent",
	ERR_INVALID_PROTOCOL: "n8n's HTTP client refused the address's scheme, from the credential's Base URL: nothing was sent",
	ERR_INVALID_CHAR: "a header held a character HTTP cannot carry (the credential's JWT?): nothing was sent",
	ERR_INVALID_HTTP_TOKEN: "a header held a character HTTP cannot carry (the credential's JWT?): nothing was sent",
	ERR_HTTP_INVALID_HEADER_VALUE: "a header held a character HTTP cannot carry (the credential's JWT?): nothing was sent",
};

/** The code stays out of the reason: n8n's NodeApiError replaces any message naming one with a generic line. */
export function classifyTransportError(error: unknown): FailedOutcome {
	const code = errorCode(error);
	const reason = (code && CODE_TEXT[code]) ?? 'network error';
	// Cancelled with the request on its way, the message may have gone out all the same.
	if (code === 'ERR_CANCELED') {
		return requestWritten(error) === false ? { kind: 'rejected', errorCode: code, reason, transient: false } : { kind: 'unknown', errorCode: code, reason: `${reason} while the request was on its way` };
	}
	if (code !== undefined && NOT_MADE.has(code)) {
		return { kind: 'rejected', errorCode: code, reason, transient: false };
	}
	if (code !== undefined && NOT_CONNECTED.has(code)) {
		return { kind: 'rejected', errorCode: code, reason, transient: true };
	}
	if ((code === 'ECONNRESET' || code === 'EPIPE') && requestWritten(error) === false) {
		return { kind: 'rejected', errorCode: code, reason: `${reason} before the request was sent`, transient: true };
	}
	return { kind: 'unknown', errorCode: code, reason };
}

const MAX_CAUSES = 5;

/** The error and the causes it wraps, outermost first: n8n wraps axios's error, which wraps Node's. */
export function errorAndCauses(error: unknown): Array<Record<string, unknown>> {
	const chain: Array<Record<string, unknown>> = [];
	for (let current: unknown = error; isObject(current) && chain.length < MAX_CAUSES; current = current.cause) chain.push(current);
	return chain;
}

/** On the error or its causes, or in httpCode where NodeApiError drops its cause (n8n 1.99 to 1.123). */
function errorCode(error: unknown): string | undefined {
	for (const current of errorAndCauses(error)) {
		for (const code of [current.code, current.httpCode]) {
			if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
		}
	}
	return undefined;
}

/**
 * false when the ClientRequest behind the error was not fully written; undefined ("may have been
 * sent") when none is found. axios hands over follow-redirects' wrapper, with the ClientRequest inside.
 */
export function requestWritten(error: unknown): boolean | undefined {
	for (const current of errorAndCauses(error)) {
		const request = current.request;
		if (!isObject(request)) continue;
		const client = isObject(request._currentRequest) ? request._currentRequest : request;
		if (typeof client.method === 'string' && typeof client.path === 'string' && typeof client.writableFinished === 'boolean') {
			if (client.writableFinished) return true;
			return handedToTls(client) ? undefined : false;
		}
	}
	return undefined;
}

/**
 * The request went to a TLS connection whose handshake was done, nothing of it left in the request's own buffer.
 * Node.js encrypts it and hands it to the kernel the moment the handshake completes, but says the write finished
 * only in the event loop's next check phase: a Stop read in between found it "not finished" while the API had it
 * whole, and Send Once then sent it again on the next run (an attack, 2026-11-29). Before or during the handshake
 * nothing of the request has left.
 */
function handedToTls(client: Record<string, unknown>): boolean {
	const socket = client.socket;
	const queued = typeof client.outputSize === 'number' ? client.outputSize : 0;
	return queued === 0 && isObject(socket) && socket.encrypted === true && socket._secureEstablished !== false;
}

export function apiReason(body: unknown): string | undefined {
	if (!isObject(body)) return undefined;
	if (Array.isArray(body.errors) && body.errors.length > 0) {
		return apiEntryTexts(body)
			.map(({ message, code }) => (code !== undefined ? `${message} (code ${code})` : message))
			.join('; ');
	}
	for (const key of ['message', 'error', 'detail', 'reason']) {
		const value = body[key];
		if (typeof value === 'string' && value !== '') return value;
		if (isObject(value) && typeof value.message === 'string') return value.message;
	}
	return undefined;
}

/** More error entries than a reason can show are left out of it. */
export const MAX_REASON_ENTRIES = 30;

/** A value of the answer as text: what is not text, a number or a boolean is written as JSON within boundedCopy's bounds (never nested without end). */
function shown(value: unknown): string {
	if (typeof value === 'string') return value;
	if (typeof value !== 'object' || value === null) return String(value);
	return JSON.stringify(boundedCopy(value, (text) => text)) ?? '';
}

/** The texts a reason shows of the answer's `errors` entries (see apiReason), in order: each entry's message (or the entry itself) and its code. */
export function apiEntryTexts(body: unknown): Array<{ message: string; code?: string }> {
	if (!isObject(body) || !Array.isArray(body.errors)) return [];
	return body.errors.slice(0, MAX_REASON_ENTRIES).map((entry) => {
		if (!isObject(entry)) return { message: shown(entry) };
		const message = typeof entry.message === 'string' ? entry.message : shown(entry);
		return entry.code !== undefined ? { message, code: shown(entry.code) } : { message };
	});
}

export function apiCode(body: unknown): number | string | undefined {
	if (!isObject(body) || !Array.isArray(body.errors) || !isObject(body.errors[0])) return undefined;
	const code = body.errors[0].code;
	if (typeof code === 'number' && Number.isFinite(code)) return code;
	if (typeof code === 'string' && code.trim() !== '') return /^\d+$/.test(code.trim()) ? Number(code.trim()) : code.trim();
	return undefined;
}
