/**
 * The package in the real n8n application (n8n-app/, n8n 2.x, its own CLI and server), loaded as
 * a community package under its own name, sending to the sandbox API.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import axios from 'axios';

import { expectedSendRequest, orders as webhookOrders } from './orderWebhook';
import type { N8n, Sandbox } from './stackTypes';
import './freshConnections';
import { until } from './until';

const stack = require('../../scripts/stack');
const { parse } = require('../../n8n-app/node_modules/flatted') as { parse: (text: string) => any };

// Set-up starts n8n (two CLI runs and a start: 1 to 2 minutes quiet, several on a busy machine).
jest.setTimeout(600_000);

let userFolder: string;
let sandbox: Sandbox;
let n8n: N8n;
let brokerPort: number;
let cookie: string;

const CODE_ROWS_WORKFLOW = {
	id: 'tmE2eCodeRows01',
	name: 'E2E: rows from a Code node',
	nodes: [
		{ id: 'e2e-1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
		{
			id: 'e2e-2',
			name: 'Rows',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [200, 0],
			parameters: {
				jsCode:
					"return [\n  { json: { phone: '+62 812 0000 0001', name: 'Ayu', pdf: 'https://files.example.com/a.pdf' } },\n  { json: { phone: '62 812 0000 0002', name: 'Bima', pdf: 'https://files.example.com/b.pdf' } },\n  { json: { phone: '(62) 812-0000-0003', name: 'Citra', pdf: 'https://files.example.com/c.pdf' } },\n];",
			},
		},
		{
			id: 'e2e-3',
			name: 'Template Message',
			type: 'n8n-nodes-template-message.templateMessage',
			typeVersion: 1,
			position: [400, 0],
			parameters: {
				phoneNumber: '={{ $json.phone }}',
				templateCodeId: 'e2e_invoice',
				bodyValues: { values: [{ text: '={{ $json.name }}' }] },
				headerType: 'document',
				headerMediaUrl: '={{ $json.pdf }}',
				buttons: { button: [{ kind: 'quickReply', index: 0, payload: 'paid' }] },
			},
			credentials: { templateMessageApi: { id: 'x', name: 'x' } },
		},
	],
	connections: {
		Start: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
		Rows: { main: [[{ node: 'Template Message', type: 'main', index: 0 }]] },
	},
	settings: { executionOrder: 'v1' },
};

/**
 * Delivery status every morning, as README's recipe has it, with every field of Get Status and Forget at
 * its default: saved as n8n's editor saves a node, without the parameters left at their defaults.
 */
const STATUS_EVERY_MORNING_WORKFLOW = {
	name: 'E2E: Get Status every morning, at its defaults',
	nodes: [
		{ id: 'e2e-s1', name: 'Every morning', type: 'n8n-nodes-base.scheduleTrigger', typeVersion: 1.2, position: [0, 0], parameters: { rule: { interval: [{ field: 'weeks', triggerAtHour: 7 }] } } },
		{ id: 'e2e-s2', name: 'Get Status', type: 'n8n-nodes-template-message.templateMessage', typeVersion: 2, position: [200, 0], parameters: { operation: 'getStatus' }, credentials: { templateMessageApi: { id: 'x', name: 'x' } } },
		{ id: 'e2e-s3', name: 'Forget', type: 'n8n-nodes-template-message.templateMessage', typeVersion: 2, position: [400, 0], parameters: { operation: 'forget' }, credentials: { templateMessageApi: { id: 'x', name: 'x' } } },
	],
	connections: {
		'Every morning': { main: [[{ node: 'Get Status', type: 'main', index: 0 }]] },
		'Get Status': { main: [[{ node: 'Forget', type: 'main', index: 0 }]] },
	},
	settings: { executionOrder: 'v1' },
};

