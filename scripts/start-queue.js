'use strict';
/**
 * `npm run start:queue`: n8n in queue mode with this package, for trying scale-out: Redis and
 * PostgreSQL on 127.0.0.1 (throwaway, fresh each start), n8n main, two workers, the sandbox API,
 * and a webhook workflow whose rows each become a message, paced at 10 per second per worker.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const stack = require('./stack');
const queue = require('./queue');
const { bulkWorkflow } = require('./queue-workflow');

async function main() {
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'tm-queue-demo-'));
	const logDir = path.join(stack.ROOT, '.n8n-data', 'queue-logs');
	fs.mkdirSync(logDir, { recursive: true });
	const sandbox = await stack.startSandbox({ port: Number(process.env.SANDBOX_PORT || 5680), rateLimit: 20 });
	console.log('Starting Redis, PostgreSQL, n8n main and two workers…');
	const workflow = bulkWorkflow(10);
	const handles = await queue.startQueueMode({
		userFolder,
		logDir,
		mainPort: Number(process.env.N8N_PORT || 5678),
		credential: { baseUrl: sandbox.url, token: sandbox.token },
		workflows: [workflow],
		publishIds: [workflow.id],
	});
	console.log(`
  n8n (queue mode):  ${handles.main.url}   (first visit: create the owner account)
  Send 100 rows:     curl -X POST ${handles.main.url}/webhook/queue-bulk -H 'content-type: application/json' \\
                       -d "{\\"rows\\":[$(seq -s, 1 100 | sed -E 's/([0-9]+)/{\\"phone\\":\\"62812000\\1\\",\\"name\\":\\"Row \\1\\"}/g')]}"
  Sent messages:     ${sandbox.url}/   (the sandbox allows 20 per second: 10 per worker)
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

main().catch((error) => {
	console.error(error.message);
	process.exit(1);
});
