'use strict';
/**
 * Send Once in the real n8n (n8n-app/), with its real database: SQLite (`n8n start`), or
 * PostgreSQL in queue mode (`--queue`: a main process and two workers). Posts the same campaign
 * to two webhook workflows that differ only in Send Once, interleaved, and times each execution
 * from the POST to its answer (the webhook answers when the node is done). bench/storeStatsHook.js,
 * loaded into n8n's processes, counts what n8n writes to its processed_data table and the time of
 * each store call. Then, for the record's default size, the time of one store call as the record
 * grows (seeded by n8n's own Remove Duplicates node in the same workflow). Writes JSON to the file
 * named by the first argument; bench/run.ts turns it into docs/benchmarks.md section 6.
 *   node bench/sendOnceReal.js OUT.json [--queue]      (SEND_ONCE_ROWS="5000,20000", SEND_ONCE_ROUNDS=2)
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const stack = require('../scripts/stack');

const [outFile, mode] = process.argv.slice(2);
const queue = mode === '--queue';
// BENCH_SMOKE=1 (`npm run bench -- --smoke`, which CI runs): every part, a few rows, one round.
const SMOKE = process.env.BENCH_SMOKE === '1';
const ROWS = SMOKE ? [40] : (process.env.SEND_ONCE_ROWS ?? (queue ? '5000' : '5000,20000')).split(',').map(Number);
const ROUNDS = SMOKE ? 1 : Number(process.env.SEND_ONCE_ROUNDS ?? 2);
const RECORD_SIZES = queue ? [] : SMOKE ? [100] : [10_000, 100_000, 300_000];
const RECORD_RUN_ROWS = SMOKE ? 20 : 500;

const statsBase = path.join(os.tmpdir(), `tm-store-stats-${process.pid}`);

/** One file per n8n process: <base>.<pid>. */
function statsFiles() {
	const base = path.basename(statsBase);
	return fs.readdirSync(path.dirname(statsBase)).filter((name) => name.startsWith(`${base}.`) && /^\d+$/.test(name.slice(base.length + 1)));
}

