import type { ICredentialsDecrypted, ICredentialTestFunctions, IExecuteFunctions, IHttpRequestOptions, IN8nHttpFullResponse } from 'n8n-workflow';

import type { Answer } from './answer';
import { MAX_ANSWER_BYTES, parseAnswer, readAnswer } from './answer';
import { boundedCopy, MAX_MSGID_LENGTH, MAX_REASON_LENGTH, truncate } from '../shared/bounded';
import { AttemptDeadline } from './deadline';
import type { RateLimitState } from './headers';
import { header, readRateLimit } from './headers';
import type { FailedOutcome, Outcome, SendRequestBody } from '../shared/contracts';
import { CREDENTIAL_TYPE } from '../shared/contracts';
import { markRequested } from '../shared/howRun';
import { apiCode, apiEntryTexts, classifyResponse, classifyTransportError, MAX_REASON_ENTRIES, requestWritten, saysNo } from './outcome';
import { isObject } from '../shared/jsonObject';
import { INTERNAL_ERROR_CODE, NOT_FOUND_CODE } from '../shared/apiCodes';
import { REDACTED } from './redact';
import type { Redactor } from './redact';

export interface Attempt {
	outcome: Outcome;
	rateLimit?: RateLimitState;
}

/**
 * One POST, never retried or redirected; every status comes back as a response, so the outcome is
 * decided in one place. The run's decrypted credential is passed so n8n does not decrypt it per message.
 * `timeoutMs` bounds the whole attempt up to the answer's last byte. Never throws: whatever the server
 * sends becomes an outcome with the token redacted and texts cut short.
 */
export async function postMessage(
	ctx: IExecuteFunctions,
	url: string,
	body: SendRequestBody,
	timeoutMs: number,
	credentials: ICredentialsDecrypted,
	redactor: Redactor,
): Promise<Attempt> {
	return await exchange(
		executionSender(ctx, credentials, timeoutMs),
		{ method: 'POST', url, body, json: true, headers: { 'content-type': 'application/json' } },
		executionLimits(ctx, timeoutMs),
		({ statusCode, headers, answer }): Attempt => {
			const rateLimit = readRateLimit(headers);
			if ('tooLarge' in answer) return { outcome: tooLargeOutcome(statusCode, answer.declaredBytes), rateLimit };
			const outcome = classifyResponse({ statusCode, headers, body: safeAnswerBody(answer.text, redactor) });
			return { outcome: finish(outcome, redactor), rateLimit };
		},
		(outcome) => ({ outcome }),
	);
}

/**
 * One status lookup's answer. `answered`: a 2xx whose whole body was read, parsed as JSON (else its
 * text), with the token redacted from the text before parsing; its reader must still redact what it
 * keeps and bound it. `failed`: anything else, read as a send's answer would be (outcome.ts: a 429 with
 * its wait, a refusal, a redirect, a failing API, no answer), its reason redacted and cut short.
 */
export type StatusAttempt =
	| { kind: 'answered'; statusCode: number; body: unknown; rateLimit?: RateLimitState }
	| { kind: 'failed'; outcome: FailedOutcome; rateLimit?: RateLimitState };

/**
 * One GET of `url` (`{base}/api/v2/message/{msgid}/status`), through the same path as a send: the
 * credential's authentication, no redirect, the attempt's deadline and cancel, the bounded reader.
 * Never throws.
 */
export async function getStatus(
	ctx: IExecuteFunctions,
	url: string,
	timeoutMs: number,
	credentials: ICredentialsDecrypted,
	redactor: Redactor,
): Promise<StatusAttempt> {
	return await exchange(
		executionSender(ctx, credentials, timeoutMs),
		{ method: 'GET', url, headers: { accept: 'application/json' } },
		executionLimits(ctx, timeoutMs),
		({ statusCode, headers, answer }): StatusAttempt => {
			const rateLimit = readRateLimit(headers);
			if ('tooLarge' in answer) return { kind: 'failed', outcome: tooLargeOutcome(statusCode, answer.declaredBytes) as FailedOutcome, rateLimit };
			if (statusCode >= 200 && statusCode < 300) {
				const read = parseAnswer(redactor.text(answer.text));
				const body = tokenInPieces(read, redactor) ? piecesMasked(read) : read;
				// "Too many requests", a refused token or the API's internal error in a 2xx is the API's no or failure, as
				// for a send (an internal error is asked again); "no such message" (33) is the row's answer.
				const code = apiCode(body);
				const apiSaysNo = isObject(body) && body.success !== true && (saysNo(body) || code === INTERNAL_ERROR_CODE) && code !== NOT_FOUND_CODE;
				if (!apiSaysNo) return { kind: 'answered', statusCode, body, rateLimit };
			}
			const outcome = classifyResponse({ statusCode, headers, body: safeAnswerBody(answer.text, redactor) }, Date.now(), 'GET');
			return { kind: 'failed', outcome: finish(outcome, redactor) as FailedOutcome, rateLimit };
		},
		(outcome) => ({ kind: 'failed', outcome }),
	);
}

