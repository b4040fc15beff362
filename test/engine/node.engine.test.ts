import type { IDataObject } from 'n8n-workflow';

import type { ApiServer } from '../helpers/apiServer';
import { acceptAll, bodiesByPhone, phonesSent, startApiServer } from '../helpers/apiServer';
import { ENGINE, runSendNode, SEND_NODE, TEST_TOKEN } from '../helpers/engine';
import { n8nLoggerClass } from '../helpers/n8nLogger';

let api: ApiServer;
beforeEach(async () => {
	api = await startApiServer();
});
afterEach(async () => {
	await api.close();
});

const rows = [
	{ phone: '+62 812-3456-7890', name: 'Budi', invoice: 'INV-7' },
	{ phone: '6281300000001', name: 'Sari', invoice: 'INV-8' },
	{ phone: '(62) 813 0000 0002', name: 'Andi', invoice: 'INV-9' },
];

const mappedBody = {
	phoneNumber: '={{ $json.phone }}',
	templateCodeId: 'tpl-invoice',
	bodyValues: { values: [{ text: '={{ $json.name }}' }, { text: '={{ $json.invoice }}' }] },
};

function expectedBody(phone: string, name: string, invoice: string) {
	return {
		phone_number: phone,
		message: {
			type: 'template',
			template: {
				template_code_id: 'tpl-invoice',
				payload: [{ position: 'body', parameters: [{ type: 'text', text: name }, { type: 'text', text: invoice }] }],
			},
		},
	};
}

test('one request per item: exact body, endpoint and Authorization header; outputs with pairedItem', async () => {
	const result = await runSendNode({ baseUrl: api.baseUrl, items: rows, parameters: mappedBody });

	expect(result.run.data.resultData.error).toBeUndefined();
	expect(api.requests.map((r) => [r.method, r.url, r.headers.authorization, r.headers['content-type']])).toEqual(
		rows.map(() => ['POST', '/api/v2/push/message', TEST_TOKEN, 'application/json']),
	);
	expect(bodiesByPhone(api.requests)).toEqual([
		expectedBody('6281234567890', 'Budi', 'INV-7'),
		expectedBody('6281300000001', 'Sari', 'INV-8'),
		expectedBody('6281300000002', 'Andi', 'INV-9'),
	]);

	const output = result.output(SEND_NODE);
	const msgids = output.map((item) => item.json.msgid);
	expect(new Set(msgids).size).toBe(3);
	expect(output).toEqual([
		{ json: { success: true, msgid: msgids[0], phone_number: '6281234567890', template_code_id: 'tpl-invoice', attempts: 1, status: 'sent' }, pairedItem: { item: 0 } },
		{ json: { success: true, msgid: msgids[1], phone_number: '6281300000001', template_code_id: 'tpl-invoice', attempts: 1, status: 'sent' }, pairedItem: { item: 1 } },
		{ json: { success: true, msgid: msgids[2], phone_number: '6281300000002', template_code_id: 'tpl-invoice', attempts: 1, status: 'sent' }, pairedItem: { item: 2 } },
	]);
});

test('a Base URL that already ends in /api/v2 is refused with the fix before anything is sent', async () => {
	for (const suffix of ['/api/v2', '/api/v2/', '/api/v2/push/message']) {
		const result = await runSendNode({ baseUrl: `${api.baseUrl}${suffix}`, items: [rows[0]], parameters: mappedBody });
		expect(result.nodeError(SEND_NODE)?.message).toBe(`The credential's Base URL ends with the API's own path (${suffix.replace(/\/+$/, '')}); the node adds /api/v2/push/message itself`);
	}
	expect(api.requests).toHaveLength(0);
});

test('a base URL with a trailing slash and a token pasted with "Bearer " are used as given', async () => {
	await runSendNode({ baseUrl: `${api.baseUrl}/`, token: `Bearer ${TEST_TOKEN}`, items: [rows[0]], parameters: mappedBody });
	expect(api.requests).toHaveLength(1);
	expect(api.requests[0].url).toBe('/api/v2/push/message');
	expect(api.requests[0].headers.authorization).toBe(`Bearer ${TEST_TOKEN}`);
});

