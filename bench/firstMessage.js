'use strict';
/**
 * How long a run waits before its first message, in the real n8n (n8n-app/): queue mode with one
 * worker, PostgreSQL and Redis (scripts/queue.js), the queue workflow (two expressions a row, Send
 * Once on), against the sandbox in a child process without a rate limit. The node checks every row
 * before its first request, and reading a row means n8n evaluating its expressions: for each
 * expression engine of n8n's (N8N_EXPRESSION_ENGINE on the worker), two webhook calls of
 * FIRST_MESSAGE_ROWS (2000) rows each, and the time from the execution's start, as n8n recorded it,
 * to the first message the sandbox accepted. Prints one line a call; writes nothing.
 *   node bench/firstMessage.js      (FIRST_MESSAGE_ROWS=2000, FIRST_MESSAGE_ENGINES=vm,legacy)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const stack = require('../scripts/stack');
const queue = require('../scripts/queue');

const ROWS = Number(process.env.FIRST_MESSAGE_ROWS ?? 2000);
const ENGINES = (process.env.FIRST_MESSAGE_ENGINES ?? 'vm,legacy').split(',');
const CALLS = 2;

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function newestExecution(main, cookie) {
	return (await (await fetch(`${main.url}/rest/executions?limit=1`, { headers: { cookie } })).json()).data.results[0];
}

async function measure(engine) {
	const sandbox = await stack.startSandboxProcess({ port: await stack.freePort(), latencyMs: 20 });
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'tm-first-message-'));
	const workflow = queue.bulkWorkflow(25);
	let handles;
	try {
		handles = await queue.startQueueMode({ userFolder, credential: { baseUrl: sandbox.url, token: sandbox.token }, workflows: [workflow], publishIds: [workflow.id], workers: 1, workerConcurrency: 5, workerEnv: { N8N_EXPRESSION_ENGINE: engine } });
		const cookie = await queue.ownerCookie(handles.main);
		for (let call = 1; call <= CALLS; call++) {
			await fetch(`${sandbox.url}/api/messages`, { method: 'DELETE' });
			const rows = Array.from({ length: ROWS }, (_, row) => ({ phone: `6281${call}${String(row).padStart(6, '0')}`, name: `Row ${row}` }));
			const answer = await fetch(`${handles.main.url}/webhook/${workflow.nodes[0].parameters.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rows }) });
			if (!answer.ok) throw new Error(`webhook: HTTP ${answer.status}`);
			let state;
			for (let waited = 0; waited < 60_000; waited += 50, await pause(50)) {
				state = await sandbox.read();
				if (state.messages.length > 0) break;
			}
			if (state.messages.length === 0) throw new Error(`no message within 60 s of call ${call}`);
			const first = Math.min(...state.messages.map((message) => Date.parse(message.receivedAt)));
			const began = Date.parse((await newestExecution(handles.main, cookie)).startedAt);
			console.log(`N8N_EXPRESSION_ENGINE=${engine}, ${ROWS} rows, call ${call}: first message ${first - began} ms after the execution started (${((first - began) / ROWS).toFixed(2)} ms a row)`);
			// The next call starts once this execution has sent everything.
			for (let waited = 0; waited < 600_000; waited += 500, await pause(500)) {
				if (!['new', 'running'].includes((await newestExecution(handles.main, cookie)).status)) break;
			}
		}
	} finally {
		if (handles) await queue.stopQueueMode(handles);
		await sandbox.stop();
		fs.rmSync(userFolder, { recursive: true, force: true });
	}
}

(async () => {
	for (const engine of ENGINES) await measure(engine);
})().then(
	() => process.exit(0),
	(error) => {
		console.error(error);
		process.exit(1);
	},
);