export type ExchangeRequest = Pick<IHttpRequestOptions, 'method' | 'url' | 'body' | 'json' | 'headers'>;

/** The answer as it arrived, its body not yet read. */
export interface UnreadAnswer {
	statusCode: number;
	headers?: unknown;
	body?: unknown;
}

/**
 * How a request leaves, with the token, never redirected, every status a response. `signal` aborts at
 * the attempt's deadline and on cancel.
 */
export type Sender = (request: ExchangeRequest, signal: AbortSignal) => Promise<UnreadAnswer>;

/** `timeoutMs` bounds the whole attempt up to the answer's last byte, `maxBytes` the answer read. */
export interface ExchangeLimits {
	timeoutMs: number;
	maxBytes: number;
	cancel?: AbortSignal;
}

export interface Exchanged {
	statusCode: number;
	headers: Record<string, unknown>;
	answer: Answer;
}

/**
 * The one way a request goes and its answer is read: sent by `send`, the answer read within
 * `limits`. `read` turns the answer into the caller's result, `failed` a request or answer that failed
 * on the way: with the outcome, the error itself (the credential test names codes the outcome does
 * not keep) and the status when the answer had begun.
 */
export async function exchange<T>(
	send: Sender,
	request: ExchangeRequest,
	limits: ExchangeLimits,
	read: (exchanged: Exchanged) => T,
	failed: (outcome: FailedOutcome, error: unknown, statusCode: number | undefined) => T,
): Promise<T> {
	const deadline = new AttemptDeadline(limits.timeoutMs, limits.cancel);
	let response: UnreadAnswer | undefined;
	try {
		response = await send(request, deadline.signal);
		const headers = (response.headers ?? {}) as Record<string, unknown>;
		const answer = await readAnswer(response.body, deadline.signal, limits.maxBytes, declaredLength(headers));
		return read({ statusCode: response.statusCode, headers, answer });
	} catch (error) {
		return failed(failedAttempt(error, deadline, response?.statusCode).outcome as FailedOutcome, error, response?.statusCode);
	} finally {
		deadline.end();
	}
}

function executionLimits(ctx: IExecuteFunctions, timeoutMs: number): ExchangeLimits {
	return { timeoutMs, maxBytes: MAX_ANSWER_BYTES, cancel: ctx.getExecutionCancelSignal?.() };
}

/** A run's request: through n8n's helper with the credential. */
function executionSender(ctx: IExecuteFunctions, credentials: ICredentialsDecrypted, timeoutMs: number): Sender {
	return async (request, signal) => {
		markRequested(ctx);
		return (await ctx.helpers.httpRequestWithAuthentication.call(
			withCancelSignal(ctx, signal),
			CREDENTIAL_TYPE,
			{
				...request,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				disableFollowRedirect: true,
				encoding: 'stream',
				abortSignal: signal,
				// A fallback only: the deadline ends the attempt first.
				timeout: timeoutMs + 1000,
			},
			{ credentialsDecrypted: credentials },
		)) as IN8nHttpFullResponse;
	};
}

/**
 * The credential test's request: `helpers.request` is the only helper a credential test has, so the
 * token is set here as the credential's authentication sets it. The helper takes no signal: its own
 * timeout ends a request that gets no answer, with the error's code the dialog names, but not one whose
 * headers drip in (n8n 1.78's), so the attempt's deadline ends the wait for it too.
 */
