'use strict';
/**
 * `node scripts/portsFree.js N8N_PORT [SANDBOX_PORT]`, which `npm start` runs before it installs or builds
 * anything: exits 1, saying which port and what to do, when a port it would listen on is taken (another
 * `npm start` still running, most often) or two of them are one; 0 when all are free. n8n also takes the
 * port after its own, for its task broker.
 */
const net = require('node:net');

const HINT = 'start this one on other ports: N8N_PORT=5700 SANDBOX_PORT=5702 npm start (n8n takes N8N_PORT and the one after it)';

async function taken(port) {
	return await new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', (error) => resolve(error.code ?? 'in use'));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(undefined)));
	});
}

(async () => {
	const [n8n, sandbox] = process.argv.slice(2);
	const wanted = [
		['n8n (N8N_PORT)', n8n],
		["n8n's task broker (N8N_PORT + 1)", String(Number(n8n) + 1)],
		...(sandbox === undefined ? [] : [['the sandbox API (SANDBOX_PORT)', sandbox]]),
	];
	for (const [what, port] of wanted) {
		if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
			console.error(`${what} is ${JSON.stringify(port)}, not a port number: ${HINT}`);
			process.exit(1);
		}
	}
	if (sandbox !== undefined && (Number(sandbox) === Number(n8n) || Number(sandbox) === Number(n8n) + 1)) {
		console.error(`SANDBOX_PORT ${sandbox} is one n8n takes (N8N_PORT ${n8n} and the one after it): ${HINT}`);
		process.exit(1);
	}
	let busy = false;
	for (const [what, port] of wanted) {
		const code = await taken(Number(port));
		if (code === undefined) continue;
		busy = true;
		console.error(`Port ${port}, for ${what}, is taken (${code}): is another \`npm start\` running? Stop it with Ctrl-C in its terminal, or ${HINT}`);
	}
	process.exit(busy ? 1 : 0);
})();
