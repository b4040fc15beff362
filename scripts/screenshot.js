'use strict';
/**
 * Takes the README's screenshot from a running real n8n: the Template Message node's panel in
 * the editor, on the spreadsheet example. Needs Chromium (Debian: apt-get install chromium).
 * Usage: node scripts/screenshot.js   (Node 24; builds nothing, run `npm run build` first)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');
const stack = require('./stack');

const OUT = path.join(stack.ROOT, 'docs', 'images', 'node-panel.png');

async function main() {
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'tm-shot-'));
	stack.linkPackage(userFolder);
	const sandbox = await stack.startSandbox({ port: 0 });
	stack.importCredential(userFolder, { baseUrl: sandbox.url, token: sandbox.token });
	stack.importWorkflows(userFolder, stack.readExamples());
	const n8n = await stack.startN8n(userFolder, { port: 5795, brokerPort: 5796 });
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
	});
	try {
		const owner = await fetch(`${n8n.url}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ email: 'owner@example.com', firstName: 'Demo', lastName: 'Owner', password: 'Sandbox-Pass1' }),
		});
		const [name, value] = owner.headers.get('set-cookie').split(';')[0].split('=');
		const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
		await context.addCookies([{ name, value, url: n8n.url }]);
		const page = await context.newPage();
		await page.goto(`${n8n.url}/workflow/tmExampleSched01`, { waitUntil: 'networkidle' });
		const node = page.locator('[data-test-id="canvas-node"][data-node-name="Template Message"]');
		await node.waitFor({ timeout: 60_000 });
		await node.dblclick();
		const panel = page.locator('[data-test-id="ndv"]').first();
		await panel.waitFor({ timeout: 30_000 });
		// Run the step: the pinned rows go to the sandbox, the output shows the msgids.
		await panel.getByRole('button', { name: 'Execute step' }).first().click();
		await page.getByText('msgid').first().waitFor({ timeout: 30_000 });
		await page.waitForTimeout(1000);
		await page.screenshot({ path: OUT });
		console.log(`Saved ${OUT}`);
	} finally {
		await browser.close();
		await n8n.stop();
		await sandbox.stop();
		fs.rmSync(userFolder, { recursive: true, force: true });
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
