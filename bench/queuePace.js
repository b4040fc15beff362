'use strict';
/**
 * The pace of queue-mode workers that share one account, in the real n8n (n8n-app/): Redis,
 * PostgreSQL, n8n main and N workers (scripts/queue.js), against the sandbox in a child process
 * allowing 25 requests a second account-wide (a strict sliding window, 20 ms latency). For each
 * worker count, once every worker has run an execution (see warmUp), the same campaign twice: every
 * worker at the default Max Messages per Second (25), then at ⌊25 ÷ workers⌋. The campaign is 2 × N
 * webhook calls whose rows add up to QUEUE_PACE_ROWS (1200); the time is from the first call to the
 * last message the sandbox accepted, against the ideal of n messages in n - 1 gaps of 1/25 s, and
 * apart from it how long the first message took (the queue's start) and the time from the first
 * message to the last. The executions' own report (each one's status, each output row's) is read
 * from n8n main's REST API. Prints a Markdown table; writes nothing.
 *   node bench/queuePace.js [2,4]      (QUEUE_PACE_ROWS=1200, QUEUE_PACE_RATES=both, QUEUE_PACE_WARM=1,
 *                                       QUEUE_PACE_DETAIL=1 for each call's span and each execution's start)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parse } = require('../n8n-app/node_modules/flatted');
const stack = require('../scripts/stack');
const queue = require('../scripts/queue');

const LIMIT = 25;
const ROWS = Number(process.env.QUEUE_PACE_ROWS ?? 1200);
const WORKER_COUNTS = (process.argv[2] ?? '2,4').split(',').map(Number);
/** QUEUE_PACE_RATES: `default` (25 on each worker), `whole` (⌊25 ÷ workers⌋ on each) or `both`. */
const RATES = process.env.QUEUE_PACE_RATES ?? 'both';
const WARM = process.env.QUEUE_PACE_WARM !== '0';

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The queue workflow at `rate`, under its own id and webhook path. */
function workflowAt(rate) {
	const workflow = queue.bulkWorkflow(rate);
	const tag = `r${String(rate).replace('.', '_')}`;
	const webhook = workflow.nodes[0];
	return { ...workflow, id: `tmQueuePace${tag}`.slice(0, 16).padEnd(16, '0'), name: `Queue pace at ${rate}`, nodes: [{ ...webhook, webhookId: `tm-pace-${tag}`, parameters: { ...webhook.parameters, path: `pace-${tag}` } }, ...workflow.nodes.slice(1)], path: `pace-${tag}` };
}

/** An owner's session on n8n main, for its REST API. */
async function ownerSession(main) {
	const cookie = await queue.ownerCookie(main);
	return async (route) => (await (await fetch(`${main.url}/rest${route}`, { headers: { cookie } })).json()).data;
}

/**
 * What the executions themselves said: each one's status, and each output row's status (a row not
 * sent says why), once every execution of the campaign has finished (or 60 s have passed).
 */
async function executionsReport(rest, workflow, calls, since) {
	let list = [];
	for (let i = 0; i < 120; i++, await pause(500)) {
		// The warm-up's executions came before the campaign's.
		list = (await rest(`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: workflow.id }))}&limit=100`)).results.filter((execution) => Date.parse(execution.createdAt) >= since);
		if (list.length >= calls && list.every((execution) => !['running', 'new', 'waiting'].includes(execution.status))) break;
	}
	const executions = {};
	const rows = {};
	const reasons = new Set();
	const starts = [];
	for (const { id, status, createdAt, startedAt } of list) {
		executions[status] = (executions[status] ?? 0) + 1;
		const run = parse((await rest(`/executions/${id}`)).data);
		const firstRow = run.resultData.runData['Template Message']?.[0]?.data?.main?.[0]?.[0]?.json;
		starts.push({ id, call: callOf(firstRow?.phone_number), created: Date.parse(createdAt), started: Date.parse(startedAt) });
		if (run.resultData.error) reasons.add(`execution ${id}: ${run.resultData.error.message}`);
		for (const output of run.resultData.runData['Template Message']?.[0]?.data?.main ?? []) {
			for (const { json } of output ?? []) {
				rows[json.status] = (rows[json.status] ?? 0) + 1;
				if (json.status !== 'sent' && reasons.size < 5) reasons.add(`${json.status}: ${json.error ?? json.reason ?? ''}`);
			}
		}
	}
	return { executions, rows, reasons: [...reasons], starts };
}

/**
 * Before the measured campaigns, every worker runs executions of the workflows (one row each): a
 * worker's first execution after it starts loads the node and n8n's expression engine, a cost a
 * campaign on workers that have been running does not meet. Rounds of one call per worker and
 * workflow, until each worker's log shows an execution. QUEUE_PACE_WARM=0 measures cold workers.
 */
