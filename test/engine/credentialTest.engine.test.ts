/**
 * The credential's connection test as n8n runs it: the node's testedBy method, called on n8n-core's
 * own CredentialTestContext (whose request helper is what the credential dialog uses), against
 * local servers that answer, refuse, redirect, hang or speak TLS with an untrusted certificate.
 */
import { CredentialTestContext } from 'n8n-core';
import type { ICredentialsDecrypted, ICredentialTestFunctions, INodeCredentialTestResult } from 'n8n-workflow';
import http from 'node:http';
import https from 'node:https';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { askWithToken } from '../../nodes/TemplateMessage/api/credentialTest';
import { startApiServer, type ApiServer } from '../helpers/apiServer';
import { PACKAGE_ROOT } from '../helpers/engine';

const { TemplateMessage } = require(path.join(PACKAGE_ROOT, 'dist', 'nodes', 'TemplateMessage', 'TemplateMessage.node.js'));
const { selfSignedCert } = require(path.join(PACKAGE_ROOT, 'scripts', 'selfSignedCert.js'));

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.credential-test-token';
let api: ApiServer;

// n8n 2.x hands the context its execution data; 1.x takes none.
const context = () => new (CredentialTestContext as unknown as new (additionalData: object) => ICredentialTestFunctions)({});
const credential = (baseUrl: string, token = TOKEN): ICredentialsDecrypted => ({ id: '1', name: 'Template Message API', type: 'templateMessageApi', data: { baseUrl, token } });
const test$ = async (baseUrl: string, token?: string): Promise<INodeCredentialTestResult> =>
	await new TemplateMessage().methods.credentialTest.testCredential.call(context(), credential(baseUrl, token));

beforeAll(async () => {
	api = await startApiServer((request) => (request.headers.authorization === TOKEN ? { status: 406, body: { success: false, message: 'phone_number is required' } } : { status: 401, body: { message: `Token invalid: ${request.headers.authorization}` } }));
});
afterAll(async () => {
	await api.close();
	// The context's SSH tunnel manager keeps a cleanup interval (n8n 2.x unrefs it, 1.x does not).
	const core = path.dirname(require.resolve('n8n-core/package.json'));
	const { Container } = require(require.resolve('@n8n/di', { paths: [core] }));
	const { SSHClientsManager } = require(path.join(core, 'dist', 'execution-engine', 'ssh-clients-manager.js'));
	Container.get(SSHClientsManager).onShutdown();
});
beforeEach(() => (api.requests.length = 0));

async function serve(server: http.Server | https.Server, host = '127.0.0.1'): Promise<string> {
	await new Promise<void>((resolve) => server.listen(0, host, resolve));
	return String((server.address() as AddressInfo).port);
}
const closing = async (server: http.Server | https.Server) => {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
};

test('one click is one request: the token as the Authorization header, an empty body to the send endpoint', async () => {
	expect(await test$(`${api.baseUrl}/`)).toEqual({ status: 'OK', message: 'Connection successful: the API accepted the token' });
	expect(api.requests.map(({ method, url, headers, body }) => ({ method, url, authorization: headers.authorization, body }))).toEqual([
		{ method: 'POST', url: '/api/v2/push/message', authorization: TOKEN, body: {} },
	]);
});

test('a wrong token is one request too, and the dialog says to check the JWT', async () => {
	const result = await test$(api.baseUrl, 'wrong-token-0123456789');
	expect(result).toEqual({ status: 'Error', message: 'Token rejected (HTTP 401): check the JWT' });
	expect(api.requests).toHaveLength(1);
});

test('a closed port is a refused connection that names the Base URL', async () => {
	const closed = http.createServer();
	const port = await serve(closed);
	await closing(closed);
	expect(await test$(`http://127.0.0.1:${port}`)).toEqual({
		status: 'Error',
		message: `Nothing answers at http://127.0.0.1:${port} (connection refused): check the Base URL's host and port, and that the API runs and n8n's host can reach it`,
	});
});

test('a host that does not exist is a DNS failure', async () => {
	expect((await test$('http://no-such-host.invalid')).message).toMatch(/^The host of http:\/\/no-such-host\.invalid could not be found \(DNS: (ENOTFOUND|EAI_AGAIN)\)/);
});

test('a self-signed certificate is a TLS error with the fix', async () => {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'tm-tls-'));
	const { keyFile, certFile } = selfSignedCert(dir);
	const server = https.createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (_, res) => res.end('{}'));
	try {
		// By name: n8n 1.x would give the IP as the TLS server name, which Node warns about.
		const port = await serve(server, '::');
		expect(await test$(`https://localhost:${port}`)).toEqual({
			status: 'Error',
			message: `The https connection to https://localhost:${port} failed (DEPTH_ZERO_SELF_SIGNED_CERT): the server's certificate is self-signed, which n8n does not trust: use a certificate from a public authority, or give n8n its CA with NODE_EXTRA_CA_CERTS`,
		});
	} finally {
		await closing(server);
		rmSync(dir, { recursive: true, force: true });
	}
});

