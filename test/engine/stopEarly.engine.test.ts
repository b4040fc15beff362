/**
 * When every message would fail the same way, the run stops sending: an account-wide refusal
 * (a rejected token, a low balance), a template that does not exist (for that template only),
 * a server failing every time. And the provider's rate-limit headers are followed before a 429.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { ApiServer, Responder } from '../helpers/apiServer';
import { acceptAll, startApiServer } from '../helpers/apiServer';
import { ENGINE, runSendNode, SEND_NODE } from '../helpers/engine';
import { watchPace, watchWaits } from '../helpers/flowWatch';
import { n8nLoggerClass } from '../helpers/n8nLogger';

let api: ApiServer;
afterEach(async () => {
	await api.close();
});

const rows = (count: number, template = () => 'tpl-a') => Array.from({ length: count }, (_, i) => ({ phone: `62812000${String(i).padStart(5, '0')}`, template: template() }));
const parameters = (options: IDataObject = {}) => ({ phoneNumber: '={{ $json.phone }}', templateCodeId: '={{ $json.template }}', options });
const details = (item: INodeExecutionData) => (item.json.details ?? {}) as IDataObject;
// The row's status (version 1's `delivery` keeps 0.1.0's words: a row not sent there is `failed`).
const delivery = (item: INodeExecutionData) => String(item.json.status);

const warnings: string[] = [];
const infos: string[] = [];
/** Each log line says where it is from; the lines below are compared without it. */
const WHERE = /^\[workflow "[^"]*", node "[^"]*"(, execution [^\]]+)?\] /;
const wheres: string[] = [];
beforeEach(() => {
	warnings.length = 0;
	infos.length = 0;
	wheres.length = 0;
	const prototype = n8nLoggerClass().prototype as unknown as { log: (level: string, message: string) => void };
	const log = prototype.log;
	jest.spyOn(prototype, 'log').mockImplementation(function (this: unknown, level: string, message: string, ...rest: unknown[]) {
		const where = WHERE.exec(message)?.[0];
		if (where) wheres.push(where);
		const line = message.replace(WHERE, '');
		if (level === 'warn' && line.startsWith('Template Message')) warnings.push(line);
		if (level === 'info') infos.push(line);
		return (log as (...args: unknown[]) => void).apply(this, [level, message, ...rest]);
	});
});
afterEach(() => jest.restoreAllMocks());

describe.each([
	['401 (token rejected)', { status: 401, body: { errors: [{ message: 'Token invalid', code: 45 }] } }],
	['code 5 (low balance)', { status: 406, body: { errors: [{ message: 'Balance is not enough', code: 5 }] } }],
	['404 (wrong Base URL)', { status: 404, rawBody: 'Not Found' }],
])('an account-wide refusal: %s', (_name, reply) => {
	test('200 items: a handful of requests, every item out in order, the rest marked notSent', async () => {
		api = await startApiServer(() => reply);
		const result = await runSendNode({ baseUrl: api.baseUrl, items: rows(200), parameters: parameters(), onError: 'continueRegularOutput' });

		const output = result.output(SEND_NODE);
		expect(output).toHaveLength(200);
		expect(output.map((item) => item.pairedItem)).toEqual(rows(200).map((_, item) => ({ item })));
		// Only the requests already on their way when the first refusal came back.
		expect(api.requests.length).toBeLessThanOrEqual(10);
		const failed = output.filter((item) => delivery(item) === 'failed');
		const notSent = output.filter((item) => delivery(item) === 'notSent');
		expect(failed).toHaveLength(api.requests.length);
		expect(notSent).toHaveLength(200 - api.requests.length);
		const first = Number(details(failed[0]).itemIndex);
		expect(details(notSent[0]).stoppedBy).toMatchObject({ scope: 'account', itemIndex: first, httpCode: reply.status });
		expect(notSent[0].json.error).toMatch(new RegExp(`^Not sent: the API refused the account at item ${first} \\(HTTP ${reply.status}: .+\\) \\[item \\d+\\]$`));
		expect(details(notSent[0])).toMatchObject({ phone_number: expect.any(String), template_code_id: 'tpl-a', attempts: 0 });
		expect(warnings).toEqual([expect.stringMatching(new RegExp(`^Template Message stopped sending early: account refusal at item ${first} \\(HTTP ${reply.status}\\): .+\\. 0 sent, ${notSent.length} not sent\\.$`))]);
	});
});

