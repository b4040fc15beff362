/**
 * The package in the newest n8n 1.x application (n8n-app-1.x/, `npm run start:1x`), installed the
 * way n8n installs a community package (the packed package, on n8n 1.x's own n8n-workflow), with
 * the example webhook workflow active, sending to the sandbox API.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import axios from 'axios';

import { expectedSendRequest, orders as webhookOrders } from './orderWebhook';
import type { N8n, Sandbox } from './stackTypes';
import { until } from './until';

process.env.N8N_APP = 'n8n-app-1.x';
const stack = require('../../scripts/stack');

jest.setTimeout(240_000);

let userFolder: string;
let sandbox: Sandbox;
let n8n: N8n;

beforeAll(async () => {
	userFolder = mkdtempSync(path.join(os.tmpdir(), 'tm-e2e-1x-'));
	stack.linkPackage(userFolder);
	sandbox = await stack.startSandbox({ port: 0 });
	stack.importCredential(userFolder, { baseUrl: sandbox.url, token: sandbox.token });
	stack.importWorkflows(userFolder, stack.readExamples(), ['tmExampleHook001']);
	n8n = await stack.startN8n(userFolder, { port: await stack.freePort(), brokerPort: await stack.freePort() });
});

afterAll(async () => {
	await n8n?.stop();
	await sandbox?.stop();
	if (userFolder) rmSync(userFolder, { recursive: true, force: true });
});

test('the app is n8n 1.x and the package is installed as n8n installs one: no n8n-workflow of its own', () => {
	expect(stack.N8N_VERSION).toMatch(/^1\./);
	const installed = path.join(userFolder, '.n8n', 'nodes', 'node_modules', stack.PACKAGE_NAME);
	expect(readdirSync(installed).sort()).toEqual(['LICENSE.md', 'README.md', 'dist', 'index.js', 'package.json']);
});

test("the install is whole: n8n's LangGraph finds its peer @langchain/core in the app (n8n 1.123 does not start without it)", () => {
	const langgraph = path.dirname(require.resolve('@langchain/langgraph/package.json', { paths: [stack.APP_DIR] }));
	// Not the repository's own copy, which Node would find above the app and an installed n8n would not.
	expect(require.resolve('@langchain/core/singletons', { paths: [langgraph] }).startsWith(path.join(stack.APP_DIR, 'node_modules') + path.sep)).toBe(true);
});

test('an active webhook workflow sends spec-exact bodies, one message per call', async () => {
	const orders = webhookOrders(2);
	const answers = await Promise.all(orders.map((order) => axios.post(`${n8n.url}/webhook/order-confirmed`, order, { validateStatus: () => true })));
	expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
	await until(() => sandbox.messages.length >= 2, 'two messages at the sandbox');
	expect(sandbox.stats.received).toBe(2);

	const bodies = sandbox.messages.map((message) => message.request).sort((a, b) => a.phone_number.localeCompare(b.phone_number));
	expect(bodies).toEqual(orders.map(expectedSendRequest));
	// The caller learns the result on 1.x too: the webhook answers with the node's output.
	expect(answers.map((answer) => answer.data.msgid).sort()).toEqual(sandbox.messages.map((message) => message.msgid).sort());
	// The JWT stays out of what n8n printed.
	expect(n8n.output()).not.toContain(sandbox.token);
});
