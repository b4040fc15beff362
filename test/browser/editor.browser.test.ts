/**
 * The node as a user meets it: n8n 2.x's editor in headless Chromium (Debian's, driven by
 * playwright-core), against the real n8n the e2e suite starts, with the sandbox API. Each step
 * leaves a screenshot in .browser-shots/ (uploaded by the GitHub workflow when the suite fails);
 * `UPDATE_DOCS=1` also writes the README's screenshot from this run.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import axios from 'axios';
import '../e2e/freshConnections';
import type { Browser, Page } from 'playwright-core';
import { chromium, selectors } from 'playwright-core';

import type { N8n, Sandbox } from '../e2e/stackTypes';
import { editorWorkflows, FIELDS, GOOD_AND_BAD_ROWS, INVOICE_BODY, PASTED_TEMPLATE, RESULTS_TABLE, STOPS_AT_BAD_ROW } from './workflows';

const stack = require('../../scripts/stack');

// Set-up starts n8n (two CLI runs and a start: 1 to 2 minutes quiet, several on a busy machine).
jest.setTimeout(600_000);

const SHOTS = path.join(stack.ROOT, '.browser-shots');
const WEBHOOK_EXAMPLE = 'tmExampleHook001';
const STATUS_EXAMPLE = 'tmExampleStatus1';
let userFolder: string;
let sandbox: Sandbox;
let n8n: N8n;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];

// n8n's editor marks its elements with data-test-id, as n8n's own Playwright tests configure.
selectors.setTestIdAttribute('data-test-id');

beforeAll(async () => {
	const executablePath = execFileSync('bash', [path.join(stack.ROOT, 'scripts', 'setup.sh'), 'chromium'], { encoding: 'utf8' }).trim();
	mkdirSync(SHOTS, { recursive: true });
	userFolder = mkdtempSync(path.join(os.tmpdir(), 'tm-browser-'));
	stack.linkPackage(userFolder);
	sandbox = await stack.startSandbox({ port: 0 });
	stack.importCredential(userFolder, { baseUrl: sandbox.url, token: sandbox.token });
	stack.importWorkflows(userFolder, [...stack.readExamples(), ...editorWorkflows], [WEBHOOK_EXAMPLE]);
	n8n = await stack.startN8n(userFolder, { port: await stack.freePort(), brokerPort: await stack.freePort() });

	const owner = await axios.post(`${n8n.url}/rest/owner/setup`, { email: 'owner@example.com', firstName: 'Browser', lastName: 'Owner', password: 'Browser-Pass1' });
	const [name, value] = String(owner.headers['set-cookie']?.[0]).split(';')[0].split('=');
	browser = await chromium.launch({
		executablePath,
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
	});
	const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	await context.addCookies([{ name, value, url: n8n.url }]);
	page = await context.newPage();
	// Leaving a panel with unsaved changes asks first; the suite always leaves.
	page.on('dialog', (dialog) => void dialog.accept());
	page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
	page.on('pageerror', (error) => consoleErrors.push(String(error)));
});

afterAll(async () => {
	await browser?.close();
	await n8n?.stop();
	// One the set-up gave up waiting for is still starting: without this, it would keep jest running.
	await stack.stopAll();
	await sandbox?.stop();
	if (userFolder) rmSync(userFolder, { recursive: true, force: true });
});

const shot = async (name: string) => await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
const parameter = (name: string) => page.getByTestId(`parameter-input-${name}`);
const visible = async (names: string[]) => Object.fromEntries(await Promise.all(names.map(async (name) => [name, await parameter(name).isVisible()])));

async function openNode(workflowId: string, nodeName = 'Template Message') {
	await page.goto(`${n8n.url}/workflow/${workflowId}`, { waitUntil: 'networkidle' });
	const node = page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`);
	await node.waitFor({ timeout: 60_000 });
	await node.dblclick();
	await page.getByTestId('ndv').first().waitFor();
}

/** Picks an option of a dropdown; an option's description is part of its accessible name. */
async function choose(parameterName: string, option: string) {
	await parameter(parameterName).click();
	const item = page.getByRole('option', { name: new RegExp(`^${option}`) });
	await item.click();
	await item.waitFor({ state: 'hidden' });
}