/** Rows posted to a webhook, as a schedule reading a growing sheet would bring them: Send Once per recipient and template. */
const SEND_ONCE_ROWS_WORKFLOW = {
	id: 'tmE2eSendOnce01',
	name: 'E2E: rows from a webhook, Send Once',
	nodes: [
		{
			id: 'once-1',
			name: 'Rows webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: '0c7d2f4e-1b2a-4c3d-9e8f-send-once-rows',
			parameters: { httpMethod: 'POST', path: 'send-once-rows', responseMode: 'lastNode', responseData: 'allEntries', options: {} },
		},
		{ id: 'once-2', name: 'Rows', type: 'n8n-nodes-base.code', typeVersion: 2, position: [200, 0], parameters: { jsCode: 'return $json.body.rows.map((row) => ({ json: row }));' } },
		{
			id: 'once-3',
			name: 'Template Message',
			type: 'n8n-nodes-template-message.templateMessage',
			typeVersion: 2,
			position: [400, 0],
			parameters: {
				phoneNumber: '={{ $json.phone }}',
				templateCodeId: 'e2e_once',
				bodyValues: { values: [{ text: '={{ $json.name }}' }] },
				sendOnce: 'recipientTemplate',
			},
			credentials: { templateMessageApi: { id: 'x', name: 'x' } },
		},
	],
	connections: {
		'Rows webhook': { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
		Rows: { main: [[{ node: 'Template Message', type: 'main', index: 0 }]] },
	},
	settings: { executionOrder: 'v1' },
};

/** The same with a record smaller than the sheet: Max Messages Remembered 50. */
const SMALL_RECORD_WORKFLOW = {
	...SEND_ONCE_ROWS_WORKFLOW,
	id: 'tmE2eSendOnce02',
	name: 'E2E: Send Once, a record of 50',
	nodes: SEND_ONCE_ROWS_WORKFLOW.nodes.map((node) =>
		node.name === 'Rows webhook'
			? { ...node, webhookId: '0c7d2f4e-1b2a-4c3d-9e8f-send-once-small', parameters: { ...node.parameters, path: 'send-once-small' } }
			: node.name === 'Template Message'
				? { ...node, parameters: { ...node.parameters, options: { maxRemembered: 50 } } }
				: node,
	),
};

const freePort = stack.freePort as () => Promise<number>;

const api = () => axios.create({ baseURL: n8n.url, headers: { cookie }, validateStatus: () => true });

beforeAll(async () => {
	userFolder = mkdtempSync(path.join(os.tmpdir(), 'tm-e2e-'));
	stack.linkPackage(userFolder);
	sandbox = await stack.startSandbox({ port: 0 });
	stack.importCredential(userFolder, { baseUrl: sandbox.url, token: sandbox.token });
	stack.importWorkflows(userFolder, [...stack.readExamples(), CODE_ROWS_WORKFLOW, SEND_ONCE_ROWS_WORKFLOW, SMALL_RECORD_WORKFLOW], ['tmExampleHook001', SEND_ONCE_ROWS_WORKFLOW.id, SMALL_RECORD_WORKFLOW.id]);
	const port = await freePort();
	brokerPort = await freePort();
	n8n = await stack.startN8n(userFolder, { port, brokerPort });

	const owner = await axios.post(`${n8n.url}/rest/owner/setup`, { email: 'owner@example.com', firstName: 'E2E', lastName: 'Owner', password: 'E2e-Password1' });
	cookie = String(owner.headers['set-cookie']?.[0]).split(';')[0];
});

afterAll(async () => {
	await n8n?.stop();
	// One the set-up gave up waiting for is still starting: without this, it would keep jest running.
	await stack.stopAll();
	await sandbox?.stop();
	if (userFolder) rmSync(userFolder, { recursive: true, force: true });
});

beforeEach(() => {
	sandbox.messages.length = 0;
});

test('n8n lists the node and the credential as installed, and serves the icon', async () => {
	const nodes = (await api().get('/types/nodes.json')).data as Array<{ name: string; iconUrl?: { light: string } }>;
	const node = nodes.find((type) => type.name === 'n8n-nodes-template-message.templateMessage');
	expect(node?.iconUrl?.light).toBe('icons/n8n-nodes-template-message/dist/icons/templateMessage.svg');
	expect(nodes.some((type) => type.name === 'n8n-nodes-template-message.templateMessageTool')).toBe(true);

	const credentials = (await api().get('/types/credentials.json')).data as Array<{ name: string }>;
	expect(credentials.map((type) => type.name)).toContain('templateMessageApi');

	const icon = await axios.get(`${n8n.url}/${node!.iconUrl!.light}`, { responseType: 'text' });
	expect(icon.headers['content-type']).toMatch(/image\/svg\+xml/);
	expect(icon.data).toBe(readFileSync(path.join(stack.ROOT, 'icons', 'templateMessage.svg'), 'utf8'));
});

test('the credential test tells a good token, a rejected one, a wrong URL and an unreachable host apart', async () => {
	const check = async (data: object) =>
		(await api().post('/rest/credentials/test', { credentials: { id: stack.CREDENTIAL_ID, name: 't', type: 'templateMessageApi', data } })).data.data;
	const received = sandbox.stats.received;
	expect(await check({ baseUrl: `${sandbox.url}/`, token: sandbox.token })).toEqual({ status: 'OK', message: 'Connection successful: the API accepted the token' });
	expect(await check({ baseUrl: sandbox.url, token: 'wrong' })).toEqual({ status: 'Error', message: 'Token rejected (HTTP 401, code 45: the token is invalid): check the JWT' });
	// One test, one request.
	expect(sandbox.stats.received - received).toBe(2);
	expect(await check({ baseUrl: `${sandbox.url}/nope`, token: sandbox.token })).toEqual({
		status: 'Error',
		message: 'No send endpoint at this address (HTTP 404): check the Base URL, which ends before /api/v2 (https://api.example.com, not https://api.example.com/api/v2)',
	});
	expect(await check({ baseUrl: `${sandbox.url}/api/v2`, token: sandbox.token })).toEqual({
		status: 'Error',
		message: "The Base URL ends with the API's own path (/api/v2); the node adds /api/v2/push/message itself",
	});
	const closed = `http://127.0.0.1:${await freePort()}`;
	expect(await check({ baseUrl: closed, token: 'x' })).toEqual({
		status: 'Error',
		message: `Nothing answers at ${closed} (connection refused): check the Base URL's host and port, and that the API runs and n8n's host can reach it`,
	});
	expect(sandbox.messages).toHaveLength(0);
});

test('the credential test follows no redirect, and refuses a Base URL with user:password@', async () => {
	const check = async (data: object) =>
		(await api().post('/rest/credentials/test', { credentials: { id: stack.CREDENTIAL_ID, name: 't', type: 'templateMessageApi', data } })).data.data;
	const received = sandbox.stats.received;
	const moved = http.createServer((req, res) => res.writeHead(301, { Location: `${sandbox.url}${req.url}` }).end());
	await new Promise<void>((resolve) => moved.listen(0, '127.0.0.1', resolve));
	try {
		const movedUrl = `http://127.0.0.1:${(moved.address() as AddressInfo).port}`;
		expect(await check({ baseUrl: movedUrl, token: sandbox.token })).toEqual({
			status: 'Error',
			message: 'The Base URL redirects (HTTP 301): enter the address the API answers at, often its https:// form',
		});
		const withPassword = await check({ baseUrl: sandbox.url.replace('http://', 'http://user:s3cr3t@'), token: sandbox.token });
		expect(withPassword.status).toBe('Error');
		expect(withPassword.message).toMatch(/The Base URL contains a user name or password/);
		expect(sandbox.stats.received).toBe(received);
	} finally {
		await new Promise((resolve) => moved.close(resolve));
	}
});

test('a published webhook workflow sends one message per call; n8n records the node output', async () => {
	const orders = webhookOrders(3);
	const answers = await Promise.all(orders.map((order) => axios.post(`${n8n.url}/webhook/order-confirmed`, order)));
	expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
	await until(() => sandbox.messages.length >= 3, 'three messages at the sandbox');
	// The caller learns the result: the webhook answers with the node's output.
	expect(answers.map((answer) => answer.data.msgid).sort()).toEqual(sandbox.messages.map((message) => message.msgid).sort());
	expect(answers[0].data.preview).toBe('Thank you Customer 0! Your order ORD-1 is confirmed and on its way.\n[Track order → …/ORD-1] [Cancel order]');

	const bodies = sandbox.messages.map((message) => message.request).sort((a, b) => a.phone_number.localeCompare(b.phone_number));
	expect(bodies).toEqual(orders.map(expectedSendRequest));

	let recorded: string[] = [];
	const deadline = Date.now() + 30_000;
	while (Date.now() < deadline) {
		const { data } = await api().get('/rest/executions', { params: { filter: JSON.stringify({ workflowId: 'tmExampleHook001', status: ['success'] }), limit: 10 } });
		const results = data.data.results as Array<{ id: string }>;
		if (results.length >= 3) {
			recorded = [];
			for (const { id } of results) {
				const execution = (await api().get(`/rest/executions/${id}`)).data.data;
				const run = parse(execution.data);
				const [item] = run.resultData.runData['Template Message'][0].data.main[0];
				expect(item.json).toMatchObject({ success: true, attempts: 1, template_code_id: 'order_confirmed' });
				expect(item.pairedItem).toEqual({ item: 0 });
				recorded.push(item.json.msgid);
			}
			break;
		}
		await new Promise((resolve) => setTimeout(resolve, 300));
	}
	expect(recorded.sort()).toEqual(sandbox.messages.map((message) => message.msgid).sort());
});

test('the webhook example tells its caller when a message was not sent, and why', async () => {
	const before = sandbox.messages.length;
	const answer = await axios.post(`${n8n.url}/webhook/order-confirmed`, { order_id: 'ORD-9', customer: { name: 'Eko', phone: 'call me' } }, { validateStatus: () => true });
	// A shop that retries on a non-2xx answer can tell: 422 for a row to fix, 502 for the API's refusal.
	expect(answer.status).toBe(422);
	expect(answer.data.error).toBe('Phone Number: "call me" contains letters (call me), which no phone number has [item 0]');
	expect(answer.data).toMatchObject({ status: 'invalid', details: { success: false } });
	// Node version 2, as new nodes get: `status` says it, no version 1 `delivery`.
	expect(answer.data.details).not.toHaveProperty('delivery');
	const refused = await axios.post(`${n8n.url}/webhook/order-confirmed`, { order_id: 'ORD-10', customer: { name: 'Eko', phone: '+62 8000 1234 5678' } }, { validateStatus: () => true });
	expect(refused.status).toBe(502);
	expect(refused.data).toMatchObject({ status: 'failed', error: 'The API refused the message (HTTP 406): Balance is not enough (code 5) [item 0]' });
	expect(sandbox.messages.length).toBe(before);

	// The caller had its answer first; then the execution fails, so n8n's error workflow fires.
	let failures: string[] = [];
	await until(async () => {
		const { data } = await api().get('/rest/executions', { params: { filter: JSON.stringify({ workflowId: 'tmExampleHook001', status: ['error'] }), limit: 10 } });
		const results = data.data.results as Array<{ id: string }>;
		failures = await Promise.all(results.map(async ({ id }) => parse((await api().get(`/rest/executions/${id}`)).data.data.data).resultData.error.message as string));
		return failures.length >= 2;
	}, 'two failed executions');
	expect(failures.sort()).toEqual([
		'Order ORD-10 not confirmed (failed): The API refused the message (HTTP 406): Balance is not enough (code 5) [item 0]',
		'Order ORD-9 not confirmed (invalid): Phone Number: "call me" contains letters (call me), which no phone number has [item 0]',
	]);
});

test('`n8n execute` runs a workflow whose Code node makes the rows: one exact request per row', async () => {
	const output = await stack.n8nCliAsync(userFolder, ['execute', '--id=tmE2eCodeRows01', '--rawOutput'], { port: await freePort(), brokerPort: await freePort() });
	expect(sandbox.messages.map((message) => message.request)).toEqual(
		[
			['6281200000001', 'Ayu', 'a'],
			['6281200000002', 'Bima', 'b'],
			['6281200000003', 'Citra', 'c'],
		].map(([phone, name, file]) => ({
			phone_number: phone,
			message: {
				type: 'template',
				template: {
					template_code_id: 'e2e_invoice',
					payload: [
						{ position: 'header', parameters: [{ type: 'document', document: { url: `https://files.example.com/${file}.pdf` } }] },
						{ position: 'body', parameters: [{ type: 'text', text: name }] },
						{ position: 'button', parameters: [{ sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'paid' }] }] },
					],
				},
			},
		})),
	);
	for (const message of sandbox.messages) expect(output).toContain(message.msgid);
});

