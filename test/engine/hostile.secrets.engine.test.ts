/**
 * The token never survives in anything a run leaves behind, whatever its length or characters
 * and however the server echoes it: raw, JSON-escaped, URL-encoded, HTML-escaped, with every
 * character %-encoded, an HTML numeric entity or a \\u escape, upper-cased, base64 (alone or
 * inside a longer encoding), cut short, as a redirect's host, as a key, past the point where reasons are cut, in a
 * msgid, in a "delivery unknown" reason kept in the node's context. Every string of the run's
 * data (context included), the node's error and n8n's log lines are searched.
 */
import { inspect } from 'node:util';
import type { IDataObject } from 'n8n-workflow';

import type { ApiServer, Reply, Responder } from '../helpers/apiServer';
import { acceptAll, startApiServer } from '../helpers/apiServer';
import type { RunResult } from '../helpers/engine';
import { ENGINE, runSendNode, SEND_NODE, TEST_TOKEN } from '../helpers/engine';
import { n8nLoggerClass } from '../helpers/n8nLogger';

const logged: string[] = [];
beforeAll(() => {
	const prototype = n8nLoggerClass().prototype as unknown as { log: (...args: unknown[]) => void };
	const log = prototype.log;
	jest.spyOn(prototype, 'log').mockImplementation(function (this: unknown, ...args: unknown[]) {
		logged.push(inspect(args, { depth: 8 }));
		return log.apply(this, args);
	});
});
afterAll(() => jest.restoreAllMocks());

let api: ApiServer;
afterEach(async () => {
	await api.close();
});