test('body values from one expression, media header and buttons mapped from the item', async () => {
	const items = [{ phone: '081234567890', values: ['Budi', 'INV-7'], pdf: 'https://cdn.example.com/INV-7.pdf', order: 'INV-7' }];
	const result = await runSendNode({
		baseUrl: api.baseUrl,
		items,
		parameters: {
			phoneNumber: '={{ $json.phone }}',
			templateCodeId: 'tpl-doc',
			bodyValuesMode: 'list',
			bodyValuesList: '={{ $json.values }}',
			headerType: 'document',
			headerMediaUrl: '={{ $json.pdf }}',
			buttons: {
				button: [
					{ kind: 'quickReply', index: 0, payload: 'paid-{{ $json.order }}' },
					{ kind: 'dynamicUrl', index: 1, urlSuffix: '={{ "orders/" + $json.order }}' },
				],
			},
			options: { defaultCountryCode: '62', includeRequestPayload: true },
		},
	});
	const expected = {
		phone_number: '6281234567890',
		message: {
			type: 'template',
			template: {
				template_code_id: 'tpl-doc',
				payload: [
					{ position: 'header', parameters: [{ type: 'document', document: { url: 'https://cdn.example.com/INV-7.pdf' } }] },
					{ position: 'body', parameters: [{ type: 'text', text: 'Budi' }, { type: 'text', text: 'INV-7' }] },
					{
						position: 'button',
						parameters: [
							// A parameter without a leading "=" is literal text in n8n: no expression here.
							{ sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'paid-{{ $json.order }}' }] },
							{ sub_type: 'url', index: '1', parameters: [{ type: 'text', text: 'orders/INV-7' }] },
						],
					},
				],
			},
		},
	};
	expect(api.requests.map((r) => r.body)).toEqual([expected]);
	expect(result.output(SEND_NODE)[0].json.request).toEqual(expected);
});

test('the raw JSON payload mode sends the given components', async () => {
	const payload = [{ position: 'body', parameters: [{ type: 'text', text: 'Budi' }] }];
	await runSendNode({
		baseUrl: api.baseUrl,
		items: [rows[0]],
		parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl-raw', payloadMode: 'json', payloadJson: JSON.stringify(payload) },
	});
	expect((api.requests[0].body as IDataObject).message).toEqual({ type: 'template', template: { template_code_id: 'tpl-raw', payload } });
});

