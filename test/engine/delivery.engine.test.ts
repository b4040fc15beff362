/**
 * Bulk sending against a local API that misbehaves on demand, run in n8n's engine. For every
 * item: sent exactly once, or failed with its reason, or "delivery unknown" — never sent twice.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ApiServer, Reply, Responder } from '../helpers/apiServer';
import { acceptAll, perRecipient, rateLimited, startApiServer } from '../helpers/apiServer';
import { resetDeduplicationStore } from '../helpers/deduplicationStore';
import { cancelOn, ENGINE, runSendNode, SEND_NODE } from '../helpers/engine';
import { pacersUsed, watchPace } from '../helpers/flowWatch';
import { trackTimers } from '../helpers/timers';

let api: ApiServer;
beforeEach(async () => {
	api = await startApiServer();
});
afterEach(async () => {
	await api.close();
});

const recipients = (count: number) => Array.from({ length: count }, (_, i) => ({ phone: `62812000${String(i).padStart(5, '0')}` }));
const parameters = (options: IDataObject = {}) => ({ phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl-bulk', options });
const details = (json: IDataObject) => (json.details ?? {}) as IDataObject;

/** Answers `first` to the first request of each recipient, then accepts. */
function firstTimeFor(first: (index: number) => ReturnType<Responder>): Responder {
	const seen = new Set<string>();
	return (request, index) => {
		const phone = String((request.body as IDataObject).phone_number);
		if (seen.has(phone)) return acceptAll(request, index);
		seen.add(phone);
		return first(index);
	};
}

test.each([
	['429 with Retry-After', { status: 429, headers: { 'Retry-After': '1' } }],
	['429 without Retry-After', { status: 429 }],
	['503 with a text body', { status: 503, rawBody: 'Service Unavailable' }],
])('%s: retried, and each recipient gets the message exactly once', async (_name, reply) => {
	api.respondWith(firstTimeFor(() => reply));
	const result = await runSendNode({ baseUrl: api.baseUrl, items: recipients(4), parameters: parameters() });

	const output = result.output(SEND_NODE);
	expect(output.map((item) => [item.json.success, item.json.attempts])).toEqual(recipients(4).map(() => [true, 2]));
	expect(Object.values(perRecipient(api.requests))).toEqual(recipients(4).map(() => ({ received: 2, accepted: 1 })));
});

test('a reset after the request was read: delivery unknown, not sent again', async () => {
	api.respondWith((request, index) => (index === 1 ? { resetAfterBody: true } : acceptAll(request, index)));
	const result = await runSendNode({ baseUrl: api.baseUrl, items: recipients(3), parameters: parameters(), onError: 'continueRegularOutput' });

	const output = result.output(SEND_NODE);
	const unknown = output.find((item) => details(item.json).delivery === 'unknown')!;
	expect(unknown.json.error).toMatch(/^Delivery unknown: connection reset \[item \d\]$/);
	expect(details(unknown.json)).toMatchObject({ attempts: 1, errorCode: 'ECONNRESET' });
	expect(output.filter((item) => item.json.success === true)).toHaveLength(2);
	expect(api.requests).toHaveLength(3);
});

test('a hang past the timeout: delivery unknown after one request', async () => {
	api.respondWith((request, index) => (index === 0 ? { hang: true } : acceptAll(request, index)));
	const result = await runSendNode({
		baseUrl: api.baseUrl,
		items: recipients(2),
		parameters: parameters({ timeout: 1000 }),
		onError: 'continueRegularOutput',
	});
	const [first, second] = result.output(SEND_NODE);
	expect(first.json.error).toBe('Delivery unknown: no answer before the timeout [item 0]');
	expect(details(first.json)).toMatchObject({ delivery: 'unknown', attempts: 1 });
	expect(second.json.success).toBe(true);
	expect(perRecipient(api.requests)[recipients(2)[0].phone]).toEqual({ received: 1, accepted: 0 });
});

test('"Retry Unknown Deliveries" does retry them (and so may send twice, as its description warns)', async () => {
	api.respondWith(firstTimeFor(() => ({ resetAfterBody: true })));
	const result = await runSendNode({ baseUrl: api.baseUrl, items: recipients(2), parameters: parameters({ retryUnknownDelivery: true }) });
	expect(result.output(SEND_NODE).map((item) => [item.json.success, item.json.attempts])).toEqual([
		[true, 2],
		[true, 2],
	]);
	expect(Object.values(perRecipient(api.requests))).toEqual([
		{ received: 2, accepted: 1 },
		{ received: 2, accepted: 1 },
	]);
});