test('the status example, run as from the editor: each row gets back the status its message reached, 1340 rejected with its reason, one still submitted', async () => {
	// What "Execute workflow" asks: the saved example, from its trigger's pinned rows.
	const started = await api().post('/rest/workflows/tmExampleStatus1/run', { triggerToStartFrom: { name: "When clicking 'Execute workflow'" } });
	expect(started.status).toBe(200);
	const { executionId } = started.data.data as { executionId: string };
	const lookups = sandbox.stats.lookups;
	let execution: { status: string; data: string } | undefined;
	await until(async () => {
		execution = (await api().get(`/rest/executions/${executionId}`)).data.data;
		return execution !== undefined && !['new', 'running', 'waiting'].includes(execution.status);
	}, 'the status example to finish');
	expect(execution!.status).toBe('success');

	// n8n's own Wait and Merge: the rows as the sheet had them, each with its message's status.
	const [rows] = parse(execution!.data).resultData.runData['Write the status back'][0].data.main as Array<Array<{ json: Record<string, unknown>; pairedItem: unknown }>>;
	expect(rows.map(({ json }) => [json.name, json.status, json.deliveryStatus, json.final, json.failureCode, json.failureReason])).toEqual([
		['Budi', 'sent', 'read', true, null, null],
		['Sari', 'sent', 'read', true, null, null],
		['Andi', 'sent', 'read', true, null, null],
		['Dewi', 'sent', 'rejected', true, 1340, 'Send Outside Allowed Window'],
		['Rina', 'sent', 'submitted', false, null, null],
	]);
	expect(rows.map(({ json }) => json.msgid)).toEqual(sandbox.messages.map((message) => message.msgid));
	for (const { json, pairedItem } of rows) {
		expect(json).toMatchObject({ invoice: expect.stringMatching(/^INV-100\d$/), readAt: json.deliveryStatus === 'read' ? expect.any(String) : null });
		expect(pairedItem).toBeDefined();
	}
	expect(sandbox.stats.lookups - lookups).toBe(5);
});