describe('bad input', () => {
	const items = [rows[0], { phone: '', name: 'Nobody', invoice: 'INV-0' }, rows[1], { phone: '+62 811 ABC', name: 'X', invoice: 'INV-1' }];

	test('without Continue On Fail: the run stops on the first bad item, naming it and the field, and sends nothing', async () => {
		const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters: mappedBody });
		const error = result.nodeError(SEND_NODE);
		expect(error).toMatchObject({ name: 'NodeOperationError', message: 'Phone Number: is empty [item 1]', context: { itemIndex: 1 } });
		// The column is mapped: what is empty is this row's cell.
		expect(error?.description).toMatch(/^The column mapped to it is empty in this row: fill the cell, or leave rows without a number out with a Filter step before this node\. Item 1 is input row 2/);
		expect(api.requests).toHaveLength(0);
	});

	test('with Continue On Fail: every item comes out in order, the bad ones with their reason, only good ones sent', async () => {
		const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters: mappedBody, onError: 'continueRegularOutput' });
		expect(result.run.data.resultData.error).toBeUndefined();
		const output = result.output(SEND_NODE);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		expect(output.map((item) => item.json.success ?? (item.json.details as IDataObject).success)).toEqual([true, false, true, false]);
		// The columns a sent item has, so that the Table view reads as one table; the phone number
		// and template code id as given.
		expect(output[1].json).toEqual({
			success: false,
			phone_number: '',
			template_code_id: 'tpl-invoice',
			delivery: 'invalid',
			status: 'invalid',
			error: 'Phone Number: is empty [item 1]',
			details: { success: false, delivery: 'invalid', itemIndex: 1, phone_number: '', template_code_id: 'tpl-invoice', description: expect.stringMatching(/^The column mapped to it is empty in this row.*\. Item 1 is input row 2 \(n8n counts items from 0\)\.$/) },
		});
		expect(Object.keys(output[1].json).slice(0, 3)).toEqual(Object.keys(output[0].json).filter((key) => key !== 'msgid').slice(0, 3));
		expect(output[3].json.error).toBe('Phone Number: "+62 811 ABC" contains letters (ABC), which no phone number has [item 3]');
		expect(phonesSent(api.requests)).toEqual(['6281234567890', '6281300000001']);
	});

	test("rows read from a sheet (Google Sheets' row_number): the hint names the sheet's row too, the one a user opens", async () => {
		const sheet = items.map((item, index) => ({ ...item, row_number: index === 3 ? '5' : index + 2 }));
		const result = await runSendNode({ baseUrl: api.baseUrl, items: sheet, parameters: mappedBody, onError: 'continueRegularOutput' });
		const hints = result.output(SEND_NODE).map((item) => (item.json.details as IDataObject | undefined)?.description);
		expect(hints[1]).toMatch(/\. Item 1 is input row 2 \(n8n counts items from 0\)\. Its row_number \(a Google Sheets row\) is 3\.$/);
		expect(hints[3]).toMatch(/ Its row_number \(a Google Sheets row\) is 5\.$/);
		// Not a row number: nothing said of it.
		for (const rowNumber of [0, -1, 2.5, 'B7', true]) {
			const one = await runSendNode({ baseUrl: api.baseUrl, items: [{ ...items[1], row_number: rowNumber }], parameters: mappedBody, onError: 'continueRegularOutput' });
			expect((one.output(SEND_NODE)[0].json.details as IDataObject).description).toMatch(/ Item 0 is input row 1 \(n8n counts items from 0\)\.$/);
		}
	});

	test('with the error output: failed items go to the second output, sent ones to the first', async () => {
		const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters: mappedBody, onError: 'continueErrorOutput' });
		expect(result.output(SEND_NODE, 0).map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 2 }]);
		expect(result.output(SEND_NODE, 1).map((item) => [item.pairedItem, item.json.error])).toEqual([
			[{ item: 1 }, 'Phone Number: is empty [item 1]'],
			[{ item: 3 }, 'Phone Number: "+62 811 ABC" contains letters (ABC), which no phone number has [item 3]'],
		]);
		// With their details, but from n8n 1.121 to 2.35, where the item carries its error (rows.ts) and n8n
		// then keeps only the error message.
		const kept = result.output(SEND_NODE, 1).map((item) => (item.json.details as IDataObject | undefined)?.delivery ?? Object.keys(item.json).join());
		expect(kept).toEqual(ENGINE.keepsOnlyErrorOnErrorOutput ? ['error', 'error'] : ['invalid', 'invalid']);
	});
});

