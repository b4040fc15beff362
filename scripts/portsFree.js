'use strict';
/**
 * `node scripts/portsFree.js 5678 5679 [5680]` (n8n, its task broker, the sandbox): exits 1, saying which and what to do, when a port `npm start`
 * listens on is taken (another `npm start` still running, most often); 0 when all are free.
 */
const net = require('node:net');

const WHAT = { 0: 'n8n (N8N_PORT)', 1: "n8n's task broker (N8N_PORT + 1)", 2: 'the sandbox API (SANDBOX_PORT)' };

async function taken(port) {
	return await new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', (error) => resolve(error.code ?? 'in use'));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(undefined)));
	});
}

(async () => {
	const ports = process.argv.slice(2).map(Number);
	let busy = false;
	for (const [index, port] of ports.entries()) {
		const code = await taken(port);
		if (code === undefined) continue;
		busy = true;
		console.error(`Port ${port}, for ${WHAT[index] ?? 'n8n'}, is taken (${code}): is another \`npm start\` running? Stop it with Ctrl-C in its terminal, or start this one on other ports: N8N_PORT=5700 SANDBOX_PORT=5702 npm start (n8n takes N8N_PORT and the one after it)`);
	}
	process.exit(busy ? 1 : 0);
})();