test('a workflow with Get Status and Forget left at their defaults, saved as the editor saves it, can be published', async () => {
	const workflow = STATUS_EVERY_MORNING_WORKFLOW;
	const credential = (await api().get('/rest/credentials')).data.data[0] as { id: string; name: string };
	const nodes = workflow.nodes.map((node) => ('credentials' in node ? { ...node, credentials: { templateMessageApi: { id: credential.id, name: credential.name } } } : node));
	const saved = await api().post('/rest/workflows', { ...workflow, name: `${workflow.name} (saved by the editor's API)`, nodes });
	expect(saved.status).toBe(200);
	const { id, versionId } = saved.data.data as { id: string; versionId: string };
	const published = await api().post(`/rest/workflows/${id}/activate`, { versionId });
	// n8n 2.41 fills in the defaults before it checks the nodes, so a required field left at its default passes.
	expect([published.status, published.data?.message]).toEqual([200, undefined]);
	expect((await api().post(`/rest/workflows/${id}/deactivate`, {})).status).toBe(200);
});

describe("Send Once, with the record in n8n's database", () => {
	const rows = (count: number) => Array.from({ length: count }, (_, i) => ({ phone: `+62 813 0000 00${String(i).padStart(2, '0')}`, name: `Row ${i}` }));
	const postRows = async (list: object[]) => (await axios.post(`${n8n.url}/webhook/send-once-rows`, { rows: list })).data as Array<Record<string, unknown>>;
	const outcome = (item: Record<string, unknown>) => (item.success === true ? 'sent' : item.sentBefore === true ? 'sentBefore' : JSON.stringify(item));

	test('the same rows again send nothing and say why; a new row alone goes; after a restart of n8n too', async () => {
		expect((await postRows(rows(3))).map(outcome)).toEqual(['sent', 'sent', 'sent']);
		const again = await postRows(rows(3));
		expect(again.map(outcome)).toEqual(['sentBefore', 'sentBefore', 'sentBefore']);
		expect(again[0]).toMatchObject({ skipped: true, messageKey: '6281300000000|e2e_once' });
		expect((await postRows(rows(4))).map(outcome)).toEqual(['sentBefore', 'sentBefore', 'sentBefore', 'sent']);
		expect(sandbox.messages.map((message) => message.request.phone_number).sort()).toEqual(['6281300000000', '6281300000001', '6281300000002', '6281300000003']);

		await n8n.stop();
		n8n = await stack.startN8n(userFolder, { port: await freePort(), brokerPort });
		expect((await postRows(rows(5))).map(outcome)).toEqual(['sentBefore', 'sentBefore', 'sentBefore', 'sentBefore', 'sent']);
		expect(sandbox.messages).toHaveLength(5);
	});

	test('60 rows over a record of 50, run three times: no run sends again a row the record held when it began', async () => {
		const sheet = Array.from({ length: 60 }, (_, i) => ({ phone: `+62 814 0000 ${String(i).padStart(4, '0')}`, name: `Row ${i}` }));
		const post = async () => (await axios.post(`${n8n.url}/webhook/send-once-small`, { rows: sheet })).data as Array<Record<string, unknown>>;
		expect((await post()).map(outcome)).toEqual(Array(60).fill('sent'));
		// The first run pushed the 10 oldest rows out of the record (and said so); each later run sends those 10 alone.
		for (let run = 2; run <= 3; run++) {
			sandbox.messages.length = 0;
			expect((await post()).map(outcome)).toEqual([...Array(10).fill('sent'), ...Array(50).fill('sentBefore')]);
			expect(sandbox.messages).toHaveLength(10);
		}
	});

	test('the webhook example called twice for one order, one call after the other and five at once: one message each', async () => {
		// Every answer's row is read, 502 too (the example's answer to a row not sent), so that a failure shows it.
		const post = (order: object) => axios.post(`${n8n.url}/webhook/order-confirmed`, order, { validateStatus: () => true });
		const [first, second] = webhookOrders(12).slice(10);
		expect((await post(first)).data).toMatchObject({ success: true, messageKey: first.order_id });
		const retried = (await post(first)).data;
		expect(retried).toMatchObject({ skipped: true, sentBefore: true, messageKey: first.order_id });

		const atOnce = await Promise.all(Array.from({ length: 5 }, () => post(second)));
		expect(atOnce.map((answer) => outcome(answer.data)).sort()).toEqual(['sent', 'sentBefore', 'sentBefore', 'sentBefore', 'sentBefore']);
		expect(sandbox.messages.map((message) => message.request.message.template.payload[0].parameters[1].text)).toEqual([first.order_id, second.order_id]);
	});
});