describe('what the API answers', () => {
	test('an HTTP error keeps the status and the API reason with its code', async () => {
		api.respondWith((request, index) =>
			index === 1 ? { status: 406, body: { errors: [{ message: 'message_value is not same as the template', code: 39 }] } } : acceptAll(request, index),
		);
		const result = await runSendNode({ baseUrl: api.baseUrl, items: rows, parameters: mappedBody, onError: 'continueRegularOutput' });
		const output = result.output(SEND_NODE);
		expect(output.map((item) => item.json.success ?? (item.json.details as IDataObject).success)).toEqual([true, false, true]);
		expect(output[1].json).toEqual({
			success: false,
			phone_number: '6281300000001',
			template_code_id: 'tpl-invoice',
			delivery: 'failed',
			status: 'failed',
			error: 'The API refused the message (HTTP 406): message_value is not same as the template (code 39) [item 1]',
			details: {
				success: false,
				delivery: 'failed',
				httpCode: 406,
				apiCode: 39,
				itemIndex: 1,
				phone_number: '6281300000001',
				template_code_id: 'tpl-invoice',
				attempts: 1,
				description:
					'Code 39: wrong or missing parameters: the values do not match the template. Give exactly one body value per placeholder of the template, and header and button values only where the template has them.',
			},
		});
		expect(api.requests).toHaveLength(3);
	});

	test('without Continue On Fail the node fails with a NodeApiError carrying the status, with no token in it', async () => {
		api.respondWith((request) => ({ status: 401, body: { message: 'invalid token', got: request.headers.authorization } }));
		const result = await runSendNode({ baseUrl: api.baseUrl, items: [rows[0]], parameters: mappedBody });
		expect(JSON.stringify(result.nodeError(SEND_NODE))).not.toContain(TEST_TOKEN.slice(10, 40));
		expect(result.nodeError(SEND_NODE)).toMatchObject({
			name: 'NodeApiError',
			httpCode: '401',
			message: 'The API refused the message (HTTP 401): invalid token [item 0]',
			description: expect.stringMatching(/check the JWT/),
		});
	});

	test('a 200 with success: false is a failure, a 200 without msgid is "delivery unknown"', async () => {
		api.respondWith((_request, index) =>
			index === 0 ? { status: 200, body: { success: false, message: 'Number not on the platform' } } : { status: 200, body: { success: true } },
		);
		const result = await runSendNode({ baseUrl: api.baseUrl, items: rows.slice(0, 2), parameters: mappedBody, onError: 'continueRegularOutput' });
		const [first, second] = result.output(SEND_NODE);
		expect(first.json).toMatchObject({
			error: 'The API refused the message (HTTP 200): Number not on the platform [item 0]',
			details: { success: false, delivery: 'failed' },
		});
		expect(second.json).toMatchObject({
			error: expect.stringMatching(/^Delivery unknown \(HTTP 200\): the API answered HTTP 200 without success: true and a msgid \[item 1\]$/),
			details: { success: false, delivery: 'unknown', description: expect.stringMatching(/not sent again to avoid a duplicate/) },
		});
	});

	test('an unreachable API is tried again (nothing was sent), then reported as such', async () => {
		const { baseUrl } = api;
		await api.close();
		const result = await runSendNode({ baseUrl, items: [rows[0]], parameters: { ...mappedBody, options: { maxAttempts: 2 } }, onError: 'continueRegularOutput' });
		expect(result.output(SEND_NODE)[0].json).toMatchObject({
			error: 'Could not reach the API: connection refused [item 0]',
			details: { success: false, delivery: 'failed', errorCode: 'ECONNREFUSED', attempts: 2, description: expect.stringMatching(/^The message was not sent \(ECONNREFUSED\)\. Check the Base URL/) },
		});
		api = await startApiServer();
	});

	test('the JWT never shows in outputs or errors, even when the API echoes it back', async () => {
		api.respondWith((request) => ({ status: 400, body: { message: `bad request from ${String(request.headers.authorization)}`, echo: request.headers } }));
		const result = await runSendNode({
			baseUrl: api.baseUrl,
			token: `Bearer ${TEST_TOKEN}`,
			items: rows,
			parameters: mappedBody,
			onError: 'continueRegularOutput',
		});
		const output = result.output(SEND_NODE);
		expect(output[0].json.error).toBe('The API refused the message (HTTP 400): bad request from Bearer [redacted] [item 0]');
		const everything = JSON.stringify(output);
		expect(everything).not.toContain(TEST_TOKEN.slice(10, 40));
		expect(everything).toContain('[redacted]');
	});
});

