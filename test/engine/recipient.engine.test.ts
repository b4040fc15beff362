/**
 * One person is one recipient however the sheet wrote the number, and values the platform refuses
 * never reach it: the node in n8n's engine against a recording local API.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ApiServer } from '../helpers/apiServer';
import { startApiServer } from '../helpers/apiServer';
import { resetDeduplicationStore } from '../helpers/deduplicationStore';
import { runSendNode, SEND_NODE } from '../helpers/engine';

let api: ApiServer;
beforeEach(async () => {
	api = await startApiServer();
	resetDeduplicationStore();
});
afterEach(async () => {
	await api.close();
});

const parameters = (extra: IDataObject = {}): IDataObject => ({
	phoneNumber: '={{ $json.phone }}',
	templateCodeId: 'tpl-once',
	bodyValues: { values: [{ text: '={{ $json.name }}' }] },
	options: { defaultCountryCode: '62' },
	...extra,
});

test('"+62 0812…" and a local "0812…" are one recipient for Send Once: one message, across runs too', async () => {
	const rows = [
		{ phone: '+62 0812 3456 7890', name: 'Budi' },
		{ phone: '0812-3456-7890', name: 'Budi' },
	];
	const first = await runSendNode({ baseUrl: api.baseUrl, items: rows, typeVersion: 2, onError: 'continueRegularOutput', parameters: parameters({ sendOnce: 'recipientTemplate' }) });
	const output = first.output(SEND_NODE).map(({ json }) => json);
	expect(output[0]).toMatchObject({ success: true, phone_number: '6281234567890', messageKey: '6281234567890|tpl-once' });
	expect(output[1]).toMatchObject({ skipped: true, duplicateOf: 0, messageKey: '6281234567890|tpl-once' });

	const again = await runSendNode({ baseUrl: api.baseUrl, items: [{ phone: '62 0812 3456 7890', name: 'Budi' }], typeVersion: 2, onError: 'continueRegularOutput', parameters: parameters({ sendOnce: 'recipientTemplate' }) });
	expect(again.output(SEND_NODE)[0].json).toMatchObject({ skipped: true, sentBefore: true });
	expect(api.requests.map((request) => (request.body as IDataObject).phone_number)).toEqual(['6281234567890']);
});

test('a local number whose 0 the sheet dropped is refused, never sent abroad', async () => {
	const result = await runSendNode({ baseUrl: api.baseUrl, items: [{ phone: 81234567890, name: 'Budi' }], parameters: parameters() });
	expect(result.nodeError(SEND_NODE)?.message).toBe(
		'Phone Number: "81234567890" has no + or 00 and does not start with 62 (Options → Default Country Code): most likely a local number whose leading 0 the sheet dropped (sent as it is, it would go to country code 81) [item 0]',
	);
	expect(api.requests).toHaveLength(0);
});

test.each([1, 2])('version %i: a body value with a line break, no template pasted, is refused before any request, naming the item and field', async (typeVersion) => {
	const rows = [
		{ phone: '+62 812 3456 7890', name: 'Budi' },
		{ phone: '+62 813 1111 2222', name: 'Sari\nWulandari' },
	];
	const result = await runSendNode({ baseUrl: api.baseUrl, items: rows, typeVersion, parameters: parameters() });
	expect(result.nodeError(SEND_NODE)?.message).toBe('Body Values → value 1: contains a line break, which the platform refuses in template values [item 1]');
	expect(api.requests).toHaveLength(0);
});

test('Default Country Code mapped from a column: a row whose cell is empty sends no number without + or 00 abroad; the other rows go', async () => {
	const rows = [
		{ phone: '81234567890', cc: '', name: 'Sheet dropped the 0' },
		{ phone: '0812 3456 7890', cc: '62', name: 'Budi' },
		{ phone: '+44 7700 900123', cc: '', name: 'Written with its code' },
	];
	const result = await runSendNode({ baseUrl: api.baseUrl, items: rows, typeVersion: 2, onError: 'continueRegularOutput', parameters: parameters({ options: { defaultCountryCode: '={{ $json.cc }}' } }) });
	expect(api.requests.map((request) => (request.body as IDataObject).phone_number)).toEqual(['6281234567890', '447700900123']);
	expect(String(result.output(SEND_NODE)[0].json.error)).toBe(
		'Phone Number: "81234567890" has no + or 00, and Options → Default Country Code is empty for this item (its expression gave nothing): the node cannot tell which country the number is local to [item 0]',
	);
});
