'use strict';
/**
 * `npm start`: real n8n with this package and the example workflows, against the local sandbox
 * API, or against the real API when TEMPLATE_MESSAGE_BASE_URL and TEMPLATE_MESSAGE_JWT are set.
 * n8n's data (SQLite, encryption key) stays in .n8n-data/, so a second start reuses it.
 *
 * `--queue` (`npm start -- --queue`): n8n in queue mode with this package, for trying scale-out:
 * Redis and PostgreSQL on 127.0.0.1 (throwaway, fresh each start), n8n main, two workers (`--workers
 * N` for more), the sandbox API allowing 20 a second, and a webhook workflow whose rows each become a
 * message, each worker paced at its whole share of the 20 (⌊20 ÷ workers⌋: 10 for two).
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const stack = require('./stack');
const queue = require('./queue');
const { TEMPLATES } = require('../sandbox/templates');
const { settingsFromEnv } = require('../sandbox/server');

// Each n8n line keeps its own data: n8n 1.x cannot open a database that 2.x has migrated.
const userFolder = path.join(stack.ROOT, stack.APP_DIR.endsWith('n8n-app') ? '.n8n-data' : `.n8n-data-${path.basename(stack.APP_DIR)}`);
const port = Number(process.env.N8N_PORT || 5678);
const sandboxPort = Number(process.env.SANDBOX_PORT || 5680);
const realBaseUrl = process.env.TEMPLATE_MESSAGE_BASE_URL;
const realToken = process.env.TEMPLATE_MESSAGE_JWT;

async function main() {
	if (Boolean(realBaseUrl) !== Boolean(realToken)) {
		throw new Error('Set both TEMPLATE_MESSAGE_BASE_URL and TEMPLATE_MESSAGE_JWT to use the real API, or neither for the sandbox.');
	}
	stack.linkPackage(userFolder);

	// SANDBOX_RATE_LIMIT, SANDBOX_LATENCY_MS and the rest as docs/development.md lists them.
	const sandbox = realBaseUrl ? undefined : await stack.startSandbox({ ...settingsFromEnv(process.env), port: sandboxPort });
	const credential = realBaseUrl ? { baseUrl: realBaseUrl, token: realToken } : { baseUrl: sandbox.url, token: sandbox.token };
	console.log(realBaseUrl ? `Using the real API at ${realBaseUrl}` : `Sandbox API: ${sandbox.url} (received messages: ${sandbox.url}/)`);

	// Imported when missing or when start's own settings changed (the real API, another sandbox port):
	// otherwise what you changed in the credential in the editor is kept.
	const credentialMarker = path.join(userFolder, '.credential-imported');
	const imported = crypto.createHash('sha256').update(JSON.stringify(credential)).digest('hex');
	if (!fs.existsSync(credentialMarker) || fs.readFileSync(credentialMarker, 'utf8') !== imported) {
		await step('Importing the demo credential into n8n (about 10 s)', () => stack.importCredential(userFolder, credential));
		fs.writeFileSync(credentialMarker, imported);
	}
	const marker = path.join(userFolder, '.examples-imported');
	if (!fs.existsSync(marker)) {
		// Once only, so that later edits of the examples in the editor are kept.
		await step('Importing the example workflows and publishing the webhook example (first start only, about 20 s)', () =>
			stack.importWorkflows(userFolder, stack.readExamples(), ['tmExampleHook001']),
		);
		fs.writeFileSync(marker, new Date().toISOString());
	}

	const n8n = await step(`Starting n8n ${stack.N8N_VERSION} (about 15 s)`, () =>
		stack.startN8n(userFolder, { port, brokerPort: port + 1, logFile: path.join(userFolder, 'n8n.log') }),
	);
	console.log(`
  n8n is ready:        ${n8n.url}   (on the first visit ever, n8n asks you to create its owner account)
  Example workflows:   Overview → "Template Message: …"
  Try the webhook:     curl -X POST ${n8n.url}/webhook/order-confirmed -H 'content-type: application/json' \\
                         -d '{"order_id":"ORD-1","customer":{"name":"Dewi","phone":"+62 811 2233 4455"}}'
                       (the same order again answers "skipped": the example sends each order once)
${sandbox ? `  Sent messages:       ${sandbox.url}/\n  By hand:             credential Base URL ${sandbox.url}, JWT ${sandbox.token}; Template Code IDs ${Object.keys(TEMPLATES).join(', ')}\n` : ''}  n8n's log:           ${path.join(userFolder, 'n8n.log')}
  Stop with Ctrl-C.
`);

	let stopping = false;
	const stop = async () => {
		if (stopping) return;
		stopping = true;
		console.log('Stopping…');
		await n8n.stop();
		if (sandbox) await sandbox.stop();
		process.exit(0);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
	n8n.child.once('exit', (code) => {
		if (!stopping) {
			console.error(`n8n exited (${code}); its log: ${path.join(userFolder, 'n8n.log')}`);
			if (sandbox) sandbox.stop();
			process.exitCode = code || 1;
		}
	});
}

/** The queue-mode sandbox's limit, account-wide; each worker's pace is its whole share. */
const SANDBOX_LIMIT = 20;

