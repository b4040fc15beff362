/**
 * Stop execution (or a queue-mode worker's stop message, or the workflow timeout's cancel) read in the same
 * event-loop turn in which an https request's TLS handshake completes (found by an attack, 2026-11-29). Node.js encrypts the request and hands
 * it to the kernel in that turn, but reports the write finished (ClientRequest.writableFinished) only in the next
 * turn's check phase. The node reads "writableFinished: false" as "surely not sent" (outcome.ts requestWritten), so
 * the aborted message, which the API did receive whole and accept, is forgotten by Send Once, and the next run
 * sends it a second time. It must come out in doubt instead.
 *
 * The stop arrives on another socket (as Redis's message does at a queue-mode worker, or n8n's database answer
 * before a Stop from the editor), written by the API's server right after it answered the ClientHello of the
 * request chosen, so that it is read in the same poll as the API's handshake answer.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

import type { IDataObject } from 'n8n-workflow';

import { resetDeduplicationStore } from '../helpers/deduplicationStore';
import { cancelOn, PACKAGE_ROOT, runSendNode, SEND_NODE } from '../helpers/engine';

jest.setTimeout(60_000);

const { selfSignedCert } = require(path.join(PACKAGE_ROOT, 'scripts', 'selfSignedCert.js')) as { selfSignedCert: (dir: string) => { keyFile: string; certFile: string } };

interface Received {
	phone: string;
}

test('a Stop read in the turn an https request was handed to the kernel: the message the API took is in doubt on the next run, never sent again', async () => {
	resetDeduplicationStore();
	// The test's self-signed API: trusted by this process's TLS connections for the test's time.
	const connect = tls.connect;
	const trusting = jest.spyOn(tls, 'connect').mockImplementation(((...args: unknown[]) => {
		const options = args.find((arg) => typeof arg === 'object' && arg !== null) as tls.ConnectionOptions | undefined;
		if (options) options.rejectUnauthorized = false;
		return (connect as (...a: unknown[]) => tls.TLSSocket)(...args);
	}) as typeof tls.connect);
	const { keyFile, certFile } = selfSignedCert(path.join(tmpdir(), 'template-message-attack-tls'));
	const key = readFileSync(keyFile);
	const cert = readFileSync(certFile);
	const context = tls.createSecureContext({ key, cert });

	const received: Received[] = [];
	let handshakes = 0;
	/** The handshake (1-based) after whose ClientHello the stop goes out; 0: none. */
	let stopAtHandshake = 0;
	let stopWriter: net.Socket | undefined;
	const server = https.createServer(
		{
			key,
			cert,
			SNICallback: (_name, done) => {
				done(null, context);
				if (++handshakes === stopAtHandshake) setImmediate(() => stopWriter?.write('stop'));
			},
		},
		(req, res) => {
			let body = '';
			req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
			req.on('end', () => {
				received.push({ phone: String((JSON.parse(body) as IDataObject).phone_number) });
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ success: true, msgid: `m-${received.length}` }));
			});
		},
	);
	const stopChannel = net.createServer((socket) => (stopWriter = socket));
	await new Promise<void>((resolve) => server.listen(0, resolve));
	await new Promise<void>((resolve) => stopChannel.listen(0, '127.0.0.1', resolve));
	const accepted = new Promise<void>((resolve) => stopChannel.once('connection', () => resolve()));
	const stopReader = net.connect((stopChannel.address() as AddressInfo).port, '127.0.0.1');
	await Promise.all([new Promise((resolve) => stopReader.on('connect', resolve)), accepted]);

	try {
		const baseUrl = `https://localhost:${(server.address() as AddressInfo).port}`;
		const items = Array.from({ length: 3 }, (_, i) => ({ phone: `6281200000${i}` }));
		const parameters = { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl-tls', sendOnce: 'recipientTemplate', options: { maxConcurrency: 1, maxPerSecond: 0 } };

		const { cancelWhen, fire } = cancelOn();
		stopReader.on('data', fire);
		// The set-up works: one message over https, sent.
		const probe = await runSendNode({ baseUrl, items: [{ phone: '6281299999999' }], parameters, typeVersion: 2, onError: 'continueRegularOutput' });
		expect(probe.output(SEND_NODE)[0].json.status).toBe('sent');
		received.length = 0;
		// Each request opens its own connection: the second message's handshake.
		stopAtHandshake = handshakes + 2;
		const stopped = await runSendNode({ baseUrl, items, parameters, typeVersion: 2, onError: 'continueRegularOutput', cancelWhen });
		expect(stopped.run.status).toBe('canceled');
		// The request the Stop caught on its way reaches the API's handler a moment later, whatever the machine's speed.
		for (let waited = 0; received.length < 2 && waited < 20_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
		// The second message reached the API whole (and was answered 200) although the run was stopped on its way.
		expect(received.map((request) => request.phone)).toEqual([items[0].phone, items[1].phone]);

		stopAtHandshake = 0;
		const again = await runSendNode({ baseUrl, items, parameters, typeVersion: 2, onError: 'continueRegularOutput' });
		const rows = again.output(SEND_NODE).map(({ json }) => (json.success === true ? 'sent' : json.inDoubt === true ? 'inDoubt' : json.sentBefore === true ? 'sentBefore' : String(json.status)));
		// Was: ['sentBefore', 'sent', 'sent'], the second recipient messaged twice.
		expect({ rows, timesTheApiTookTheSecond: received.filter((request) => request.phone === items[1].phone).length }).toEqual({ rows: ['sentBefore', 'inDoubt', 'sent'], timesTheApiTookTheSecond: 1 });
	} finally {
		stopReader.destroy();
		stopWriter?.destroy();
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
		await new Promise((resolve) => stopChannel.close(resolve));
		trusting.mockRestore();
	}
});
