/**
 * The template check in n8n's engine: a sheet whose rows do not all fit the template sends only
 * the rows that fit (or nothing, without Continue On Fail), outputs carry the rendered message,
 * a dry run sums the whole input up, and repeated rows are skipped on request.
 */
import path from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import type { ApiServer } from '../helpers/apiServer';
import { phonesSent, startApiServer } from '../helpers/apiServer';
import { resetDeduplicationStore } from '../helpers/deduplicationStore';
import { ENGINE, PACKAGE_ROOT, runSendNode, SEND_NODE } from '../helpers/engine';

let api: ApiServer;
beforeEach(async () => {
	api = await startApiServer();
});
afterEach(async () => {
	await api.close();
});

const BODY = 'Hi {{1}}, your order {{2}} is confirmed.';
const template = { bodyText: BODY, buttons: { button: [{ kind: 'dynamicUrl', label: 'Track order' }] } };
const parameters = (options: IDataObject = {}) => ({
	phoneNumber: '={{ $json.phone }}',
	templateCodeId: 'order_confirmed',
	bodyValuesMode: 'list',
	bodyValuesList: '={{ $json.values }}',
	buttons: { button: [{ kind: 'dynamicUrl', index: 0, urlSuffix: '={{ $json.order }}' }] },
	template,
	options,
});
const row = (i: number, values: string[]) => ({ phone: `6281200000${String(i).padStart(3, '0')}`, values, order: `INV-${i}` });
const sheet = [row(0, ['Budi', 'INV-1']), row(1, ['Sari']), row(2, ['Andi', 'INV-3', 'extra']), row(3, ['Dewi', 'INV-4'])];

test('with Continue On Fail only the rows that fit the template are sent, and every sent item shows its message', async () => {
	const result = await runSendNode({ baseUrl: api.baseUrl, items: sheet, parameters: parameters(), onError: 'continueRegularOutput' });
	expect(phonesSent(api.requests)).toEqual(['6281200000000', '6281200000003']);
	const output = result.output(SEND_NODE);
	expect(output[0].json).toMatchObject({ success: true, preview: 'Hi Budi, your order INV-1 is confirmed.\n[Track order → …/INV-0]' });
	expect(output[1].json.error).toBe('Body Values: has 1 value(s); the template body has 2 placeholders, {{1}} to {{2}} [item 1]');
	expect(output[2].json.error).toBe('Body Values: has 3 value(s); the template body has 2 placeholders, {{1}} to {{2}} [item 2]');
	expect(output[3].json).toMatchObject({ success: true, preview: 'Hi Dewi, your order INV-4 is confirmed.\n[Track order → …/INV-3]' });
});

test('without Continue On Fail nothing is sent, and the error names the first row that does not fit', async () => {
	const result = await runSendNode({ baseUrl: api.baseUrl, items: sheet, parameters: parameters() });
	expect(api.requests).toHaveLength(0);
	const error = result.nodeError(SEND_NODE);
	expect(error?.message).toBe('Body Values: has 1 value(s); the template body has 2 placeholders, {{1}} to {{2}} [item 1]');
	expect(error?.description).toMatch(/ Nothing was sent\. 1 other row is invalid too: run with Options → Dry Run \(Send Nothing\) to list every invalid row at once\.$/);
});

test('Include Input Fields: every row carries its input columns and its status, for writing back to the sheet; the run is summed up', async () => {
	const rows = sheet.map((item, i) => ({ ...item, row_number: i + 2, name: `Customer ${i}` }));
	const result = await runSendNode({ baseUrl: api.baseUrl, items: rows, parameters: parameters({ includeInputFields: true }), onError: 'continueRegularOutput' });
	const output = result.output(SEND_NODE);
	expect(output.map((item) => [item.json.row_number, item.json.name, item.json.status])).toEqual([
		[2, 'Customer 0', 'sent'],
		[3, 'Customer 1', 'invalid'],
		[4, 'Customer 2', 'invalid'],
		[5, 'Customer 3', 'sent'],
	]);
	expect(output[0].json).toMatchObject({ success: true, msgid: expect.any(String), phone: sheet[0].phone });
	expect(output[1].json).toMatchObject({ success: false, error: expect.stringMatching(/^Body Values: /) });
	const hints = (result.run.data.resultData.runData[SEND_NODE][0].hints ?? []).map((hint) => hint.message);
	expect(hints).toEqual(ENGINE.keepsExecutionHints ? ['Sent 2 of 4 item(s): 2 invalid.'] : []);
});