/** `--workers N` (2 by default), 1 to 16. */
function workerCount() {
	const at = process.argv.indexOf('--workers');
	if (at === -1) return 2;
	const count = Number(process.argv[at + 1]);
	if (!Number.isInteger(count) || count < 1 || count > 16) throw new Error(`--workers takes a whole number from 1 to 16, not ${process.argv[at + 1] ?? 'nothing'}`);
	return count;
}

async function startQueueMode() {
	const workers = workerCount();
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'tm-queue-demo-'));
	const logDir = path.join(stack.ROOT, '.n8n-data', 'queue-logs');
	fs.mkdirSync(logDir, { recursive: true });
	const sandbox = await stack.startSandbox({ port: Number(process.env.SANDBOX_PORT || 5680), rateLimit: SANDBOX_LIMIT });
	console.log(`Starting Redis, PostgreSQL, n8n main and ${workers} workers…`);
	const perWorker = Math.floor(SANDBOX_LIMIT / workers);
	const workflow = queue.bulkWorkflow(perWorker);
	const handles = await queue.startQueueMode({
		userFolder,
		logDir,
		mainPort: Number(process.env.N8N_PORT || 5678),
		credential: { baseUrl: sandbox.url, token: sandbox.token },
		workflows: [workflow],
		publishIds: [workflow.id],
		workers,
	});
	console.log(`
  n8n (queue mode):  ${handles.main.url}   (first visit: create the owner account)
  Send 100 rows:     curl -X POST ${handles.main.url}/webhook/queue-bulk -H 'content-type: application/json' \\
                       -d "{\\"rows\\":[$(seq -s, 1 100 | sed -E 's/([0-9]+)/{\\"phone\\":\\"62812000\\1\\",\\"name\\":\\"Row \\1\\"}/g')]}"
  Sent messages:     ${sandbox.url}/   (the sandbox allows ${SANDBOX_LIMIT} per second: ${perWorker} per worker)
  Logs:              ${logDir}
  Stop with Ctrl-C.
`);
	const stop = async () => {
		console.log('Stopping…');
		await queue.stopQueueMode(handles);
		await sandbox.stop();
		fs.rmSync(userFolder, { recursive: true, force: true });
		process.exit(0);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

/** Says what is being done, a line every 15 s while it lasts, and how long it took. */
async function step(label, run) {
	const started = Date.now();
	const seconds = () => Math.round((Date.now() - started) / 1000);
	console.log(`${label}…`);
	const ticker = setInterval(() => console.log(`  … still working (${seconds()} s)`), 15_000);
	try {
		const result = await run();
		console.log(`  done in ${seconds()} s`);
		return result;
	} finally {
		clearInterval(ticker);
	}
}

(process.argv.includes('--queue') ? startQueueMode() : main()).catch((error) => {
	console.error(error.message);
	process.exit(1);
});