async function warmUp(main, sandbox, workflows, workers, logDir) {
	const rounds = 10;
	for (let round = 0; round < rounds; round++) {
		await Promise.all(
			workflows.flatMap((workflow, w) =>
				Array.from({ length: workers }, async (_, call) => {
					const rows = [{ phone: phoneOf(90 + round, w * workers + call, 0), name: 'Warm-up' }];
					const answer = await fetch(`${main.url}/webhook/${workflow.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rows }) });
					if (!answer.ok) throw new Error(`webhook ${workflow.path}: HTTP ${answer.status}`);
				}),
			),
		);
		const expected = (round + 1) * workflows.length * workers;
		for (let i = 0; (await sandbox.read()).stats.accepted < expected; i++) {
			// A warm-up message arriving after the campaign began would be counted as one of its own.
			if (i === 60) throw new Error(`warm-up: ${expected} messages not all accepted after 30 s`);
			await pause(500);
		}
		const ran = new Set(executionWorkers(logDir).values()).size;
		if (ran === workers) {
			console.error(`  warm-up: ${round + 1} round(s), every worker ran an execution`);
			// The warm-up's requests leave the account's window before the campaign.
			await pause(2000);
			return;
		}
	}
	throw new Error(`warm-up: after ${rounds} rounds, not every worker had run an execution`);
}

async function campaign(main, sandbox, workflow, workers, runIndex, rest, logDir) {
	await fetch(`${sandbox.url}/api/messages`, { method: 'DELETE' });
	const logsBefore = logLengths(logDir);
	const calls = 2 * workers;
	const perCall = ROWS / calls;
	const started = Date.now();
	await Promise.all(
		Array.from({ length: calls }, async (_, call) => {
			const rows = Array.from({ length: perCall }, (_, row) => ({ phone: phoneOf(runIndex, call, row), name: `Row ${row}` }));
			const answer = await fetch(`${main.url}/webhook/${workflow.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rows }) });
			if (!answer.ok) throw new Error(`webhook ${workflow.path}: HTTP ${answer.status}`);
		}),
	);
	// The webhook answers when it has the rows; the workers send them after.
	let state;
	// Given up after 30 s without a message: the executions' own report then says what became of the rest.
	for (let last = -1, still = 0; still < 60; await pause(500)) {
		state = await sandbox.read();
		if (state.stats.accepted >= ROWS) break;
		still = state.stats.accepted === last ? still + 1 : 0;
		last = state.stats.accepted;
	}
	const times = state.messages.map((message) => Date.parse(message.receivedAt));
	const phones = state.messages.map((message) => message.request.phone_number);
	const first = Math.min(...times);
	const last = Math.max(...times);
	const reported = await executionsReport(rest, workflow, calls, started);
	const tally = (counts) => Object.entries(counts).map(([key, count]) => `${count} ${key}`).join(', ');
	if (process.env.QUEUE_PACE_DETAIL) {
		detail(state, reported.starts, executionWorkers(logDir), started);
		console.error(`  what the executions' summaries said of 429s: ${tally(throttleClauses(logDir, logsBefore)) || 'nothing'}`);
	}
	console.error(`  executions: ${tally(reported.executions)}; their rows: ${tally(reported.rows)}${reported.reasons.length ? `; ${reported.reasons.join(' | ')}` : ''}`);
	return {
		seconds: (last - started) / 1000,
		firstAfter: (first - started) / 1000,
		span: (last - first) / 1000,
		ideal: (ROWS - 1) / LIMIT,
		accepted: state.stats.accepted,
		reportedSent: reported.rows.sent ?? 0,
		twice: phones.length - new Set(phones).size,
		rateLimited: state.stats.rateLimited,
		requests: state.stats.received,
		busiest: state.stats.busiestSecond,
	};
}

/** Which worker ran each execution, from the workers' logs ("Worker started execution 12 (job 12)"). */
function executionWorkers(logDir) {
	const workerOf = new Map();
	for (const file of fs.readdirSync(logDir).filter((name) => name.startsWith('worker-'))) {
		for (const [, id] of fs.readFileSync(path.join(logDir, file), 'utf8').matchAll(/Worker started execution (\d+)/g)) workerOf.set(id, file.slice('worker-'.length, -'.log'.length));
	}
	return workerOf;
}

const workerLogs = (logDir) => fs.readdirSync(logDir).filter((name) => name.startsWith('worker-'));
const logLengths = (logDir) => new Map(workerLogs(logDir).map((file) => [file, fs.statSync(path.join(logDir, file)).size]));

/** The run summaries' words on 429s ("N answers were …", numbers as N) that the workers logged since `before`, counted. */
function throttleClauses(logDir, before) {
	const counts = {};
	for (const file of workerLogs(logDir)) {
		const text = fs.readFileSync(path.join(logDir, file)).subarray(before.get(file) ?? 0).toString('utf8');
		for (const [, clause] of text.matchAll(/Sent \d+ of \d+ item\(s\)[^.]*\. ([^\n]*?"too many requests"[^\n]*?\.)(?=\s|$)/g)) {
			const kind = `"${clause.replace(/^Waited [^:]+: /, '').replace(/\d+ (answers? (was|were)|of them)/g, 'N $1')}"`;
			counts[kind] = (counts[kind] ?? 0) + 1;
		}
	}
	return counts;
}