describe('"Retry Unknown Deliveries": once an attempt may have been taken, the message stays "delivery unknown" whatever later attempts say', () => {
	const unknownThen = (later: Reply): Responder => (_request, index) => (index === 0 ? { resetAfterBody: true } : later);

	test.each([
		['refused (400)', { status: 400, body: { errors: [{ message: 'Invalid parameter', code: 3 }] } }, /^Delivery unknown: connection reset; tried again, it was refused \(HTTP 400: Invalid parameter \(code 3\)\) \[item 0\]$/, 2],
		['failing (503) until Max Attempts', { status: 503, rawBody: 'Service Unavailable' }, /^Delivery unknown: connection reset; tried again, it was refused \(HTTP 503: .+\) \[item 0\]$/, 3],
		['throttled beyond Max Wait When Throttled', { status: 429, headers: { 'Retry-After': '300' } }, /^Delivery unknown: connection reset; not tried again: the API kept asking to slow down .* \[item 0\]$/, 2],
	])('the next attempt %s', async (_name, later, error, attempts) => {
		api.respondWith(unknownThen(later as Reply));
		const result = await runSendNode({ baseUrl: api.baseUrl, items: recipients(1), parameters: parameters({ retryUnknownDelivery: true, maxAttempts: 3 }), onError: 'continueRegularOutput' });
		const [item] = result.output(SEND_NODE);
		expect(item.json.error).toMatch(error);
		expect(details(item.json)).toMatchObject({ delivery: 'unknown', attempts });
		expect(item.json.status).toBe('unknown');
	});

	test("n8n's Retry On Fail does not post it again", async () => {
		api.respondWith(unknownThen({ status: 400, body: { errors: [{ message: 'Invalid parameter', code: 3 }] } }));
		const result = await runSendNode({ baseUrl: api.baseUrl, items: recipients(1), parameters: parameters({ retryUnknownDelivery: true }), retryOnFail: true, maxTries: 2, waitBetweenTries: 0 });
		expect(result.run.data.resultData.error?.message).toMatch(/^Delivery unknown: connection reset; tried again, it was refused/);
		expect(api.requests).toHaveLength(2);
	});
});

test('a connection closed before the request was sent is never a duplicate', async () => {
	api.resetNextConnections(1);
	const result = await runSendNode({ baseUrl: api.baseUrl, items: recipients(1), parameters: parameters(), onError: 'continueRegularOutput' });
	const [item] = result.output(SEND_NODE);
	const counts = perRecipient(api.requests)[recipients(1)[0].phone] ?? { received: 0, accepted: 0 };
	// Whether Node.js saw the reset before or after writing decides between "retried" and
	// "unknown"; either way the server took it at most once.
	expect(counts.accepted).toBeLessThanOrEqual(1);
	if (item.json.success === true) expect(item.json.attempts).toBe(2);
	else expect(details(item.json).delivery).toBe('unknown');
});

// How many 429s a real-clock run meets depends on the machine: the pace against a provider's limit
// is on the simulated clock (test/flow/flowControl.test.ts, "the pace"); here, that nothing is lost.
describe('against a provider limited to 10 messages a second', () => {
	test('paced at the limit: nothing lost, nothing twice', async () => {
		api.respondWith(rateLimited(10, 1));
		const items = recipients(20);
		const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters: parameters({ maxPerSecond: 10, maxConcurrency: 5 }) });

		expect(result.output(SEND_NODE).every((item) => item.json.success === true)).toBe(true);
		const counts = perRecipient(api.requests);
		expect(Object.keys(counts)).toHaveLength(20);
		expect(Object.values(counts).every((count) => count.accepted === 1)).toBe(true);
	});

	test('two executions at once in one n8n process share the pace of their account', async () => {
		const batch = (offset: number) => recipients(4).slice(offset, offset + 2);
		const run = (offset: number) => runSendNode({ baseUrl: api.baseUrl, items: batch(offset), parameters: parameters({ maxPerSecond: 2, maxConcurrency: 2 }) });
		const pace = watchPace();
		try {
			const results = await Promise.all([run(0), run(2)]);

			for (const result of results) expect(result.output(SEND_NODE).every((item) => item.json.success === true)).toBe(true);
			expect(Object.values(perRecipient(api.requests)).map((count) => count.accepted)).toEqual([1, 1, 1, 1]);
			// All four left through one pacer at 2 a second, whose spacing is on the simulated clock
			// (test/flow/flowControl.test.ts). Paced separately, the two executions would use two.
			expect(pace.departures.map((departure) => departure.rate)).toEqual([2, 2, 2, 2]);
			expect(pacersUsed(pace)).toBe(1);
		} finally {
			pace.stop();
		}
	});

	test('unpaced: 429s slow the run down and every message still goes out exactly once', async () => {
		// Four 429s at fixed places in the run, each asking for no wait (the node still waits 250 ms).
		const throttled = (index: number) => index % 5 === 2 && index < 20;
		api.respondWith((request, index) => (throttled(index) ? { status: 429, headers: { 'Retry-After': '0' }, body: { errors: [{ message: 'Too many requests', code: 9 }] } } : acceptAll(request, index)));
		const items = recipients(25);
		const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters: parameters({ maxPerSecond: 0, maxConcurrency: 10, maxAttempts: 10 }) });

		expect(result.output(SEND_NODE).every((item) => item.json.success === true)).toBe(true);
		const counts = perRecipient(api.requests);
		expect(Object.values(counts).map((count) => count.accepted)).toEqual(items.map(() => 1));
		expect(api.requests.map((request) => request.answer === 429)).toEqual(Array.from({ length: 29 }, (_, index) => throttled(index)));
	});
});