test('the node creator finds the node by name, with its icon and its actions', async () => {
	await page.goto(`${n8n.url}/workflow/new`, { waitUntil: 'networkidle' });
	await page.getByTestId('canvas-add-button').click();
	await page.getByTestId('node-creator-search-bar').fill('Template Message');
	// A node with more than one action is listed as a group of its actions.
	const item = page.getByTestId('item-iterator-item').filter({ hasText: 'Template Message' }).first();
	await item.waitFor();
	await expect(item.locator('img').first().getAttribute('src')).resolves.toMatch(/templateMessage\.svg$/);
	await shot('1-node-creator');
	await item.click();
	await expect(page.getByText('Send a template message').first().isVisible()).resolves.toBe(true);
	await expect(page.getByText('Forget sent messages').first().isVisible()).resolves.toBe(true);
	await shot('1-node-creator-actions');
});

describe('one node creator, searched again', () => {
	// Loading the editor takes 10 to 20 s; searching again in its open node creator, under one.
	beforeAll(async () => {
		await page.goto(`${n8n.url}/workflow/new`, { waitUntil: 'networkidle' });
		await page.getByTestId('canvas-add-button').click();
	});

	test.each(['forget', 'resend', 'send once', 'read'])('the node creator finds the node by "%s", the words of Send Once, Forget Sent Messages and Get Status', async (words) => {
		const search = page.getByTestId('node-creator-search-bar');
		const item = page.getByTestId('item-iterator-item').filter({ hasText: 'Template Message' }).first();
		// The list of the search before is gone first, so that the item found is this search's.
		await search.fill('no node has this name');
		await item.waitFor({ state: 'hidden', timeout: 10_000 });
		await search.fill(words);
		await item.waitFor({ timeout: 10_000 });
		await expect(item.isVisible()).resolves.toBe(true);
		await expect(item.locator('img').first().getAttribute('src')).resolves.toMatch(/templateMessage\.svg$/);
	});
});

// n8n's node creator searches names and aliases (TemplateMessage.node.json), not actions.
test.each(['status', 'delivered'])('the node creator, searched for "%s", offers Get Status; placed, the canvas subtitle names it', async (words) => {
	await page.goto(`${n8n.url}/workflow/new`, { waitUntil: 'networkidle' });
	await page.getByTestId('canvas-add-button').click();
	await page.getByTestId('node-creator-search-bar').fill(words);
	const item = page.getByTestId('item-iterator-item').filter({ hasText: 'Template Message' }).first();
	await item.waitFor({ timeout: 10_000 });
	await item.click();
	const action = page.getByText('Get the delivery status of a message').first();
	await action.waitFor({ timeout: 10_000 });
	// The node's description, above its actions, says it looks up delivery too.
	await expect(page.getByText('and look up whether each was delivered and read').first().isVisible()).resolves.toBe(true);
	await shot(`1-node-creator-${words}`);
	await action.click();
	// The new node's panel opens on Get Status; back on the canvas, the node says what it does.
	await parameter('messageId').waitFor({ timeout: 10_000 });
	await expect(parameter('messageId').isVisible()).resolves.toBe(true);
	await page.keyboard.press('Escape');
	const node = page.locator('[data-test-id="canvas-node"][data-node-name="Template Message"]');
	const subtitle = node.getByText('Get delivery status');
	await subtitle.waitFor({ timeout: 10_000 });
	await expect(subtitle.isVisible()).resolves.toBe(true);
	await shot(`1-placed-${words}`);
});

test('the status example, run from the editor: Get Status shows each row read, the 1340 row rejected with its reason, and the 0000 row still submitted', async () => {
	await page.goto(`${n8n.url}/workflow/${STATUS_EXAMPLE}`, { waitUntil: 'networkidle' });
	const getStatus = page.locator('[data-test-id="canvas-node"][data-node-name="Get Status"]');
	await getStatus.waitFor({ timeout: 60_000 });
	await getStatus.getByText('Get delivery status').waitFor({ timeout: 10_000 });
	await page.getByTestId('execute-workflow-button').first().click();
	// Send, the Filter, the Wait's 5 s, Get Status, Merge: the run ends with the Merge's output.
	await page.getByText('Workflow executed successfully').first().waitFor({ timeout: 60_000 });
	await getStatus.dblclick();
	const output = page.getByTestId('output-panel');
	await output.getByText('Send Outside Allowed Window').first().waitFor({ timeout: 10_000 });
	const table = output.getByTestId('ndv-data-container');
	if ((await table.locator('th').count()) === 0) await output.getByTestId('ndv-run-data-display-mode').getByText('Table').click();
	await table.locator('th').first().waitFor();
	const headers = (await table.locator('th').allInnerTexts()).map((text) => text.trim());
	const statusColumn = headers.indexOf('deliveryStatus');
	expect(statusColumn).toBeGreaterThan(-1);
	const statuses = await table.locator(`tbody tr td:nth-child(${statusColumn + 1})`).allInnerTexts();
	expect(statuses.map((text) => text.trim())).toEqual(['read', 'read', 'read', 'rejected', 'submitted']);
	await shot('5-status-example');
});

