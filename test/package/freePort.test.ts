/**
 * scripts/stack.js's freePort, which the end-to-end, queue and browser suites give n8n, its workers and
 * the sandbox: while one suite's n8n starts, the engine suites beside it open local servers on ports the
 * kernel picks (`listen(0)`); a port from that range could be taken before n8n binds it, and the suite's
 * readiness check then asked another suite's server.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const stack = require('../../scripts/stack') as { freePort: () => Promise<number> };

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

async function listen(port: number): Promise<net.Server> {
	return await new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => resolve(server));
	});
}

test('a port below the range the kernel picks from, bindable, and never the same one twice', async () => {
	const ports: number[] = [];
	for (let index = 0; index < 50; index++) ports.push(await stack.freePort());
	for (const port of ports) expect(port).toBeLessThan(ephemeralLow);
	expect(new Set(ports).size).toBe(ports.length);
	const servers = await Promise.all(ports.slice(0, 5).map(listen));
	await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

test('where claims cannot be written (the temp folder is no folder), a port all the same', () => {
	const stackPath = path.join(__dirname, '..', '..', 'scripts', 'stack.js');
	const port = execFileSync(process.execPath, ['-e', `require(${JSON.stringify(stackPath)}).freePort().then((port) => console.log(port))`], {
		env: { ...process.env, TMPDIR: '/dev/null/not-a-folder' },
		encoding: 'utf8',
	});
	expect(Number(port)).toBeLessThan(ephemeralLow);
});
