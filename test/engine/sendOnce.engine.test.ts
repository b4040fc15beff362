/**
 * A message goes out once: by its identity across tries of one execution (n8n's Retry On Fail),
 * and with Send Once across executions, through n8n's deduplication store (an in-memory stand-in
 * for the one in n8n's database, with its semantics: test/helpers/deduplicationStore.ts).
 */
import { createHash } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import type { ApiServer } from '../helpers/apiServer';
import { acceptAll, perRecipient, startApiServer } from '../helpers/apiServer';
import { deduplicationStore, resetDeduplicationStore } from '../helpers/deduplicationStore';
import { LOOKUPS } from '../../nodes/TemplateMessage/sendOnce/record';
import type { SendNodeRun } from '../helpers/engine';
import { cancelOn, ENGINE, runSendNode, SEND_NODE, TEST_TOKEN } from '../helpers/engine';
import { n8nLoggerClass } from '../helpers/n8nLogger';
import { trackTimers } from '../helpers/timers';

let api: ApiServer;
beforeEach(async () => {
	api = await startApiServer();
	resetDeduplicationStore();
});
afterEach(async () => {
	await api.close();
});

const recipients = (count: number, from = 0) => Array.from({ length: count }, (_, i) => ({ phone: `62812000${String(from + i).padStart(5, '0')}`, order: `order-${from + i}`, name: `Name ${from + i}` }));
const hintsOf = (result: Awaited<ReturnType<typeof runSendNode>>) => (result.run.data.resultData.runData[SEND_NODE][0].hints ?? []).map((hint) => hint.message).join(' ');
const outcomes = (result: Awaited<ReturnType<typeof runSendNode>>) =>
	result.output(SEND_NODE).map(({ json }) => (json.success === true ? 'sent' : json.inDoubt === true ? 'inDoubt' : json.skipped === true ? (json.sentBefore ? 'sentBefore' : 'repeat') : json.status));

function send(items: IDataObject[], parameters: IDataObject = {}, run: Partial<SendNodeRun> = {}) {
	return runSendNode({
		baseUrl: api.baseUrl,
		items,
		typeVersion: 2,
		onError: 'continueRegularOutput',
		parameters: {
			phoneNumber: '={{ $json.phone }}',
			templateCodeId: 'tpl-once',
			bodyValues: { values: [{ text: '={{ $json.name }}' }] },
			...parameters,
		},
		...run,
	});
}

describe("Retry On Fail: an item is the same message in every try, whatever its values compute to", () => {
	const nowValue = { bodyValues: { values: [{ text: '={{ $now.toISO() }} {{ Math.random() }}' }] } };
	const refuseFirst = (items: IDataObject[]) =>
		api.respondWith((request, index) => ((request.body as IDataObject).phone_number === items[0].phone ? { status: 400, body: { message: 'Invalid template' } } : acceptAll(request, index)));

	test('with Continue On Fail: every other recipient accepted exactly once over 3 tries', async () => {
		const items = recipients(10);
		refuseFirst(items);
		const result = await send(items, nowValue, { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 });
		const counts = perRecipient(api.requests);
		expect(counts[items[0].phone].received).toBe(3);
		for (const item of items.slice(1)) expect(counts[item.phone]).toEqual({ received: 1, accepted: 1 });
		expect(outcomes(result).slice(1)).toEqual(Array(9).fill('sent'));
	});

	test('without Continue On Fail: items accepted before the failing one are not sent again', async () => {
		const items = recipients(6);
		api.respondWith((request, index) => ((request.body as IDataObject).phone_number === items[3].phone ? { status: 400, body: { message: 'Invalid template' } } : acceptAll(request, index)));
		await send(items, { ...nowValue, options: { maxConcurrency: 1 } }, { onError: undefined, retryOnFail: true, maxTries: 3, waitBetweenTries: 0 });
		const counts = perRecipient(api.requests);
		for (const item of items.slice(0, 3)) expect(counts[item.phone]).toEqual({ received: 1, accepted: 1 });
		expect(counts[items[3].phone].received).toBe(3);
	});

	// n8n up to 1.x runs a node under Retry On Fail again whenever its first row has an `error`, null included:
	// with Include Input Fields a sent row had `error: null`, and every message went once per try.
	test.each([
		['On Error: Stop', undefined],
		['On Error: Continue', 'continueRegularOutput'],
	] as const)('with Include Input Fields (%s), every message accepted at once: each recipient gets one, in one try', async (_label, onError) => {
		const items = recipients(3);
		const result = await send(items, { options: { includeInputFields: true } }, { onError, retryOnFail: true, maxTries: 3, waitBetweenTries: 0 });
		expect(outcomes(result)).toEqual(['sent', 'sent', 'sent']);
		expect(items.map((item) => perRecipient(api.requests)[item.phone])).toEqual(items.map(() => ({ received: 1, accepted: 1 })));
	});

	test('with Include Input Fields and Send Once, every message accepted at once: each row says sent, with its msgid', async () => {
		const items = recipients(3);
		const result = await send(items, { sendOnce: 'recipientTemplate', options: { includeInputFields: true } }, { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 });
		expect(api.requests).toHaveLength(3);
		expect(result.output(SEND_NODE).map(({ json }) => [json.status, json.order, typeof json.msgid])).toEqual(items.map((item) => ['sent', item.order, 'string']));
	});

	test.each([520, 521, 522, 523, 524, 525, 526, 527, 500])('a %i from a proxy is delivery unknown: never sent twice, in any try', async (status) => {
		const items = recipients(3);
		api.respondWith((request, index) => ((request.body as IDataObject).phone_number === items[1].phone ? { status, rawBody: '<html>origin error</html>' } : acceptAll(request, index)));
		const result = await send(items, {}, { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 });
		expect(perRecipient(api.requests)[items[1].phone]).toEqual({ received: 1, accepted: 0 });
		expect(outcomes(result)).toEqual(['sent', 'unknown', 'sent']);
	});
});