test('https to a plain http port is a TLS error that suggests http://', async () => {
	const plain = http.createServer((_, res) => res.end('{}'));
	try {
		const port = await serve(plain, '::');
		expect((await test$(`https://localhost:${port}`)).message).toMatch(/^The https connection to https:\/\/localhost:\d+ failed \((EPROTO|ERR_SSL_WRONG_VERSION_NUMBER)\): the address may speak plain http/);
	} finally {
		await closing(plain);
	}
});

test('a server that never answers is a timeout, and a redirect is reported, not followed', async () => {
	const hanging = http.createServer(() => undefined);
	const moved = http.createServer((_, res) => res.writeHead(301, { Location: `${api.baseUrl}/api/v2/push/message` }).end());
	try {
		const hangingPort = await serve(hanging);
		expect(await askWithToken(context(), `http://127.0.0.1:${hangingPort}`, TOKEN, 300)).toEqual({ code: expect.stringMatching(/^(ECONNABORTED|ETIMEDOUT)$/), reason: expect.any(String) });
		const movedPort = await serve(moved);
		expect(await test$(`http://127.0.0.1:${movedPort}`)).toEqual({ status: 'Error', message: 'The Base URL redirects (HTTP 301): enter the address the API answers at, often its https:// form' });
		expect(api.requests).toHaveLength(0);
	} finally {
		await Promise.all([closing(hanging), closing(moved)]);
	}
});

test("headers that drip in a byte at a time end at the test's time limit too (n8n 1.78's helper waits for them)", async () => {
	const sockets = new Set<net.Socket>();
	const dripping = net.createServer((socket) => {
		sockets.add(socket);
		socket.on('error', () => undefined);
		socket.write('HTTP/1.1 200 OK\r\nX-Slow: ');
		const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : socket.write('a')), 50);
		socket.on('close', () => clearInterval(drip));
	});
	await new Promise<void>((resolve) => dripping.listen(0, '127.0.0.1', resolve));
	try {
		const { port } = dripping.address() as AddressInfo;
		expect(await askWithToken(context(), `http://127.0.0.1:${port}`, TOKEN, 300)).toEqual({ code: expect.stringMatching(/^(ECONNABORTED|ETIMEDOUT)$/), reason: expect.any(String) });
	} finally {
		for (const socket of sockets) socket.destroy();
		await new Promise((resolve) => dripping.close(resolve));
	}
});

test('a 300 MB answer is not read: the verdict comes from its status line', async () => {
	let written = 0;
	const bomb = http.createServer((_, res) => {
		res.writeHead(400, { 'content-type': 'application/json' });
		const chunk = Buffer.alloc(1 << 20, 'a');
		const write = () => {
			while (written < 300 * (1 << 20) && res.write(chunk)) written += chunk.length;
		};
		res.on('drain', write);
		write();
	});
	try {
		const port = await serve(bomb);
		expect(await test$(`http://127.0.0.1:${port}`)).toEqual({ status: 'OK', message: 'Connection successful: the API accepted the token' });
		expect(written).toBeLessThan(300 * (1 << 20));
	} finally {
		await closing(bomb);
	}
});

test('a JWT with a character no HTTP header can carry is named as the JWT before any request', async () => {
	// Sent, n8n 2.x dropped the character unseen and 1.x refused the header: each said something else.
	expect(await test$(api.baseUrl, 'token-with-€')).toEqual({ status: 'Error', message: 'The JWT contains a character no token has (U+20AC): copy the token again from the developer dashboard, as plain text' });
	expect(await test$(api.baseUrl, `${TOKEN.slice(0, 20)}\u2026`)).toEqual({
		status: 'Error',
		message: 'The JWT ends in "…" (U+2026), as a token shown cut short does: copy the whole token from the developer dashboard (its copy button), not the text shown',
	});
	expect(api.requests).toHaveLength(0);
});

test.each([
	['a static host answering POST with 405', 405, '<html><head><title>405 Not Allowed</title></head><body><center><h1>405 Not Allowed</h1></center><hr><center>nginx</center></body></html>', '405 Not Allowed (an HTML page)'],
	["the provider's dashboard, 200 and its page on every path", 200, '<!doctype html><html><head><title>Provider Dashboard</title></head><body><div id="app"></div></body></html>', 'Provider Dashboard (an HTML page)'],
	['http:// to an https port (nginx)', 400, '<html>\r\n<head><title>400 The plain HTTP request was sent to HTTPS port</title></head>\r\n<body>\r\n<center><h1>400 Bad Request</h1></center>\r\n</body>\r\n</html>\r\n', '400 The plain HTTP request was sent to HTTPS port (an HTML page)'],
])('a web page is not the API (%s): the dialog names the Base URL, not an accepted token', async (_label, status, page, words) => {
	const site = http.createServer((_, res) => res.writeHead(status, { 'content-type': 'text/html' }).end(page));
	try {
		const port = await serve(site);
		expect(await test$(`http://127.0.0.1:${port}`)).toEqual({
			status: 'Error',
			message: `http://127.0.0.1:${port} answered HTTP ${status} with "${words}", not the API's JSON: check the Base URL, which ends before /api/v2 (https://api.example.com, not https://api.example.com/api/v2)`,
		});
	} finally {
		await closing(site);
	}
});