describe.each([1, 2])("Include Input Fields: the node's columns win on every row, in one order (node version %i)", (typeVersion) => {
	// Every column a row of the node can have, in its one order (output/rows.ts; the README states its start).
	const { sendColumnsOf } = require(path.join(PACKAGE_ROOT, 'dist', 'nodes', 'TemplateMessage', 'output', 'rows.js')) as { sendColumnsOf(typeVersion: number): string[] };
	const NODE_COLUMNS = sendColumnsOf(typeVersion);
	// A sheet whose columns are named like every one of them, holding what an earlier run wrote back.
	const stale = Object.fromEntries(NODE_COLUMNS.map((column) => [column, `stale ${column}`]));
	const person = (phone: string, name = 'Ayu') => ({ row_number: phone.slice(-2), phone, values: [name, 'INV-1'], order: 'INV-1', ...stale });
	const rows = [person('6281200000101'), person('6281200000102'), person('not a phone'), person('6281200000104'), person('6281200000101'), person('6281200000106'), person('6281200000107')];
	const shapeOf = (json: IDataObject) => ({ keys: Object.keys(json), staleValues: NODE_COLUMNS.filter((column) => json[column] === stale[column]) });
	// `error` only on a row that has one: n8n 1.x takes even a null one for a failure, and runs the node again under Retry On Fail.
	const FAILED = ['failed', 'invalid', 'unknown', 'notSent'];
	const expectedFor = (status: unknown) => ({
		keys: ['row_number', 'phone', 'values', 'order', ...NODE_COLUMNS.filter((column) => column !== 'error' || FAILED.includes(String(status)))],
		staleValues: [],
	});

	test('sent, failed, invalid, unknown, skipped, not sent, sent before, in doubt and dry-run rows', async () => {
		resetDeduplicationStore();
		api.respondWith((request, index) => {
			const phone = (request.body as { phone_number: string }).phone_number;
			if (phone.endsWith('102')) return { status: 400, body: { errors: [{ message: 'Invalid parameter', code: 39 }] } };
			if (phone.endsWith('104') && index < 5) return { resetAfterBody: true };
			if (phone.endsWith('106')) return { status: 401, body: { errors: [{ message: 'Token invalid', code: 45 }] } };
			return { status: 200, body: { success: true, msgid: `m-${index}` } };
		});
		const run = (options: IDataObject) =>
			runSendNode({ baseUrl: api.baseUrl, items: rows, typeVersion, parameters: { ...parameters({ includeInputFields: true, skipDuplicates: true, maxConcurrency: 1, ...options }), sendOnce: 'recipientTemplate' }, onError: 'continueRegularOutput' });
		const first = (await run({})).output(SEND_NODE);
		expect(first.map((item) => item.json.status)).toEqual(['sent', 'failed', 'invalid', 'unknown', 'skipped', 'failed', 'notSent']);
		const again = (await run({})).output(SEND_NODE);
		expect(again.map((item) => item.json.status)).toEqual(['skipped', 'failed', 'invalid', 'inDoubt', 'skipped', 'failed', 'notSent']);
		const dry = (await run({ dryRun: true })).output(SEND_NODE);
		expect(dry.map((item) => item.json.status)).toEqual(['dryRun', 'dryRun', 'invalid', 'dryRun', 'dryRun', 'dryRun', 'dryRun']);
		for (const item of [...first, ...again, ...dry]) expect({ status: item.json.status, ...shapeOf(item.json) }).toEqual({ status: item.json.status, ...expectedFor(item.json.status) });
		// Empty where the row has none: a row not sent has no msgid, a sent one no error.
		expect(first[0].json).toMatchObject({ msgid: expect.stringMatching(/^m-/) });
		expect(first[0].json).not.toHaveProperty('error');
		expect(again[0].json).toMatchObject({ msgid: null, sentBefore: true });
	});

	test('without Include Input Fields a row has only its own columns, in the same order', async () => {
		const result = await runSendNode({ baseUrl: api.baseUrl, items: [row(0, ['Budi', 'INV-1']), row(0, ['Budi', 'INV-1'])], typeVersion, parameters: parameters({ skipDuplicates: true }), onError: 'continueRegularOutput' });
		const [sent, skipped] = result.output(SEND_NODE).map((item) => Object.keys(item.json));
		expect(sent).toEqual(['status', 'success', 'msgid', 'phone_number', 'template_code_id', 'attempts', 'preview']);
		expect(skipped).toEqual(['status', 'success', 'phone_number', 'template_code_id', 'reason', 'skipped', 'duplicateOf', 'preview']);
	});
});