/** A row's phone says its run and webhook call: 6281, the run (2 digits), the call (2), the row (5). */
const phoneOf = (runIndex, call, row) => `6281${String(runIndex).padStart(2, '0')}${String(call).padStart(2, '0')}${String(row).padStart(5, '0')}`;
const callOf = (phone) => String(phone ?? '').slice(-7, -5);

/**
 * QUEUE_PACE_DETAIL=1, on stderr: each webhook call's first and last message and 429s, the arrivals and
 * 429s of each second, and when n8n created and started each execution, on which worker.
 */
function detail({ messages, refused }, starts, workerOf, started) {
	const since = (at) => ((at - started) / 1000).toFixed(1);
	const calls = new Map();
	const perSecond = [];
	for (const message of messages) {
		const at = (Date.parse(message.receivedAt) - started) / 1000;
		const call = callOf(message.request.phone_number);
		const seen = calls.get(call) ?? { first: at, last: at, count: 0 };
		calls.set(call, { first: Math.min(seen.first, at), last: Math.max(seen.last, at), count: seen.count + 1 });
		perSecond[Math.floor(at)] = (perSecond[Math.floor(at)] ?? 0) + 1;
	}
	// The sandbox keeps its last 200 refusals, each with its request's body (cut at 2,000 characters).
	const tooMany = new Map();
	const tooManyPerSecond = [];
	for (const refusal of refused.filter((entry) => entry.status === 429)) {
		const at = Math.floor((Date.parse(refusal.receivedAt) - started) / 1000);
		const call = callOf(/"phone_number":"(\d+)"/.exec(refusal.request)?.[1]);
		tooMany.set(call, (tooMany.get(call) ?? 0) + 1);
		if (at >= 0) tooManyPerSecond[at] = (tooManyPerSecond[at] ?? 0) + 1;
	}
	for (const [call, seen] of [...calls].sort()) console.error(`  call ${call}: ${seen.count} messages, ${seen.first.toFixed(1)} s to ${seen.last.toFixed(1)} s, ${tooMany.get(call) ?? 0} × 429`);
	console.error(`  arrivals each second: ${Array.from(perSecond, (count) => count ?? 0).join(' ')}`);
	console.error(`  429s each second:     ${Array.from({ length: perSecond.length }, (_, second) => tooManyPerSecond[second] ?? 0).join(' ')}`);
	const each = starts.sort((a, b) => a.call.localeCompare(b.call)).map(({ id, call, created, started: began }) => `call ${call} on worker ${workerOf.get(String(id)) ?? '?'} ${since(created)} → ${since(began)}`);
	console.error(`  executions created → started (s after the first call): ${each.join(', ')}`);
}

async function main() {
	const lines = [
		`Queue mode in the real n8n (${path.basename(stack.APP_DIR)}, n8n ${stack.N8N_VERSION}), PostgreSQL and Redis, worker concurrency 5, against the sandbox allowing ${LIMIT} a second account-wide; ${ROWS} rows in 2 × workers webhook calls; ${os.cpus().length} CPUs, ${new Date().toISOString().slice(0, 10)}.`,
		'',
		'| Workers | Max Messages per Second on each | Time ÷ ideal time | First message after | First to last message ÷ ideal | 429 answers (% of requests) | Most arrivals in one second | Accepted | Reported sent by the executions | Sent twice |',
		'|---|---|---|---|---|---|---|---|---|---|',
	];
	let runIndex = 0;
	for (const workers of WORKER_COUNTS) {
		const rates = [LIMIT, Math.floor(LIMIT / workers)].filter((_, i) => RATES === 'both' || RATES === ['default', 'whole'][i]);
		const workflows = rates.map(workflowAt);
		const sandbox = await stack.startSandboxProcess({ port: await stack.freePort(), rateLimit: LIMIT, latencyMs: 20 });
		const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'tm-queue-pace-'));
		// The workers' logs say which one ran each execution.
		const logDir = fs.mkdtempSync(path.join(userFolder, 'logs-'));
		let handles;
		try {
			console.error(`Starting queue mode with ${workers} workers…`);
			handles = await queue.startQueueMode({ userFolder, credential: { baseUrl: sandbox.url, token: sandbox.token }, workflows, publishIds: workflows.map((workflow) => workflow.id), workers, workerConcurrency: 5, logDir });
			const rest = await ownerSession(handles.main);
			if (WARM) await warmUp(handles.main, sandbox, workflows, workers, logDir);
			for (const [i, workflow] of workflows.entries()) {
				const run = await campaign(handles.main, sandbox, workflow, workers, runIndex++, rest, logDir);
				const line = `| ${workers} | ${rates[i]} | ${(run.seconds / run.ideal).toFixed(3)} | ${run.firstAfter.toFixed(1)} s | ${(run.span / run.ideal).toFixed(3)} | ${run.rateLimited} (${((100 * run.rateLimited) / run.requests).toFixed(1)}%) | ${run.busiest} | ${run.accepted} of ${ROWS} | ${run.reportedSent} | ${run.twice} |`;
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