describe("n8n's node-level Retry On Fail", () => {
	test('a re-run of the node does not send the items the first run got accepted', async () => {
		const items = recipients(5);
		let failedOnce = false;
		api.respondWith((request, index) => {
			if ((request.body as IDataObject).phone_number === items[2].phone && !failedOnce) {
				failedOnce = true;
				return { status: 500, body: { errors: [{ message: 'Internal error', code: 1 }] } };
			}
			return acceptAll(request, index);
		});
		// Max Attempts 1: the node's own retry would otherwise take the 500 (code 13-like) in its stride.
		const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters: { ...parameters(), options: { maxAttempts: 1 } }, retryOnFail: true, maxTries: 2, waitBetweenTries: 0 });

		expect(result.run.data.resultData.error).toBeUndefined();
		const output = result.output(SEND_NODE);
		expect(output.map((item) => item.json.success)).toEqual([true, true, true, true, true]);
		// Items 0 and 1 went out before item 2 failed; 3 and 4 went out in whichever run reached them.
		expect(output.slice(0, 3).map((item) => item.json.sentInEarlierTry)).toEqual([true, true, undefined]);
		const counts = perRecipient(api.requests);
		expect(items.map((item) => counts[item.phone])).toEqual([
			{ received: 1, accepted: 1 },
			{ received: 1, accepted: 1 },
			{ received: 2, accepted: 1 },
			{ received: 1, accepted: 1 },
			{ received: 1, accepted: 1 },
		]);
		// Kept after a try that found earlier sends in it (n8n up to 1.11x may try once more): this run's alone, one short entry an item.
		const kept = (result.run.data.executionData?.contextData ?? {})[`node:${SEND_NODE}`] as IDataObject;
		expect(Object.keys(kept['sent-run-0'] as IDataObject)).toEqual(['0', '1', '2', '3', '4']);
	});

	test('with Continue On Fail too, a re-run neither resends accepted nor unknown deliveries', async () => {
		const items = recipients(3);
		api.respondWith((request, index) => {
			const phone = (request.body as IDataObject).phone_number;
			if (phone === items[0].phone) return { status: 400, body: { message: 'Invalid template' } };
			if (phone === items[1].phone) return { resetAfterBody: true };
			return acceptAll(request, index);
		});
		// n8n re-runs a node whose first output item carries an error.
		const result = await runSendNode({
			baseUrl: api.baseUrl,
			items,
			parameters: parameters(),
			onError: 'continueRegularOutput',
			retryOnFail: true,
			maxTries: 3,
			waitBetweenTries: 0,
		});
		const counts = perRecipient(api.requests);
		expect(counts[items[0].phone].received).toBe(3);
		expect(counts[items[1].phone].received).toBe(1);
		expect(counts[items[2].phone]).toEqual({ received: 1, accepted: 1 });
		const output = result.output(SEND_NODE);
		// n8n up to 1.11x re-runs the node but shows the first try's output.
		expect(details(output[1].json).delivery).toBe('unknown');
		expect(details(output[1].json).sentInEarlierTry).toBe(ENGINE.showsRerunOutput ? true : undefined);
	});
});

