/**
 * Every answer read as meant (issue 38), in n8n's engine against a local API: the API's code 9 in a
 * 200 is waited out like a 429, a byte order mark before the JSON is skipped, and a Base URL or a JWT
 * that cannot work is named before anything is sent.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ApiServer } from '../helpers/apiServer';
import { acceptAll, startApiServer } from '../helpers/apiServer';
import { runSendNode, SEND_NODE } from '../helpers/engine';

let api: ApiServer;
beforeEach(async () => {
	api = await startApiServer();
});
afterEach(async () => {
	await api.close();
});

const recipients = (count: number) => Array.from({ length: count }, (_, i) => ({ phone: `62812100${String(i).padStart(5, '0')}` }));
const parameters = { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl-answers', options: {} };
const phoneOf = (body: unknown) => String((body as IDataObject).phone_number);

test('HTTP 200 {"success":false} with code 9 on the first answers: the node waits, then sends every item once', async () => {
	const acceptedFor: Record<string, number> = {};
	api.respondWith((request, index) => {
		if (index < 3) return { status: 200, body: { success: false, errors: [{ message: 'Too many requests', code: 9 }] }, headers: { 'Retry-After': '1' } };
		acceptedFor[phoneOf(request.body)] = (acceptedFor[phoneOf(request.body)] ?? 0) + 1;
		return acceptAll(request, index);
	});
	const items = recipients(6);
	const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters });

	expect(result.run.data.resultData.error).toBeUndefined();
	const output = result.output(SEND_NODE);
	expect(output.map((item) => item.json.status)).toEqual(items.map(() => 'sent'));
	expect(acceptedFor).toEqual(Object.fromEntries(items.map(({ phone }) => [phone, 1])));
	// The three throttled ones were tried again, as after a 429: each row counts its requests.
	expect(api.requests.length).toBe(items.length + 3);
	expect(output.reduce((sum, item) => sum + Number(item.json.attempts), 0)).toBe(items.length + 3);
});
