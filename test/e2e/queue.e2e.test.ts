/**
 * Queue mode (scale-out): Redis, PostgreSQL, an n8n main process and two `n8n worker`s, all with
 * this package loaded as a community package under its own name. Webhook calls put executions on
 * the queue; the workers run them and send through the node to the sandbox.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import axios from 'axios';

const stack = require('../../scripts/stack');
const queue = require('../../scripts/queue');
const { parse } = require('../../n8n-app/node_modules/flatted') as { parse: (text: string) => any };

jest.setTimeout(600_000);

/** Per worker; the sandbox accepts twice this, so two workers at full pace stay within it. */
const RATE = 10;
const CALLS = 6;
const ROWS_PER_CALL = 50;

const BULK_WORKFLOW = {
	id: 'tmQueueBulk0001',
	name: 'Queue mode: rows from a webhook',
	nodes: [
		{ id: 'q1', name: 'Bulk webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: 'tm-queue-bulk', parameters: { httpMethod: 'POST', path: 'queue-bulk', options: {} } },
		{ id: 'q2', name: 'Rows', type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: [200, 0], parameters: { fieldToSplitOut: 'body.rows', options: {} } },
		{
			id: 'q3',
			name: 'Template Message',
			type: 'n8n-nodes-template-message.templateMessage',
			typeVersion: 1,
			position: [400, 0],
			parameters: {
				phoneNumber: '={{ $json.phone }}',
				templateCodeId: 'queue_test',
				bodyValues: { values: [{ text: '={{ $json.name }}' }] },
				options: { maxPerSecond: RATE, maxConcurrency: 5 },
			},
			credentials: { templateMessageApi: { id: 'x', name: 'x' } },
		},
	],
	connections: {
		'Bulk webhook': { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
		Rows: { main: [[{ node: 'Template Message', type: 'main', index: 0 }]] },
	},
	settings: { executionOrder: 'v1' },
};

let userFolder: string;
let logDir: string;
interface SandboxState {
	messages: Array<{ msgid: string; request: { phone_number: string } }>;
	stats: Record<string, number>;
}
let sandbox: { url: string; token: string; read(): Promise<SandboxState>; stop(): Promise<void> };
let handles: { main: { url: string }; workers: Array<{ output(): string; child: import('node:child_process').ChildProcess; stop(): Promise<void> }> };

beforeAll(async () => {
	userFolder = mkdtempSync(path.join(os.tmpdir(), 'tm-queue-'));
	logDir = mkdtempSync(path.join(os.tmpdir(), 'tm-queue-logs-'));
	sandbox = await stack.startSandboxProcess({ port: await queue.freePort(), rateLimit: 2 * RATE });
	handles = await queue.startQueueMode({
		userFolder,
		logDir,
		credential: { baseUrl: sandbox.url, token: sandbox.token },
		workflows: [BULK_WORKFLOW],
		publishIds: [BULK_WORKFLOW.id],
		workers: 2,
		workerConcurrency: 3,
	});
});

afterAll(async () => {
	if (handles) await queue.stopQueueMode(handles);
	await sandbox?.stop();
	for (const dir of [userFolder, logDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

const phone = (call: number, row: number) => `6281${String(call).padStart(3, '0')}${String(row).padStart(5, '0')}`;

async function until(check: () => Promise<boolean>, what: string, timeoutMs: number) {
	const deadline = Date.now() + timeoutMs;
	while (!(await check())) {
		if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

test('concurrent webhook calls: every row reaches the API exactly once, from the workers, within twice one worker’s pace', async () => {
	const started = Date.now();
	const calls = Array.from({ length: CALLS }, (_, call) =>
		axios.post(`${handles.main.url}/webhook/queue-bulk`, { rows: Array.from({ length: ROWS_PER_CALL }, (_, row) => ({ phone: phone(call, row), name: `Row ${call}-${row}` })) }),
	);
	expect((await Promise.all(calls)).map((answer) => answer.status)).toEqual(Array(CALLS).fill(200));
	let state: SandboxState = { messages: [], stats: {} };
	await until(async () => (state = await sandbox.read()).messages.length >= CALLS * ROWS_PER_CALL, 'every row at the sandbox', 120_000);
	const seconds = (Date.now() - started) / 1000;

	const perRecipient = new Map<string, number>();
	for (const message of state.messages) perRecipient.set(message.request.phone_number, (perRecipient.get(message.request.phone_number) ?? 0) + 1);
	expect(perRecipient.size).toBe(CALLS * ROWS_PER_CALL);
	expect([...perRecipient.values()].every((count) => count === 1)).toBe(true);
	// Two workers at RATE each never exceeded the sandbox's 2 × RATE.
	expect(state.stats.rateLimited).toBe(0);
	expect(seconds).toBeGreaterThan((CALLS * ROWS_PER_CALL) / (2 * RATE) - 2);

	// The executions ran on the workers (both of them), not on main, and n8n recorded full outputs.
	const startedOn = handles.workers.map((worker) => [...worker.output().matchAll(/Worker started execution (\d+)/g)].map((match) => match[1]));
	expect(startedOn.every((ids) => ids.length > 0)).toBe(true);
	const owner = await axios.post(`${handles.main.url}/rest/owner/setup`, { email: 'owner@example.com', firstName: 'Q', lastName: 'Owner', password: 'Queue-Pass1' });
	const cookie = String(owner.headers['set-cookie']?.[0]).split(';')[0];
	const api = axios.create({ baseURL: handles.main.url, headers: { cookie } });
	let executions: Array<{ id: string; status: string }> = [];
	for (let i = 0; i < 120 && !(executions.length === CALLS && executions.every((e) => e.status === 'success')); i++) {
		executions = (await api.get('/rest/executions', { params: { filter: JSON.stringify({ workflowId: BULK_WORKFLOW.id }), limit: 20 } })).data.data.results;
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	expect(executions.map((execution) => execution.status)).toEqual(Array(CALLS).fill('success'));
	expect(executions.map((execution) => execution.id).sort()).toEqual(startedOn.flat().sort());
	expect(readFileSync(path.join(logDir, 'main.log'), 'utf8')).not.toMatch(/started execution/);
	let recordedItems = 0;
	for (const { id } of executions) {
		const run = parse((await api.get(`/rest/executions/${id}`)).data.data.data);
		const output = run.resultData.runData['Template Message'][0].data.main[0];
		expect(output).toHaveLength(ROWS_PER_CALL);
		expect(output.every((item: { json: { success?: boolean } }) => item.json.success === true)).toBe(true);
		recordedItems += output.length;
	}
	expect(recordedItems).toBe(CALLS * ROWS_PER_CALL);
});