describe('Send Once: what was sent is remembered across executions', () => {
	test('off by default: a second execution sends every row again, and nothing is recorded', async () => {
		const items = recipients(3);
		await send(items);
		await send(items);
		expect(api.requests).toHaveLength(6);
		expect(deduplicationStore().stats.calls).toBe(0);
	});

	test('once per recipient and template: the second run sends nothing and says why; a new row alone goes', async () => {
		const items = recipients(4);
		const first = await send(items, { sendOnce: 'recipientTemplate' });
		expect(outcomes(first)).toEqual(['sent', 'sent', 'sent', 'sent']);
		expect(first.output(SEND_NODE)[0].json.messageKey).toBe(`${items[0].phone}|tpl-once`);

		// Other values do not make another message under this choice.
		const again = await send(items.map((item) => ({ ...item, name: 'changed' })), { sendOnce: 'recipientTemplate' });
		expect(outcomes(again)).toEqual(['sentBefore', 'sentBefore', 'sentBefore', 'sentBefore']);
		const skipped = again.output(SEND_NODE)[2].json;
		expect(skipped).toMatchObject({ skipped: true, messageKey: `${items[2].phone}|tpl-once`, phone_number: items[2].phone });
		expect(skipped.reason).toMatch(/^Sent before, earlier in this execution or by an earlier one of this workflow/);
		expect(skipped.error).toBeUndefined();

		const grown = await send([...items, ...recipients(1, 4)], { sendOnce: 'recipientTemplate' });
		expect(outcomes(grown)).toEqual(['sentBefore', 'sentBefore', 'sentBefore', 'sentBefore', 'sent']);
		expect(Object.values(perRecipient(api.requests)).every((count) => count.received === 1)).toBe(true);
		expect(api.requests).toHaveLength(5);
	});

	test('once per recipient, template and values: new values are a new message', async () => {
		const items = recipients(2);
		await send(items, { sendOnce: 'recipientTemplateValues' });
		const result = await send([items[0], { ...items[1], name: 'A new invoice' }], { sendOnce: 'recipientTemplateValues' });
		expect(outcomes(result)).toEqual(['sentBefore', 'sent']);
		expect(api.requests).toHaveLength(3);
	});

	test('once per message key: a webhook retried with the same order sends once; two rows of one order in a run send once', async () => {
		const parameters = { sendOnce: 'customKey', messageKey: '={{ $json.order }}' };
		const [order] = recipients(1);
		await send([order], parameters);
		const retried = await send([order], parameters);
		expect(outcomes(retried)).toEqual(['sentBefore']);
		const twice = await send([recipients(1, 7)[0], recipients(1, 7)[0]], parameters);
		expect(outcomes(twice)).toEqual(['sent', 'repeat']);
		expect(twice.output(SEND_NODE)[1].json).toMatchObject({ duplicateOf: 0, reason: "Same message key as item 0: not sent a second time; item 0's row says whether it went out (Send Once)" });
		expect(api.requests).toHaveLength(2);
	});

	test('a repeat of a row the API refused does not say it was sent: its row points to the first', async () => {
		api.respondWith(() => ({ status: 400, body: { errors: [{ message: 'Wrong parameters', code: 39 }] } }));
		const [row] = recipients(1);
		const result = await send([row, { ...row, phone: `+${row.phone.slice(0, 2)} ${row.phone.slice(2)}` }], { sendOnce: 'recipientTemplate' });
		const [first, repeat] = result.output(SEND_NODE).map(({ json }) => json);
		expect(first).toMatchObject({ success: false, status: 'failed' });
		expect(repeat).toMatchObject({ success: false, skipped: true, duplicateOf: 0 });
		expect(repeat.reason).toBe("Same message key as item 0: not sent a second time; item 0's row says whether it went out (Send Once)");
		expect(api.requests).toHaveLength(1);
	});

	test('an empty message key fails that item with the field named, before anything is sent', async () => {
		const items = [...recipients(1), { phone: '6281234500099', order: '', name: 'Sari' }];
		const result = await send(items, { sendOnce: 'customKey', messageKey: '={{ $json.order }}' });
		expect(outcomes(result)).toEqual(['sent', 'invalid']);
		expect(result.output(SEND_NODE)[1].json.error).toBe('Message Key: is empty [item 1]');
	});

	test.each([
		['NaN', '={{ Number($json.order) }}'],
		['Infinity', '={{ 1 / 0 }}'],
	])('a message key that computes to %s fails each item with the field named; nothing is sent or recorded under it', async (value, messageKey) => {
		const orders = [
			{ phone: '6281200000001', order: 'ORD-1', name: 'Ani' },
			{ phone: '6281200000002', order: 'ORD-2', name: 'Budi' },
		];
		const result = await send(orders, { sendOnce: 'customKey', messageKey });
		// Was: the first sent under the key "NaN", the second skipped as its repeat, and every later order skipped as sent before.
		expect(outcomes(result)).toEqual(['invalid', 'invalid']);
		expect(result.output(SEND_NODE)[1].json.error).toBe(`Message Key: is ${value}, not a number that names a message [item 1]`);
		expect(api.requests).toHaveLength(0);
	});

	test('a refused message is forgotten again, so a later run sends it; an unknown one stays recorded, in doubt', async () => {
		const items = recipients(3);
		api.respondWith((request, index) => {
			const phone = (request.body as IDataObject).phone_number;
			if (index < 3 && phone === items[0].phone) return { status: 400, body: { errors: [{ message: 'Invalid parameter', code: 39 }] } };
			if (index < 3 && phone === items[1].phone) return { resetAfterBody: true };
			return acceptAll(request, index);
		});
		const first = await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 1 } });
		expect(outcomes(first)).toEqual(['failed', 'unknown', 'sent']);
		const second = await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 1 } });
		expect(outcomes(second)).toEqual(['sent', 'inDoubt', 'sentBefore']);
		expect(second.output(SEND_NODE)[1].json.reason).toMatch(/^In doubt: this message was recorded earlier \(by an earlier execution of this workflow, or earlier in this one, Loop Over Items's batches included\) but whoever sent it never learnt whether the API took it/);
		const counts = perRecipient(api.requests);
		expect(counts[items[0].phone]).toEqual({ received: 2, accepted: 1 });
		expect(counts[items[1].phone]).toEqual({ received: 1, accepted: 0 });
	});

	test('items held back when a run stops are forgotten, and go out on the next run', async () => {
		const items = recipients(6);
		// Without Continue On Fail the first failure stops the run; the rest were recorded a block ahead.
		// The others' answers come a second later: the refusal is back before any sender is free for item 3.
		api.respondWith((_request, index) => (index === 0 ? { status: 400, body: { message: 'Invalid template' } } : { status: 200, body: { msgid: `msg-later-${index}`, success: true }, delayMs: 1000 }));
		const first = await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 3 } }, { onError: undefined });
		expect(first.nodeError(SEND_NODE)).toBeDefined();
		expect(api.requests.length).toBeLessThan(items.length);
		const sentFirst = new Set(api.requests.slice(1).map((request) => (request.body as IDataObject).phone_number));

		const second = await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 3 } });
		expect(outcomes(second)).toEqual(items.map((item) => (sentFirst.has(item.phone) ? 'sentBefore' : 'sent')));
		for (const count of Object.values(perRecipient(api.requests))) expect(count.accepted).toBe(1);
	});

	test('Forget Sent Messages takes every key a Send wrote: one of a long Template Code ID too', async () => {
		const templateCodeId = `${'a'.repeat(36)}:${'b'.repeat(480)}`;
		const sent = await send(recipients(1), { sendOnce: 'recipientTemplate', templateCodeId });
		const forget = await runSendNode({ baseUrl: api.baseUrl, items: [sent.output(SEND_NODE)[0].json], typeVersion: 2, parameters: { operation: 'forget' } });
		expect(forget.output(SEND_NODE)[0].json).toMatchObject({ forgotten: true });
		expect(outcomes(await send(recipients(1), { sendOnce: 'recipientTemplate', templateCodeId }))).toEqual(['sent']);
	});

	test('Forget Sent Messages says which keys the record did not hold (a number written as a person writes it, a typo): nothing forgotten there', async () => {
		const phone = recipients(1)[0].phone;
		await send(recipients(1), { sendOnce: 'recipientTemplate' });
		const keys = [`+${phone.slice(0, 2)} ${phone.slice(2, 5)}-${phone.slice(5)}|tpl-once`, `${phone}|tpl-onec`, `${phone}|tpl-once`];
		const forget = await runSendNode({ baseUrl: api.baseUrl, items: keys.map((messageKey) => ({ messageKey })), typeVersion: 2, parameters: { operation: 'forget' } });
		const rows = forget.output(SEND_NODE).map((item) => item.json);
		// Was forgotten: true for all three, and the next run still skipped the message for the first two.
		expect(rows.map((row) => row.forgotten)).toEqual([false, false, true]);
		expect(rows[0].reason).toBe(
			'Send Once holds no message with this key for this workflow: nothing was forgotten. A key is the messageKey of the row that sent it; for Once per Recipient and Template, the number as sent (digits only, with the country code) and the Template Code ID, joined by |.',
		);
		expect(deduplicationStore().records.get('test-workflow/') ?? []).toEqual([]);
	});

	test('Forget Sent Messages: the keys of its input items, or everything', async () => {
		const items = recipients(3);
		const sent = await send(items, { sendOnce: 'recipientTemplate' });
		const forgetOne = await runSendNode({
			baseUrl: api.baseUrl,
			items: [sent.output(SEND_NODE)[1].json],
			typeVersion: 2,
			parameters: { operation: 'forget' },
		});
		expect(forgetOne.output(SEND_NODE).map((item) => item.json)).toEqual([{ forgotten: true, messageKey: `${items[1].phone}|tpl-once` }]);
		expect(outcomes(await send(items, { sendOnce: 'recipientTemplate' }))).toEqual(['sentBefore', 'sent', 'sentBefore']);

		const forgetAll = await runSendNode({ baseUrl: api.baseUrl, items: [{}], typeVersion: 2, parameters: { operation: 'forget', forget: 'all' } });
		expect(forgetAll.output(SEND_NODE)[0].json).toEqual({ forgotten: 'all', count: 3 });
		expect(outcomes(await send(items, { sendOnce: 'recipientTemplate' }))).toEqual(['sent', 'sent', 'sent']);
		expect(api.requests).toHaveLength(7);
	});

	describe('Forget while an execution of this n8n holds the key (sending the message, or moving it as sent before)', () => {
		const parameters = { sendOnce: 'recipientTemplate', options: { maxConcurrency: 1 } };
		/** Holds the answer to `phone`'s request until the returned function is called; accepts the rest at once. */
		const holdAnswerTo = (phone: string) => {
			let release!: () => void;
			const released = new Promise<void>((resolve) => (release = resolve));
			api.respondWith((request, index) =>
				(request.body as IDataObject).phone_number === phone
					? {
							raw: (res) =>
								void released.then(() => {
									res.writeHead(200, { 'content-type': 'application/json' });
									res.end(JSON.stringify({ msgid: `held-${index}`, success: true }));
								}),
						}
					: acceptAll(request, index),
			);
			return release;
		};
		const requestsReach = async (count: number) => {
			for (let poll = 0; poll < 3_000 && api.requests.length < count; poll++) await new Promise((resolve) => setTimeout(resolve, 10));
			expect(api.requests.length).toBe(count);
		};
		const forget = async (items: IDataObject[], forgetWhat: 'keys' | 'all') =>
			(await runSendNode({ baseUrl: api.baseUrl, items, typeVersion: 2, parameters: { operation: 'forget', forget: forgetWhat } })).output(SEND_NODE).map(({ json }) => json);

		test.each(['keys', 'all'] as const)('Forget (%s) of a message on its way: kept, so a run beside it does not send it a second time', async (forgetWhat) => {
			const [first, second] = recipients(2, 70);
			const release = holdAnswerTo(first.phone);
			// One block claims both keys; the second message waits for the first's answer.
			const campaign = send([first, second], parameters);
			await requestsReach(1);
			const secondKey = `${second.phone}|tpl-once`;
			const forgotten = await forget(forgetWhat === 'keys' ? [{ messageKey: secondKey }] : [{}], forgetWhat);
			const repeat = await send([second], parameters);
			release();
			expect(outcomes(await campaign)).toEqual(['sent', 'sent']);
			const notCleared = { forgotten: false, count: 0, reason: expect.stringMatching(/^Nothing was cleared: an execution of this workflow running now is sending 2 messages/) };
			expect(forgotten).toEqual([forgetWhat === 'keys' ? { forgotten: false, messageKey: secondKey, reason: expect.stringMatching(/^An execution of this workflow running now is sending this message/) } : notCleared]);
			expect(repeat.output(SEND_NODE)[0].json).toMatchObject({ skipped: true, concurrentExecution: true });
			expect(perRecipient(api.requests)[second.phone]).toEqual({ received: 1, accepted: 1 });
		});

		test("Forget Everything while a run's claim is between its write and its lookup: nothing cleared, and the run sends its message once", async () => {
			const [item] = recipients(1, 90);
			// The claim's write (it carries the run's block marker) answers late: the Forget comes before the claim looks it up.
			const store = deduplicationStore();
			const record = store.checkProcessedAndRecord.bind(store);
			let claimWritten!: () => void;
			const written = new Promise<void>((resolve) => (claimWritten = resolve));
			store.checkProcessedAndRecord = async (values, ...rest) => {
				const result = await record(values, ...rest);
				if (values.some((value) => String(value).includes('\u0000run:'))) {
					claimWritten();
					await new Promise((resolve) => setTimeout(resolve, 300));
				}
				return result;
			};
			// Its answer held too: however slow the Forget's run, the campaign has not ended when it comes.
			const release = holdAnswerTo(item.phone);
			const campaign = send([item], parameters);
			await written;
			const forgotten = await forget([{}], 'all');
			release();
			expect(forgotten).toEqual([{ forgotten: false, count: 0, reason: expect.stringMatching(/^Nothing was cleared: an execution of this workflow running now is sending one message, or recording it/) }]);
			store.checkProcessedAndRecord = record;
			expect(outcomes(await campaign)).toEqual(['sent']);
			// One request (the held answer, written raw, is not counted as accepted by the server; the row says sent).
			expect(perRecipient(api.requests)[item.phone].received).toBe(1);
			// Once it has ended, Everything is cleared.
			expect(await forget([{}], 'all')).toEqual([{ forgotten: 'all', count: 1 }]);
			expect(outcomes(await send([item], parameters))).toEqual(['sent']);
		});

		test('Forget of a key a run is moving as sent before: not forgotten, and said so (that run would record it again)', async () => {
			const [fresh, before] = recipients(2, 80);
			expect(outcomes(await send([before], parameters))).toEqual(['sent']);
			const release = holdAnswerTo(fresh.phone);
			const daily = send([fresh, before], parameters);
			await requestsReach(2);
			const forgotten = await forget([{ messageKey: `${before.phone}|tpl-once` }], 'keys');
			release();
			expect(outcomes(await daily)).toEqual(['sent', 'sentBefore']);
			expect(forgotten).toEqual([{ forgotten: false, messageKey: `${before.phone}|tpl-once`, reason: expect.stringMatching(/^An execution of this workflow running now/) }]);
			// Once that run has ended, the Forget takes it, and the next run sends the message again.
			expect(await forget([{ messageKey: `${before.phone}|tpl-once` }], 'keys')).toEqual([{ forgotten: true, messageKey: `${before.phone}|tpl-once` }]);
			expect(outcomes(await send([before], parameters))).toEqual(['sent']);
		});
	});

	test('keys another worker overwrote while the run was sending are recorded again at its end', async () => {
		const items = recipients(30);
		const store = deduplicationStore();
		api.respondWith((request, index) => {
			// Another worker rewrites the record from what it read before this run's blocks: they are lost.
			if (index === 15) store.records.set('test-workflow/', []);
			return acceptAll(request, index);
		});
		await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 5, maxPerSecond: 0 } });
		expect(outcomes(await send(items, { sendOnce: 'recipientTemplate' }))).toEqual(Array(30).fill('sentBefore'));
		expect(api.requests).toHaveLength(30);
	});

	test('another worker recording the same key at the same moment overwrites this run\'s write: the message is left to it, not sent twice', async () => {
		const store = deduplicationStore();
		const original = store.checkProcessedAndRecord.bind(store);
		let raced = false;
		// The other worker read the record before this run wrote, and writes after it: its version
		// has the key and its own marker, not this run's.
		store.checkProcessedAndRecord = async (items, scope, context, options) => {
			const before = [...(store.records.get('test-workflow/') ?? [])];
			const result = await original(items, scope, context, options);
			if (!raced) {
				raced = true;
				store.records.set('test-workflow/', before);
				await original([items[0], `${String(items[0])}\u0000run:other-worker`], scope, context, options);
			}
			return result;
		};
		try {
			const result = await send(recipients(1), { sendOnce: 'recipientTemplate' });
			expect(result.output(SEND_NODE)[0].json).toMatchObject({ skipped: true, sentBefore: true, concurrentExecution: true });
			expect(api.requests).toHaveLength(0);
		} finally {
			store.checkProcessedAndRecord = original;
		}
	});

	test('another worker recording other keys at the same moment overwrites this run\'s write: the block is recorded again and sent', async () => {
		const store = deduplicationStore();
		const original = store.checkProcessedAndRecord.bind(store);
		let overwritten = false;
		store.checkProcessedAndRecord = async (items, scope, context, options) => {
			const before = [...(store.records.get('test-workflow/') ?? [])];
			const result = await original(items, scope, context, options);
			if (!overwritten) {
				overwritten = true;
				store.records.set('test-workflow/', before);
				await original(['template-message:another-order', 'template-message:another-order\u0000run:other-worker'], scope, context, options);
			}
			return result;
		};
		try {
			const items = recipients(3);
			expect(outcomes(await send(items, { sendOnce: 'recipientTemplate' }))).toEqual(['sent', 'sent', 'sent']);
		} finally {
			store.checkProcessedAndRecord = original;
		}
		expect(outcomes(await send(recipients(3), { sendOnce: 'recipientTemplate' }))).toEqual(['sentBefore', 'sentBefore', 'sentBefore']);
		expect(api.requests).toHaveLength(3);
	});

	// The writes of this run's first block (the ones with its first marker): the claim's, then each lookup's.
	const firstBlockWrite = (items: unknown[]) => items.some((item) => /run:[^:]+:0$/.test(String(item)));

	test('other workers\' writes replace this run\'s record at every lookup: the block is not sent, says why, the rest of the run goes on, and the next run sends it', async () => {
		const store = deduplicationStore();
		const original = store.checkProcessedAndRecord.bind(store);
		// Each is replaced by another worker's write, read before it, but the last lookup's (the marker alone).
		let writes = 0;
		store.checkProcessedAndRecord = async (items, scope, context, options) => {
			const before = [...(store.records.get('test-workflow/') ?? [])];
			const result = await original(items, scope, context, options);
			if (firstBlockWrite(items) && ++writes <= LOOKUPS) store.records.set('test-workflow/', before);
			return result;
		};
		const items = recipients(8);
		try {
			// Unpaced, one at a time: the first block is item 0 alone.
			const first = await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 1, maxPerSecond: 0 } }, { onError: undefined });
			expect(first.nodeError(SEND_NODE)).toBeUndefined();
			expect(outcomes(first)).toEqual(['notSent', ...Array(7).fill('sent')]);
			expect(first.output(SEND_NODE)[0].json).toMatchObject({
				error: `Not sent: Send Once could not record the message in n8n's database (other executions of this workflow wrote over its record at the same moment, at each of ${LOOKUPS} lookups) [item 0]`,
			});
			expect(writes).toBe(1 + LOOKUPS);
		} finally {
			store.checkProcessedAndRecord = original;
		}
		expect(api.requests.map((request) => (request.body as IDataObject).phone_number)).not.toContain(items[0].phone);
		// Nothing of it was left in the record as this run's: not in doubt to the next run.
		expect(outcomes(await send(items, { sendOnce: 'recipientTemplate' }))).toEqual(['sent', ...Array(7).fill('sentBefore')]);
		expect(api.requests).toHaveLength(8);
	});

	test('written over at every lookup, the last time by another worker claiming the same message: its claim stays in the record, and the message is not sent twice', async () => {
		const store = deduplicationStore();
		const original = store.checkProcessedAndRecord.bind(store);
		let writes = 0;
		let claimed: unknown[] = [];
		store.checkProcessedAndRecord = async (items, scope, context, options) => {
			const before = [...(store.records.get('test-workflow/') ?? [])];
			const result = await original(items, scope, context, options);
			if (!firstBlockWrite(items)) return result;
			// The claim's write: the key and its mark.
			if (++writes === 1) claimed = items.slice(0, 2);
			store.records.set('test-workflow/', before);
			// The other worker read the record before this run's last write, and writes its own claim after it.
			if (writes === 1 + LOOKUPS) await original([...claimed, `${String(claimed[0])}\u0000run:other-worker`] as typeof items, scope, context, options);
			return result;
		};
		try {
			const first = await send(recipients(1), { sendOnce: 'recipientTemplate' });
			expect(outcomes(first)).toEqual(['notSent']);
		} finally {
			store.checkProcessedAndRecord = original;
		}
		// The other worker holds it (it is sending it, or crashed): in doubt, not sent again.
		expect(outcomes(await send(recipients(1), { sendOnce: 'recipientTemplate' }))).toEqual(['inDoubt']);
		expect(api.requests).toHaveLength(0);
	});

	test('a failed call to the store is tried again; when it keeps failing, the block is not sent and says why', async () => {
		const store = deduplicationStore();
		const original = store.checkProcessedAndRecord.bind(store);
		let failures = 1;
		store.checkProcessedAndRecord = async (...args) => {
			if (failures-- > 0) throw new Error('duplicate key value violates unique constraint "PK_processed_data"');
			return await original(...args);
		};
		try {
			expect(outcomes(await send(recipients(2), { sendOnce: 'recipientTemplate' }))).toEqual(['sent', 'sent']);
			failures = 100;
			const failed = await send(recipients(2, 5), { sendOnce: 'recipientTemplate' });
			expect(outcomes(failed)).toEqual(['notSent', 'notSent']);
			expect(failed.output(SEND_NODE)[0].json.error).toBe(
				'Not sent: Send Once could not record the message in n8n\'s database (duplicate key value violates unique constraint "PK_processed_data") [item 0]',
			);
			expect(api.requests).toHaveLength(2);
			// An error without a message still says something.
			store.checkProcessedAndRecord = async () => {
				throw new Error('');
			};
			const silent = await send(recipients(1, 9), { sendOnce: 'recipientTemplate' });
			expect(silent.output(SEND_NODE)[0].json.error).toBe("Not sent: Send Once could not record the message in n8n's database (its call failed without saying why) [item 0]");
		} finally {
			store.checkProcessedAndRecord = original;
		}
	});

	test('a dry run shows each message key and neither reads nor writes the record', async () => {
		const result = await send(recipients(2), { sendOnce: 'recipientTemplate', options: { dryRun: true } });
		expect(result.output(SEND_NODE).map((item) => item.json.messageKey)).toEqual(recipients(2).map((item) => `${item.phone}|tpl-once`));
		expect(deduplicationStore().stats.calls).toBe(0);
		expect(api.requests).toHaveLength(0);
	});

	test('a dry run skips what the real run skips: two rows of one recipient and template, written differently, with other values', async () => {
		const [row] = recipients(1);
		const items = [row, { ...row, phone: `+${row.phone.slice(0, 2)} ${row.phone.slice(2)}`, name: 'Another name' }];
		const dry = await send(items, { sendOnce: 'recipientTemplate', options: { dryRun: true } });
		expect(dry.output(SEND_NODE).map(({ json }) => [json.status, json.duplicateOf])).toEqual([['dryRun', undefined], ['dryRun', 0]]);
		if (ENGINE.keepsExecutionHints) expect(hintsOf(dry)).toMatch(/^Dry run: 1 of 2 item\(s\) would be sent\. 1 has the message key of an earlier item \(Send Once\) and would be skipped\./);
		expect(api.requests).toHaveLength(0);
		const real = await send(items, { sendOnce: 'recipientTemplate' });
		expect(outcomes(real)).toEqual(['sent', 'repeat']);
	});

	test('a workflow never saved has no id to keep a record under: the run says so and sends nothing', async () => {
		const result = await send(recipients(2), { sendOnce: 'recipientTemplate' }, { workflowId: '' });
		expect(result.nodeError(SEND_NODE)?.message).toBe('Send Once needs a saved workflow: this one has no id yet');
		expect(api.requests).toHaveLength(0);
	});

	test('two executions of the workflow sending the same key at the same moment: exactly one sends', async () => {
		// n8n's store reads, then writes back: here 20 ms pass between the two.
		deduplicationStore().latencyMs = 20;
		const parameters = { sendOnce: 'customKey', messageKey: '={{ $json.order }}' };
		const [order] = recipients(1);
		const results = await Promise.all([send([order], parameters), send([order], parameters), send([order], parameters)]);
		expect(api.requests).toHaveLength(1);
		expect(results.map((result) => outcomes(result)[0]).sort()).toEqual(['sent', 'sentBefore', 'sentBefore']);
	});

	test('a message sent before, asked for by five executions of one n8n at once: each says sent before, none in doubt', async () => {
		// A run that finds a message sent before marks it while it moves the key to the newest end;
		// another execution of the same n8n finding that mark is told sent before, not in doubt.
		deduplicationStore().latencyMs = 20;
		const parameters = { sendOnce: 'customKey', messageKey: '={{ $json.order }}' };
		const [order] = recipients(1, 40);
		expect(outcomes(await send([order], parameters))).toEqual(['sent']);
		const results = await Promise.all(Array.from({ length: 5 }, () => send([order], parameters)));
		expect(results.map((result) => outcomes(result)[0])).toEqual(Array(5).fill('sentBefore'));
		expect(outcomes(await send([order], parameters))).toEqual(['sentBefore']);
		expect(api.requests).toHaveLength(1);
	});

	test('a sheet larger than the record, run three times: no run re-sends a row the record held when it began, and the run that pushes keys out says how many', async () => {
		const items = recipients(60);
		const parameters = { sendOnce: 'recipientTemplate', options: { maxRemembered: 50, maxPerSecond: 0 } };
		const first = await send(items, parameters);
		expect(outcomes(first)).toEqual(Array(60).fill('sent'));
		if (ENGINE.keepsExecutionHints) expect(hintsOf(first)).toContain('this run pushed out the 10 oldest messages');
		// Rows 10 to 59 were held when each later run began: none goes again; rows 0 to 9 were pushed out, as the run said.
		for (let run = 2; run <= 3; run++) {
			const again = await send(items, parameters);
			expect(outcomes(again)).toEqual([...Array(10).fill('sent'), ...Array(50).fill('sentBefore')]);
		}
		expect(api.requests).toHaveLength(80);
		expect(deduplicationStore().records.get('test-workflow/')).toHaveLength(50);
	});

	test('a key seen again is as recent as its last run: a sheet read every day does not age out while newer rows come and go', async () => {
		const parameters = { sendOnce: 'recipientTemplate', options: { maxRemembered: 50, maxPerSecond: 0 } };
		const sheet = recipients(30);
		await send(sheet, parameters);
		await send(recipients(20, 100), parameters);
		// The sheet is read again: its 30 keys become the newest.
		expect(outcomes(await send(sheet, parameters))).toEqual(Array(30).fill('sentBefore'));
		// 10 new rows push out the 10 oldest values: the one-off rows, not the sheet's.
		await send(recipients(10, 200), parameters);
		expect(outcomes(await send(sheet, parameters))).toEqual(Array(30).fill('sentBefore'));
		expect(outcomes(await send(recipients(10, 100), parameters))).toEqual(Array(10).fill('sent'));
	});

	test('a run that never settled (its worker killed): what it recorded and the API took is sent before, the rest in doubt, none sent again', async () => {
		const items = recipients(40);
		const store = deduplicationStore();
		const original = { record: store.checkProcessedAndRecord.bind(store), remove: store.removeProcessed.bind(store), count: store.getProcessedDataCount.bind(store) };
		// The worker dies after its 25th request: from then on its writes never reach the database.
		let dead = false;
		api.respondWith((request, index) => {
			if (index === 24) dead = true;
			return acceptAll(request, index);
		});
		store.checkProcessedAndRecord = async (...args) => (dead ? { new: [], processed: [] } : await original.record(...args));
		store.removeProcessed = async (...args) => (dead ? undefined : await original.remove(...args));
		try {
			await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 5, maxPerSecond: 0 } });
		} finally {
			Object.assign(store, { checkProcessedAndRecord: original.record, removeProcessed: original.remove, getProcessedDataCount: original.count });
		}
		const reached = new Set(api.requests.map((request) => (request.body as IDataObject).phone_number));
		// How many requests the dying run got out depends on how far its blocks were claimed ahead when it
		// died, that is on the machine's speed; what the next run says of each message does not.
		const lastBeforeDeath = (api.requests[24].body as IDataObject).phone_number;
		api.respondWith(acceptAll);
		const again = await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 5, maxPerSecond: 0 } });
		const rows = outcomes(again);
		// Never reported sent before unless it reached the API; never sent twice; nothing else.
		items.forEach((item, index) => {
			expect(['sentBefore', 'inDoubt', 'sent']).toContain(rows[index]);
			if (rows[index] === 'sentBefore') expect(reached.has(item.phone)).toBe(true);
			if (reached.has(item.phone)) expect(rows[index]).not.toBe('sent');
		});
		// The message that reached the API as the worker died was accepted, but its mark could only go in a later write: in doubt.
		expect(rows[items.findIndex((item) => item.phone === lastBeforeDeath)]).toBe('inDoubt');
		const inDoubt = again.output(SEND_NODE).find((item) => item.json.inDoubt === true)!.json;
		expect(inDoubt).toMatchObject({ status: 'inDoubt', success: false, messageKey: expect.stringMatching(/\|tpl-once$/) });
		expect(inDoubt.reason).toMatch(/Forget Sent Messages, or turn on Options → Send Messages in Doubt\.$/);

		// Send Messages in Doubt sends exactly those, once; then nothing is in doubt any more.
		const doubted = items.filter((_, index) => rows[index] === 'inDoubt').map((item) => item.phone);
		const sentNow = api.requests.length;
		const resent = await send(items, { sendOnce: 'recipientTemplate', options: { sendInDoubt: true } });
		expect(api.requests.slice(sentNow).map((request) => (request.body as IDataObject).phone_number).sort()).toEqual(doubted.sort());
		expect(outcomes(resent).filter((row) => row === 'sent')).toHaveLength(doubted.length);
		expect(outcomes(await send(items, { sendOnce: 'recipientTemplate' }))).toEqual(Array(40).fill('sentBefore'));
		// Every message reached the API in one of the runs.
		expect(Object.keys(perRecipient(api.requests)).sort()).toEqual(items.map((item) => item.phone).sort());
	});

	test('a cancelled execution: what was on the wire is in doubt on the next run, what never left goes out', async () => {
		const items = recipients(6);
		// Cancelled while the third message waits for an answer that never comes.
		const { cancelWhen, fire } = cancelOn();
		api.respondWith((request, index) => {
			if (index !== 2) return acceptAll(request, index);
			fire();
			return { hang: true };
		});
		await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 1 } }, { cancelWhen });
		expect(api.requests).toHaveLength(3);
		api.respondWith(acceptAll);
		const again = await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 1 } });
		expect(outcomes(again)).toEqual(['sentBefore', 'sentBefore', 'inDoubt', 'sent', 'sent', 'sent']);
	});

	test.each([
		['a 429 with Retry-After: 30', { status: 429, body: { errors: [{ message: 'Too many requests', code: 9 }] }, headers: { 'Retry-After': '30' } }],
		['a 503 with Retry-After: 20, tried again as not taken', { status: 503, body: { errors: [{ message: 'Service unavailable' }] }, headers: { 'Retry-After': '20' } }],
	])('cancelled while waiting after %s: the refused message surely did not go out, and the next run sends it (not in doubt)', async (_label, refusal) => {
		const items = recipients(3);
		const { cancelWhen, fire } = cancelOn();
		api.respondWith(() => refusal);
		// The node logs that it waits right before its sender sleeps: the cancel comes in that wait, never in a request.
		const prototype = n8nLoggerClass().prototype as unknown as { log: (...args: unknown[]) => void };
		const log = prototype.log;
		const spy = jest.spyOn(prototype, 'log').mockImplementation(function (this: unknown, ...args: unknown[]) {
			if (/Template Message is waiting/.test(String(args[1]))) fire();
			return log.apply(this, args);
		});
		try {
			await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 1 } }, { cancelWhen });
		} finally {
			spy.mockRestore();
		}
		expect(api.requests.map((request) => request.answer)).toEqual([refusal.status]);
		api.respondWith(acceptAll);
		// Another account than the cancelled run's (another token): the wait the API asked of that one is its account's, not the point here.
		const again = await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 1 } }, { token: `${TEST_TOKEN}-another-account` });
		expect(outcomes(again)).toEqual(['sent', 'sent', 'sent']);
	});

	test('run again while the cancelled run is still in a call to the store: its unsent messages go now, not "another execution sends it"', async () => {
		const items = recipients(6);
		const store = deduplicationStore();
		const record = store.checkProcessedAndRecord.bind(store);
		const count = store.getProcessedDataCount.bind(store);
		const deferred = () => {
			let resolve!: () => void;
			return { promise: new Promise<void>((done) => (resolve = done)), resolve };
		};
		// The store holds the cancelled run's first write until told (a database slow just then).
		const firstWriteArrived = deferred();
		const releaseFirstWrite = deferred();
		let writes = 0;
		const recording = jest.spyOn(store, 'checkProcessedAndRecord').mockImplementation(async (...args: Parameters<typeof record>) => {
			if (writes++ === 0) {
				firstWriteArrived.resolve();
				await releaseFirstWrite.promise;
			}
			return await record(...args);
		});
		// The next run's first store call (it reads the record's size when it has more rows than senders).
		const secondRunCounted = deferred();
		let counts = 0;
		const counting = jest.spyOn(store, 'getProcessedDataCount').mockImplementation(async (...args: Parameters<typeof count>) => {
			const result = await count(...args);
			if (counts++ === 1) secondRunCounted.resolve();
			return result;
		});
		try {
			const { cancelWhen, fire } = cancelOn();
			const cancelled = send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 1 } }, { cancelWhen });
			await firstWriteArrived.promise;
			fire();
			const next = send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 1 } });
			await secondRunCounted.promise;
			// The next run's claim is queued behind the held write.
			await new Promise((resolve) => setImmediate(resolve));
			await new Promise((resolve) => setImmediate(resolve));
			const timers = trackTimers();
			releaseFirstWrite.resolve();
			const [, nextRun] = await Promise.all([cancelled, next]);
			// Was: nothing sent, every row "another execution recorded the same message at the same moment".
			expect(outcomes(nextRun)).toEqual(items.map(() => 'sent'));
			expect(items.map((item) => perRecipient(api.requests)[item.phone])).toEqual(items.map(() => ({ received: 1, accepted: 1 })));
			// The wait left no long timer (n8n 1.78's sleep cannot be cut short): a timer created now fires after any of its slices.
			await new Promise((resolve) => setTimeout(resolve, 1500));
			expect(timers.stillRunning().filter((stack) => stack.includes('claimAfterStoppedRuns'))).toEqual([]);
		} finally {
			recording.mockRestore();
			counting.mockRestore();
		}
	});

	// n8n's store keeps md5 of a key's UTF-8 (as the stand-in does): half an emoji becomes U+FFFD there.
	test('a Message Key cut inside an emoji is refused naming the fix, not recorded as the key of another message', async () => {
		const parameters = { sendOnce: 'customKey', messageKey: '={{ $json.phone }}-{{ $json.campaign.slice(0, 13) }}' };
		const phone = '6281200000001';
		const first = await send([{ phone, name: 'Budi', campaign: 'Summer 2026 \u{1F600} sale' }], parameters);
		const second = await send([{ phone, name: 'Budi', campaign: 'Summer 2026 \u{1F389} party' }], parameters);
		for (const run of [first, second]) {
			expect(run.output(SEND_NODE)[0].json).toMatchObject({ status: 'invalid', error: expect.stringMatching(/^Message Key: holds half of an emoji \(a lone UTF-16 surrogate\)/) });
		}
		expect(api.requests).toHaveLength(0);
		// Whole, each is a message of its own.
		const whole = { ...parameters, messageKey: '={{ $json.phone }}-{{ Array.from($json.campaign).slice(0, 13).join("") }}' };
		await send([{ phone, name: 'Budi', campaign: 'Summer 2026 \u{1F600} sale' }], whole);
		expect(outcomes(await send([{ phone, name: 'Budi', campaign: 'Summer 2026 \u{1F389} party' }], whole))).toEqual(['sent']);
	});

	test('Forget takes the key of a Template Code ID of 2,600 astral characters (within the 4,096 Send takes)', async () => {
		const templateCodeId = '\u{1D41A}'.repeat(2600);
		const sent = await send([{ phone: '6281200000001', name: 'A' }], { sendOnce: 'recipientTemplate', templateCodeId });
		expect(outcomes(sent)).toEqual(['sent']);
		const forget = await runSendNode({ baseUrl: api.baseUrl, items: [sent.output(SEND_NODE)[0].json], typeVersion: 2, onError: 'continueRegularOutput', parameters: { operation: 'forget' } });
		expect(forget.output(SEND_NODE)[0].json).toMatchObject({ forgotten: true });
	});

	test('Forget Sent Messages takes any row a sending node put out: unknown and failed rows too; a row without a key fails alone', async () => {
		const items = recipients(3);
		api.respondWith((request, index) => (index === 0 ? { resetAfterBody: true } : acceptAll(request, index)));
		const sent = await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 1 } });
		expect(outcomes(sent)).toEqual(['unknown', 'sent', 'sent']);
		expect(sent.output(SEND_NODE).map((item) => item.json.messageKey)).toEqual(items.map((item) => `${item.phone}|tpl-once`));
		const forget = await runSendNode({
			baseUrl: api.baseUrl,
			items: [sent.output(SEND_NODE)[0].json, {}],
			typeVersion: 2,
			onError: 'continueRegularOutput',
			parameters: { operation: 'forget' },
		});
		expect(forget.output(SEND_NODE).map((item) => item.json.forgotten ?? item.json.error)).toEqual([true, 'Message Key: is empty [item 1]']);
		api.respondWith(acceptAll);
		expect(outcomes(await send(items, { sendOnce: 'recipientTemplate' }))).toEqual(['sent', 'sentBefore', 'sentBefore']);
	});

	test("Forget Sent Messages fed a Send's whole output: a row refused before Send Once (invalid, no key) has nothing to forget, and says so; the run goes on", async () => {
		const items = [...recipients(1), { phone: '', name: 'No number' }, ...recipients(1, 1)];
		const sent = await send(items, { sendOnce: 'recipientTemplate' });
		expect(outcomes(sent)).toEqual(['sent', 'invalid', 'sent']);
		const forget = await runSendNode({ baseUrl: api.baseUrl, items: sent.output(SEND_NODE).map(({ json }) => json), typeVersion: 2, parameters: { operation: 'forget' } });
		expect(forget.output(SEND_NODE).map((item) => [item.pairedItem, item.json])).toEqual([
			[{ item: 0 }, { forgotten: true, messageKey: `${items[0].phone}|tpl-once` }],
			[{ item: 1 }, { forgotten: false, messageKey: null, reason: expect.stringMatching(/^This row is a Send's failed row without a messageKey: its message never reached Send Once's record, so there is nothing to forget/) }],
			[{ item: 2 }, { forgotten: true, messageKey: `${items[2].phone}|tpl-once` }],
		]);
	});

	test('Forget Sent Messages with the error output: a row without a key goes to the second output, the forgotten ones to the first', async () => {
		const forget = await runSendNode({ baseUrl: api.baseUrl, items: [{ messageKey: 'a|tpl-once' }, {}], typeVersion: 2, onError: 'continueErrorOutput', parameters: { operation: 'forget' } });
		expect(forget.output(SEND_NODE, 0).map((item) => [item.pairedItem, item.json])).toEqual([[{ item: 0 }, expect.objectContaining({ forgotten: false, messageKey: 'a|tpl-once' })]]);
		expect(forget.output(SEND_NODE, 1).map((item) => [item.pairedItem, item.json.error])).toEqual([[{ item: 1 }, 'Message Key: is empty [item 1]']]);
	});

	test("Forget's default key reads a row routed to the error output, which carries it under details", async () => {
		api.respondWith(() => ({ status: 400, body: { errors: [{ message: 'Invalid parameter', code: 39 }] } }));
		const failed = await send(recipients(1), { sendOnce: 'recipientTemplate' }, { onError: 'continueErrorOutput' });
		// n8n routes a row made of error and details, and merges the input item into it.
		const row = failed.output(SEND_NODE, 1)[0].json;
		expect(row.messageKey).toBeUndefined();
		// n8n 1.121 to 2.35 keep only the error message there (see output/errorOutput.ts): docs/send-once.md says to use the regular output on those.
		if (ENGINE.keepsOnlyErrorOnErrorOutput) {
			expect(row.details).toBeUndefined();
			return;
		}
		const forget = await runSendNode({ baseUrl: api.baseUrl, items: [row], typeVersion: 2, parameters: { operation: 'forget' } });
		// The key read from details; a refused message was forgotten when it was refused, and the row says so.
		expect(forget.output(SEND_NODE)[0].json).toMatchObject({ forgotten: false, messageKey: `${recipients(1)[0].phone}|tpl-once` });
	});

	test("Forget's default key forgets a row's own message, not that of the sending node before it, whose row n8n lays under it on the error output", async () => {
		const phone = recipients(1)[0].phone;
		const first = await send(recipients(1), { sendOnce: 'recipientTemplate', templateCodeId: 'tpl-a' });
		const firstRow = first.output(SEND_NODE)[0].json;
		expect(firstRow).toMatchObject({ status: 'sent', messageKey: `${phone}|tpl-a` });
		// A follow-up on the first's row: its request may have arrived (a gateway's 502), so it is kept as in doubt.
		api.respondWith(() => ({ status: 502, rawBody: 'Bad Gateway' }));
		const followUp = await send([firstRow], { sendOnce: 'recipientTemplate', templateCodeId: 'tpl-b', phoneNumber: '={{ $json.phone_number }}', bodyValues: { values: [{ text: 'Budi' }] } }, { onError: 'continueErrorOutput' });
		const row = followUp.output(SEND_NODE, 1)[0].json;
		if (ENGINE.keepsOnlyErrorOnErrorOutput) return; // only the error message there (see the test above)
		expect(row).toMatchObject({ messageKey: `${phone}|tpl-a`, details: { messageKey: `${phone}|tpl-b` } });
		const forget = await runSendNode({ baseUrl: api.baseUrl, items: [row], typeVersion: 2, parameters: { operation: 'forget' } });
		expect(forget.output(SEND_NODE)[0].json).toEqual({ forgotten: true, messageKey: `${phone}|tpl-b` });
		// The first message, delivered, is not sent again.
		api.respondWith(acceptAll);
		expect(outcomes(await send(recipients(1), { sendOnce: 'recipientTemplate', templateCodeId: 'tpl-a' }))).toEqual(['sentBefore']);
	});

	test("Forget's default key reads a failed row by its details alone: the sheet's messageKey beside it on the error output is an earlier message's, which stays remembered", async () => {
		const [item] = recipients(1);
		const key = (await send([item], { sendOnce: 'recipientTemplate' })).output(SEND_NODE)[0].json.messageKey;
		expect(key).toBe(`${item.phone}|tpl-once`);
		// The next day the row comes back from the sheet with what was written back to it, its name cell emptied: invalid.
		const today = await send([{ ...item, name: '', messageKey: key, msgid: 'm-0', status: 'sent' }], { sendOnce: 'recipientTemplate' }, { onError: 'continueErrorOutput' });
		const [row] = today.output(SEND_NODE, 1);
		expect(row.json.error).toMatch(/is empty/);
		const forget = await runSendNode({ baseUrl: api.baseUrl, items: [row.json], typeVersion: 2, onError: 'continueRegularOutput', parameters: { operation: 'forget' } });
		// Was: forgotten, the sheet's key taken for the row's, and the message went again the day after.
		// n8n 1.121 to 2.35 keep only the error message there: nothing to read a key from, the row fails alone.
		if (ENGINE.keepsOnlyErrorOnErrorOutput) expect(forget.output(SEND_NODE)[0].json.error).toBe('Message Key: is empty [item 0]');
		else expect(forget.output(SEND_NODE)[0].json).toEqual({ forgotten: false, messageKey: null, reason: expect.stringMatching(/^This row is a Send's failed row without a messageKey/) });
		expect(outcomes(await send([item], { sendOnce: 'recipientTemplate' }))).toEqual(['sentBefore']);
		expect(api.requests).toHaveLength(1);
	});

	test("Forget's default key on a Send's flat row of unknown delivery read back from a sheet: the key in its details text", async () => {
		const row = { phone: '6281234567890', status: 'unknown', error: 'The API did not answer: may have been sent [item 0]', details: JSON.stringify({ success: false, msgid: 'u-1', messageKey: '6281234567890|tpl' }) };
		const forget = await runSendNode({ baseUrl: api.baseUrl, items: [row], parameters: { operation: 'forget' }, typeVersion: 2, onError: 'continueRegularOutput' });
		expect(forget.output(SEND_NODE)[0].json).toMatchObject({ messageKey: '6281234567890|tpl' });
	});

	test("Forget's default key, details first, on a sent row with Include Input Fields whose input was another sending node's failed row: the row's details are its own (null)", async () => {
		const phone = recipients(1)[0].phone;
		api.respondWith(() => ({ status: 400, body: { errors: [{ message: 'Invalid parameter', code: 39 }] } }));
		const failedRow = (await send(recipients(1), { sendOnce: 'recipientTemplate', templateCodeId: 'tpl-a' })).output(SEND_NODE)[0].json;
		expect(failedRow.details).toMatchObject({ messageKey: `${phone}|tpl-a` });
		api.respondWith(acceptAll);
		const sent = (await send([failedRow], { sendOnce: 'recipientTemplate', templateCodeId: 'tpl-b', phoneNumber: '={{ $json.phone_number }}', bodyValues: { values: [{ text: 'Budi' }] }, options: { includeInputFields: true } })).output(SEND_NODE)[0].json;
		expect(sent).toMatchObject({ status: 'sent', messageKey: `${phone}|tpl-b` });
		expect(sent.details).toBeNull();
		const forget = await runSendNode({ baseUrl: api.baseUrl, items: [sent], typeVersion: 2, parameters: { operation: 'forget' } });
		expect(forget.output(SEND_NODE)[0].json).toEqual({ forgotten: true, messageKey: `${phone}|tpl-b` });
	});

	/**
	 * Another worker's one store call, read before a write of this run and written after it, without the
	 * lock n8n's store does not have: `when` picks the write. Meanwhile every store call is checked: a
	 * message the API took keeps its key or its pending mark in the record at every moment, or the next
	 * run would send it again.
	 */
	function staleWriteAfter(when: (values: unknown[]) => boolean, sentKeys: string[], times = 1) {
		const store = deduplicationStore();
		const [record, remove] = [store.checkProcessedAndRecord.bind(store), store.removeProcessed.bind(store)];
		const stored = (value: string) => createHash('md5').update(`template-message:${value}`).digest('base64');
		const lost = new Set<string>();
		const check = () => {
			const held = new Set(store.records.get('test-workflow/') ?? []);
			for (const key of sentKeys) if (!held.has(stored(key)) && !held.has(stored(`${key}\u0000pending`))) lost.add(key);
		};
		let done = 0;
		store.checkProcessedAndRecord = async (values, scope, context, options) => {
			const before = [...(store.records.get('test-workflow/') ?? [])];
			const result = await record(values, scope, context, options);
			if (done < times && when(values)) {
				done++;
				store.records.set('test-workflow/', before);
				await record(['template-message:another-order'], scope, context, options);
			}
			check();
			return result;
		};
		store.removeProcessed = async (values, scope, context, options) => {
			await remove(values, scope, context, options);
			check();
		};
		return {
			lost,
			get happened() {
				return done;
			},
			restore: () => Object.assign(store, { checkProcessedAndRecord: record, removeProcessed: remove }),
		};
	}
	const keysOf = (result: Awaited<ReturnType<typeof runSendNode>>) => result.output(SEND_NODE).map(({ json }) => String(json.messageKey));
	const blockMarker = (values: unknown[]) => values.find((value) => /run:[^:]+:\d+$/.test(String(value)));

	test('another worker\'s write lands between the writes that move sent-before keys to the newest end at the end of a run: the keys are back before their marks go, and no later run sends them again', async () => {
		const items = recipients(3);
		const first = await send(items, { sendOnce: 'recipientTemplate' });
		expect(outcomes(first)).toEqual(['sent', 'sent', 'sent']);
		// The run's settle: its second write, the one recording the moved keys again (no block's marker).
		const race = staleWriteAfter((values) => blockMarker(values) === undefined, keysOf(first));
		try {
			expect(outcomes(await send(items, { sendOnce: 'recipientTemplate' }))).toEqual(['sentBefore', 'sentBefore', 'sentBefore']);
		} finally {
			race.restore();
		}
		expect(race.happened).toBe(1);
		expect([...race.lost]).toEqual([]);
		expect(outcomes(await send(items, { sendOnce: 'recipientTemplate' }))).toEqual(['sentBefore', 'sentBefore', 'sentBefore']);
		expect(api.requests).toHaveLength(3);
	});

	test('another worker\'s write lands between the writes of a block\'s claim that move the last block\'s sent-before keys: they are looked up again, and their marks go only once they are back', async () => {
		const items = recipients(6);
		// One at a time, unpaced: a block is one message, so each claim moves the one before it.
		const oneByOne = { sendOnce: 'recipientTemplate', options: { maxConcurrency: 1, maxPerSecond: 0 } };
		const first = await send(items, oneByOne);
		expect(outcomes(first)).toEqual(Array(6).fill('sent'));
		const race = staleWriteAfter((values) => /:1$/.test(String(blockMarker(values))), keysOf(first));
		try {
			expect(outcomes(await send(items, oneByOne))).toEqual(Array(6).fill('sentBefore'));
		} finally {
			race.restore();
		}
		expect(race.happened).toBe(1);
		expect([...race.lost]).toEqual([]);
		expect(outcomes(await send(items, oneByOne))).toEqual(Array(6).fill('sentBefore'));
		expect(api.requests).toHaveLength(6);
	});

	test('a claim of messages sent before written over at every lookup: their keys stay where they are, with their marks dropped, and no later run sends them', async () => {
		const items = recipients(2);
		const first = await send(items, { sendOnce: 'recipientTemplate' });
		expect(outcomes(first)).toEqual(['sent', 'sent']);
		// The first block's claim and each of its lookups, replaced by another worker's write read before it.
		const race = staleWriteAfter((values) => /:0$/.test(String(blockMarker(values))), keysOf(first), 1 + LOOKUPS);
		try {
			expect(outcomes(await send(items, { sendOnce: 'recipientTemplate' }))).toEqual(['sentBefore', 'sentBefore']);
		} finally {
			race.restore();
		}
		expect(race.happened).toBe(1 + LOOKUPS);
		expect([...race.lost]).toEqual([]);
		expect(outcomes(await send(items, { sendOnce: 'recipientTemplate' }))).toEqual(['sentBefore', 'sentBefore']);
		expect(api.requests).toHaveLength(2);
	});

	test('an execution of one message calls the store five times: record, look up, and three to settle; seven for one sent before', async () => {
		await send(recipients(1), { sendOnce: 'recipientTemplate' });
		expect(deduplicationStore().stats.calls).toBe(5);
		deduplicationStore().stats.calls = 0;
		await send(recipients(1), { sendOnce: 'recipientTemplate' });
		expect(deduplicationStore().stats.calls).toBe(7);
	});

	test('each message recorded costs a bounded number of values written, however long the run', async () => {
		const written = async (count: number) => {
			resetDeduplicationStore();
			await send(recipients(count), { sendOnce: 'recipientTemplate', options: { maxConcurrency: 10, maxPerSecond: 0 } });
			expect(deduplicationStore().records.get('test-workflow/')).toHaveLength(count);
			return deduplicationStore().stats;
		};
		const small = await written(500);
		const large = await written(4000);
		// n8n rewrites the whole record on every call: blocks of a fixed size would write 8 × 8 = 64 times as much.
		expect(large.bytesWritten / small.bytesWritten).toBeLessThan(8 * 2);
		expect(large.calls).toBeLessThan(4000 / 10);
		// 4,500 messages through the engine: a smoke test's bound, generous for a busy machine.
	}, 240_000);

	test('Retry On Fail with Send Once: the next try sends the refused item, and shows the others as sent in the earlier try', async () => {
		const items = recipients(4);
		let refused = false;
		api.respondWith((request, index) => {
			if ((request.body as IDataObject).phone_number === items[2].phone && !refused) {
				refused = true;
				return { status: 400, body: { message: 'Invalid template' } };
			}
			return acceptAll(request, index);
		});
		// Without Continue On Fail: the first try stops at item 2, n8n runs the node again.
		const result = await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 1 } }, { onError: undefined, retryOnFail: true, maxTries: 2, waitBetweenTries: 0 });
		expect(items.map((item) => perRecipient(api.requests)[item.phone])).toEqual([
			{ received: 1, accepted: 1 },
			{ received: 1, accepted: 1 },
			{ received: 2, accepted: 1 },
			{ received: 1, accepted: 1 },
		]);
		expect(result.output(SEND_NODE).map((item) => item.json.sentInEarlierTry)).toEqual([true, true, undefined, undefined]);
	});
});

