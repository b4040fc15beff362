'use strict';
/**
 * Real n8n with this package, and the sandbox API: shared by `npm start`, the end-to-end tests
 * and the benchmark. n8n comes from n8n-app/ and finds this package the way it finds an installed
 * community package: in <user folder>/.n8n/nodes/node_modules/n8n-nodes-template-message (a link
 * to this repository), so workflows use the type n8n-nodes-template-message.templateMessage.
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { DEFAULT_TOKEN } = require('../sandbox/server');

const ROOT = path.resolve(__dirname, '..');
/** The n8n application: n8n-app/ (2.x), or the folder N8N_APP names (n8n-app-1.x, the newest 1.x). */
const APP_DIR = path.join(ROOT, process.env.N8N_APP || 'n8n-app');
const N8N_BIN = path.join(APP_DIR, 'node_modules', 'n8n', 'bin', 'n8n');
/** How long an n8n start or CLI command may take: far beyond a quiet machine's, for a busy one. */
const READY_WITHIN_MS = 600_000;
const N8N_VERSION = JSON.parse(fs.readFileSync(path.join(APP_DIR, 'package.json'), 'utf8')).dependencies.n8n;
const N8N_MAJOR = Number(N8N_VERSION.split('.')[0]);
const PACKAGE_NAME = 'n8n-nodes-template-message';
const CREDENTIAL_ID = 'tmDemoCredential';

/** The kernel's range for ports it hands to `listen(0)` and outgoing connections (Linux's default elsewhere). */
function ephemeralRange() {
	try {
		const [low, high] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
		if (Number.isInteger(low) && Number.isInteger(high)) return [low, high];
	} catch {
		// not Linux
	}
	return [32768, 60999];
}

/** One folder of claims per user of the machine: another user's is not writable. */
const PORT_CLAIMS = path.join(os.tmpdir(), `${PACKAGE_NAME}-ports-${typeof process.getuid === 'function' ? process.getuid() : os.userInfo().username}`);

/**
 * Claims `port` for this process, unless this or another live process claimed it first. Where claims
 * cannot be written (a read-only or full temp folder), the port is taken unclaimed.
 */
function claim(port) {
	const file = path.join(PORT_CLAIMS, String(port));
	try {
		fs.mkdirSync(PORT_CLAIMS, { recursive: true });
		fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
		return true;
	} catch (error) {
		if (error.code !== 'EEXIST') return true;
		let owner;
		try {
			owner = Number(fs.readFileSync(file, 'utf8'));
		} catch {
			return false;
		}
		if (owner === process.pid || alive(owner)) return false;
		fs.writeFileSync(file, String(process.pid));
		// Two processes taking over one stale claim: the last write wins.
		return Number(fs.readFileSync(file, 'utf8')) === process.pid;
	}
}

function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return error.code === 'EPERM';
	}
}