test('a one-item run refused for the account: the log does not say it stopped early, nothing was left', async () => {
	api = await startApiServer(() => ({ status: 401, body: { errors: [{ message: 'Token invalid', code: 45 }] } }));
	const result = await runSendNode({ baseUrl: api.baseUrl, items: rows(1), parameters: parameters(), onError: 'continueRegularOutput' });
	expect(delivery(result.output(SEND_NODE)[0])).toBe('failed');
	expect(warnings).toEqual([
		'Template Message: account refusal at item 0 (HTTP 401): Token invalid (code 45). It would have stopped the rest, but nothing was left to send: 0 sent.',
	]);
	// n8n prints only the message (unless it logs as JSON): the line itself says which workflow and node.
	expect(wheres[0]).toMatch(/^\[workflow "[^"]+", node "Template Message"/);
});

test('without Continue On Fail, the node fails with the refusal and says how many were sent', async () => {
	api = await startApiServer((request, index) => (index < 3 ? acceptAll(request, index) : { status: 401, body: { errors: [{ message: 'Token invalid', code: 45 }] } }));
	const result = await runSendNode({ baseUrl: api.baseUrl, items: rows(200), parameters: parameters({ maxConcurrency: 1 }) });
	const error = result.nodeError(SEND_NODE)!;
	expect(error.message).toBe('The API refused the message (HTTP 401): Token invalid (code 45) [item 3]');
	expect(error.description).toMatch(/^Code 45: the token is invalid\. .+ Run: Sent 3 of 200 item\(s\): 1 refused, 196 not sent\. n8n's Retry On Fail will not send the accepted ones again\.$/);
	expect(api.requests).toHaveLength(4);
});

test('with Max Wait for the API to Recover at 0, a server answering 500 every time stops the run after 5 failures in a row', async () => {
	api = await startApiServer(() => ({ status: 500, body: { errors: [{ message: 'Internal error', code: 13 }] } }));
	const result = await runSendNode({ baseUrl: api.baseUrl, items: rows(200), parameters: parameters({ maxConcurrency: 1, maxOutageWait: 0, maxAttempts: 1 }), onError: 'continueRegularOutput' });
	const output = result.output(SEND_NODE);
	expect(api.requests).toHaveLength(5);
	expect(output.slice(0, 5).map(delivery)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed']);
	expect(output.slice(5).every((item) => delivery(item) === 'notSent')).toBe(true);
	expect(details(output[5]).stoppedBy).toMatchObject({ scope: 'server', itemIndex: 4 });
});

test('connection refused on every attempt trips the breaker too', async () => {
	api = await startApiServer();
	const { baseUrl } = api;
	await api.close();
	const result = await runSendNode({ baseUrl, items: rows(50), parameters: parameters({ maxConcurrency: 1, maxAttempts: 2, maxOutageWait: 0 }), onError: 'continueRegularOutput' });
	const output = result.output(SEND_NODE);
	expect(output.filter((item) => delivery(item) === 'failed')).toHaveLength(5);
	expect(output.filter((item) => delivery(item) === 'notSent')).toHaveLength(45);
	api = await startApiServer();
});

// A template that does not exist, at the pace: test/flow/flowControl.test.ts ("stopping"); here, its 404 form.

test.each([
	['404 and code 33 (the recipient does not exist)', 404, { errors: [{ message: 'Data does not exist', code: 33 }] }],
	['403 and a code it does not document (the recipient blocked the business)', 403, { errors: [{ message: 'Recipient has blocked this business', code: 131031 }] }],
])("a recipient refused with the provider's %s stops nothing: every other row is sent", async (_name, status, body) => {
	const items = rows(200);
	api = await startApiServer((request, index) =>
		(request.body as { phone_number: string }).phone_number === items[7].phone ? { status, body } : acceptAll(request, index),
	);
	// Unpaced: at the default pace the 200 rows would take 8 s of waiting.
	const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters: parameters({ maxPerSecond: 0 }), onError: 'continueRegularOutput' });
	const output = result.output(SEND_NODE).map(delivery);
	expect(output.filter((outcome) => outcome === 'sent')).toHaveLength(199);
	expect(output[7]).toBe('failed');
	expect(api.requests).toHaveLength(200);
	expect(warnings).toEqual([]);
});

test('a template refused with the provider\'s 404 and code 59 stops that template only', async () => {
	let next = 0;
	const templates = () => (next++ % 2 === 0 ? 'tpl-missing' : 'tpl-ok');
	api = await startApiServer((request, index) =>
		(request.body as { message: { template: { template_code_id: string } } }).message.template.template_code_id === 'tpl-missing'
			? { status: 404, body: { errors: [{ message: 'Template does not exist', code: 59 }] } }
			: acceptAll(request, index),
	);
	const result = await runSendNode({ baseUrl: api.baseUrl, items: rows(40, templates), parameters: parameters(), onError: 'continueRegularOutput' });
	const output = result.output(SEND_NODE);
	expect(output.filter((_, i) => i % 2 === 1).every((item) => delivery(item) === 'sent')).toBe(true);
	expect(details(output[39 - 1]).stoppedBy).toMatchObject({ scope: 'template', apiCode: 59, httpCode: 404 });
});

test('a later run starts fresh', async () => {
	let refuse = true;
	api = await startApiServer((request, index) => (refuse ? { status: 401, rawBody: 'no' } : acceptAll(request, index)));
	await runSendNode({ baseUrl: api.baseUrl, items: rows(20), parameters: parameters(), onError: 'continueRegularOutput' });
	refuse = false;
	const result = await runSendNode({ baseUrl: api.baseUrl, items: rows(20), parameters: parameters(), onError: 'continueRegularOutput' });
	expect(result.output(SEND_NODE).every((item) => delivery(item) === 'sent')).toBe(true);
});

// A failing API's pause and probes, and waits the run cannot afford (Retry-After, X-RateLimit-Reset):
// on the simulated clock, test/flow/flowControl.test.ts.

describe("a recipient's code under an account's status", () => {
	const refusedWith = (status: number) => () => ({ status, body: { errors: [{ message: 'Recipient not found', code: 33 }] } });

	test('HTTP 401 with code 33 for 50 recipients: after 3 in a row the run stops as for the account', async () => {
		api = await startApiServer(refusedWith(401));
		const result = await runSendNode({ baseUrl: api.baseUrl, items: rows(50), parameters: parameters({ maxConcurrency: 1 }), onError: 'continueRegularOutput' });
		const output = result.output(SEND_NODE);
		expect(output.map(delivery)).toEqual(rows(50).map((_, i) => (i < 3 ? 'failed' : 'notSent')));
		expect(api.requests).toHaveLength(3);
		expect(output[3].json.error).toBe(
			'Not sent: the API refused the account at item 2 (HTTP 401: Recipient not found (code 33); 3 recipients in a row were refused the same way with HTTP 401, which says the account) [item 3]',
		);
	});

	test('at concurrency 10: at most the requests already on their way follow the third', async () => {
		api = await startApiServer(refusedWith(401));
		await runSendNode({ baseUrl: api.baseUrl, items: rows(50), parameters: parameters({ maxConcurrency: 10, maxPerSecond: 0 }), onError: 'continueRegularOutput' });
		expect(api.requests.length).toBeLessThanOrEqual(3 + 10);
	});

	test('HTTP 403 with a code the provider does not document (a recipient who blocked the business): 3 in a row stop nothing; 10 in a row stop the run', async () => {
		const blocked = () => ({ status: 403, body: { errors: [{ message: 'Recipient has blocked the business', code: 131031 }] } });
		api = await startApiServer((request, index) => (index >= 1 && index <= 3 ? blocked() : acceptAll(request, index)));
		const three = await runSendNode({ baseUrl: api.baseUrl, items: rows(10), parameters: parameters({ maxConcurrency: 1 }), onError: 'continueRegularOutput' });
		// Was: the six after them not sent, "refused the account".
		expect(three.output(SEND_NODE).map(delivery)).toEqual(['sent', 'failed', 'failed', 'failed', 'sent', 'sent', 'sent', 'sent', 'sent', 'sent']);
		await api.close();
		api = await startApiServer(blocked);
		const all = await runSendNode({ baseUrl: api.baseUrl, items: rows(30), parameters: parameters({ maxConcurrency: 1 }), onError: 'continueRegularOutput' });
		expect(all.output(SEND_NODE).map(delivery)).toEqual(rows(30).map((_, i) => (i < 10 ? 'failed' : 'notSent')));
		expect(all.output(SEND_NODE)[10].json.error).toMatch(/; 10 recipients in a row were refused the same way with HTTP 403, which says the account\) \[item 10\]$/);
	});

	test('an accepted message between them resets the count; HTTP 404 with code 33 is each recipient\'s, however many', async () => {
		api = await startApiServer((request, index) => (index % 3 === 2 ? acceptAll(request, index) : refusedWith(401)()));
		const mixed = await runSendNode({ baseUrl: api.baseUrl, items: rows(12), parameters: parameters({ maxConcurrency: 1 }), onError: 'continueRegularOutput' });
		expect(mixed.output(SEND_NODE).map(delivery)).toEqual(rows(12).map((_, i) => (i % 3 === 2 ? 'sent' : 'failed')));
		await api.close();
		api = await startApiServer(refusedWith(404));
		const notFound = await runSendNode({ baseUrl: api.baseUrl, items: rows(20), parameters: parameters({ maxConcurrency: 1 }), onError: 'continueRegularOutput' });
		expect(notFound.output(SEND_NODE).map(delivery)).toEqual(rows(20).map(() => 'failed'));
		expect(api.requests).toHaveLength(20);
	});
});

