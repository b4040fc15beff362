/**
 * scripts/portsFree.js, which `npm start` runs before it installs or builds anything: a taken port is named,
 * with ports to start on instead that `npm start` can use (n8n's task broker takes N8N_PORT + 1: scripts/start.js).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import { PACKAGE_ROOT } from '../helpers/engine';

const SCRIPT = path.join(PACKAGE_ROOT, 'scripts', 'portsFree.js');

async function run(ports: number[]): Promise<{ code: number; said: string }> {
	return await new Promise((resolve) => {
		execFile(process.execPath, [SCRIPT, ...ports.map(String)], (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, said: stderr }));
	});
}

async function freePort(): Promise<number> {
	const server = net.createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as net.AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	return port;
}

test('free ports: nothing said, exit 0; a taken one: named, with other ports that do not collide with the task broker, exit 1', async () => {
	let n8nFree = await freePort();
	while (n8nFree === 65535) n8nFree = await freePort();
	expect(await run([n8nFree, await freePort()])).toEqual({ code: 0, said: '' });

	expect(readFileSync(path.join(PACKAGE_ROOT, 'scripts', 'start.js'), 'utf8')).toContain('brokerPort: port + 1');
	const busy = net.createServer();
	await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
	const taken = (busy.address() as net.AddressInfo).port;
	try {
		const { code, said } = await run([taken, await freePort()]);
		expect(code).toBe(1);
		expect(said).toContain(`Port ${taken}, for n8n (N8N_PORT), is taken`);
		const n8nPort = Number(/N8N_PORT=(\d+)/.exec(said)?.[1]);
		const sandboxPort = Number(/SANDBOX_PORT=(\d+)/.exec(said)?.[1]);
		expect([n8nPort + 1, n8nPort]).not.toContain(sandboxPort);
	} finally {
		busy.close();
	}
});

test('a sandbox port n8n takes itself (N8N_PORT + 1, its task broker) or a port that is no number is refused before anything starts', async () => {
	const clash = await run([5700, 5701]);
	expect(clash).toEqual({ code: 1, said: expect.stringContaining('SANDBOX_PORT 5701 is one n8n takes (N8N_PORT 5700 and the one after it)') });
	expect((await run(['abc' as unknown as number])).said).toContain('n8n (N8N_PORT) is "abc", not a port number');
});