describe.each(['continueRegularOutput', 'continueErrorOutput'] as const)("On Error %s, Retry On Fail with Max Tries 3, the first row refused in the first try only", (onError) => {
	test.each([
		['refused (400, code 39)', { status: 400, body: { errors: [{ message: 'Wrong parameters', code: 39 }] } }],
		['503 for every attempt (Max Attempts 1)', { status: 503, rawBody: 'Service Unavailable' }],
	] as Array<[string, Reply]>)('%s: every recipient accepted once, whatever tries n8n makes (up to 1.11x: every one of the Max Tries)', async (_name, first) => {
		const items = recipients(3);
		let seen = false;
		api.respondWith((request, index) => {
			if (!seen && (request.body as IDataObject).phone_number === items[0].phone) {
				seen = true;
				return first;
			}
			return acceptAll(request, index);
		});
		const result = await runSendNode({
			baseUrl: api.baseUrl,
			items,
			typeVersion: 2,
			parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl-retry', options: { maxAttempts: 1, maxConcurrency: 1 } },
			onError,
			retryOnFail: true,
			maxTries: 3,
			waitBetweenTries: 0,
		});
		// Was twice each on n8n 1.78: the second try sent the first row, found the others in the memory and cleared it; the third sent everything again.
		expect(items.map((item) => perRecipient(api.requests)[item.phone].accepted)).toEqual([1, 1, 1]);
		// n8n up to 1.11x shows the first try's rows (docs/development.md): the first says failed there.
		const first0 = [...result.output(SEND_NODE, 0), ...result.output(SEND_NODE, 1)].find((item) => (item.pairedItem as { item: number }).item === 0);
		if (ENGINE.showsRerunOutput) expect(first0?.json.status).toBe('sent');
	});
});

describe("Retry On Fail when the first row is invalid: n8n runs the node again, every other row sent", () => {
	test.each(['continueRegularOutput', 'continueErrorOutput'] as const)('with %s, each recipient gets the message once, and the rows say sent with their msgid', async (onError) => {
		const items = [{ phone: '' }, ...recipients(3)];
		const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters: parameters(), onError, retryOnFail: true, maxTries: 3, waitBetweenTries: 0 });
		const counts = perRecipient(api.requests);
		// Was 3 each: every row had been sent, so the memory of the first try was cleared before n8n ran the node again.
		expect(items.slice(1).map((item) => counts[item.phone])).toEqual([1, 1, 1].map(() => ({ received: 1, accepted: 1 })));
		const sent = result.output(SEND_NODE).filter((item) => item.json.status === 'sent');
		expect(sent.map((item) => typeof item.json.msgid)).toEqual(['string', 'string', 'string']);
	});

	test('with Send Once too, the rows this execution sent say sent with their msgid, not sent before', async () => {
		resetDeduplicationStore();
		const items = [{ phone: '' }, ...recipients(3)];
		const result = await runSendNode({
			baseUrl: api.baseUrl,
			items,
			parameters: { ...parameters(), sendOnce: 'recipientTemplate' },
			onError: 'continueRegularOutput',
			retryOnFail: true,
			maxTries: 2,
			waitBetweenTries: 0,
			workflowId: 'wf-retry-invalid-first',
		});
		expect(Object.values(perRecipient(api.requests)).map((count) => count.received)).toEqual([1, 1, 1]);
		const rows = result.output(SEND_NODE).slice(1).map(({ json }) => ({ status: json.status, msgid: typeof json.msgid }));
		expect(rows).toEqual([0, 1, 2].map(() => ({ status: 'sent', msgid: 'string' })));
	});
});

test('a re-run after the breaker tripped sends what was held back: remembered outcomes do not count again', async () => {
	const items = recipients(10);
	api.respondWith((request, index) => {
		const position = items.findIndex((item) => item.phone === (request.body as IDataObject).phone_number);
		if (position === 0) return { status: 400, body: { message: 'Invalid template' } };
		if (position <= 5) return { resetAfterBody: true };
		return acceptAll(request, index);
	});
	// First run: items 1 to 5 end "delivery unknown", 5 in a row, and with no time to wait for the
	// API to recover 6 to 9 are held back. n8n re-runs the node (its first item carries an error):
	// 1 to 5 come from memory, 6 to 9 go out now.
	const result = await runSendNode({
		baseUrl: api.baseUrl,
		items,
		parameters: parameters({ maxConcurrency: 1, maxOutageWait: 0 }),
		onError: 'continueRegularOutput',
		retryOnFail: true,
		maxTries: 2,
		waitBetweenTries: 0,
	});
	const counts = perRecipient(api.requests);
	for (const item of items.slice(1, 6)) expect(counts[item.phone].received).toBe(1);
	for (const item of items.slice(6)) expect(counts[item.phone]).toEqual({ received: 1, accepted: 1 });
	// n8n up to 1.11x re-runs the node but shows the first try's output, where 6 to 9 were held back.
	const shown = result.output(SEND_NODE).slice(6).map((item) => (item.json.success === true ? true : item.json.status));
	expect(shown).toEqual(ENGINE.showsRerunOutput ? [true, true, true, true] : ['notSent', 'notSent', 'notSent', 'notSent']);
});