function readStats() {
	const total = { writes: 0, values: 0, bytes: 0, calls: 0, callMs: 0 };
	for (const file of statsFiles()) {
		const stats = JSON.parse(fs.readFileSync(path.join(path.dirname(statsBase), file), 'utf8'));
		for (const key of Object.keys(total)) total[key] += stats[key];
	}
	return total;
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Webhook → rows → Template Message (or, with `seed`, → n8n's Remove Duplicates, to fill the record). */
function campaignWorkflow(id, sendOnce) {
	return {
		id,
		name: `Bench: Send Once ${sendOnce ? 'on' : 'off'} (${id})`,
		nodes: [
			{ id: `${id}-1`, name: 'Rows webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: `bench-${id}`, parameters: { httpMethod: 'POST', path: id, responseMode: 'lastNode', responseData: 'noData', options: {} } },
			{ id: `${id}-2`, name: 'Seed?', type: 'n8n-nodes-base.if', typeVersion: 2, position: [200, 0], parameters: { conditions: { options: { caseSensitive: true, leftValue: '', typeValidation: 'loose' }, conditions: [{ leftValue: '={{ $json.body.seed ?? 0 }}', rightValue: 0, operator: { type: 'number', operation: 'gt' } }], combinator: 'and' }, looseTypeValidation: true, options: {} } },
			{ id: `${id}-3`, name: 'Seed values', type: 'n8n-nodes-base.code', typeVersion: 2, position: [400, -100], parameters: { jsCode: 'return Array.from({ length: $json.body.seed }, (_, i) => ({ json: { v: `seed-${i}` } }));' } },
			{ id: `${id}-4`, name: 'Remove Duplicates', type: 'n8n-nodes-base.removeDuplicates', typeVersion: 2, position: [600, -100], parameters: { operation: 'removeItemsSeenInPreviousExecutions', dedupeValue: '={{ $json.v }}', options: { scope: 'workflow', historySize: 1_000_000 } } },
			{ id: `${id}-5`, name: 'Rows', type: 'n8n-nodes-base.code', typeVersion: 2, position: [400, 100], parameters: { jsCode: 'return $json.body.rows.map((row) => ({ json: row }));' } },
			{
				id: `${id}-6`,
				name: 'Template Message',
				type: 'n8n-nodes-template-message.templateMessage',
				typeVersion: 2,
				position: [600, 100],
				parameters: {
					phoneNumber: '={{ $json.phone }}',
					templateCodeId: 'bench_once',
					bodyValues: { values: [{ text: '={{ $json.name }}' }] },
					sendOnce: sendOnce ? 'recipientTemplate' : 'off',
					options: { maxPerSecond: 0 },
				},
				credentials: { templateMessageApi: { id: stack.CREDENTIAL_ID, name: 'Template Message API (sandbox)' } },
			},
		],
		connections: {
			'Rows webhook': { main: [[{ node: 'Seed?', type: 'main', index: 0 }]] },
			'Seed?': { main: [[{ node: 'Seed values', type: 'main', index: 0 }], [{ node: 'Rows', type: 'main', index: 0 }]] },
			'Seed values': { main: [[{ node: 'Remove Duplicates', type: 'main', index: 0 }]] },
			Rows: { main: [[{ node: 'Template Message', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

async function main() {
	process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --require ${path.join(__dirname, 'storeStatsHook.js')}`.trim();
	process.env.TM_STORE_STATS = statsBase;
	const sandboxPort = await stack.freePort();
	const sandbox = await stack.startSandboxProcess({ port: sandboxPort, latencyMs: 20 });
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'tm-bench-once-'));
	stack.linkPackage(userFolder);

	// One workflow per measurement, so that each Send Once run starts from an empty record.
	const plan = [];
	for (let round = 0; round < ROUNDS; round++) {
		for (const rows of ROWS) {
			const pair = [true, false].map((on) => ({ rows, on, round, id: `benchOnce${on ? 'On' : 'Off'}${rows}r${round}` }));
			plan.push(...(round % 2 === 0 ? pair : pair.reverse()));
		}
	}
	const sizes = RECORD_SIZES.map((size) => ({ size, id: `benchRecord${size}` }));
	const workflows = [...plan.map(({ id, on }) => campaignWorkflow(id, on)), ...sizes.map(({ id }) => campaignWorkflow(id, true))];
	const ids = workflows.map((workflow) => workflow.id);

	let main;
	let stop;
	if (queue) {
		const { ensureServices, startQueueMode, stopQueueMode } = require('../scripts/queue');
		ensureServices();
		const handles = await startQueueMode({ userFolder, credential: { baseUrl: sandbox.url, token: sandbox.token }, workflows, publishIds: ids, workers: 2, workerConcurrency: 5 });
		main = handles.main;
		stop = () => stopQueueMode(handles);
	} else {
		stack.importCredential(userFolder, { baseUrl: sandbox.url, token: sandbox.token });
		stack.importWorkflows(userFolder, workflows, ids);
		main = await stack.startN8n(userFolder, { port: await stack.freePort(), brokerPort: await stack.freePort() });
		stop = () => main.stop();
	}

	const post = async (id, body) => {
		const response = await fetch(`${main.url}/webhook/${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
		if (!response.ok) throw new Error(`webhook ${id}: HTTP ${response.status} ${await response.text()}`);
	};
	const measured = async (id, body) => {
		await pause(500);
		const before = readStats();
		await sandbox.clear();
		const started = process.hrtime.bigint();
		await post(id, body);
		const seconds = Number(process.hrtime.bigint() - started) / 1e9;
		await pause(500);
		const after = readStats();
		const delta = Object.fromEntries(Object.keys(after).map((key) => [key, after[key] - before[key]]));
		const { messages } = await sandbox.read();
		return { seconds, sent: messages.length, ...delta };
	};

	const runs = [];
	try {
		// A first small run of each workflow waits for n8n to have registered its webhook (it goes on
		// activating workflows after it says it is ready) and warms n8n up.
		for (const { id } of [...plan, ...sizes]) {
			for (let tries = 1; ; tries++) {
				try {
					await post(id, { rows: [] });
					break;
				} catch (error) {
					if (tries >= 120) throw error;
					await pause(1000);
				}
			}
		}
		await post(plan[0].id, { rows: rowsOf(50, 'warm') });
		for (const step of plan) {
			const result = await measured(step.id, { rows: rowsOf(step.rows, `r${step.round}`) });
			console.log(`  ${step.rows} rows, Send Once ${step.on ? 'on ' : 'off'}: ${result.seconds.toFixed(1)} s, ${result.sent} sent, ${result.writes} writes, ${(result.bytes / 2 ** 20).toFixed(1)} MiB`);
			// A figure is only worth its rows: every one of them must have reached the sandbox once.
			if (result.sent !== step.rows) throw new Error(`${step.rows} rows, Send Once ${step.on ? 'on' : 'off'}: ${result.sent} reached the sandbox`);
			runs.push({ ...step, ...result });
		}
		for (const record of sizes) {
			await post(record.id, { seed: record.size });
			const result = await measured(record.id, { rows: rowsOf(RECORD_RUN_ROWS, `size${record.size}`) });
			const msPerCall = result.callMs / result.calls;
			console.log(`  a record of ${record.size} values: ${msPerCall.toFixed(1)} ms per store call (${result.calls} calls for ${RECORD_RUN_ROWS} messages)`);
			record.msPerCall = msPerCall;
			record.calls = result.calls;
			record.seconds = result.seconds;
		}
	} finally {
		await stop();
		await sandbox.stop();
		fs.rmSync(userFolder, { recursive: true, force: true });
		for (const file of fs.readdirSync(path.dirname(statsBase)).filter((name) => name.startsWith(path.basename(statsBase)))) fs.rmSync(path.join(path.dirname(statsBase), file), { force: true });
	}
	const result = { database: queue ? 'PostgreSQL, queue mode, 2 workers' : 'SQLite', n8n: stack.N8N_VERSION, rounds: ROUNDS, runs, recordSizes: sizes };
	fs.writeFileSync(outFile, JSON.stringify(result, null, 2));
}

/** Indonesian mobile numbers (+62 812…), none of those the sandbox refuses (+62 8000…, +62 8033…). */
function rowsOf(count, tag) {
	return Array.from({ length: count }, (_, i) => ({ phone: `62812${String(i).padStart(7, '0')}${tag.length % 10}`, name: `${tag} ${i}` }));
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