const TOKENS: Array<[string, string]> = [
	['2 characters', 'x7'],
	['7 characters', 'Qz9-kLm'],
	['12 characters', 'tok-12chars!'],
	['a JWT', TEST_TOKEN],
	['a JWT with a Bearer prefix', `Bearer ${TEST_TOKEN}`],
	['characters JSON, URLs and HTML escape', `a"b<c>&d'e/f\\g h+i%j=k${'z'.repeat(20)}`],
	['600 characters', `${'k'.repeat(300)}${'9'.repeat(300)}`],
];

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const pieces = (text: string, size: number) => text.match(new RegExp(`.{1,${size}}`, 'gs'))!;
/** A text's letters and digits alone, lower-cased: an echo broken up shows there whole. */
const lettersOf = (text: string) => text.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
const html = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Each way a server might echo the Authorization header it got, each between « and ». */
function echoes(auth: string): string[] {
	const bare = auth.replace(/^Bearer\s+/i, '');
	const forms = [
		auth,
		bare,
		JSON.stringify(bare).slice(1, -1),
		encodeURIComponent(bare),
		html(bare),
		b64(bare),
		bare.toUpperCase(),
		[...Buffer.from(bare, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
		[...bare].map((c) => `&#${c.codePointAt(0)};`).join(''),
		[...bare].map((c) => `&#x${c.codePointAt(0)!.toString(16)};`).join(''),
		[...bare].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
	];
	// Inside a longer base64 text a token is found from 12 characters on (shorter, only its
	// edges would be left to match, which would mask unrelated text).
	if (bare.length >= 12) forms.push(b64(`user:${bare}`));
	// A server log cut at 60% of the token.
	if (bare.length >= 24) forms.push(bare.slice(0, Math.floor(bare.length * 0.6)));
	// Broken up: a line break every 10 characters, a list of 11-character pieces; in hex; base64 of base64.
	if (bare.length >= 24) forms.push(pieces(bare, 10).join('\n'), JSON.stringify(pieces(bare, 11)), Buffer.from(bare, 'utf8').toString('hex'), b64(b64(bare)));
	return [...new Set(forms)];
}

/** One kind of answer per item, each carrying every echo. */
function echoing(kinds: Array<(echo: string) => Reply>): Responder {
	return (request, index) => {
		const echo = echoes(String(request.headers.authorization)).map((form) => `«${form}»`).join(' ');
		return kinds[index % kinds.length](echo);
	};
}

const KINDS: Array<(echo: string) => Reply> = [
	(echo) => ({ status: 400, body: { errors: [{ message: `bad request ${echo}`, code: 7 }] } }),
	(echo) => ({ status: 406, rawBody: `not acceptable ${echo}` }),
	(echo) => ({ status: 200, body: { success: false, message: `rejected ${echo}` } }),
	(echo) => ({ status: 200, body: { success: true, msgid: `m ${echo}` } }),
	(echo) => ({ status: 502, rawBody: `gateway ${echo}` }),
	(echo) => ({ status: 303, headers: { Location: `http://evil.example/?t=${encodeURIComponent(echo)}` } }),
	(echo) => ({ status: 400, body: { [`key ${echo}`]: { message: `nested ${echo}` } } }),
	(echo) => ({ status: 400, body: { message: `${'x'.repeat(280)} ${echo}` } }),
	(echo) => ({ status: 401, rawBody: `unauthorized ${echo}` }),
];

/** Every string in a value, keys included, however deep. */
function allStrings(value: unknown, out: string[] = [], seen = new Set<unknown>()): string[] {
	if (typeof value === 'string') out.push(value);
	else if (typeof value === 'object' && value !== null && !seen.has(value)) {
		seen.add(value);
		for (const [key, entry] of Object.entries(value)) {
			out.push(key);
			allStrings(entry, out, seen);
		}
	}
	return out;
}

function everythingIn(result: RunResult): string {
	const error = result.nodeError(SEND_NODE);
	return [...allStrings(result.run), ...allStrings(error), inspect(error, { depth: 12, showHidden: true })].join('\n');
}

test.each(TOKENS)('a token of %s: no echo of it survives anywhere', async (_name, token) => {
	api = await startApiServer(echoing(KINDS));
	const items = KINDS.map((_, i) => ({ phone: `6281200000${String(i).padStart(3, '0')}` }));
	const parameters = { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl', options: { maxConcurrency: 1, maxAttempts: 1 } };
	const withContinue = await runSendNode({ baseUrl: api.baseUrl, token, items, parameters, onError: 'continueRegularOutput' });
	const stopping = await runSendNode({ baseUrl: api.baseUrl, token, items: items.slice(0, 1), parameters });

	// Every kind of answer really came back with the echoes, and was processed.
	const output = withContinue.output(SEND_NODE);
	expect(api.requests).toHaveLength(KINDS.length + 1);
	expect(output.map((item) => item.json.success === true || (item.json.details as IDataObject).delivery)).toEqual([
		'failed', 'failed', 'failed', true, 'unknown', 'unknown', 'failed', 'failed', 'failed',
	]);
	expect(output[0].json.error).toContain('«[redacted]»');
	expect(output[3].json.msgid).toMatch(/^m «(Bearer )?\[redacted\]»/);
	// The "delivery unknown" outcomes are kept in the node's context, saved with the execution.
	const context = JSON.stringify(withContinue.run.data.executionData?.contextData);
	expect(context).toMatch(/gateway «(Bearer )?\[redacted\]»/);

	const haystack = [everythingIn(withContinue), everythingIn(stopping), ...logged].join('\n');
	expect(logged.join('\n')).toContain('«[redacted]»');
	for (const form of echoes(`Bearer ${token.replace(/^Bearer\s+/i, '')}`)) expect(haystack).not.toContain(`«${form}»`);
	// No 16 letters and digits of it in a row, whatever broke them up.
	const letters = lettersOf(token.replace(/^Bearer\s+/i, ''));
	const everything = lettersOf(haystack);
	for (let i = 0; i + 16 <= letters.length; i++) expect(everything).not.toContain(letters.slice(i, i + 16));
});

test('a redirect whose Location host is the token: the error shows no part of it, lower-cased or not', async () => {
	api = await startApiServer(() => ({ status: 301, headers: { Location: `https://${TEST_TOKEN}.evil.example/next` } }));
	const result = await runSendNode({ baseUrl: api.baseUrl, items: [{ phone: '6281200000001' }], parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl' }, onError: 'continueRegularOutput' });
	const [item] = result.output(SEND_NODE);
	expect(item.json.error).toContain('a redirect (HTTP 301 to https://[redacted].evil.example)');
	const haystack = [everythingIn(result), ...logged].join('\n').toLowerCase();
	for (let i = 0; i + 12 <= TEST_TOKEN.length; i += 6) expect(haystack).not.toContain(TEST_TOKEN.slice(i, i + 12).toLowerCase());
});

test('a Base URL with user:password@ is refused before anything is sent', async () => {
	api = await startApiServer();
	const withPassword = api.baseUrl.replace('http://', 'http://user:s3cr3t-pass@');
	const result = await runSendNode({ baseUrl: withPassword, items: [{ phone: '6281200000001' }], parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl' } });
	expect(result.nodeError(SEND_NODE)?.message).toBe("The credential's Base URL contains a user name or password, which would be sent in place of the JWT");
	expect(everythingIn(result)).not.toContain('s3cr3t-pass');
	expect(api.requests).toHaveLength(0);
});

test('a token with a line break is refused before anything is sent', async () => {
	api = await startApiServer();
	const result = await runSendNode({ baseUrl: api.baseUrl, token: `${TEST_TOKEN}\r\nX-Injected: 1`, items: [{ phone: '6281200000001' }], parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl' } });
	expect(result.nodeError(SEND_NODE)?.message).toBe("The credential's JWT contains a line break or another control character");
	expect(everythingIn(result)).not.toContain(TEST_TOKEN.split('.')[2]);
	expect(api.requests).toHaveLength(0);
});

const SEND = { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl' };
const GET_STATUS = { operation: 'getStatus', messageId: '={{ $json.msgid }}' };

describe("a JWT's public start is not the token", () => {
	const header = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9';
	const token = `${header}.eyJzdWIiOiJhY2N0LTkxMjMiLCJpYXQiOjE3MDAwMDAwMDB9.Xq3v9LmN2pR7sT1uW4yZ6aB8cD0eF5gH-iJkLmNoPqR`;
	/** The provider's signed message id: another HS256 JWT, sharing only the header with the credential's token. */
	const msgid = `${header}.eyJtc2dpZCI6IjQyIiwidG8iOiI2MjgxMiJ9.Zz1Yy2Xx3Ww4Vv5Uu6Tt7Ss8Rr9Qq0Pp_Oo-Nn1Mm2L`;

	test('a msgid that is another JWT stays on the sent row as the API gave it', async () => {
		api = await startApiServer(() => ({ status: 200, body: { success: true, msgid } }));
		const result = await runSendNode({ baseUrl: api.baseUrl, token, items: [{ phone: '6281200000001' }], parameters: SEND });
		expect(result.output(SEND_NODE)[0].json).toMatchObject({ status: 'sent', msgid });
	});

	test('Get Status of it reads the answer about it, and puts out the msgid the sheet matches on', async () => {
		api = await startApiServer((request) =>
			request.method === 'GET' ? { status: 200, body: { msgid, phone_number: '+6281200000001', history_status: [{ timestamp: '2024-03-01T03:22:58Z', status: 'read' }] } } : acceptAll(request, 0),
		);
		const result = await runSendNode({ baseUrl: api.baseUrl, token, items: [{ msgid }], parameters: GET_STATUS, typeVersion: 2 });
		expect(result.output(SEND_NODE)[0].json).toMatchObject({ deliveryStatus: 'read', reason: null, msgid });
	});
});

test.each<[string, (auth: string) => Reply]>([
	["an error entry's code of a 400", (auth) => ({ status: 400, body: { errors: [{ message: 'bad request', code: Number(auth) }] } })],
	["an error entry's code of a success: false", (auth) => ({ status: 200, body: { success: false, errors: [{ message: 'rejected', code: Number(auth) }] } })],
])('a token of digits echoed as a JSON number, as %s, is in no row, error or saved data', async (_name, answer) => {
	const digits = '738291046582913';
	api = await startApiServer((request) => answer(String(request.headers.authorization)));
	const withContinue = await runSendNode({ baseUrl: api.baseUrl, token: digits, items: [{ phone: '6281200000001' }], parameters: SEND, onError: 'continueRegularOutput' });
	const stopping = await runSendNode({ baseUrl: api.baseUrl, token: digits, items: [{ phone: '6281200000001' }], parameters: SEND });
	expect(api.requests[0].headers.authorization).toBe(digits);
	expect(withContinue.output(SEND_NODE)[0].json.error).toBeDefined();
	const numbers = (value: unknown): string[] => JSON.stringify(value)?.match(/\d{12,}/g) ?? [];
	expect([everythingIn(withContinue), everythingIn(stopping), ...numbers(withContinue.run), ...numbers(stopping.run)].join('\n')).not.toContain(digits);
});

describe('the node never joins pieces of the token back into one text', () => {
	/** Pieces of 10 characters: none holds a run of the token that an answer's own text is searched for. */
	const tokenPieces = () => pieces(TEST_TOKEN, 10);
	/** No 16 letters and digits of the token in a row. */
	const runsOfTokenIn = (text: string) => {
		const letters = lettersOf(TEST_TOKEN);
		const found: string[] = [];
		for (let i = 0; i + 16 <= letters.length; i += 4) if (lettersOf(text).includes(letters.slice(i, i + 16))) found.push(letters.slice(i, i + 16));
		return found;
	};

	test("Get Status's run summary (n8n's log, the hints saved with the execution) names no reasons when theirs join into the token", async () => {
		const words = ['submitted', 'failed', 'rejected'];
		api = await startApiServer((request) => {
			const i = Number(/m-(\d+)/.exec(request.url)?.[1] ?? 0);
			return { status: 200, body: { msgid: `m-${i}`, history_status: [{ timestamp: '2024-03-01T03:22:58Z', status: words[Math.floor(i / 3)] }], additional_info: { code: 1, reason: tokenPieces()[i] } } };
		});
		const from = logged.length;
		const items = tokenPieces().map((_, i) => ({ msgid: `m-${i}` }));
		const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters: { ...GET_STATUS, options: { maxConcurrency: 1 } }, typeVersion: 2 });
		// Each row holds its own piece: less than a run, and the API's reason for that row.
		expect(result.output(SEND_NODE).map((row) => row.json.failureReason)).toEqual(tokenPieces());
		const hints = (result.run.data.resultData.runData[SEND_NODE][0].hints ?? []).map((hint) => hint.message).join('\n');
		const summary = logged.slice(from).filter((line) => line.includes('Get Status')).join('\n');
		const counts = `3 submitted, 3 failed, ${items.length - 6} rejected`;
		expect(summary).toContain(`Get Status (the API's answers held the credential's token, in pieces: their words are left out): ${counts}`);
		if (ENGINE.keepsExecutionHints) expect(hints).toContain(counts);
		expect(runsOfTokenIn(`${hints}\n${summary}`)).toEqual([]);
	});

	test.each<[string, (piece: string) => unknown]>([
		['{ error: piece }', (piece) => ({ error: piece })],
		['{ msg: piece }', (piece) => ({ msg: piece })],
		['{ detail: { text: piece } }', (piece) => ({ detail: { text: piece } })],
		['{ [piece]: null }, the pieces in keys', (piece) => ({ [piece]: null })],
	])("a failure's reason joining error entries shaped %s", async (_shape, entry) => {
		api = await startApiServer(() => ({ status: 401, body: { errors: tokenPieces().map(entry) } }));
		const result = await runSendNode({ baseUrl: api.baseUrl, items: [{ phone: '6281200000001' }], parameters: SEND, onError: 'continueRegularOutput' });
		const error = String(result.output(SEND_NODE)[0].json.error);
		expect(error).toContain("[redacted] (the API's answer held the credential's token, in pieces)");
		expect(runsOfTokenIn(error.replace(/\{"(error|msg|detail|text)":\{?"?|"?\}+(; )?|":null/g, ''))).toEqual([]);
	});

	test.each<[string, (piece: string) => unknown]>([
		['{ error: piece, code: 5 }', (piece) => ({ error: piece, code: 5 })],
		['{ field: "phone", error: piece }', (piece) => ({ field: 'phone', error: piece })],
	])("entries shaped %s, another value beside each piece: the pieces at one key across the entries join into it", async (_shape, entry) => {
		api = await startApiServer(() => ({ status: 401, body: { errors: tokenPieces().map(entry) } }));
		const result = await runSendNode({ baseUrl: api.baseUrl, items: [{ phone: '6281200000001' }], parameters: SEND, onError: 'continueRegularOutput' });
		const error = String(result.output(SEND_NODE)[0].json.error);
		expect(error).toContain("[redacted] (the API's answer held the credential's token, in pieces)");
		expect(error).not.toContain(tokenPieces()[2]);
	});

	test("an entry with a message, whose hidden field holds 900 texts, before the pieces: what the reason never shows does not use up the check's bound", async () => {
		const trace = Array.from({ length: 30 }, () => Array.from({ length: 30 }, () => ''));
		api = await startApiServer(() => ({ status: 401, body: { errors: [{ message: 'Unauthorized', code: 1, trace }, ...tokenPieces().map((piece) => ({ error: piece }))] } }));
		const result = await runSendNode({ baseUrl: api.baseUrl, items: [{ phone: '6281200000001' }], parameters: SEND, onError: 'continueRegularOutput' });
		const error = String(result.output(SEND_NODE)[0].json.error);
		expect(error).toContain("[redacted] (the API's answer held the credential's token, in pieces)");
		expect(error).not.toContain(tokenPieces()[2]);
	});
});