test('without On Error: Continue, a message given up on after 429s fails the node, and nothing more is sent', async () => {
	api = await startApiServer(() => ({ status: 429, body: { errors: [{ message: 'Too many requests', code: 9 }] }, headers: { 'Retry-After': '300' } }));
	const result = await runSendNode({ baseUrl: api.baseUrl, items: rows(3), parameters: parameters({ maxConcurrency: 1, maxThrottleWait: 2 }) });
	// Was a green execution handing on three notSent rows: n8n's error workflow never heard of it.
	expect(result.nodeError(SEND_NODE)?.message).toMatch(/^Not sent: the API kept asking to slow down \(HTTP 429: Too many requests \(code 9\)\): it asked for 5 min more, beyond Max Wait When Throttled \(2 s\) \[item 0\]$/);
	expect(api.requests).toHaveLength(1);
});

test('an answer that says success with a numeric msgid is sent, and the run goes on', async () => {
	api = await startApiServer((_, index) => ({ status: 200, body: { success: true, msgid: 900000 + index } }));
	const result = await runSendNode({ baseUrl: api.baseUrl, items: rows(8), parameters: parameters({ maxConcurrency: 1 }), onError: 'continueRegularOutput' });
	expect(result.output(SEND_NODE).map((item) => item.json.msgid)).toEqual(rows(8).map((_, index) => String(900000 + index)));
});