describe('Forget Sent Messages under n8n\'s Retry On Fail, and a store that fails', () => {
	const keyOf = (item: IDataObject) => `${String(item.phone)}|tpl-once`;
	const sendOnce = (items: IDataObject[]) => send(items, { sendOnce: 'recipientTemplate' });
	const forget = (items: IDataObject[], run: Partial<SendNodeRun> = {}) => runSendNode({ baseUrl: api.baseUrl, items, typeVersion: 2, parameters: { operation: 'forget' }, ...run });

	test.each(['continueRegularOutput', 'continueErrorOutput'] as const)(
		'%s: a first item without a key makes n8n run Forget again; a key the first try forgot, sent again by another execution between the tries, is not forgotten again',
		async (onError) => {
			const [item] = recipients(1);
			expect(outcomes(await sendOnce([item]))).toEqual(['sent']);
			const store = deduplicationStore() as unknown as { removeProcessed: (...args: unknown[]) => Promise<void> };
			const remove = store.removeProcessed.bind(store);
			let sentBetween: Promise<void> | undefined;
			// Right after the Forget's first try takes the key out, another execution sends the message again (n8n's
			// wait between the tries, 1 s, is far longer than that send).
			store.removeProcessed = async (...args: unknown[]) => {
				await remove(...args);
				sentBetween ??= new Promise<void>((resolve, reject) =>
					setImmediate(() => void sendOnce([item]).then((again) => (outcomes(again)[0] === 'sent' ? resolve() : reject(new Error(`not sent again: ${String(outcomes(again)[0])}`))), reject)),
				);
			};
			let result;
			try {
				result = await forget([{ messageKey: '' }, { messageKey: keyOf(item) }], { onError, retryOnFail: true, maxTries: 2, waitBetweenTries: 1000 });
				await sentBetween;
			} finally {
				store.removeProcessed = remove;
			}
			const rows = [...result.output(SEND_NODE, 0), ...(onError === 'continueErrorOutput' ? result.output(SEND_NODE, 1) : [])].map((output) => [output.pairedItem, output.json.forgotten ?? output.json.error]);
			expect(rows).toEqual(expect.arrayContaining([[{ item: 1 }, true], [{ item: 0 }, 'Message Key: is empty [item 0]']]));
			// Was sent a third time: the second try forgot the second send.
			expect(outcomes(await sendOnce([item]))).toEqual(['sentBefore']);
			expect(perRecipient(api.requests)[String(item.phone)].accepted).toBe(2);
		},
	);

	test('three tries (n8n up to 1.11x runs every one after a first row with an error): the try after the one that got through does not forget a message sent again since', async () => {
		const [item] = recipients(1);
		expect(outcomes(await sendOnce([item]))).toEqual(['sent']);
		const store = deduplicationStore() as unknown as { removeProcessed: (...args: unknown[]) => Promise<void> };
		const remove = store.removeProcessed.bind(store);
		let calls = 0;
		let sentBetween: Promise<void> | undefined;
		// The first try's removal fails (the record's three attempts); the second's gets through, and another execution sends the message again.
		store.removeProcessed = async (...args: unknown[]) => {
			if (++calls <= 3) throw new Error('connection lost');
			await remove(...args);
			sentBetween ??= new Promise<void>((resolve, reject) => setImmediate(() => void sendOnce([item]).then((again) => (outcomes(again)[0] === 'sent' ? resolve() : reject(new Error(String(outcomes(again)[0])))), reject)));
		};
		try {
			await forget([{ messageKey: keyOf(item) }], { onError: 'continueRegularOutput', retryOnFail: true, maxTries: 3, waitBetweenTries: 1000 });
			await sentBetween;
		} finally {
			store.removeProcessed = remove;
		}
		expect(outcomes(await sendOnce([item]))).toEqual(['sentBefore']);
	});

	test('a workflow not saved: the run fails saying so, Continue On Fail or not (nothing was tried)', async () => {
		const result = await forget([{ messageKey: 'k1' }], { onError: 'continueRegularOutput', workflowId: '' });
		expect(JSON.stringify(result.run.data.resultData)).toMatch(/Send Once needs a saved workflow/);
	});

	test.each(['continueRegularOutput', 'continueErrorOutput'] as const)('%s, the store failing for good: a failed row per item, paired, naming the item; not the input passed on', async (onError) => {
		const items = recipients(2);
		await sendOnce(items);
		const store = deduplicationStore() as unknown as { checkProcessedAndRecord: (...args: unknown[]) => Promise<unknown> };
		const record = store.checkProcessedAndRecord.bind(store);
		store.checkProcessedAndRecord = async () => {
			throw new Error('database is locked');
		};
		try {
			const result = await forget(items.map((item, index) => ({ messageKey: keyOf(item), row_number: index + 2 })), { onError });
			const failed = result.output(SEND_NODE, onError === 'continueErrorOutput' ? 1 : 0);
			expect(failed.map((output) => [output.pairedItem, output.json.error])).toEqual([
				[{ item: 0 }, 'database is locked [item 0]'],
				[{ item: 1 }, 'database is locked [item 1]'],
			]);
		} finally {
			store.checkProcessedAndRecord = record;
		}
		// Nothing was forgotten.
		expect(outcomes(await sendOnce(items))).toEqual(['sentBefore', 'sentBefore']);
	});

	test("a Send's error-output row read back from a sheet (details as JSON text) is forgotten by its key, with the default Message Key", async () => {
		const [item] = recipients(1);
		await sendOnce([item]);
		const row = { error: 'The API did not answer: may have been sent', details: JSON.stringify({ status: 'unknown', messageKey: keyOf(item) }) };
		expect((await forget([row])).output(SEND_NODE)[0].json).toEqual({ forgotten: true, messageKey: keyOf(item) });
	});
});