async function anyFreePort() {
	return await new Promise((resolve) => {
		const server = net.createServer();
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

async function bindable(port) {
	return await new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/**
 * A TCP port on 127.0.0.1 that is free now and stays free until n8n or a server binds it: one below
 * the kernel's ephemeral range, so that no `listen(0)` on the machine (the engine suites' local
 * servers, beside the queue suite) and no outgoing connection takes it meanwhile, and claimed in a
 * file, so that no other suite's process picks it too.
 */
async function freePort() {
	const [ephemeralLow] = ephemeralRange();
	const [low, high] = [20_000, Math.min(ephemeralLow, 65_536) - 1];
	if (high <= low) return await anyFreePort();
	for (let attempt = 0; attempt < 1_000; attempt++) {
		const port = low + Math.floor(Math.random() * (high - low + 1));
		if (claim(port) && (await bindable(port))) return port;
	}
	throw new Error(`No free port between ${low} and ${high} after 1,000 tries`);
}

/** n8n settings for a local, offline instance. */
function n8nEnv(userFolder, { port = 5678, brokerPort = 5679, extra = {} } = {}) {
	// n8n exits at once, silently, under NODE_ENV=test (which jest sets).
	const { NODE_ENV, ...inherited } = process.env;
	void NODE_ENV;
	return {
		...inherited,
		N8N_USER_FOLDER: userFolder,
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PORT: String(port),
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}`,
		WEBHOOK_URL: `http://127.0.0.1:${port}/`,
		N8N_SECURE_COOKIE: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		...extra,
	};
}

/** Runs an n8n CLI command against the user folder; throws with its output if it fails. */
function n8nCli(userFolder, args, options = {}) {
	const result = spawnSync(process.execPath, [N8N_BIN, ...args], {
		cwd: APP_DIR,
		env: n8nEnv(userFolder, options),
		encoding: 'utf8',
		timeout: READY_WITHIN_MS,
	});
	if (result.status !== 0) {
		throw new Error(`n8n ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
	}
	return result.stdout;
}

/** The same, without blocking this process (whose servers the command may be talking to). */
function n8nCliAsync(userFolder, args, options = {}) {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [N8N_BIN, ...args], { cwd: APP_DIR, env: n8nEnv(userFolder, options) });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk) => (stdout += chunk));
		child.stderr.on('data', (chunk) => (stderr += chunk));
		child.once('error', reject);
		child.once('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`n8n ${args.join(' ')} failed (${code}):\n${stdout}\n${stderr}`))));
	});
}

/**
 * Makes n8n see this repository as the installed community package. For n8n 2.x a link to the
 * repository (a rebuild shows at the next start). For 1.x the packed package, unpacked without
 * node_modules, as n8n installs one: it must use n8n 1.x's own n8n-workflow (n8n puts its modules
 * on NODE_PATH), not the 2.x one in this repository's node_modules.
 */
function linkPackage(userFolder) {
	const modules = path.join(userFolder, '.n8n', 'nodes', 'node_modules');
	fs.mkdirSync(modules, { recursive: true });
	const target = path.join(modules, PACKAGE_NAME);
	if (N8N_MAJOR >= 2) {
		if (!fs.existsSync(target)) fs.symlinkSync(ROOT, target, 'dir');
		return;
	}
	fs.rmSync(target, { recursive: true, force: true });
	const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tm-pack-'));
	const packed = spawnSync('npm', ['pack', '--silent', '--pack-destination', packDir], { cwd: ROOT, encoding: 'utf8' });
	if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
	fs.mkdirSync(target);
	const unpacked = spawnSync('tar', ['-xzf', path.join(packDir, packed.stdout.trim().split('\n').pop()), '-C', target, '--strip-components=1']);
	if (unpacked.status !== 0) throw new Error(`unpacking the package failed:\n${unpacked.stderr}`);
	fs.rmSync(packDir, { recursive: true, force: true });
}

/** Runs `use` with `value` written as JSON to a file of its own, removed afterwards. */
function withTempFile(name, value, use) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tm-import-'));
	try {
		const file = path.join(dir, name);
		fs.writeFileSync(file, JSON.stringify(value));
		return use(file);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

/** (Re)writes the demo credential: n8n encrypts it with the folder's key on import. */
function importCredential(userFolder, { baseUrl, token }, options = {}) {
	const credentials = [{ id: CREDENTIAL_ID, name: 'Template Message account', type: 'templateMessageApi', data: { baseUrl, token } }];
	withTempFile('credentials.json', credentials, (file) => n8nCli(userFolder, ['import:credentials', `--input=${file}`], options));
}

/** Imports workflows (pointed at the demo credential) and publishes the given ids (activates them). */
function importWorkflows(userFolder, workflows, publishIds = [], options = {}) {
	const withCredential = workflows.map((workflow) => ({
		...workflow,
		nodes: workflow.nodes.map((node) =>
			node.credentials?.templateMessageApi
				? { ...node, credentials: { templateMessageApi: { id: CREDENTIAL_ID, name: 'Template Message account' } } }
				: node,
		),
	}));
	withTempFile('workflows.json', withCredential, (file) => n8nCli(userFolder, ['import:workflow', `--input=${file}`], options));
	// n8n 1.x activates a workflow; 2.x publishes it.
	const activate = (id) => (N8N_MAJOR >= 2 ? ['publish:workflow', `--id=${id}`] : ['update:workflow', `--id=${id}`, '--active=true']);
	for (const id of publishIds) n8nCli(userFolder, activate(id), options);
}

function readExamples() {
	const dir = path.join(ROOT, 'examples');
	return fs
		.readdirSync(dir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')));
}

/** Starts `n8n start` (or another n8n command) and resolves once it answers its readiness check. */
/** Every n8n this process started and has not seen exit: stopAll() ends them, ready or not. */
const started = new Set();

/** Stops every n8n this process started, also one still starting when a suite's set-up gave up on it. */
async function stopAll() {
	await Promise.all([...started].map((handle) => handle.stop()));
}

async function startN8n(userFolder, { port = 5678, brokerPort = 5679, command = 'start', args = [], extra = {}, logFile, waitReady = true } = {}) {
	const child = spawn(process.execPath, [N8N_BIN, command, ...args], {
		cwd: APP_DIR,
		env: n8nEnv(userFolder, { port, brokerPort, extra }),
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let output = '';
	const keep = (chunk) => {
		output = (output + chunk.toString()).slice(-20_000);
		if (logFile) fs.appendFileSync(logFile, chunk);
	};
	child.stdout.on('data', keep);
	child.stderr.on('data', keep);
	const exited = new Promise((resolve) => child.once('exit', resolve));
	const handle = {
		url: `http://127.0.0.1:${port}`,
		child,
		/** The last 20,000 characters of its output. */
		output: () => output,
		/** All of it, from its log file (a count of its lines must not stop at the kept tail). */
		log: () => (logFile ? fs.readFileSync(logFile, 'utf8') : output),
		async stop() {
			if (child.exitCode === null && child.signalCode === null) {
				child.kill('SIGTERM');
				const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
				await exited;
				clearTimeout(timer);
			}
		},
	};
	started.add(handle);
	void exited.then(() => started.delete(handle));
	if (!waitReady) return handle;
	// Far beyond a start on a quiet machine (20 to 40 s): the bound is for an n8n that never starts.
	const deadline = Date.now() + READY_WITHIN_MS;
	while (Date.now() < deadline) {
		if (child.exitCode !== null) throw new Error(`n8n exited (${child.exitCode}) before it was ready:\n${output}`);
		try {
			const response = await fetch(`${handle.url}/healthz/readiness`);
			// Readiness comes before the active workflows' webhooks are registered (seconds later on
			// 1.x); `n8n start` prints this line once they are.
			if (response.ok && (command !== 'start' || output.includes('Editor is now accessible via'))) return handle;
		} catch {
			// not listening yet
		}
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	await handle.stop();
	throw new Error(`n8n was not ready within ${READY_WITHIN_MS / 1000} s:\n${output}`);
}

/** Starts the sandbox API in this process. */
/** The sandbox in this process; settings as createSandbox takes them (sandbox/server.js). */
async function startSandbox({ port = 5680, token = DEFAULT_TOKEN, ...settings } = {}) {
	const { createSandbox } = require('../sandbox/server');
	const sandbox = createSandbox({ ...settings, token });
	await new Promise((resolve, reject) => {
		sandbox.server.once('error', reject);
		sandbox.server.listen(port, '127.0.0.1', resolve);
	});
	const address = sandbox.server.address();
	return {
		...sandbox,
		url: `http://127.0.0.1:${address.port}`,
		token,
		stop: () => new Promise((resolve) => sandbox.server.close(resolve)),
	};
}

/**
 * The sandbox in a process of its own (for load tests): at raised priority where that is allowed
 * (root), so that on a busy machine it sees requests when they arrive rather than in bursts after
 * being descheduled. Its messages and counters are read over its JSON endpoint.
 */
async function startSandboxProcess({ port, token = DEFAULT_TOKEN, latencyMs = 0, rateLimit = 0, sharedShare = 0, rateWindow = 'sliding', resetForm = 'fraction', tls }) {
	const server = path.join(ROOT, 'sandbox', 'server.js');
	const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	const [command, args] = isRoot ? ['nice', ['-n', '-10', process.execPath, server]] : [process.execPath, [server]];
	const child = spawn(command, args, {
		env: {
			...process.env,
			SANDBOX_PORT: String(port),
			SANDBOX_TOKEN: token,
			SANDBOX_LATENCY_MS: String(latencyMs),
			SANDBOX_RATE_LIMIT: String(rateLimit),
			SANDBOX_SHARED_SHARE: String(sharedShare),
			SANDBOX_RATE_WINDOW: rateWindow,
			SANDBOX_RATE_RESET: resetForm,
			...(tls ? { SANDBOX_TLS_KEY: tls.keyFile, SANDBOX_TLS_CERT: tls.certFile } : {}),
		},
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	// Never left behind: a sandbox outliving a crashed run would answer the next run on its port.
	const killChild = () => child.kill();
	process.once('exit', killChild);
	child.once('exit', () => process.removeListener('exit', killChild));
	// Its own "listening" line, not just an answer on the port (which a stale one could give).
	let stderr = '';
	child.stderr.on('data', (chunk) => (stderr += chunk));
	await new Promise((resolve, reject) => {
		child.stdout.on('data', (chunk) => String(chunk).includes('Sandbox API on') && resolve());
		child.once('exit', (code) => reject(new Error(`The sandbox did not start on ${port} (exit ${code}): ${stderr.match(/^.*Error.*$/m)?.[0] ?? stderr.trim()}`)));
	});
	child.stdout.resume();
	const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
	const read = async () => (await (await fetch(`${url}/api/messages`)).json());
	return {
		url,
		token,
		read,
		clear: async () => void (await fetch(`${url}/api/messages`, { method: 'DELETE' })),
		stop: async () => {
			child.kill();
			if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
		},
	};
}

module.exports = { stopAll, freePort, startSandboxProcess, ROOT, APP_DIR, N8N_VERSION, PACKAGE_NAME, CREDENTIAL_ID, n8nEnv, n8nCli, n8nCliAsync, linkPackage, importCredential, importWorkflows, readExamples, startN8n, startSandbox };