test('2xx answers the node cannot read as accepted are delivery unknown, and never pause or stop the run', async () => {
	api = await startApiServer(() => ({ status: 200, body: { success: true } }));
	const result = await runSendNode({ baseUrl: api.baseUrl, items: rows(12), parameters: parameters({ maxConcurrency: 1, maxOutageWait: 0 }), onError: 'continueRegularOutput' });
	expect(result.output(SEND_NODE).map(delivery)).toEqual(rows(12).map(() => 'unknown'));
	expect(api.requests).toHaveLength(12);
});

const acceptedWith = (reply: ReturnType<Responder>, headers: Record<string, string>): ReturnType<Responder> => ({ ...reply, headers });

describe('the provider\'s rate-limit headers', () => {
	/** A provider allowing `limit` a second, announcing its window on every answer, 429 past it. */
	function announcing(limit: number): Responder {
		let windowStart = Date.now();
		let used = 0;
		return (request, index) => {
			const now = Date.now();
			if (now - windowStart >= 1000) {
				windowStart = now;
				used = 0;
			}
			const resetSeconds = String(Math.max(0, (windowStart + 1000 - now) / 1000).toFixed(3));
			const headers = { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Reset': resetSeconds } as Record<string, string>;
			if (used >= limit) return { status: 429, headers: { ...headers, 'X-RateLimit-Remaining': '0' }, body: { errors: [{ message: 'Too many requests', code: 9 }] } };
			used++;
			const reply = acceptAll(request, index) as { status: number; body: unknown };
			return { ...reply, headers: { ...headers, 'X-RateLimit-Remaining': String(limit - used) } };
		};
	}

	test('a window that resets far beyond Max Wait When Throttled: the items come out not sent at once, with the reason, and the summary counts them', async () => {
		api = await startApiServer((request, index) => acceptedWith(acceptAll(request, index), { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(Math.floor(Date.now() / 1000) + 600) }));
		const flow = watchWaits();
		const result = await runSendNode({ baseUrl: api.baseUrl, items: rows(3), parameters: parameters({ maxConcurrency: 1 }), onError: 'continueRegularOutput' }).finally(flow.stop);
		// Waiting would take 120 s (Max Wait When Throttled) or the 600 s of the window: the run asked for no wait at all.
		expect(flow.waits.filter((ms) => ms > 0)).toEqual([]);
		const output = result.output(SEND_NODE);
		expect(output.map(delivery)).toEqual(['sent', 'notSent', 'notSent']);
		expect(output[1].json.error).toMatch(/^Not sent: the API's rate-limit window \(X-RateLimit-Remaining: 0\) resets in 10 min, beyond Max Wait When Throttled \(120 s\) \[item 1\]$/);
		expect(api.requests).toHaveLength(1);
		const hints = (result.run.data.resultData.runData[SEND_NODE][0].hints ?? []).map((hint) => hint.message);
		expect(hints).toEqual(ENGINE.keepsExecutionHints ? ['Sent 1 of 3 item(s): 2 not sent.'] : []);
	});

	test('a Limit announced in one execution does not slow the next, whose answers do not announce it', async () => {
		let limit: string | undefined = '1';
		api = await startApiServer((request, index) => acceptedWith(acceptAll(request, index), limit ? { 'X-RateLimit-Limit': limit } : {}));
		await runSendNode({ baseUrl: api.baseUrl, items: rows(2), parameters: parameters({ maxPerSecond: 20 }) });
		limit = undefined;
		const pace = watchPace();
		const result = await runSendNode({ baseUrl: api.baseUrl, items: rows(20), parameters: parameters({ maxPerSecond: 20 }) }).finally(pace.stop);
		expect(result.output(SEND_NODE).every((item) => item.json.success === true)).toBe(true);
		// Every message of the second run left at its own setting, not at the first run's 1 a second.
		expect(pace.departures.map((departure) => departure.rate)).toEqual(Array(20).fill(20));
	});

	test('a Limit lower than the setting becomes the pace, and the run says so', async () => {
		api = await startApiServer(announcing(10));
		const pace = watchPace();
		const result = await runSendNode({ baseUrl: api.baseUrl, items: rows(30), parameters: parameters({ maxPerSecond: 50 }) }).finally(pace.stop);
		expect(result.output(SEND_NODE).every((item) => item.json.success === true)).toBe(true);
		// Each message accepted once (a 429 met on the way is waited out); how many 429s depends on the
		// machine: the pace at an announced limit is on the simulated clock (flowControl.test.ts).
		expect(api.requests.filter((request) => request.answer === 200)).toHaveLength(30);
		// The first left at the setting, 50 a second; from the first answer announcing 10 on, none faster
		// than 10 (a 429 met on the way slows it below for a while).
		const rates = pace.departures.map((departure) => departure.rate);
		expect(rates[0]).toBe(50);
		const lowered = rates.findIndex((rate) => rate <= 10);
		expect(lowered).toBeGreaterThan(0);
		expect(rates.slice(lowered).filter((rate) => rate > 10)).toEqual([]);
		const said = 'The API announced a limit of 10 messages per second (X-RateLimit-Limit), lower than the 50 set in Options → Max Messages per Second: messages are sent at 10 per second.';
		const hints = result.run.data.resultData.runData[SEND_NODE][0].hints ?? [];
		expect(infos).toContain(said);
		// n8n before 1.80 has no execution hints: only the log says it there.
		// A 429 met on the way adds what it cost to the summary (test/flow/throttling.test.ts).
		expect(hints.map((hint) => hint.message)).toEqual(ENGINE.keepsExecutionHints ? [said, expect.stringMatching(/^Sent 30 of 30 item\(s\)\.( [^.]*"too many requests" \(HTTP 429 or code 9\)\.)?$/)] : []);
	});
});
