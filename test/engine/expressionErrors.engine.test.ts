/**
 * An expression that throws for one item (n8n's ExpressionError: a node it refers to did not run, an item
 * n8n cannot pair) is bad input of that item like any other: its error names the field and the item, and
 * with Continue On Fail the other items still go out. An option of the item is not read for the run.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ApiServer } from '../helpers/apiServer';
import { startApiServer } from '../helpers/apiServer';
import { ENGINE, runSendNode, SEND_NODE } from '../helpers/engine';

/** Throws (ExpressionError "Referenced node doesn't exist") only for an item without the column. */
const orThrow = (column: string) => `={{ $json.${column} ?? $('Node That Did Not Run').item.json.${column} }}`;

let api: ApiServer;
beforeEach(async () => {
	api = await startApiServer();
});
afterEach(async () => {
	await api.close();
});

test('Continue On Fail: a per-item option (Default Country Code) whose expression throws for item 0 fails item 0 only; items 1 and 2 are sent', async () => {
	const items = [{ phone: '081200000001' }, { phone: '081200000002', cc: '62' }, { phone: '081200000003', cc: '62' }];
	const parameters = { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl', options: { defaultCountryCode: orThrow('cc') } };
	const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters, onError: 'continueRegularOutput', typeVersion: 2 });

	expect(result.run.data.resultData.error?.message).toBeUndefined();
	expect(api.requests.map((request) => (request.body as IDataObject).phone_number)).toEqual(['6281200000002', '6281200000003']);
	const output = result.output(SEND_NODE);
	expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	expect(String(output[0].json.error)).toBe("Options → Default Country Code: its expression failed: Referenced node doesn't exist (node \"Node That Did Not Run\") [item 0]");
});

test('without Continue On Fail: the same Default Country Code failure is a NodeOperationError naming the option and item 0', async () => {
	const items = [{ phone: '081200000001' }, { phone: '081200000002', cc: '62' }];
	const parameters = { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl', options: { defaultCountryCode: orThrow('cc') } };
	const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters, typeVersion: 2 });
	const error = result.nodeError(SEND_NODE);
	expect(api.requests).toHaveLength(0);
	expect(error).toMatchObject({ name: 'NodeOperationError', context: expect.objectContaining({ itemIndex: 0 }) });
	expect(String(error?.message)).toBe("Options → Default Country Code: its expression failed: Referenced node doesn't exist (node \"Node That Did Not Run\") [item 0]");
	expect(String(error?.description)).toMatch(/Item 0 is input row 1/);
});

describe.each([
	['Phone Number', { phoneNumber: orThrow('phone'), templateCodeId: 'tpl' }, { phone: undefined }],
	['Template Code ID', { phoneNumber: '={{ $json.phone }}', templateCodeId: orThrow('tpl') }, { tpl: undefined }],
	['Body Values', { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl', bodyValuesMode: 'list', bodyValuesList: orThrow('values') }, { values: undefined }],
])('%s from an expression that throws for item 1', (field, parameters, missing) => {
	const items = [0, 1, 2].map((i) => ({ phone: `628120000000${i}`, tpl: 'tpl', values: ['x'], ...(i === 1 ? missing : {}) }));

	test('with Continue On Fail: item 1 fails naming the field and the item; items 0 and 2 are sent', async () => {
		const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters, onError: 'continueRegularOutput', typeVersion: 2 });
		const output = result.output(SEND_NODE);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(api.requests).toHaveLength(2);
		expect(String(output[1].json.error)).toMatch(new RegExp(`^${field}\\b.*\\[item 1\\]$`));
	});

	test('without Continue On Fail: a NodeOperationError naming the field and the item, carrying itemIndex 1; nothing sent', async () => {
		const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters, typeVersion: 2 });
		const error = result.nodeError(SEND_NODE);
		expect(api.requests).toHaveLength(0);
		expect(error).toMatchObject({ name: 'NodeOperationError', context: expect.objectContaining({ itemIndex: 1 }) });
		expect(String(error?.message)).toMatch(new RegExp(`^${field}\\b.*\\[item 1\\]$`));
	});
});

test.each([
	['Get Status', 'Message ID', { operation: 'getStatus', messageId: orThrow('msgid') }],
	['Forget Sent Messages', 'Message Key', { operation: 'forget', forgetKey: orThrow('msgid') }],
])('%s without Continue On Fail: an expression throwing for item 1 fails naming the field and the item', async (_operation, field, parameters) => {
	const items = [{ msgid: 'm-0' }, {}, { msgid: 'm-2' }];
	const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters, typeVersion: 2 });
	const error = result.nodeError(SEND_NODE);
	expect(error).toMatchObject({ name: 'NodeOperationError', context: expect.objectContaining({ itemIndex: 1 }) });
	expect(String(error?.message)).toMatch(new RegExp(`^${field}\\b.*\\[item 1\\]$`));
});

describe('a setting read once for the whole run, from the first item, whose expression throws there', () => {
	test.each([
		['Send', 'Options → Max Messages per Second', { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl', options: { maxPerSecond: orThrow('rate') } }],
		['Get Status', 'Options → Max Requests per Second', { operation: 'getStatus', messageId: '={{ $json.msgid }}', statusOptions: { maxPerSecond: orThrow('rate') } }],
	])('%s: the run fails naming %s and that it is read once, before any request', async (_operation, field, parameters) => {
		const items = [{ phone: '6281200000001', msgid: 'm-0' }, { phone: '6281200000002', msgid: 'm-1', rate: 5, once: 'off' }];
		const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters, onError: 'continueRegularOutput', typeVersion: 2 });
		const error = result.nodeError(SEND_NODE);
		expect(api.requests).toHaveLength(0);
		expect(error).toMatchObject({ name: 'NodeOperationError' });
		expect(String(error?.message)).toBe(`${field}: its expression failed: Referenced node doesn't exist (node "Node That Did Not Run")`);
		expect(String(error?.description)).toMatch(/read once for the whole run, from the first item\.$/);
	});
});

test.each([
	['an expression (the field takes none in the editor: n8n hands over its text)', orThrow('once'), '"{{ $json.once ?? $(\'Node That Did Not Ru…"'],
	['a value no version of the node offers', 'oncePerDay', '"oncePerDay"'],
])('Send Once holding %s: the run fails naming Send Once and its choices, before any request; not read as a Message Key that is empty', async (_what, sendOnce, shown) => {
	const items = [{ phone: '6281200000001', once: 'off' }];
	const run = await runSendNode({ baseUrl: api.baseUrl, items, parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl', sendOnce }, onError: 'continueRegularOutput', typeVersion: 2 }).catch((refused: Error) => refused);
	if (run instanceof Error) {
		// n8n 1.78 checks a choice field's saved value itself and refuses the workflow before any node runs.
		expect({ engine: ENGINE.n8nCoreVersion.startsWith('1.78.'), refused: run.name, requests: api.requests.length }).toEqual({ engine: true, refused: 'WorkflowHasIssuesError', requests: 0 });
		return;
	}
	const error = run.nodeError(SEND_NODE);
	expect(api.requests).toHaveLength(0);
	expect(error).toMatchObject({ name: 'NodeOperationError' });
	expect(String(error?.message)).toBe(`Send Once: expected one of "off", "recipientTemplate", "recipientTemplateValues", "customKey", got ${shown}`);
	expect(String(error?.description)).toMatch(/^Pick one of its choices in the node \(Off, Once per Recipient and Template, .*\); it takes no expression$/);
});