test('dry run: builds and checks every item, outputs the request it would send, sends nothing', async () => {
	const items = [rows[0], { phone: 'not a phone', name: 'X', invoice: 'INV-0' }];
	const result = await runSendNode({
		baseUrl: api.baseUrl,
		items,
		parameters: { ...mappedBody, options: { dryRun: true } },
		onError: 'continueRegularOutput',
	});
	const [good, bad] = result.output(SEND_NODE);
	expect(good).toEqual({
		json: { success: false, dryRun: true, phone_number: '6281234567890', template_code_id: 'tpl-invoice', request: expectedBody('6281234567890', 'Budi', 'INV-7'), status: 'dryRun' },
		pairedItem: { item: 0 },
	});
	expect(bad.json).toMatchObject({ error: 'Phone Number: "not a phone" contains letters (not a phone), which no phone number has [item 1]', details: { delivery: 'invalid', dryRun: true } });
	expect(JSON.stringify(result.output(SEND_NODE))).not.toContain(TEST_TOKEN);
	expect(api.requests).toHaveLength(0);
});

test('Dry Run by an expression: the text "true" (a webhook\'s query, a variable) sends nothing; text it cannot read fails the run naming the option, sending nothing', async () => {
	const dryBy = (dry: string) =>
		runSendNode({ baseUrl: api.baseUrl, items: [{ ...rows[0], dry }], parameters: { ...mappedBody, options: { dryRun: '={{ $json.dry }}' } }, typeVersion: 2 });
	const dry = await dryBy('true');
	expect(dry.output(SEND_NODE).map((item) => item.json.status)).toEqual(['dryRun']);
	const unreadable = await dryBy('yes');
	expect(unreadable.nodeError(SEND_NODE)?.message).toBe('Options → Dry Run (Send Nothing): expected true or false, got "yes"');
	expect(unreadable.nodeError(SEND_NODE)?.name).toBe('NodeOperationError');
	expect(api.requests).toHaveLength(0);
});

test('version 2: a dry run carries the request only where asked for, and every row reads as one table, status first', async () => {
	const items = [rows[0], { phone: 'not a phone', name: 'X', invoice: 'INV-0' }, rows[0]];
	const run = (options: object) =>
		runSendNode({ baseUrl: api.baseUrl, items, parameters: { ...mappedBody, options: { dryRun: true, ...options } }, onError: 'continueRegularOutput', typeVersion: 2 });
	const plain = (await run({})).output(SEND_NODE).map((item) => item.json);
	expect(plain.map((json) => Object.keys(json).slice(0, 2))).toEqual([
		['status', 'success'],
		['status', 'success'],
		['status', 'success'],
	]);
	expect(plain.map((json) => [json.status, json.success, json.phone_number, 'request' in json])).toEqual([
		['dryRun', false, '6281234567890', false],
		['invalid', false, 'not a phone', false],
		['dryRun', false, '6281234567890', false],
	]);
	const asked = (await run({ includeRequestPayload: true })).output(SEND_NODE);
	expect(asked[0].json.request).toEqual(expectedBody('6281234567890', 'Budi', 'INV-7'));
	expect(api.requests).toHaveLength(0);
});