test("a page's words are shown without the token, and cut short", async () => {
	const site = http.createServer((request, res) => res.writeHead(400, { 'content-type': 'text/plain' }).end(`Bad header ${String(request.headers.authorization)} ${'x'.repeat(500)}`));
	try {
		const { message } = await test$(`http://127.0.0.1:${await serve(site)}`);
		expect(message).toMatch(/^http:\/\/127\.0\.0\.1:\d+ answered HTTP 400 with "Bad header \[redacted\] x+…", not the API's JSON/);
		expect(message).not.toContain(TOKEN.slice(0, 12));
		expect(message!.length).toBeLessThan(400);
	} finally {
		await closing(site);
	}
});

test('a Base URL without "//" after its scheme, which n8n\'s client refuses and a URL parser forgives, is refused before any request', async () => {
	const port = new URL(api.baseUrl).port;
	for (const baseUrl of [`http:/127.0.0.1:${port}`, `http:127.0.0.1:${port}`]) {
		expect(await test$(baseUrl)).toEqual({ status: 'Error', message: 'The Base URL needs two slashes after its scheme: https://api.example.com, not https:/api.example.com' });
	}
	expect(await test$(`127.0.0.1:${port}`)).toEqual({ status: 'Error', message: 'The Base URL has no https:// in front: enter the address as https://api.example.com (or http:// for a server without TLS)' });
	expect(api.requests).toHaveLength(0);
});

test('a Base URL with user:password@ or a control character in the JWT is refused before any request', async () => {
	expect((await test$(api.baseUrl.replace('http://', 'http://user:pass@'))).message).toBe('The Base URL contains a user name or password, which would be sent in place of the JWT');
	expect(await test$(api.baseUrl, 'abc\ndef')).toEqual({ status: 'Error', message: 'The JWT contains a line break or another control character: copy it again, as one line' });
	expect(api.requests).toHaveLength(0);
});

test('a Base URL with a query, a fragment or another API version is refused before any request, naming the part and the fix', async () => {
	expect(await test$(`${api.baseUrl}/?code=abc`)).toEqual({
		status: 'Error',
		message: 'The Base URL has a query (the part from "?" on), which the node would put in front of /api/v2/push/message: remove it, and give the address alone',
	});
	expect((await test$(`${api.baseUrl}/#/dashboard`)).message).toMatch(/^The Base URL has a fragment \(the part from "#" on\).*: remove it/);
	expect((await test$(`${api.baseUrl}/api/v1`)).message).toBe("The Base URL contains another API version's path (/api/v1); the node sends to /api/v2/push/message itself: remove /api/v1 and what follows it");
	expect(api.requests).toHaveLength(0);
});

test('a JWT in quotes or as "Bearer Bearer …" is named with the fix before any request, never shown; one "Bearer " is sent as entered', async () => {
	for (const token of [`"${TOKEN}"`, `'${TOKEN}'`]) {
		const result = await test$(api.baseUrl, token);
		expect(result).toEqual({ status: 'Error', message: 'The JWT is in quotation marks, which would be sent as part of the token: enter the token without the quotation marks around it' });
	}
	expect(await test$(api.baseUrl, `Bearer Bearer ${TOKEN}`)).toEqual({ status: 'Error', message: 'The JWT starts with "Bearer Bearer": enter the token with one "Bearer " in front at most, or the token alone' });
	expect(api.requests).toHaveLength(0);
	// The test server accepts only the bare token: "Bearer <JWT>" reaches it as entered.
	expect(await test$(api.baseUrl, `Bearer ${TOKEN}`)).toEqual({ status: 'Error', message: 'Token rejected (HTTP 401): check the JWT, or enter it without "Bearer " in front (the node sends it as entered)' });
	expect(api.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${TOKEN}`]);
});

test("the API's code in the answer decides before its status, a byte order mark before the JSON skipped", async () => {
	const answers = [
		{ status: 200, body: '\uFEFF{"success":false,"errors":[{"message":"Token invalid","code":45}]}' },
		{ status: 406, body: '{"errors":[{"message":"Token invalid","code":"45"}]}' },
		{ status: 406, body: '\uFEFF{"errors":[{"message":"phone_number is required","code":39}]}' },
	];
	const server = http.createServer((_, res) => {
		const answer = answers.shift()!;
		res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
	});
	try {
		const port = await serve(server);
		expect(await test$(`http://127.0.0.1:${port}`)).toEqual({ status: 'Error', message: 'Token rejected (HTTP 200, code 45: the token is invalid): check the JWT' });
		expect(await test$(`http://127.0.0.1:${port}`)).toEqual({ status: 'Error', message: 'Token rejected (HTTP 406, code 45: the token is invalid): check the JWT' });
		expect(await test$(`http://127.0.0.1:${port}`)).toEqual({ status: 'OK', message: 'Connection successful: the API accepted the token' });
	} finally {
		await closing(server);
	}
});
