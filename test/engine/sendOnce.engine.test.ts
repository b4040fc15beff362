/**
 * A message goes out once: by its identity across tries of one execution (n8n's Retry On Fail),
 * and with Send Once across executions, through n8n's deduplication store (an in-memory stand-in
 * for the one in n8n's database, with its semantics: test/helpers/deduplicationStore.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import type { ApiServer } from '../helpers/apiServer';
import { acceptAll, perRecipient, startApiServer } from '../helpers/apiServer';
import { deduplicationStore, resetDeduplicationStore } from '../helpers/deduplicationStore';
import type { SendNodeRun } from '../helpers/engine';
import { runSendNode, SEND_NODE } from '../helpers/engine';

let api: ApiServer;
beforeEach(async () => {
	api = await startApiServer();
	resetDeduplicationStore();
});
afterEach(async () => {
	await api.close();
});

const recipients = (count: number, from = 0) => Array.from({ length: count }, (_, i) => ({ phone: `62812000${String(from + i).padStart(5, '0')}`, order: `order-${from + i}`, name: `Name ${from + i}` }));
const details = (json: IDataObject) => (json.details ?? {}) as IDataObject;
const outcomes = (result: Awaited<ReturnType<typeof runSendNode>>) =>
	result.output(SEND_NODE).map(({ json }) => (json.success === true ? 'sent' : json.skipped === true ? (json.sentBefore ? 'sentBefore' : 'repeat') : details(json).delivery));

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
		expect(skipped.reason).toMatch(/^Sent by an earlier execution of this workflow/);
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
		expect(twice.output(SEND_NODE)[1].json).toMatchObject({ duplicateOf: 0, reason: 'Same message key as item 0: sent once (Send Once)' });
		expect(api.requests).toHaveLength(2);
	});

	test('an empty message key fails that item with the field named, before anything is sent', async () => {
		const items = [...recipients(1), { phone: '6281234500099', order: '', name: 'Sari' }];
		const result = await send(items, { sendOnce: 'customKey', messageKey: '={{ $json.order }}' });
		expect(outcomes(result)).toEqual(['sent', 'invalid']);
		expect(result.output(SEND_NODE)[1].json.error).toBe('Message Key: is empty [item 1]');
	});

	test('a refused message is forgotten again, so a later run sends it; an unknown one stays recorded', async () => {
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
		expect(outcomes(second)).toEqual(['sent', 'sentBefore', 'sentBefore']);
		const counts = perRecipient(api.requests);
		expect(counts[items[0].phone]).toEqual({ received: 2, accepted: 1 });
		expect(counts[items[1].phone]).toEqual({ received: 1, accepted: 0 });
	});

	test('items held back when a run stops are forgotten, and go out on the next run', async () => {
		const items = recipients(6);
		// Without Continue On Fail the first failure stops the run; the rest were recorded a block ahead.
		api.respondWith((request, index) => (index === 0 ? { status: 400, body: { message: 'Invalid template' } } : acceptAll(request, index)));
		const first = await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 3 } }, { onError: undefined });
		expect(first.nodeError(SEND_NODE)).toBeDefined();
		expect(api.requests.length).toBeLessThan(items.length);
		const sentFirst = new Set(api.requests.slice(1).map((request) => (request.body as IDataObject).phone_number));

		const second = await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 3 } });
		expect(outcomes(second)).toEqual(items.map((item) => (sentFirst.has(item.phone) ? 'sentBefore' : 'sent')));
		for (const count of Object.values(perRecipient(api.requests))) expect(count.accepted).toBe(1);
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

	test('the store is called three times per block of Max Concurrent Requests messages, and once at the end', async () => {
		const items = recipients(200);
		await send(items, { sendOnce: 'recipientTemplate', options: { maxConcurrency: 10, maxPerSecond: 0 } });
		expect(api.requests).toHaveLength(200);
		// Per block: record keys and markers, look the markers up again, remove them. The end: the
		// sent keys once more (nothing to forget, so no call for that).
		expect(deduplicationStore().stats.calls).toBe((200 / 10) * 3 + 1);
		expect(deduplicationStore().records.get('test-workflow/')).toHaveLength(200);
	});

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
