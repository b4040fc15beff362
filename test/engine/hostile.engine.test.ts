/**
 * The send path against a hostile or broken server, in n8n's engine: redirects, answers built
 * to break parsing, answers too large or too slow, and the token echoed in every form. For every
 * case: what the server(s) received, what the node put out, and that no request arrived after
 * the run had settled.
 */
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { ApiServer, Reply, Responder } from '../helpers/apiServer';
import { acceptAll, startApiServer } from '../helpers/apiServer';
import type { RunResult, SendNodeRun } from '../helpers/engine';
import { ENGINE, runSendNode, SEND_NODE } from '../helpers/engine';
import { trackTimers } from '../helpers/timers';

const servers: ApiServer[] = [];
afterEach(async () => {
	await Promise.all(servers.splice(0).map((server) => server.close()));
});
async function server(responder: Responder = acceptAll): Promise<ApiServer> {
	const started = await startApiServer(responder);
	servers.push(started);
	return started;
}

const recipients = (count: number) => Array.from({ length: count }, (_, i) => ({ phone: `62812000${String(i).padStart(5, '0')}` }));
const parameters = (options: IDataObject = {}) => ({ phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl-hostile', options });
const details = (item: INodeExecutionData) => (item.json.details ?? {}) as IDataObject;
const outcomeOf = (item: INodeExecutionData) => String(item.json.status);
const phoneOf = (body: unknown) => String((body as IDataObject).phone_number);

/**
 * Runs the node and checks the promise the issue is about: no request leaves after the run has
 * settled. A later request would need a timer of the node's or n8n's to start it: none is left.
 * And none has reached any of `watched` by the time the servers have handled what was on its way.
 */
async function runWatched(watched: ApiServer[], run: Omit<SendNodeRun, 'baseUrl'> & { baseUrl?: string }): Promise<RunResult & { settledAt: number }> {
	const timers = trackTimers();
	const result = await runSendNode({ baseUrl: watched[0].baseUrl, ...run });
	const settledAt = Date.now();
	// Node reports a cleared timer's end a turn of the event loop later.
	for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
	const leftover = timers.stillRunning().filter((stack) => ENGINE.sleepStopsOnAbort || !/^\s*at sleep \(.*n8n-workflow/m.test(stack));
	expect(leftover).toEqual([]);
	for (const api of watched) for (const request of api.requests) expect(request.receivedAt).toBeLessThanOrEqual(settledAt);
	return { ...result, settledAt };
}

/** `{"message":"x","d":[[[…]]]}`, `depth` levels deep, as JSON text. */
const nested = (depth: number, around: (inner: string) => string = (inner) => `{"message":"deeply nested","d":${inner}}`) =>
	around(`${'['.repeat(depth)}${']'.repeat(depth)}`);

function rawJson(status: number, text: string, headers: Record<string, string> = {}): Reply {
	return { status, rawBody: text, headers: { 'content-type': 'application/json', ...headers } };
}

describe('redirects are never followed', () => {
	test.each([
		[301, 'failed'],
		[302, 'failed'],
		[307, 'failed'],
		[308, 'failed'],
		[303, 'unknown'],
	])('HTTP %i to another origin: one request, nothing to the other origin, ends %s', async (status, expected) => {
		const elsewhere = await server();
		const api = await server((request, index) =>
			index === 0 ? { status, headers: { Location: `${elsewhere.baseUrl}/api/v2/push/message?stolen=1` } } : acceptAll(request, index),
		);
		const result = await runWatched([api, elsewhere], {
			items: recipients(2),
			parameters: parameters({ maxConcurrency: 1 }),
			onError: 'continueRegularOutput',
		});

		const [first, second] = result.output(SEND_NODE);
		expect(elsewhere.requests).toHaveLength(0);
		expect(outcomeOf(first)).toBe(expected);
		expect(first.json.error).toContain(`redirect (HTTP ${status}`);
		expect(first.json.error).toContain(new URL(elsewhere.baseUrl).origin);
		expect(api.requests.filter((request) => phoneOf(request.body) === recipients(2)[0].phone)).toHaveLength(1);
		if (expected === 'failed') {
			// A redirect says the Base URL is wrong: it holds for every message.
			expect(outcomeOf(second)).toBe('notSent');
			expect(api.requests).toHaveLength(1);
		} else {
			expect(outcomeOf(second)).toBe('sent');
		}
	});

	test("a 303 whose body is the API refusing the token (code 45): the API's code decides, so refused, and the run stops", async () => {
		const elsewhere = await server();
		const api = await server(() => ({ status: 303, body: { success: false, errors: [{ message: 'Token invalid', code: 45 }] }, headers: { Location: elsewhere.baseUrl } }));
		const result = await runWatched([api, elsewhere], { items: recipients(3), parameters: parameters({ maxConcurrency: 1 }), onError: 'continueRegularOutput' });
		expect(result.output(SEND_NODE).map(outcomeOf)).toEqual(['failed', 'notSent', 'notSent']);
		expect(result.output(SEND_NODE)[0].json.error).toContain('Token invalid (code 45)');
		expect([api.requests.length, elsewhere.requests.length]).toEqual([1, 0]);
	});

	test('a redirect loop is one request', async () => {
		const api = await server((request) => ({ status: 307, headers: { Location: request.url } }));
		const result = await runWatched([api], { items: recipients(1), parameters: parameters(), onError: 'continueRegularOutput' });
		expect(api.requests).toHaveLength(1);
		expect(outcomeOf(result.output(SEND_NODE)[0])).toBe('failed');
	});
});

describe('an answer built to break processing fails its item, never the run', () => {
	test('a deeply nested error body in a 20-item run, concurrency 2, with Continue On Fail', async () => {
		const api = await server((request, index) => (index === 3 ? rawJson(400, nested(10_000)) : acceptAll(request, index)));
		const result = await runWatched([api], { items: recipients(20), parameters: parameters({ maxConcurrency: 2 }), onError: 'continueRegularOutput' });

		const output = result.output(SEND_NODE);
		expect(output.map((item) => item.pairedItem)).toEqual(recipients(20).map((_, item) => ({ item })));
		expect(output.filter((item) => outcomeOf(item) === 'sent')).toHaveLength(19);
		const failed = output.find((item) => outcomeOf(item) === 'failed')!;
		expect(failed.json.error).toMatch(/^The API refused the message \(HTTP 400\): deeply nested \[item \d+\]$/);
		expect(JSON.stringify(failed).length).toBeLessThan(5_000);
		expect(api.requests).toHaveLength(20);
	});

	test('the same without Continue On Fail: the run stops, and nothing is sent after it settled', async () => {
		// The answers after the failing one come a second later: the refusal is back before the other sender is free.
		const api = await server((_request, index) => (index === 3 ? rawJson(400, nested(10_000)) : { status: 200, body: { msgid: `m-${index}`, success: true }, delayMs: index > 3 ? 1000 : 0 }));
		const result = await runWatched([api], { items: recipients(20), parameters: parameters({ maxConcurrency: 2 }) });

		expect(result.nodeError(SEND_NODE)?.message).toMatch(/^The API refused the message \(HTTP 400\): deeply nested \[item \d+\]$/);
		// The other sender's request may already have been on the wire; nothing started later.
		expect(api.requests.length).toBeLessThanOrEqual(5);
	});

	test('a msgid of 256 characters is kept whole', async () => {
		const long = `wamid.${'A'.repeat(250)}`;
		const api = await server(() => rawJson(200, JSON.stringify({ success: true, msgid: long })));
		const result = await runWatched([api], { items: recipients(1), parameters: parameters() });
		expect(result.output(SEND_NODE)[0].json).toMatchObject({ success: true, msgid: long });
	});

	test.each([
		['HTTP 200 without success: true', 200, (msgid: string) => ({ msgid })],
		['HTTP 502 with success: true', 502, (msgid: string) => ({ success: true, msgid })],
		['HTTP 200 without success: true, 300 characters', 200, (msgid: string) => ({ msgid: msgid.slice(0, 300) })],
	])('%s and a msgid longer than any the node keeps: delivery unknown, without a cut id', async (_name, status, body) => {
		const long = `wamid.${'A'.repeat(4994)}`;
		const api = await server(() => rawJson(status, JSON.stringify(body(long))));
		const result = await runWatched([api], { items: recipients(1), parameters: parameters(), onError: 'continueRegularOutput' });
		const [row] = result.output(SEND_NODE);
		expect([outcomeOf(row), row.json.msgid, details(row).msgid]).toEqual(['unknown', undefined, undefined]);
		expect(row.json.error).toContain('a msgid longer than any the node keeps (256 characters)');
	});

	test('a deeply nested success body is still a success', async () => {
		const api = await server(() => rawJson(200, nested(10_000, (inner) => `{"success":true,"msgid":"m-deep","d":${inner}}`)));
		const result = await runWatched([api], { items: recipients(2), parameters: parameters() });
		expect(result.output(SEND_NODE).map((item) => [item.json.success, item.json.msgid])).toEqual([
			[true, 'm-deep'],
			[true, 'm-deep'],
		]);
	});

	test.each([
		['a 2xx msgid that is an object', () => rawJson(200, '{"success":true,"msgid":{"id":1}}'), 'unknown'],
		['a 2xx JSON list', () => rawJson(200, '[1,2,3]'), 'unknown'],
		// Kept whole or not at all: a cut msgid would look up another message.
		['a 2xx msgid of 300 characters', () => rawJson(200, `{"success":true,"msgid":"${'m'.repeat(300)}"}`), 'unknown'],
		['a body cut mid-way (content-length larger than sent)', () => ({ raw: (res: ServerResponse) => cutShort(res) }), 'unknown'],
		['a status line that is not HTTP', () => ({ raw: (res: ServerResponse) => res.socket?.end('HELLO\r\n\r\n') }), 'unknown'],
		['an error body with 30,000 entries', () => rawJson(400, JSON.stringify({ errors: Array.from({ length: 30_000 }, (_, i) => ({ message: `e${i}`, code: i })) })), 'failed'],
	])('%s: one clear item failure', async (_name, reply, expected) => {
		const api = await server((request, index) => (index === 0 ? (reply() as Reply) : acceptAll(request, index)));
		const result = await runWatched([api], { items: recipients(2), parameters: parameters({ maxConcurrency: 1 }), onError: 'continueRegularOutput' });
		const [first, second] = result.output(SEND_NODE);
		expect(outcomeOf(first)).toBe(expected);
		expect(String(first.json.error).length).toBeLessThan(500);
		expect(JSON.stringify(first).length).toBeLessThan(10_000);
		expect(outcomeOf(second)).toBe('sent');
	});

	test('a raw JSON payload nested 10,000 levels deep is a field error naming the item', async () => {
		const api = await server();
		const deepPayload = `[{"position":"body","parameters":${'['.repeat(10_000)}${']'.repeat(10_000)}}]`;
		const result = await runWatched([api], {
			items: [{ phone: '6281200000001', payload: '[]' }, { phone: '6281200000002', payload: deepPayload }],
			parameters: { ...parameters(), payloadMode: 'json', payloadJson: '={{ $json.payload }}' },
			onError: 'continueRegularOutput',
		});
		const [first, second] = result.output(SEND_NODE);
		expect(outcomeOf(first)).toBe('sent');
		expect(second.json.error).toBe('Payload (JSON): is nested more than 8 levels deep [item 1]');
		expect(api.requests).toHaveLength(1);
	});

	test('a 10 MB phone number gives a short error', async () => {
		const api = await server();
		const result = await runWatched([api], { items: [{ phone: '6'.repeat(10 * 1024 * 1024) }], parameters: parameters(), onError: 'continueRegularOutput' });
		const error = String(result.output(SEND_NODE)[0].json.error);
		expect(error).toMatch(/^Phone Number: "6{60}…" \(10485760 characters\) is too long for a phone number \[item 0\]$/);
		expect(api.requests).toHaveLength(0);
	});
});

/** Headers promising 100 bytes, 10 sent, then the socket closed. */
function cutShort(res: ServerResponse): void {
	res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
	res.write('{"success"');
	setTimeout(() => res.socket?.destroy(), 20);
}

describe('answers too large are not read whole', () => {
	test('a 5 MB answer: delivery unknown with its size, never carried into the error', async () => {
		const big = JSON.stringify({ success: false, message: 'x'.repeat(5 * 1024 * 1024) });
		const api = await server(() => rawJson(200, big, { 'content-length': String(big.length) }));
		const result = await runWatched([api], { items: recipients(1), parameters: parameters(), onError: 'continueRegularOutput' });
		const [item] = result.output(SEND_NODE);
		expect(item.json.error).toBe(`Delivery unknown (HTTP 200): the API's answer was too large to read (${big.length} bytes; the node reads at most 1048576 bytes) [item 0]`);
		expect(JSON.stringify(result.run).length).toBeLessThan(20_000);
	});

	test('a gzip bomb (300 MB of zeros, no content-length): stopped after 1 MB, memory stays flat', async () => {
		const bomb = gzipSync(Buffer.alloc(300 * 1024 * 1024));
		const api = await server(() => ({
			raw: (res) => {
				res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
				res.end(bomb);
			},
		}));
		const before = process.memoryUsage().rss;
		const result = await runWatched([api], { items: recipients(1), parameters: parameters(), onError: 'continueRegularOutput' });
		const [item] = result.output(SEND_NODE);
		expect(outcomeOf(item)).toBe('unknown');
		expect(item.json.error).toMatch(/too large to read \(more than \d+ bytes; the node reads at most 1048576 bytes\)/);
		expect(process.memoryUsage().rss - before).toBeLessThan(150 * 1024 * 1024);
	});
});

describe('Timeout bounds the whole attempt', () => {
	test('headers dripping one byte every 100 ms: ended at the 1 s timeout, far before the drip ends (a real-time deadline, bounded at 15 s), delivery unknown', async () => {
		const api = await server(() => ({ raw: (res) => drip(res, 'HTTP/1.1 200 OK\r\nX-Slow: ' + 'a'.repeat(300)) }));
		const started = Date.now();
		const result = await runWatched([api], { items: recipients(1), parameters: parameters({ timeout: 1000 }), onError: 'continueRegularOutput' });
		// The drip would go on for 30 s: ended at the 1 s timeout, with room for a busy machine.
		expect(Date.now() - started).toBeLessThan(15_000);
		expect(result.output(SEND_NODE)[0].json.error).toBe('Delivery unknown: no answer before the timeout [item 0]');
	});

	test('a body dripping one byte every 100 ms after a 200: ended at the 1 s timeout, far before the drip ends (a real-time deadline, bounded at 15 s), delivery unknown', async () => {
		const api = await server(() => ({
			raw: (res) => {
				res.writeHead(200, { 'content-type': 'application/json', 'content-length': '300' });
				drip(res, '{"success":true,"msgid":"' + 'm'.repeat(300));
			},
		}));
		const started = Date.now();
		const result = await runWatched([api], { items: recipients(1), parameters: parameters({ timeout: 1000 }), onError: 'continueRegularOutput' });
		// The drip would go on for 30 s.
		expect(Date.now() - started).toBeLessThan(15_000);
		expect(result.output(SEND_NODE)[0].json.error).toBe(
			'Delivery unknown (HTTP 200): no complete answer before the timeout (the API had begun answering HTTP 200) [item 0]',
		);
		expect(api.requests).toHaveLength(1);
	});

	test('a Timeout of 3,000,000,000 ms does not overflow the timer: answers are read as usual', async () => {
		const api = await server();
		const result = await runWatched([api], { items: recipients(2), parameters: parameters({ timeout: 3_000_000_000 }) });
		expect(result.output(SEND_NODE).map((item) => item.json.success)).toEqual([true, true]);
	});
});

/** Writes `text` one byte at a time, 100 ms apart, for at most 25 s, on the raw socket. */
function drip(res: ServerResponse, text: string): void {
	const socket = res.socket!;
	if (text.startsWith('HTTP/')) {
		// Take over the socket: nothing of Node's own response goes out.
		res.writeHead = (() => res) as never;
	}
	let i = 0;
	const timer = setInterval(() => {
		if (socket.destroyed || i >= text.length || i >= 250) {
			clearInterval(timer);
			return;
		}
		if (text.startsWith('HTTP/')) socket.write(text[i]);
		else res.write(text[i]);
		i++;
	}, 100);
	socket.on('close', () => clearInterval(timer));
}
