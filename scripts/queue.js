'use strict';
/**
 * n8n in queue mode with this package: Redis and PostgreSQL on 127.0.0.1 (Debian's packages,
 * installed when missing and run from throwaway folders), one n8n main process and n8n workers,
 * all loading the package as a community package under its own name. Used by the queue-mode
 * end-to-end test and by `npm start -- --queue`.
 */
const { execFileSync, spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const stack = require('./stack');

const { freePort } = stack;

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function postgresBin() {
	const base = '/usr/lib/postgresql';
	if (!fs.existsSync(base)) return undefined;
	const versions = fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
	return versions.length ? path.join(base, versions[0], 'bin') : undefined;
}

/** Installs Debian's redis-server and postgresql when they are missing (scripts/setup.sh). */
function ensureServices() {
	execFileSync('bash', [path.join(stack.ROOT, 'scripts', 'setup.sh'), 'queue-services'], { stdio: 'inherit' });
}

async function waitForPort(port, what, child, timeoutMs = 60_000) {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (child && child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode})`);
		const open = await new Promise((resolve) => {
			const socket = net.connect(port, '127.0.0.1', () => (socket.end(), resolve(true)));
			socket.once('error', () => resolve(false));
		});
		if (open) return;
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
	throw new Error(`${what} did not listen on ${port} within ${timeoutMs / 1000} s`);
}

function stopper(child) {
	const exited = new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
	return async (signal = 'SIGTERM') => {
		if (child.exitCode === null && child.signalCode === null) child.kill(signal);
		const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
		await exited;
		clearTimeout(timer);
	};
}

async function startRedis(port) {
	const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
	await waitForPort(port, 'redis-server', child);
	return { port, stop: stopper(child) };
}

/** A throwaway PostgreSQL cluster with a database `n8n`; run as the postgres user when root. */
async function startPostgres(port) {
	const bin = postgresBin();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tm-pg-'));
	const as = (command, args) => (isRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args]] : [path.join(bin, command), args]);
	if (isRoot) {
		const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
		const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
		fs.chownSync(dir, uid, gid);
	}
	const [initdb, initArgs] = as('initdb', ['-D', dir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
	execFileSync(initdb, initArgs, { stdio: 'ignore' });
	const [postgres, args] = as('postgres', ['-D', dir, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200']);
	const child = spawn(postgres, args, { stdio: 'ignore' });
	await waitForPort(port, 'postgres', child);
	for (let i = 0; ; i++) {
		const created = spawnSync(path.join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-c', 'CREATE DATABASE n8n'], { encoding: 'utf8' });
		if (created.status === 0) break;
		if (i > 50) throw new Error(`Could not create the n8n database: ${created.stderr}`);
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
	const stop = stopper(child);
	return {
		port,
		stop: async () => {
			// Through pg_ctl: when root, the child is runuser, which does not pass signals on.
			const [pgCtl, pgCtlArgs] = as('pg_ctl', ['-D', dir, 'stop', '-m', 'fast']);
			spawnSync(pgCtl, pgCtlArgs, { stdio: 'ignore', timeout: 30_000 });
			await stop('SIGINT');
			fs.rmSync(dir, { recursive: true, force: true });
		},
	};
}

/** What every n8n process of the set-up needs to find the database, the queue and each other's key. */
function queueEnv({ postgresPort, redisPort, encryptionKey }) {
	return {
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(postgresPort),
		DB_POSTGRESDB_DATABASE: 'n8n',
		DB_POSTGRESDB_USER: 'postgres',
		DB_POSTGRESDB_PASSWORD: '',
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redisPort),
		N8N_ENCRYPTION_KEY: encryptionKey,
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
	};
}

/**
 * Starts Redis, PostgreSQL, imports the credential (pointing at `credential`) and the workflows,
 * then n8n main and `workers` workers (each running `workerConcurrency` executions at most, with
 * `workerEnv` added to their environment).
 */
async function startQueueMode({ userFolder, credential, workflows = [], publishIds = [], workers = 2, workerConcurrency = 5, workerEnv = {}, mainPort, logDir }) {
	ensureServices();
	const [redisPort, postgresPort] = [await freePort(), await freePort()];
	const redis = await startRedis(redisPort);
	const postgres = await startPostgres(postgresPort);
	const env = queueEnv({ postgresPort, redisPort, encryptionKey: `tm-queue-${Date.now()}` });
	const log = (name) => (logDir ? path.join(logDir, `${name}.log`) : undefined);
	const handles = { redis, postgres, workers: [] };
	try {
		stack.linkPackage(userFolder);
		stack.importCredential(userFolder, credential, { extra: env });
		if (workflows.length) stack.importWorkflows(userFolder, workflows, publishIds, { extra: env });
		handles.main = await onFreePorts((port, brokerPort) => stack.startN8n(userFolder, { port: mainPort ?? port, brokerPort, extra: env, logFile: log('main') }));
		// The workers boot together, as a deployment's do.
		const started = await Promise.allSettled(
			Array.from({ length: workers }, (_, i) =>
				onFreePorts((workerPort, brokerPort) =>
					stack.startN8n(userFolder, {
						port: workerPort,
						brokerPort,
						command: 'worker',
						args: [`--concurrency=${workerConcurrency}`],
						extra: { ...env, ...workerEnv, QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(workerPort) },
						logFile: log(`worker-${i + 1}`),
					}),
				),
			),
		);
		handles.workers = started.filter((start) => start.status === 'fulfilled').map((start) => start.value);
		const failed = started.find((start) => start.status === 'rejected');
		if (failed) throw failed.reason;
	} catch (error) {
		await stopQueueMode(handles);
		throw error;
	}
	return handles;
}

/**
 * Starts n8n on two ports found free. Between finding a port free and n8n listening on it, another socket
 * can take it (eight workers booting at once open many connections: one run of the queue benchmark met
 * "Port 40003 is already in use"): such a start is tried again on other ports, twice at most.
 */
async function onFreePorts(start) {
	for (let attempt = 1; ; attempt++) {
		try {
			return await start(await freePort(), await freePort());
		} catch (error) {
			if (attempt >= 3 || !/already in use|EADDRINUSE/.test(String(error?.message))) throw error;
		}
	}
}

async function stopQueueMode(handles) {
	for (const worker of handles.workers ?? []) await worker.stop();
	await handles.main?.stop();
	await handles.postgres?.stop();
	await handles.redis?.stop();
}

/**
 * The queue-mode demo and test workflow: a webhook (POST /webhook/queue-bulk with
 * {"rows":[{"phone":…,"name":…}, …]}) whose rows each become one template message, paced at
 * `rate` messages per second. Send Once (per recipient and template) makes "run it again" the way
 * to recover after a worker died mid-run.
 */
function bulkWorkflow(rate) {
	return {
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
					sendOnce: 'recipientTemplate',
					options: { maxPerSecond: rate, maxConcurrency: 5 },
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
}

/** Sets up n8n main's owner; returns the session cookie (`name=value`) for its REST API. */
async function ownerCookie(main) {
	const answer = await fetch(`${main.url}/rest/owner/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@example.com', firstName: 'Q', lastName: 'Owner', password: 'Queue-Pass1' }) });
	if (!answer.ok) throw new Error(`owner setup: HTTP ${answer.status}`);
	return String(answer.headers.get('set-cookie')).split(';')[0];
}

module.exports = { ensureServices, startQueueMode, stopQueueMode, bulkWorkflow, ownerCookie };