test('a dry run says whether the credential is well formed, and what is wrong with it, without sending', async () => {
	const hints = async (baseUrl: string) => {
		const result = await runSendNode({ baseUrl, items: [rows[0]], parameters: { ...mappedBody, options: { dryRun: true } } });
		expect(result.output(SEND_NODE)[0].json.status).toBe('dryRun');
		return (result.run.data.resultData.runData[SEND_NODE][0].hints ?? []).map((hint) => hint.message).join(' ');
	};
	const [good, wrong] = [await hints(api.baseUrl), await hints(`${api.baseUrl}/api/v2`)];
	expect(api.requests).toHaveLength(0);
	// n8n before 1.80 keeps no execution hints.
	if (!ENGINE.keepsExecutionHints) return;
	expect(good).toMatch(/The credential's Base URL and JWT are well formed/);
	expect(wrong).toMatch(/A real run would send nothing: The credential's Base URL ends with the API's own path \(\/api\/v2\)/);
});

test('an item a real run would skip (Skip Duplicate Messages, a Send Once key repeated) says so in the dry run, without a request; a repeat that would go keeps it', async () => {
	const twice = [rows[0], { ...rows[0], phone: '+62 812-3456-7890' }];
	const dry = (options: object, parameters: object = {}) =>
		runSendNode({ baseUrl: api.baseUrl, items: twice, parameters: { ...mappedBody, ...parameters, options: { dryRun: true, includeRequestPayload: true, ...options } }, typeVersion: 2 }).then((result) => result.output(SEND_NODE).map((item) => item.json));
	const skipping = await dry({ skipDuplicates: true });
	expect(skipping[1]).toMatchObject({ status: 'dryRun', skipped: true, duplicateOf: 0, reason: expect.stringMatching(/item 0/) });
	expect(skipping[1]).not.toHaveProperty('request');
	const sending = await dry({ skipDuplicates: false });
	expect(sending[1]).toMatchObject({ status: 'dryRun', duplicateOf: 0, request: expectedBody('6281234567890', 'Budi', 'INV-7') });
	expect(sending[1]).not.toHaveProperty('skipped');
	const byKey = await dry({}, { sendOnce: 'customKey', messageKey: '={{ $json.invoice }}' });
	expect(byKey[1]).toMatchObject({ status: 'dryRun', skipped: true, reason: expect.stringContaining('Same message key as item 0') });
	expect(byKey[1]).not.toHaveProperty('request');
	expect(api.requests).toHaveLength(0);
});

test('version 1 (saved with 0.1.0): a dry run keeps the request on every row, a repeat a real run would skip included', async () => {
	const items = [rows[0], { ...rows[0], phone: '+62 812 3456 7890' }];
	const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters: { ...mappedBody, options: { dryRun: true, skipDuplicates: true } }, typeVersion: 1 });
	expect(result.output(SEND_NODE).map((item) => [item.json.request !== undefined, item.json.duplicateOf, item.json.skipped])).toEqual([
		[true, undefined, undefined],
		[true, 0, undefined],
	]);
	expect(api.requests).toHaveLength(0);
});

test('with an invalid row and On Error at Stop Workflow, the dry run says a real run would send nothing, as it does', async () => {
	const items = [rows[0], { ...rows[0], phone: 'not a number' }];
	const real = await runSendNode({ baseUrl: api.baseUrl, items, parameters: mappedBody, typeVersion: 2 });
	expect(real.run.data.resultData.error).toBeDefined();
	const summaryOf = async (onError?: 'continueRegularOutput') => {
		const dry = await runSendNode({ baseUrl: api.baseUrl, items, parameters: { ...mappedBody, options: { dryRun: true } }, typeVersion: 2, onError });
		return (dry.run.data.resultData.runData[SEND_NODE][0].hints ?? []).map((hint) => hint.message).join(' ');
	};
	const [stopping, continuing] = [await summaryOf(), await summaryOf('continueRegularOutput')];
	expect(api.requests).toHaveLength(0);
	if (!ENGINE.keepsExecutionHints) return;
	expect(stopping).toMatch(/^Dry run: 1 of 2 item\(s\) would be sent\. 1 fails a check: 1 × Phone Number\. A real run would send nothing: the invalid item 1 stops it before the first request \(On Error: Continue sends the others\)\./);
	expect(continuing).not.toMatch(/would send nothing/);
});

test('Send Once in a workflow never saved: the dry run says a real run would send nothing, and why', async () => {
	const result = await runSendNode({ baseUrl: api.baseUrl, items: [rows[0]], parameters: { ...mappedBody, sendOnce: 'recipientTemplate', options: { dryRun: true } }, typeVersion: 2, workflowId: '' });
	expect(api.requests).toHaveLength(0);
	if (!ENGINE.keepsExecutionHints) return;
	expect((result.run.data.resultData.runData[SEND_NODE][0].hints ?? []).map((hint) => hint.message).join(' ')).toMatch(/A real run would send nothing: Send Once needs a saved workflow: this one has no id yet\./);
});