test('every Header Type, each button type and the JSON mode show exactly their fields', async () => {
	await openNode(FIELDS);
	expect(await visible(['headerText', 'headerMediaUrl'])).toEqual({ headerText: false, headerMediaUrl: false });
	for (const [option, expected] of [
		['Text', { headerText: true, headerMediaUrl: false }],
		['Image', { headerText: false, headerMediaUrl: true }],
		['Video', { headerText: false, headerMediaUrl: true }],
		['Document', { headerText: false, headerMediaUrl: true }],
		['None', { headerText: false, headerMediaUrl: false }],
	] as const) {
		await choose('headerType', option);
		expect({ option, ...(await visible(['headerText', 'headerMediaUrl'])) }).toEqual({ option, ...expected });
		await shot(`2-header-${option.toLowerCase()}`);
	}

	// The buttons notice speaks of buttons: none with Header None and no button, there once one is added.
	const buttonsNotice = page.getByText('Only buttons that take a value go under Buttons').first();
	await expect(buttonsNotice.isVisible()).resolves.toBe(false);
	await page.getByRole('button', { name: 'Add Button' }).click();
	await buttonsNotice.waitFor({ timeout: 10_000 });
	await expect(buttonsNotice.isVisible()).resolves.toBe(true);
	expect(await visible(['payload', 'urlSuffix'])).toEqual({ payload: true, urlSuffix: false });
	await choose('kind', 'Dynamic URL');
	expect(await visible(['payload', 'urlSuffix'])).toEqual({ payload: false, urlSuffix: true });
	await shot('2-button-dynamic-url');

	await choose('payloadMode', 'Using JSON');
	expect(await visible(['payloadJson', 'headerType', 'bodyValuesMode'])).toEqual({ payloadJson: true, headerType: false, bodyValuesMode: false });
	await shot('2-json-mode');
	await choose('payloadMode', 'Using Fields Below');
	expect(await visible(['payloadJson', 'headerType', 'bodyValuesMode'])).toEqual({ payloadJson: false, headerType: true, bodyValuesMode: true });
});

test('Execute step: the good row is sent and shows its message, the bad row its reason', async () => {
	sandbox.messages.length = 0;
	await openNode(GOOD_AND_BAD_ROWS);
	await page.getByTestId('node-execute-button').first().click();
	const output = page.getByTestId('output-panel');
	await output.getByText('Hi Budi, invoice INV-7 for Rp 150.000 is due.').first().waitFor({ timeout: 30_000 });
	await expect(output.getByText('Phone Number: "not a phone" contains letters (not a phone), which no phone number has [item 1]').first().isVisible()).resolves.toBe(true);
	expect(sandbox.messages.map((message) => message.request.phone_number)).toEqual(['6281234567890']);
	await shot('3-execute-step');
});

test('without Continue On Fail, the error view names the field and the item and gives the hint', async () => {
	const before = sandbox.messages.length;
	await openNode(STOPS_AT_BAD_ROW);
	await page.getByTestId('node-execute-button').first().click();
	const output = page.getByTestId('output-panel');
	await output.getByText('Phone Number: "not a phone" contains letters (not a phone), which no phone number has [item 1]').first().waitFor({ timeout: 30_000 });
	await expect(output.getByText('Use digits only, optionally with a leading +, spaces, dashes or parentheses').first().isVisible()).resolves.toBe(true);
	expect(sandbox.messages).toHaveLength(before);
	await shot('4-error-view');
});

