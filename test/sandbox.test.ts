/**
 * The sandbox API that `npm start` runs: its spec checks agree with the node's builder, and the
 * node in n8n's engine gets its messages accepted by it.
 */
import type { AddressInfo } from 'node:net';
import axios from 'axios';

import { buildSendRequest } from '../nodes/TemplateMessage/payload';
import { runSendNode, SEND_NODE } from './helpers/engine';

const { validateSendRequest } = require('../sandbox/validate') as { validateSendRequest: (body: unknown) => string[] };
const { createSandbox } = require('../sandbox/server') as {
	createSandbox: (options: { token: string; rateLimit?: number }) => { server: import('node:http').Server; messages: unknown[] };
};

const everyKind = buildSendRequest({
	phoneNumber: '+62 812 3456 7890',
	templateCodeId: 'tpl-all',
	components: {
		mode: 'fields',
		bodyValues: ['Budi', 7],
		header: { type: 'video', url: 'https://cdn.example.com/v.mp4' },
		buttons: [
			{ kind: 'quickReply', index: 0, value: 'yes' },
			{ kind: 'dynamicUrl', index: 1, value: 'track/7' },
		],
	},
});

test('what the builder makes, in every naming variant, is valid for the sandbox', () => {
	expect(validateSendRequest(everyKind)).toEqual([]);
	for (const compatibility of [
		{ buttonTypeField: 'sub_types', dynamicUrlSubType: 'url_dynamic', buttonIndexFormat: 'number', quickReplyValueField: 'text' },
		{ quickReplyValueField: 'both' },
	] as const) {
		const body = buildSendRequest({ phoneNumber: '6281234567890', templateCodeId: 't', components: { mode: 'fields', bodyValues: [], header: { type: 'text', text: 'Hi' }, buttons: [{ kind: 'quickReply', index: 0, value: 'y' }, { kind: 'dynamicUrl', index: 1, value: 'x' }] }, compatibility });
		expect(validateSendRequest(body)).toEqual([]);
	}
});

test('the sandbox names what is wrong in a request', () => {
	const broken = JSON.parse(JSON.stringify(everyKind));
	broken.phone_number = '0812';
	broken.message.template.payload[0].parameters[0].video.url = 'ftp://x/v.mp4';
	broken.message.template.payload[2].parameters[0].index = '-1';
	broken.message.template.payload[2].parameters[1].parameters[0] = { type: 'payload', payload: 'x' };
	expect(validateSendRequest(broken)).toEqual([
		'phone_number must be a country code and number, digits only with an optional leading +',
		'message.template.payload[0].parameters[0].video.url must use http or https',
		'message.template.payload[2].parameters[0].index must be a whole number from 0, or such a number as a string',
		'message.template.payload[2].parameters[1].parameters[0].type must be "text" for a dynamic URL',
		'message.template.payload[2].parameters[1].parameters[0].text must be a non-empty string',
	]);
});

describe('the sandbox server', () => {
	let sandbox: ReturnType<typeof createSandbox>;
	let baseUrl: string;
	beforeAll(async () => {
		sandbox = createSandbox({ token: 'sandbox-token' });
		await new Promise<void>((resolve) => sandbox.server.listen(0, '127.0.0.1', resolve));
		baseUrl = `http://127.0.0.1:${(sandbox.server.address() as AddressInfo).port}`;
	});
	afterAll(async () => {
		await new Promise((resolve) => sandbox.server.close(resolve));
	});

	test('accepts the node’s messages from n8n’s engine and lists them', async () => {
		const result = await runSendNode({
			baseUrl,
			token: 'sandbox-token',
			items: [{ phone: '+62 812 3456 7890', name: 'Budi' }],
			parameters: {
				phoneNumber: '={{ $json.phone }}',
				templateCodeId: 'tpl-welcome',
				bodyValues: { values: [{ text: '={{ $json.name }}' }] },
				buttons: { button: [{ kind: 'quickReply', index: 0, payload: 'yes' }] },
			},
		});
		const [item] = result.output(SEND_NODE);
		expect(item.json).toMatchObject({ success: true, msgid: expect.stringMatching(/^[0-9a-f-]{36}$/) });

		const listed = await axios.get(`${baseUrl}/api/messages`);
		expect(listed.data.messages).toEqual([expect.objectContaining({ msgid: item.json.msgid, request: expect.objectContaining({ phone_number: '6281234567890' }) })]);
		const page = await axios.get(`${baseUrl}/`);
		expect(page.data).toContain('+6281234567890');
		expect(page.data).toContain('{{1}} = “Budi”');
		expect(page.data).toContain('Button 0 (quick reply): “yes”');
	});

	test('401 for a wrong token, 400 with the API’s error shape for an invalid body', async () => {
		const wrongToken = await axios.post(`${baseUrl}/api/v2/push/message`, everyKind, { headers: { authorization: 'nope' }, validateStatus: () => true });
		expect(wrongToken.status).toBe(401);
		const invalid = await axios.post(`${baseUrl}/api/v2/push/message`, { phone_number: '62812345678', message: { type: 'text' } }, { headers: { authorization: 'sandbox-token' }, validateStatus: () => true });
		expect(invalid.status).toBe(400);
		expect(invalid.data).toEqual({ success: false, errors: [{ message: 'message.type must be "template"; message.template must be an object', code: 101 }] });
	});
});
