'use strict';
/**
 * The pace of queue-mode workers that share one account, in the real n8n (n8n-app/): Redis,
 * PostgreSQL, n8n main and N workers (scripts/queue.js), against the sandbox in a child process
 * allowing 25 requests a second account-wide (a strict sliding window, 20 ms latency). For each
 * worker count, the same campaign twice: every worker at the default Max Messages per Second (25),
 * then at ⌊25 ÷ workers⌋. The campaign is 2 × N webhook calls whose rows add up to QUEUE_PACE_ROWS
 * (1200); the time is from the first call to the last message the sandbox accepted, against the
 * ideal of n messages in n - 1 gaps of 1/25 s. Prints a Markdown table; writes nothing.
 *   node bench/queuePace.js [2,4]      (QUEUE_PACE_ROWS=1200)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const stack = require('../scripts/stack');
const queue = require('../scripts/queue');

const LIMIT = 25;
const ROWS = Number(process.env.QUEUE_PACE_ROWS ?? 1200);
const WORKER_COUNTS = (process.argv[2] ?? '2,4').split(',').map(Number);

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The queue workflow at `rate`, under its own id and webhook path. */
function workflowAt(rate) {
	const workflow = queue.bulkWorkflow(rate);
	const tag = `r${String(rate).replace('.', '_')}`;
	const webhook = workflow.nodes[0];
	return { ...workflow, id: `tmQueuePace${tag}`.slice(0, 16).padEnd(16, '0'), name: `Queue pace at ${rate}`, nodes: [{ ...webhook, webhookId: `tm-pace-${tag}`, parameters: { ...webhook.parameters, path: `pace-${tag}` } }, ...workflow.nodes.slice(1)], path: `pace-${tag}` };
}

async function campaign(main, sandbox, workflow, workers, runIndex) {
	await fetch(`${sandbox.url}/api/messages`, { method: 'DELETE' });
	const calls = 2 * workers;
	const perCall = ROWS / calls;
	const started = Date.now();
	await Promise.all(
		Array.from({ length: calls }, async (_, call) => {
			const rows = Array.from({ length: perCall }, (_, row) => ({ phone: `6281${String(runIndex).padStart(2, '0')}${String(call).padStart(2, '0')}${String(row).padStart(5, '0')}`, name: `Row ${row}` }));
			const answer = await fetch(`${main.url}/webhook/${workflow.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rows }) });
			if (!answer.ok) throw new Error(`webhook ${workflow.path}: HTTP ${answer.status}`);
		}),
	);
	// The webhook answers when it has the rows; the workers send them after.
	let state;
	for (let last = -1, still = 0; still < 20; await pause(500)) {
		state = await sandbox.read();
		if (state.stats.accepted >= ROWS) break;
		still = state.stats.accepted === last ? still + 1 : 0;
		last = state.stats.accepted;
	}
	const times = state.messages.map((message) => Date.parse(message.receivedAt));
	const phones = state.messages.map((message) => message.request.phone_number);
	return {
		seconds: (Math.max(...times) - started) / 1000,
		ideal: (ROWS - 1) / LIMIT,
		accepted: state.stats.accepted,
		twice: phones.length - new Set(phones).size,
		rateLimited: state.stats.rateLimited,
		requests: state.stats.received,
		busiest: state.stats.busiestSecond,
	};
}

async function main() {
	const lines = [
		`Queue mode in the real n8n (${path.basename(stack.APP_DIR)}, n8n ${stack.N8N_VERSION}), PostgreSQL and Redis, worker concurrency 5, against the sandbox allowing ${LIMIT} a second account-wide; ${ROWS} rows in 2 × workers webhook calls; ${os.cpus().length} CPUs, ${new Date().toISOString().slice(0, 10)}.`,
		'',
		'| Workers | Max Messages per Second on each | Time ÷ ideal time | 429 answers (% of requests) | Most arrivals in one second | Accepted | Sent twice |',
		'|---|---|---|---|---|---|---|',
	];
	let runIndex = 0;
	for (const workers of WORKER_COUNTS) {
		const rates = [LIMIT, Math.floor(LIMIT / workers)];
		const workflows = rates.map(workflowAt);
		const sandbox = await stack.startSandboxProcess({ port: await stack.freePort(), rateLimit: LIMIT, latencyMs: 20 });
		const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'tm-queue-pace-'));
		let handles;
		try {
			console.error(`Starting queue mode with ${workers} workers…`);
			handles = await queue.startQueueMode({ userFolder, credential: { baseUrl: sandbox.url, token: sandbox.token }, workflows, publishIds: workflows.map((workflow) => workflow.id), workers, workerConcurrency: 5 });
			for (const [i, workflow] of workflows.entries()) {
				const run = await campaign(handles.main, sandbox, workflow, workers, runIndex++);
				const line = `| ${workers} | ${rates[i]} | ${(run.seconds / run.ideal).toFixed(3)} | ${run.rateLimited} (${((100 * run.rateLimited) / run.requests).toFixed(1)}%) | ${run.busiest} | ${run.accepted} of ${ROWS} | ${run.twice} |`;
				console.error(line);
				lines.push(line);
			}
		} finally {
			if (handles) await queue.stopQueueMode(handles);
			await sandbox.stop();
			fs.rmSync(userFolder, { recursive: true, force: true });
		}
	}
	console.log(lines.join('\n'));
}

main().then(
	() => process.exit(0),
	(error) => {
		console.error(error);
		process.exit(1);
	},
);