test('without Include Input Fields the rows carry only the node\'s fields, each with its status', async () => {
	const result = await runSendNode({ baseUrl: api.baseUrl, items: sheet, parameters: parameters(), onError: 'continueRegularOutput' });
	const output = result.output(SEND_NODE);
	expect(output.map((item) => item.json.status)).toEqual(['sent', 'invalid', 'invalid', 'sent']);
	expect(output[0].json.phone).toBeUndefined();
});

describe('buttons entered once: under Template (Checks and Preview) → Buttons, with their values', () => {
	const once = {
		bodyText: BODY,
		buttons: { button: [{ kind: 'dynamicUrl', label: 'Track order', urlSuffix: '={{ $json.order }}' }, { kind: 'callPhone', label: 'Call us' }, { kind: 'quickReply', label: 'Stop', payload: 'stop' }] },
	};
	const withoutOwnButtons = { ...parameters(), buttons: {}, template: once };

	test('each value-taking button of the template is sent at its position; the preview shows every label', async () => {
		const result = await runSendNode({ baseUrl: api.baseUrl, items: [sheet[0]], parameters: withoutOwnButtons });
		const [item] = result.output(SEND_NODE);
		expect(item.json).toMatchObject({ success: true, preview: 'Hi Budi, your order INV-1 is confirmed.\n[Track order → …/INV-0] [Call us] [Stop]' });
		const payload = (api.requests[0].body as { message: { template: { payload: IDataObject[] } } }).message.template.payload;
		expect(payload.find((component) => component.position === 'button')).toEqual({
			position: 'button',
			parameters: [
				{ sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'INV-0' }] },
				{ sub_type: 'quick_reply', index: '2', parameters: [{ type: 'payload', payload: 'stop' }] },
			],
		});
	});

	test('given in both places, or one of them without its value: the item fails naming the field, nothing is sent', async () => {
		const both = await runSendNode({ baseUrl: api.baseUrl, items: [sheet[0]], parameters: { ...parameters(), template: once }, onError: 'continueRegularOutput' });
		expect(both.output(SEND_NODE)[0].json.error).toBe('Buttons: are given here and, with their values, under Template (Checks and Preview) → Buttons [item 0]');
		const missing = { ...once, buttons: { button: [once.buttons.button[0], { kind: 'quickReply', label: 'Stop' }] } };
		const oneMissing = await runSendNode({ baseUrl: api.baseUrl, items: [sheet[0]], parameters: { ...withoutOwnButtons, template: missing }, onError: 'continueRegularOutput' });
		expect(oneMissing.output(SEND_NODE)[0].json.error).toBe('Template (Checks and Preview) → Buttons → button 2: has no payload, while other buttons of the template carry their values [item 0]');
		expect(api.requests).toHaveLength(0);
	});
});

describe('a template text pasted into the editor, which switches the field to Expression mode', () => {
	test('placeholders only: taken as written, the same check and preview as in Fixed mode', async () => {
		const pasted = { ...template, bodyText: `=${BODY}` };
		const result = await runSendNode({ baseUrl: api.baseUrl, items: sheet, parameters: { ...parameters(), template: pasted }, onError: 'continueRegularOutput' });
		const output = result.output(SEND_NODE);
		expect(output[0].json).toMatchObject({ success: true, preview: 'Hi Budi, your order INV-1 is confirmed.\n[Track order → …/INV-0]' });
		expect(output[1].json.error).toBe('Body Values: has 1 value(s); the template body has 2 placeholders, {{1}} to {{2}} [item 1]');
		expect(api.requests).toHaveLength(2);
	});

	test('a real expression giving the whole text still works', async () => {
		const items = sheet.map((item) => ({ ...item, templateText: BODY }));
		const mapped = { ...template, bodyText: '={{ $json.templateText }}' };
		const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters: { ...parameters(), template: mapped }, onError: 'continueRegularOutput' });
		expect(result.output(SEND_NODE)[3].json).toMatchObject({ success: true, preview: 'Hi Dewi, your order INV-4 is confirmed.\n[Track order → …/INV-3]' });
	});

	test('placeholders mixed with real expressions: every row fails naming the cause and the fix, nothing is sent', async () => {
		const mixed = { ...template, bodyText: '=Hi {{1}}, your order {{2}} from {{ $json.shop }} is confirmed.' };
		const result = await runSendNode({ baseUrl: api.baseUrl, items: sheet, parameters: { ...parameters(), template: mixed }, onError: 'continueRegularOutput' });
		const [first] = result.output(SEND_NODE);
		expect(first.json.error).toBe('Template (Checks and Preview) → Body Text: is in Expression mode and mixes n8n expressions with template placeholders: n8n computed {{1}} as 1 [item 0]');
		expect((first.json.details as IDataObject).description).toMatch(/^Set the field to Fixed and paste the text as registered/);
		expect(api.requests).toHaveLength(0);
	});
});

