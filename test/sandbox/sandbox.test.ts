/**
 * The sandbox API that `npm start` runs: its spec checks agree with the node's builder, and the
 * node in n8n's engine gets its messages accepted by it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import axios from 'axios';

import { buildSendRequest } from '../../nodes/TemplateMessage/request/payload';
import { PACKAGE_ROOT, runSendNode, SEND_NODE } from '../helpers/engine';

const { validateSendRequest } = require('../../sandbox/validate') as { validateSendRequest: (body: unknown) => string[] };
const { createSandbox } = require('../../sandbox/server') as {
	createSandbox: (options: { token: string; rateLimit?: number; latencyMs?: number; sharedShare?: number; tls?: { key: Buffer; cert: Buffer } }) => {
		server: import('node:http').Server;
		messages: unknown[];
		stats: Record<string, number>;
	};
};
const { TEMPLATES } = require('../../sandbox/templates') as { TEMPLATES: Record<string, unknown> };
const { selfSignedCert } = require('../../scripts/selfSignedCert') as { selfSignedCert: (dir: string) => { keyFile: string; certFile: string } };

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
		// What a credential or a node made by hand needs, where a newcomer looks.
		expect(page.data).toContain(`Base URL <code>${baseUrl}</code>, JWT <code>sandbox-token</code>`);
		for (const code of Object.keys(TEMPLATES)) expect(page.data).toContain(`<code>${code}</code>`);
	});

	test('the provider’s documented answers: 401 codes 43/45, 406 code 39 for an invalid body, 59 and 5 on demand', async () => {
		const send = (body: object, authorization?: string) =>
			axios.post(`${baseUrl}/api/v2/push/message`, body, { headers: authorization ? { authorization } : {}, validateStatus: () => true });
		const codeOf = (answer: { status: number; data: { errors: Array<{ code: number }> } }) => [answer.status, answer.data.errors[0].code];
		expect(codeOf(await send(everyKind))).toEqual([401, 43]);
		expect(codeOf(await send(everyKind, 'nope'))).toEqual([401, 45]);
		const invalid = await send({ phone_number: '62812345678', message: { type: 'text' } }, 'sandbox-token');
		expect(invalid.data).toEqual({ success: false, errors: [{ message: 'message.type must be "template"; message.template must be an object', code: 39 }] });
		const missingTemplate = { ...everyKind, message: { ...everyKind.message, template: { ...everyKind.message.template, template_code_id: 'a1b2:missing_invoice' } } };
		expect(codeOf(await send(missingTemplate, 'sandbox-token'))).toEqual([406, 59]);
		expect(codeOf(await send({ ...everyKind, phone_number: '628000123456' }, 'sandbox-token'))).toEqual([406, 5]);

		const { data } = await axios.get(`${baseUrl}/api/messages`);
		expect(data.refused.map((entry: { code: number }) => entry.code)).toEqual([43, 45, 39, 59, 5]);
		expect(data.refused.map((entry: { probe: boolean }) => entry.probe)).toEqual([false, false, false, false, false]);
		// n8n's credential test posts an empty body: refused as the provider would, listed as a test.
		expect(codeOf(await send({}, 'sandbox-token'))).toEqual([406, 39]);
		expect((await axios.get(`${baseUrl}/`)).data).toContain('The credential’s connection test (an empty request, refused on purpose: the token was accepted)');
		const page = await axios.get(`${baseUrl}/`);
		expect(page.data).toContain('HTTP 406, code 59: Template does not exist');
	});

	test('with a rate limit, every answer carries the X-RateLimit headers, and the node in the engine follows the announced limit', async () => {
		const limited = createSandbox({ token: 'sandbox-token', rateLimit: 5 });
		await new Promise<void>((resolve) => limited.server.listen(0, '127.0.0.1', resolve));
		const limitedUrl = `http://127.0.0.1:${(limited.server.address() as AddressInfo).port}`;
		try {
			const first = await axios.post(`${limitedUrl}/api/v2/push/message`, everyKind, { headers: { authorization: 'sandbox-token' } });
			expect(first.headers).toMatchObject({ 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '4', 'x-ratelimit-reset': expect.stringMatching(/^[01]\.\d{3}$/) });
			// The node is set faster than the sandbox allows: the announced limit paces it.
			const result = await runSendNode({
				baseUrl: limitedUrl,
				token: 'sandbox-token',
				items: Array.from({ length: 12 }, (_, i) => ({ phone: `62812000000${String(i).padStart(2, '0')}` })),
				parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl', options: { maxPerSecond: 20 } },
			});
			expect(result.output(SEND_NODE).every((item) => item.json.success === true)).toBe(true);
			expect(limited.stats.accepted).toBe(1 + 12);
			// Whether a request meets a 429 on the way depends on the machine (each is waited out); that the
			// node took the sandbox's limit as its pace does not. The pace at a limit: test/flow/flowControl.test.ts.
			expect((result.run.data.resultData.runData[SEND_NODE][0].hints ?? []).map((hint) => hint.message)).toContain(
				'The API announced a limit of 5 messages per second (X-RateLimit-Limit), lower than the 20 set in Options → Max Messages per Second: messages are sent at 5 per second.',
			);
		} finally {
			await new Promise((resolve) => limited.server.close(resolve));
		}
	});

	test('a recipient that does not exist (+62 8033…) gets the provider’s 404 with code 33, and the node stops nothing for it', async () => {
		const phones = ['6281200000001', '6280330000002', '6281200000003', '6281200000004'];
		const result = await runSendNode({
			baseUrl,
			token: 'sandbox-token',
			items: phones.map((phone) => ({ phone })),
			parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl', options: { maxConcurrency: 1 } },
			onError: 'continueRegularOutput',
		});
		const output = result.output(SEND_NODE);
		expect(output.map((item) => item.json.success === true)).toEqual([true, false, true, true]);
		expect(output[1].json.error).toBe('The API refused the message (HTTP 404): Data does not exist (code 33) [item 1]');
	});

	test('an account shared with another sender that uses 80% of the limit: the headers announce all of it, the node still sends every message', async () => {
		const shared = createSandbox({ token: 'sandbox-token', rateLimit: 10, sharedShare: 0.8 });
		await new Promise<void>((resolve) => shared.server.listen(0, '127.0.0.1', resolve));
		const sharedUrl = `http://127.0.0.1:${(shared.server.address() as AddressInfo).port}`;
		try {
			const started = Date.now();
			const result = await runSendNode({
				baseUrl: sharedUrl,
				token: 'sandbox-token',
				items: Array.from({ length: 8 }, (_, i) => ({ phone: `62812000000${String(i).padStart(2, '0')}` })),
				parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl' },
				onError: 'continueRegularOutput',
			});
			expect(result.output(SEND_NODE).every((item) => item.json.success === true)).toBe(true);
			expect(shared.stats.accepted).toBe(8);
			// The sandbox takes 2 a second of the 10 it announces: 8 cannot all arrive in under 3 s (a lower bound load cannot break).
			expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
		} finally {
			await new Promise((resolve) => shared.server.close(resolve));
		}
	});

	test('a missing template in the editor’s run: the first item says code 59, the rest of that template is not sent', async () => {
		const result = await runSendNode({
			baseUrl,
			token: 'sandbox-token',
			items: [{ phone: '6281200000001' }, { phone: '6281200000002' }, { phone: '6281200000003' }],
			parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'a1b2:missing_invoice', options: { maxConcurrency: 1 } },
			onError: 'continueRegularOutput',
		});
		const output = result.output(SEND_NODE);
		expect(output[0].json.error).toBe('The API refused the message (HTTP 406): Template does not exist (code 59) [item 0]');
		expect(output.slice(1).map((item) => item.json.status)).toEqual(['notSent', 'notSent']);
	});
});

describe('the traffic figures the benchmark labels its rows with', () => {
	const send = async (url: string, agent: http.Agent, index: number, headers: Record<string, string> = {}) =>
		await axios.post(`${url}/api/v2/push/message`, { ...everyKind, phone_number: `6281200000${index}` }, { headers: { authorization: 'tok', ...headers }, httpAgent: agent, httpsAgent: agent });

	async function started(options: Parameters<typeof createSandbox>[0]) {
		const sandbox = createSandbox(options);
		await new Promise<void>((resolve) => sandbox.server.listen(0, '127.0.0.1', resolve));
		const { port } = sandbox.server.address() as AddressInfo;
		return { ...sandbox, url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}` };
	}

	test('connections that carried sends, the window from the first send to the last answer, and sends in flight over it', async () => {
		// Each answer takes 250 ms: the client's own time between sends is small beside it, even on a busy machine.
		const sandbox = await started({ token: 'tok', latencyMs: 250 });
		const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
		try {
			for (let i = 0; i < 5; i++) await send(sandbox.url, keepAlive, i);
			expect(sandbox.stats.connections).toBe(1);
			// One send at a time, each at least 250 ms: the window is at least 1,250 ms, about one in flight over it.
			expect(sandbox.stats.windowMs).toBeGreaterThanOrEqual(1250);
			expect(sandbox.stats.inFlightMs / sandbox.stats.windowMs).toBeGreaterThan(0.7);
			expect(sandbox.stats.inFlightMs / sandbox.stats.windowMs).toBeLessThanOrEqual(1);

			const closing = new http.Agent({ keepAlive: false });
			for (let i = 5; i < 10; i++) await send(sandbox.url, closing, i, { connection: 'close' });
			expect(sandbox.stats.connections).toBe(6);

			// Five at once: about five in flight.
			await axios.delete(`${sandbox.url}/api/messages`);
			const wide = new http.Agent({ keepAlive: true, maxSockets: 5 });
			await Promise.all(Array.from({ length: 5 }, (_, i) => send(sandbox.url, wide, i)));
			wide.destroy();
			expect(sandbox.stats.connections).toBe(5);
			expect(sandbox.stats.inFlightMs / sandbox.stats.windowMs).toBeGreaterThan(3);
		} finally {
			keepAlive.destroy();
			sandbox.server.close();
		}
	});

	test('over HTTPS with a certificate made by scripts/selfSignedCert.js', async () => {
		const { keyFile, certFile } = selfSignedCert(path.join(os.tmpdir(), `sandbox-tls-${process.pid}`));
		const sandbox = await started({ token: 'tok', tls: { key: readFileSync(keyFile), cert: readFileSync(certFile) } });
		const agent = new https.Agent({ keepAlive: true, ca: readFileSync(certFile) });
		try {
			const response = await send(sandbox.url, agent, 0);
			expect(response.data.success).toBe(true);
			expect(sandbox.stats.accepted).toBe(1);
			expect(sandbox.stats.connections).toBe(1);
		} finally {
			agent.destroy();
			sandbox.server.close();
		}
	});
});

describe('the templates the sandbox knows', () => {
	const { TEMPLATES, mismatch } = require('../../sandbox/templates') as {
		TEMPLATES: Record<string, { bodyText: string; headerFormat: string; buttons: Array<{ kind: string; label: string }> }>;
		mismatch: (template: object, id: string, payload: unknown) => string | undefined;
	};
	const order = (values: string[], buttons = [{ sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'INV-7' }] }, { sub_type: 'quick_reply', index: '1', parameters: [{ type: 'payload', payload: 'cancel' }] }]) => ({
		phone_number: '6281234567890',
		message: { type: 'template', template: { template_code_id: 'order_confirmed', payload: [{ position: 'body', parameters: values.map((text) => ({ type: 'text', text })) }, { position: 'button', parameters: buttons }] } },
	});

	test('a message that does not fit a known template is refused with code 39; one that fits is shown rendered on the page', async () => {
		const sandbox = createSandbox({ token: 'tok' });
		await new Promise<void>((resolve) => sandbox.server.listen(0, '127.0.0.1', resolve));
		const url = `http://127.0.0.1:${(sandbox.server.address() as AddressInfo).port}`;
		const post = (body: unknown) => axios.post(`${url}/api/v2/push/message`, body, { headers: { authorization: 'tok' }, validateStatus: () => true });
		try {
			const tooFew = await post(order(['Budi']));
			expect(tooFew.status).toBe(406);
			expect(tooFew.data.errors[0]).toEqual({ code: 39, message: 'message_value is not same as the template: body: has 1 value(s); the template body has 2 placeholders, {{1}} to {{2}}' });
			const noButtons = await post(order(['Budi', 'INV-7'], []));
			expect(noButtons.data.errors[0].code).toBe(39);
			expect((await post(order(['Budi', 'INV-7']))).data.success).toBe(true);
			const page = (await axios.get(url)).data as string;
			expect(page).toContain('Thank you Budi! Your order INV-7 is confirmed and on its way.<br>[Track order → …/INV-7] [Cancel order]');
			expect(page).toContain('message_value is not same as the template');
		} finally {
			sandbox.server.close();
		}
	});

	test("the examples' Template fields are the sandbox's templates, so npm start shows the check and the preview", () => {
		for (const file of readdirSync(path.join(PACKAGE_ROOT, 'examples'))) {
			const workflow = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'examples', file), 'utf8')) as { nodes: Array<{ type: string; parameters: Record<string, any> }> };
			const node = workflow.nodes.find((entry) => entry.type.endsWith('.templateMessage'))!;
			const known = TEMPLATES[node.parameters.templateCodeId];
			expect(known).toBeDefined();
			expect(node.parameters.template.bodyText).toBe(known.bodyText);
			expect(node.parameters.template.headerFormat ?? 'none').toBe(known.headerFormat);
			const buttons = (node.parameters.template.buttons?.button ?? []) as Array<{ kind: string; label: string }>;
			expect(buttons.map(({ kind, label }) => ({ kind, label }))).toEqual(known.buttons);
		}
	});

	// The sandbox reads templates with the node's own parser: what an earlier copy of its own missed.
	test.each([
		['a gap in the placeholder numbers', { bodyText: 'Hi {{1}}, {{3}}' }, [], /\{\{2\}\} is missing/],
		['a text header without its value', { bodyText: 'Hi', headerFormat: 'text', headerText: 'Order {{1}}' }, [], /^header: /],
		[
			'a value for a static URL button',
			{ bodyText: 'Hi', buttons: [{ kind: 'staticUrl', label: 'Shop' }] },
			[{ position: 'button', parameters: [{ sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'x' }] }] }],
			/static URL/,
		],
	])('the sandbox refuses %s, as the node does', (_name, template, payload, problem) => {
		expect(() => mismatch(template, 'tpl', payload)).not.toThrow();
		expect(mismatch(template, 'tpl', payload)).toMatch(problem);
	});
});