test('without Continue On Fail, the first failure stops new sends and says what was sent', async () => {
	api.respondWith((request, index) => (index === 0 ? { status: 400, body: { message: 'Invalid template' } } : acceptAll(request, index)));
	const result = await runSendNode({ baseUrl: api.baseUrl, items: recipients(20), parameters: parameters({ maxConcurrency: 1 }) });
	const error = result.nodeError(SEND_NODE)!;
	expect(error.message).toBe('The API refused the message (HTTP 400): Invalid template [item 0]');
	expect(error.description).toMatch(/ Run: Sent 0 of 20 item\(s\): 1 refused, 19 not sent\.$/);
	expect(api.requests).toHaveLength(1);
});

// Senders waiting for their paced slot when the first failure comes back: test/flow/flowControl.test.ts ("stopping").

test('cancelling the execution stops the run: no message is sent after it', async () => {
	// Cancelled when the second message arrives; ten senders at 2 a second wait for slots 1 to 5 s ahead.
	const { cancelWhen, fire } = cancelOn();
	api.respondWith((request, index) => {
		if (index === 1) fire();
		return acceptAll(request, index);
	});
	const result = await runSendNode({ baseUrl: api.baseUrl, items: recipients(50), parameters: parameters({ maxPerSecond: 2 }), cancelWhen });
	expect(result.run.status).toBe('canceled');
	// A run that went on would send four more in the next two seconds. The third slot is 500 ms after
	// the second message left: it may have left while the cancel was on its way, nothing after it.
	await new Promise((resolve) => setTimeout(resolve, 2000));
	expect(api.requests.length).toBeGreaterThanOrEqual(2);
	expect(api.requests.length).toBeLessThanOrEqual(3);
});

test('a cancelled run leaves nothing behind: no timer, no socket, no paced slot a later run waits for', async () => {
	const timers = trackTimers();
	const sockets = () => process.getActiveResourcesInfo().filter((name) => name === 'TCPSocketWrap').length;
	const socketsBefore = sockets();
	// 25 senders paced at 2 a second, cancelled when the first message arrives: the others wait for slots up to 12 s ahead.
	const { cancelWhen, fire } = cancelOn();
	api.respondWith((request, index) => {
		if (index === 0) fire();
		return acceptAll(request, index);
	});
	const paced = parameters({ maxPerSecond: 2, maxConcurrency: 25 });
	const result = await runSendNode({ baseUrl: api.baseUrl, items: recipients(50), parameters: paced, cancelWhen });
	expect(result.run.status).toBe('canceled');
	expect(api.requests.length).toBeLessThan(5);
	await new Promise((resolve) => setTimeout(resolve, 200));
	// Before n8n-workflow's sleep could be aborted (1.8x), its timers run out by themselves; nothing waits for them.
	const leftover = timers.stillRunning().filter((stack) => ENGINE.sleepStopsOnAbort || !/^\s*at sleep \(.*n8n-workflow/m.test(stack));
	expect(leftover).toEqual([]);
	expect(sockets()).toBeLessThanOrEqual(socketsBefore);

	// The pace is shared per account: had the cancelled senders kept their slots, this run's
	// first message would wait about 12 s for them; given back, at most the 500 ms of the pace.
	api.respondWith(acceptAll);
	const sentBefore = api.requests.length;
	const pace = watchPace();
	try {
		const next = await runSendNode({ baseUrl: api.baseUrl, items: recipients(1), parameters: paced });
		expect(next.output(SEND_NODE)[0].json.success).toBe(true);
		expect(api.requests).toHaveLength(sentBefore + 1);
		// The wait the pacer gave the next run's one slot, on its own clock: time passing only shortens it.
		expect(pace.reservations).toHaveLength(1);
		expect(pace.reservations[0].waitMs).toBeLessThanOrEqual(500);
	} finally {
		pace.stop();
	}
});