export function credentialTestSender(ctx: ICredentialTestFunctions, token: string, timeoutMs: number): Sender {
	return async ({ url, method, headers, body, json }, signal) => {
		const requested = ctx.helpers.request({
			uri: url,
			method,
			headers: { ...headers, Authorization: token },
			body,
			json,
			followRedirect: false,
			simple: false,
			resolveWithFullResponse: true,
			// The body as a stream, so the bounded reader can stop a hostile server's 300 MB.
			useStream: true,
			timeout: timeoutMs,
		}) as Promise<UnreadAnswer>;
		return await untilAborted(requested, signal, () => Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
	};
}

/**
 * `answer`, or `aborted()` as soon as `signal` aborts; an answer that comes after has its body closed. The request itself
 * cannot be aborted (n8n 1.78's helper takes no signal): one whose headers never end lives on until Node's header limit.
 */
async function untilAborted(answer: Promise<UnreadAnswer>, signal: AbortSignal, aborted: () => Error): Promise<UnreadAnswer> {
	let onAbort!: () => void;
	const abort = new Promise<never>((_, reject) => {
		onAbort = () => reject(aborted());
		if (signal.aborted) onAbort();
		else signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		return await Promise.race([answer, abort]);
	} finally {
		signal.removeEventListener('abort', onAbort);
		if (signal.aborted) answer.then((late) => closeBody(late.body), () => undefined);
	}
}

function closeBody(body: unknown): void {
	if (typeof body === 'object' && body !== null && typeof (body as { destroy?: unknown }).destroy === 'function') (body as { destroy: () => void }).destroy();
}

/**
 * n8n's helper replaces any `abortSignal` with the context's execution cancel signal: this view makes
 * that the attempt's own signal, which aborts on cancel and at the deadline.
 */
function withCancelSignal(ctx: IExecuteFunctions, signal: AbortSignal): IExecuteFunctions {
	return Object.create(ctx, { getExecutionCancelSignal: { value: () => signal } }) as IExecuteFunctions;
}

function declaredLength(headers: Record<string, unknown>): number | undefined {
	const length = header(headers, 'content-length');
	return length !== undefined && /^\d{1,15}$/.test(length) ? Number(length) : undefined;
}

function safeAnswerBody(text: string, redactor: Redactor): unknown {
	return boundedCopy(parseAnswer(text), (value) => redactor.text(value));
}

/**
 * The token out of the reason and msgid (again: a reason can join several texts); the reason cut. A msgid is
 * kept whole or not at all: a cut one would look up another message, and one this long is no id the node can keep.
 */
function finish(outcome: Outcome, redactor: Redactor): Outcome {
	if (outcome.kind === 'accepted') {
		const msgid = redactor.text(outcome.msgid);
		if (msgid.length <= MAX_MSGID_LENGTH) return { ...outcome, msgid };
		return { kind: 'unknown', statusCode: outcome.statusCode, reason: `the API answered success: true with a msgid of ${msgid.length} characters, longer than any msgid the node keeps (${MAX_MSGID_LENGTH})` };
	}
	if (outcome.kind === 'unknown' && outcome.msgid !== undefined) {
		const { msgid: named, ...withoutMsgid } = outcome;
		const msgid = redactor.text(named);
		outcome = msgid.length <= MAX_MSGID_LENGTH ? { ...withoutMsgid, msgid } : { ...withoutMsgid, reason: `${outcome.reason}, a msgid longer than any the node keeps (${MAX_MSGID_LENGTH} characters)` };
	}
	if (tokenInPieces(outcome.body, redactor)) {
		return { ...outcome, body: piecesMasked(outcome.body), reason: `${REDACTED} (the API's answer held the credential's token, in pieces)` };
	}
	return { ...outcome, reason: truncate(redactor.text(outcome.reason), MAX_REASON_LENGTH) };
}

/**
 * A reason joins the answer's error texts with the node's words between them, which no run of the token
 * spans: whether the messages, the codes, or both in turn join into the token.
 */
function tokenInPieces(body: unknown, redactor: Redactor): boolean {
	const entries = apiEntryTexts(body);
	const messages = entries.map((entry) => entry.message);
	const codes = entries.flatMap((entry) => (entry.code === undefined ? [] : [entry.code]));
	const inTurn = entries.flatMap((entry) => (entry.code === undefined ? [entry.message] : [entry.message, entry.code]));
	return [messages, codes, inTurn, ...entryPieces(body)].some((pieces) => redactor.inPieces(pieces));
}

/** Most texts and numbers read from the answer's error entries. */
const MAX_ENTRY_VALUES = 300;

type Pending = { value: unknown; path: string } | { key: string };

/**
 * The pieces a reason shows of the error entries without a `message` (shown as their JSON; an entry
 * with one shows only it and its code, which tokenInPieces checks), however nested: their texts and
 * numbers in order, the same with the keys between them (keys can hold pieces too), and for each key
 * path the values at it across the entries (other values stand between those of one path). At most
 * MAX_ENTRY_VALUES each, without recursion (an answer can be nested ten thousand deep).
 */
function entryPieces(body: unknown): string[][] {
	const values: string[] = [];
	const withKeys: string[] = [];
	const byPath = new Map<string, string[]>();
	const entries = isObject(body) && Array.isArray(body.errors) ? body.errors.slice(0, MAX_REASON_ENTRIES) : [];
	const pending: Pending[] = entries.filter((entry) => !(isObject(entry) && typeof entry.message === 'string')).map((value): Pending => ({ value, path: '' })).reverse();
	for (let visited = 0; pending.length > 0 && visited < MAX_ENTRY_VALUES * 4 && withKeys.length < MAX_ENTRY_VALUES; visited++) {
		const next = pending.pop()!;
		if ('key' in next) {
			withKeys.push(next.key);
			continue;
		}
		const { value, path } = next;
		if (typeof value === 'string' || typeof value === 'number') {
			values.push(String(value));
			withKeys.push(String(value));
			const atPath = byPath.get(path) ?? [];
			atPath.push(String(value));
			byPath.set(path, atPath);
		} else if (Array.isArray(value)) pending.push(...value.slice(0, MAX_ENTRY_VALUES).map((entry): Pending => ({ value: entry, path: `${path}[]` })).reverse());
		else if (isObject(value)) pending.push(...Object.entries(value).slice(0, MAX_ENTRY_VALUES).flatMap(([key, entry]): Pending[] => [{ key }, { value: entry, path: `${path}.${key}` }]).reverse());
	}
	return [values, withKeys, ...byPath.values()];
}

/** The answer's error entries with their texts masked, their numeric codes kept. */
function piecesMasked(body: unknown): Record<string, unknown> {
	const entries = isObject(body) && Array.isArray(body.errors) ? (body.errors as unknown[]) : [];
	return { ...(isObject(body) ? body : {}), errors: entries.map((entry) => ({ message: REDACTED, ...(isObject(entry) && typeof entry.code === 'number' ? { code: entry.code } : {}) })) };
}

function tooLargeOutcome(statusCode: number, declaredBytes: number | undefined): Outcome {
	const size = declaredBytes !== undefined ? `${declaredBytes} bytes` : `more than ${MAX_ANSWER_BYTES} bytes`;
	const reason = `the API's answer was too large to read (${size}; the node reads at most ${MAX_ANSWER_BYTES} bytes)`;
	return { kind: 'unknown', statusCode, reason };
}

/**
 * An expired deadline makes delivery unknown unless the request certainly never left; so does a failure
 * while reading an answer that had begun (the status alone does not say whether a 2xx was coming).
 */
function failedAttempt(error: unknown, deadline: AttemptDeadline, statusCode: number | undefined): Attempt {
	if (deadline.expired) {
		if (statusCode === undefined && requestWritten(error) === false) {
			return { outcome: { kind: 'rejected', transient: true, errorCode: 'ETIMEDOUT', reason: 'no connection before the timeout' } };
		}
		const reason = statusCode === undefined ? 'no answer before the timeout' : `no complete answer before the timeout (the API had begun answering HTTP ${statusCode})`;
		return { outcome: { kind: 'unknown', errorCode: 'ETIMEDOUT', statusCode, reason } };
	}
	const outcome = classifyTransportError(error);
	if (statusCode !== undefined) {
		return { outcome: { kind: 'unknown', statusCode, errorCode: outcome.errorCode, reason: `the answer (HTTP ${statusCode}) could not be read to the end: ${outcome.reason}` } };
	}
	return { outcome };
}