test('a real run: the summary shows above the output, and with Include Input Fields the results read as one table with the input columns', async () => {
	sandbox.messages.length = 0;
	await openNode(RESULTS_TABLE);
	await page.getByTestId('node-execute-button').first().click();
	const output = page.getByTestId('output-panel');
	await output.getByText('Sent 1 of 2 item(s): 1 invalid.').first().waitFor({ timeout: 30_000 });
	const table = output.getByTestId('ndv-data-container');
	if ((await table.locator('th').count()) === 0) await output.getByTestId('ndv-run-data-display-mode').getByText('Table').click();
	await table.locator('th').first().waitFor();
	const headers = (await table.locator('th').allInnerTexts()).map((text) => text.trim());
	// The input's columns first, then the node's: status, success, msgid… on every row alike.
	expect(headers).toEqual(expect.arrayContaining(['phone', 'name', 'invoice', 'amount', 'status', 'success', 'msgid', 'phone_number', 'template_code_id']));
	expect(headers.indexOf('amount')).toBeLessThan(headers.indexOf('status'));
	const rows = await table.locator('tbody tr').allInnerTexts();
	expect(rows).toHaveLength(2);
	expect(rows[0]).toMatch(/Budi[\s\S]*INV-7[\s\S]*sent[\s\S]*true/);
	expect(rows[1]).toMatch(/Sari[\s\S]*INV-8[\s\S]*invalid[\s\S]*false/);
	expect(sandbox.messages.map((message) => message.request.phone_number)).toEqual(['6281234567890']);
	await shot('5-results-table');
});

test("buttons entered once: the spreadsheet example's buttons carry their values under Template, and the run sends them", async () => {
	sandbox.messages.length = 0;
	await openNode('tmExampleSched01');
	// Template (Checks and Preview) sits right below Template Code ID, its buttons with their payloads.
	await expect(parameter('payload').first().locator('input, textarea').first().inputValue()).resolves.toBe('paid');
	await page.getByTestId('node-execute-button').first().click();
	const output = page.getByTestId('output-panel');
	await output.getByText('[I have paid] [Remind me later]').first().waitFor({ timeout: 30_000 });
	const [message] = sandbox.messages;
	expect(message.request.message.template.payload.find((component: { position: string }) => component.position === 'button')).toEqual({
		position: 'button',
		parameters: [
			{ sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'paid' }] },
			{ sub_type: 'quick_reply', index: '1', parameters: [{ type: 'payload', payload: 'remind-later' }] },
		],
	});
	await shot('5-buttons-once');
	// The README's screenshot, captioned "after Execute step on the spreadsheet example".
	if (process.env.UPDATE_DOCS) copyFileSync(path.join(SHOTS, '5-buttons-once.png'), path.join(stack.ROOT, 'docs', 'images', 'node-panel.png'));
});

test('a template body pasted with Ctrl+V, which n8n turns into an expression: the notice under the template says it is kept as written, and the run checks and previews it so', async () => {
	sandbox.messages.length = 0;
	await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: n8n.url });
	await openNode(PASTED_TEMPLATE);
	// Runs in the page, where navigator is the browser's.
	await page.evaluate(async (text) => await (globalThis as unknown as { navigator: { clipboard: { writeText: (t: string) => Promise<void> } } }).navigator.clipboard.writeText(text), INVOICE_BODY);
	await parameter('bodyText').locator('textarea, [contenteditable="true"]').first().click();
	await page.keyboard.press('ControlOrMeta+A');
	await page.keyboard.press('ControlOrMeta+V');
	// n8n switched the field to Expression mode: its editor shows the text with {{1}} as an expression.
	await parameter('bodyText').getByTestId('inline-expression-editor-input').waitFor({ timeout: 10_000 });
	// Under the template's fields, the node's notice says what is checked and sent.
	const notice = page.getByText('Body Text is in Expression mode. A template pasted here keeps its {{1}}, {{2}} … as written', { exact: false }).first();
	try {
		await notice.waitFor({ timeout: 10_000 });
		// Out of the field, into the one above it, so that the field's Result pop-up no longer covers
		// the notice (a click on the notice can land on the pop-up, as it did on a loaded machine).
		await parameter('templateCodeId').click();
		await notice.waitFor({ timeout: 10_000 });
		await expect(notice.isVisible()).resolves.toBe(true);
	} finally {
		await shot('5-pasted-template');
	}
	await page.getByTestId('node-execute-button').first().click();
	const output = page.getByTestId('output-panel');
	await output.getByText('Hi Budi, invoice INV-7 for Rp 150.000 is due.').first().waitFor({ timeout: 30_000 });
	expect(sandbox.messages.map((message) => message.request.phone_number)).toEqual(['6281234567890']);
	await shot('5-pasted-template-run');
});