test('a long value repeated by many placeholders: each preview is cut, so 200 items stay small in the run data', async () => {
	const repeating = { bodyText: '{{1}} '.repeat(600) };
	const items = Array.from({ length: 200 }, (_, i) => ({ phone: `6281200${String(i).padStart(6, '0')}`, values: ['x'.repeat(4000)] }));
	const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters: { ...parameters(), buttons: {}, template: repeating } });
	const output = result.output(SEND_NODE);
	expect(output.every((item) => item.json.success === true)).toBe(true);
	expect(String(output[0].json.preview)).toHaveLength(1500 + '… (preview cut at 1500 characters)'.length);
	// Unbounded, each preview alone would be 2.4 MB (480 MB for the run).
	expect(JSON.stringify(result.run.data.resultData.runData[SEND_NODE]).length).toBeLessThan(2_000_000);
});

test('a dry run over 1,000 rows sums up what would be sent, what fails which check and what repeats', async () => {
	const rows = Array.from({ length: 1000 }, (_, i) => row(i, ['Name', `INV-${i}`]));
	rows[10] = row(10, ['Only one']);
	rows[20] = row(20, ['Bad', 'INV\n20']);
	rows[30] = { phone: 'not a phone', values: ['X', 'INV-30'], order: 'INV-30' };
	rows[40] = rows[41];
	rows[50] = rows[51];
	const result = await runSendNode({ baseUrl: api.baseUrl, items: rows, parameters: parameters({ dryRun: true }) });
	expect(api.requests).toHaveLength(0);
	const summary =
		"Dry run: 997 of 1000 item(s) would be sent. 3 fail a check: 2 × Body Values, 1 × Phone Number. 2 repeat an earlier item (same recipient, template and values); Options → Skip Duplicate Messages would skip them. A real run would send nothing: the invalid item 10 stops it before the first request (On Error: Continue sends the others). The credential's Base URL and JWT are well formed; whether the API takes the token shows only in a real run or the credential's connection test.";
	const hints = result.run.data.resultData.runData[SEND_NODE][0].hints ?? [];
	// n8n before 1.80 has no execution hints: only the log says it there.
	expect(hints.map((hint) => hint.message)).toEqual(ENGINE.keepsExecutionHints ? [summary] : []);
	const output = result.output(SEND_NODE);
	expect(output).toHaveLength(1000);
	expect(output[0].json).toMatchObject({ dryRun: true, preview: 'Hi Name, your order INV-0 is confirmed.\n[Track order → …/INV-0]' });
	expect(output[20].json.error).toBe('Body Values → value 2: contains a line break, which the platform refuses in template values [item 20]');
	expect(output[41].json).toMatchObject({ dryRun: true, duplicateOf: 40 });
});