test('Using JSON left at its default: version 1 (saved with 0.1.0) sends what it always sent, version 2 an empty payload', async () => {
	const json = { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl-json', payloadMode: 'json' };
	await runSendNode({ baseUrl: api.baseUrl, items: [rows[0]], parameters: json, typeVersion: 1 });
	await runSendNode({ baseUrl: api.baseUrl, items: [rows[0]], parameters: json, typeVersion: 2 });
	const payloads = api.requests.map((request) => (request.body as { message: { template: { payload: unknown } } }).message.template.payload);
	expect(payloads).toEqual([[{ position: 'body', parameters: [{ type: 'text', text: 'Budi' }] }], []]);
});

test('version 1 (saved with 0.1.0) refuses, with the fix, the two inputs 0.1.0 sent unchecked; nothing is sent for them', async () => {
	const twoButtonComponents = JSON.stringify([
		{ position: 'button', parameters: [{ sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'yes' }] }] },
		{ position: 'button', parameters: [{ sub_type: 'quick_reply', index: '1', parameters: [{ type: 'payload', payload: 'no' }] }] },
	]);
	const json = await runSendNode({ baseUrl: api.baseUrl, items: [rows[0]], parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl-json', payloadMode: 'json', payloadJson: twoButtonComponents }, typeVersion: 1 });
	expect(json.nodeError(SEND_NODE)?.message).toBe('Payload (JSON) → component 2 → position: is a second button component [item 0]');
	const media = await runSendNode({ baseUrl: api.baseUrl, items: [rows[0]], parameters: { ...mappedBody, headerType: 'image', headerMediaUrl: 'https://cdn.example.com/my file.png' }, typeVersion: 1 });
	expect(media.nodeError(SEND_NODE)?.message).toBe('Header Media URL: "https://cdn.example.com/my file.png" contains a space, tab, line break, control character or backslash [item 0]');
	expect(api.requests).toHaveLength(0);
});

test("version 1 rows keep 0.1.0's words in `delivery`: the rows not sent after a refused token are 'failed', as 0.1.0 marked them", async () => {
	api.respondWith(() => ({ status: 401, body: { errors: [{ message: 'Token invalid', code: 45 }] } }));
	const items = [0, 1, 2].map((i) => ({ phone: `+628120000000${i}` }));
	const parameters = { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl', options: { maxConcurrency: 1 } };
	const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters, onError: 'continueRegularOutput', typeVersion: 1 });
	const rowsOut = result.output(SEND_NODE).map((item) => [item.json.status, (item.json.details as IDataObject).delivery]);
	expect(rowsOut).toEqual([['failed', 'failed'], ['notSent', 'failed'], ['notSent', 'failed']]);
	expect(api.requests).toHaveLength(1);
});

test('version 2 sends the same bodies as version 1 for the same parameters', async () => {
	await runSendNode({ baseUrl: api.baseUrl, items: rows, parameters: mappedBody, typeVersion: 1 });
	await runSendNode({ baseUrl: api.baseUrl, items: rows, parameters: mappedBody, typeVersion: 2 });
	const [first, second] = [bodiesByPhone(api.requests.slice(0, 3)), bodiesByPhone(api.requests.slice(3))];
	expect(second).toEqual(first);
	expect(first[0]).toEqual(expectedBody('6281234567890', 'Budi', 'INV-7'));
});

test("a run stopped by an invalid row says so in n8n's log, as every other run does: n8n logs the error without its message", async () => {
	const prototype = n8nLoggerClass().prototype as unknown as { log: (...args: unknown[]) => void };
	const logged: string[] = [];
	const spy = jest.spyOn(prototype, 'log').mockImplementation(function (this: unknown, ...args: unknown[]) {
		logged.push(args.map(String).join(' '));
	});
	try {
		const result = await runSendNode({ baseUrl: api.baseUrl, items: [rows[0], { ...rows[1], phone: '0812 3456 7890' }], parameters: mappedBody, typeVersion: 2 });
		expect(result.nodeError(SEND_NODE)?.message).toMatch(/^Phone Number: "0812 3456 7890" starts with 0/);
		expect(logged.filter((line) => line.includes('Phone Number: "0812 3456 7890" starts with 0, a local number without country code [item 1]. ') && /Nothing was sent/.test(line))).toHaveLength(1);
		expect(api.requests).toHaveLength(0);
	} finally {
		spy.mockRestore();
	}
});