test('the credential dialog tells the right token, a wrong token, a wrong Base URL and a refused connection apart, one request a click', async () => {
	// Opening the dialog tests the credential once; a save tests it again only when a field changed.
	const received = sandbox.stats.received;
	await page.goto(`${n8n.url}/home/credentials/${stack.CREDENTIAL_ID}`, { waitUntil: 'networkidle' });
	const dialog = page.getByTestId('editCredential-modal');
	await dialog.waitFor();
	await dialog.getByText('Connection tested successfully').first().waitFor({ timeout: 30_000 });
	await shot('5-credential-ok');
	expect(sandbox.stats.received - received).toBe(1);
	/**
	 * Saves, which tests the credential, and waits for the dialog to say `expected`. A failure's
	 * reason is behind "More details", which stays open for the next result once opened. Returns
	 * how many requests the sandbox received meanwhile.
	 */
	const saveAndExpect = async (expected: string, screenshot: string) => {
		const received = sandbox.stats.received;
		const tested = page.waitForResponse((response) => response.url().includes('/rest/credentials/test'));
		await dialog.getByTestId('credential-save-button').click();
		await tested;
		const reason = dialog.getByText(expected).first();
		const more = dialog.getByText('More details');
		try {
			for (const deadline = Date.now() + 30_000; Date.now() < deadline && !(await reason.isVisible()); await page.waitForTimeout(200)) {
				if (await more.isVisible()) await more.click();
			}
			await reason.waitFor({ timeout: 1000 });
		} finally {
			await shot(screenshot);
		}
		await page.waitForLoadState('networkidle');
		return sandbox.stats.received - received;
	};
	/** Types into a field; n8n takes the value after a short debounce, and offers Save again once it has. */
	const fill = async (name: string, value: string) => {
		await dialog.getByTestId(`parameter-input-${name}`).locator('input').fill(value);
		await dialog.getByTestId('credential-save-button').filter({ hasText: /^\s*Save\s*$/ }).waitFor({ timeout: 10_000 });
	};

	await fill('token', 'not-the-token');
	expect(await saveAndExpect('Token rejected (HTTP 401, code 45: the token is invalid): check the JWT', '5-credential-wrong-token')).toBe(1);
	await fill('token', sandbox.token);
	await fill('baseUrl', `${sandbox.url}/nope`);
	// The sandbox counts only requests to the send endpoint; this one went elsewhere.
	await saveAndExpect('No send endpoint at this address (HTTP 404): check the Base URL, which ends before /api/v2 (https://api.example.com, not https://api.example.com/api/v2)', '5-credential-wrong-url');
	const closed = `http://127.0.0.1:${await stack.freePort()}`;
	await fill('baseUrl', closed);
	await saveAndExpect(`Nothing answers at ${closed} (connection refused): check the Base URL's host and port, and that the API runs and n8n's host can reach it`, '5-credential-refused');
	await fill('baseUrl', sandbox.url);
	expect(await saveAndExpect('Connection tested successfully', '5-credential-ok-again')).toBe(1);
});

test('the webhook example answers a refused send with 502, then fails its execution, as the Executions list shows', async () => {
	const answer = await axios.post(`${n8n.url}/webhook/order-confirmed`, { order_id: 'ORD-77', customer: { name: 'Eko', phone: '+62 8000 1234 5678' } }, { validateStatus: () => true });
	expect(answer.status).toBe(502);
	await page.goto(`${n8n.url}/workflow/${WEBHOOK_EXAMPLE}/executions`, { waitUntil: 'networkidle' });
	// The newest execution opens by itself, in a frame of the page: its error names the order and the API's reason.
	const reason = 'Order ORD-77 not confirmed (failed): The API refused the message (HTTP 406): Balance is not enough (code 5) [item 0]';
	const shown = async () => (await Promise.all(page.frames().map(async (frame) => await frame.getByText(reason).first().isVisible()))).includes(true);
	try {
		for (const deadline = Date.now() + 30_000; !(await shown()) && Date.now() < deadline; ) await page.waitForTimeout(250);
		expect(await shown()).toBe(true);
	} finally {
		await shot('7-webhook-failed-execution');
	}
});

test('the sandbox page shows the accepted message as the recipient reads it, and the refused requests', async () => {
	await page.goto(sandbox.url);
	await expect(page.getByText('Hi Budi, invoice INV-7 for Rp 150.000 is due.').first().isVisible()).resolves.toBe(true);
	await expect(page.getByText('Token invalid').first().isVisible()).resolves.toBe(true);
	// The credential dialog's tests above: listed as what they are, not as refused messages.
	await expect(page.getByText('The credential’s connection test').first().isVisible()).resolves.toBe(true);
	await shot('6-sandbox-page');
});

test('no browser console error comes from the node or its credential', () => {
	const ours = consoleErrors.filter((text) => /template.?message/i.test(text));
	expect(ours).toEqual([]);
});