test('Skip Duplicate Messages: a repeated row is not sent and comes out as skipped, naming the row it repeats', async () => {
	const rows = [row(0, ['Budi', 'INV-1']), { phone: '+62 812-0000-0000', values: ['Budi', 'INV-1'], order: 'INV-0' }, row(0, ['Budi', 'INV-2'])];
	const result = await runSendNode({ baseUrl: api.baseUrl, items: rows, parameters: parameters({ skipDuplicates: true }) });
	expect(api.requests).toHaveLength(2);
	const output = result.output(SEND_NODE);
	expect(output[1]).toEqual({
		json: {
			success: false,
			skipped: true,
			reason: "Same recipient, template and values as item 0: not sent a second time; item 0's row says whether it went out (Options → Skip Duplicate Messages)",
			duplicateOf: 0,
			phone_number: '6281200000000',
			template_code_id: 'order_confirmed',
			preview: 'Hi Budi, your order INV-1 is confirmed.\n[Track order → …/INV-0]',
			status: 'skipped',
		},
		pairedItem: { item: 1 },
	});
	expect(output[2].json.success).toBe(true);

	await api.close();
	api = await startApiServer();
	await runSendNode({ baseUrl: api.baseUrl, items: rows, parameters: parameters() });
	expect(api.requests).toHaveLength(3);
});

describe('what only the preview needs never fails the run', () => {
	test('a template button Label mapped from a sheet column holding a number (menu buttons 1 and 2) is shown as text, an object none: the Label never stops the run', async () => {
		// A sheet exports the cells 1 and 2 as numbers; the labels are there "for the preview" only.
		const result = await runSendNode({
			baseUrl: api.baseUrl,
			items: [{ phone: '+62 812 3456 7890', name: 'Budi', first: 1, second: 2, third: { text: 'three' } }],
			parameters: {
				phoneNumber: '={{ $json.phone }}',
				templateCodeId: 'menu',
				bodyValues: { values: [{ text: '={{ $json.name }}' }] },
				template: {
					bodyText: 'Hi {{1}}, reply with a number.',
					buttons: {
						button: [
							{ kind: 'quickReply', label: '={{ $json.first }}', payload: 'one' },
							{ kind: 'quickReply', label: '={{ $json.second }}', payload: 'two' },
							{ kind: 'quickReply', label: '={{ $json.third }}', payload: 'three' },
						],
					},
				},
			},
			typeVersion: 2,
		});
		expect({ error: result.nodeError(SEND_NODE)?.message, requests: api.requests.length }).toEqual({ error: undefined, requests: 1 });
		expect(result.output(SEND_NODE)[0].json.preview).toBe('Hi Budi, reply with a number.\n[1] [2]');
	});

	test('a JSON payload the template check and the API take is not refused for a value its preview cannot show', async () => {
		// The body check counts values; the request is valid JSON the node would send. Only the preview's String() throws.
		const payloadJson = JSON.stringify([{ position: 'body', parameters: [{ type: 'currency', currency: { fallback_value: '$10', code: 'USD', amount_1000: 10000 }, text: { toString: 1 } }] }]);
		const result = await runSendNode({
			baseUrl: api.baseUrl,
			items: [{ phone: '+62 812 3456 7890' }],
			parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'price', payloadMode: 'json', payloadJson, template: { bodyText: 'Your total is {{1}}.' } },
			typeVersion: 2,
		});
		expect({ error: result.nodeError(SEND_NODE)?.message, requests: api.requests.length }).toEqual({ error: undefined, requests: 1 });
	});
});

describe('a value given under Template (Checks and Preview) → Buttons is named where it was given', () => {
	const withButtons = (third: IDataObject) => ({
		phoneNumber: '={{ $json.phone }}',
		templateCodeId: 'order_shipped',
		template: { bodyText: 'Your order is on its way.', buttons: { button: [{ kind: 'callPhone', label: 'Call us' }, { kind: 'quickReply', label: 'Thanks', payload: 'thanks' }, third] } },
	});
	test.each([
		['a blank payload', { kind: 'quickReply', label: 'Stop', payload: '={{ $json.value }}' }, ' ', 'Template (Checks and Preview) → Buttons → button 3 → Payload: is empty [item 0]'],
		['a URL suffix with a tab', { kind: 'dynamicUrl', label: 'Track', urlSuffix: '={{ $json.value }}' }, 'INV\t7', 'Template (Checks and Preview) → Buttons → button 3 → URL Suffix: contains a line break, a tab or another control character, which a link cannot hold [item 0]'],
	])('%s of the template\'s third button: its field and position, not the node\'s Buttons', async (_what, third, value, error) => {
		const result = await runSendNode({ baseUrl: api.baseUrl, items: [{ phone: '6281234567890', value }], typeVersion: 2, onError: 'continueRegularOutput', parameters: withButtons(third) });
		expect(api.requests).toHaveLength(0);
		expect(result.output(SEND_NODE)[0].json.error).toBe(error);
	});
});
