/**
 * The JWT never appears in outputs, errors (message, description, context, cause) or logs,
 * even when the API echoes it back and when network errors carry the request they failed on.
 */
import { inspect } from 'node:util';
import { LoggerProxy } from 'n8n-workflow';

import type { Responder } from '../helpers/apiServer';
import { acceptAll, startApiServer } from '../helpers/apiServer';
import type { RunResult } from '../helpers/engine';
import { runSendNode, SEND_NODE, TEST_TOKEN } from '../helpers/engine';
import { n8nLoggerClass } from '../helpers/n8nLogger';

const captured: string[] = [];
const capture = (...args: unknown[]) => captured.push(args.map((arg) => inspect(arg, { depth: 8 })).join(' '));
const originals = { stdout: process.stdout.write.bind(process.stdout), stderr: process.stderr.write.bind(process.stderr) };

beforeAll(() => {
	// Every line n8n logs goes through its Logger's log method (scoped loggers share it).
	// (`log` is private in the typings, so it is reached through a plain object view.)
	const prototype = n8nLoggerClass().prototype as unknown as { log: (...args: unknown[]) => void };
	const log = prototype.log;
	jest.spyOn(prototype, 'log').mockImplementation(function (this: unknown, ...args: unknown[]) {
		capture(...args);
		return log.apply(this, args);
	});
	LoggerProxy.init({ error: capture, warn: capture, info: capture, debug: capture, verbose: capture } as never);
	for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) jest.spyOn(console, method).mockImplementation(capture);
	process.stdout.write = ((chunk: unknown) => (capture(String(chunk)), true)) as typeof process.stdout.write;
	process.stderr.write = ((chunk: unknown) => (capture(String(chunk)), true)) as typeof process.stderr.write;
});
afterAll(() => {
	process.stdout.write = originals.stdout;
	process.stderr.write = originals.stderr;
	jest.restoreAllMocks();
});

/** An API that echoes the Authorization header back in every kind of failure. */
const echoing: Responder = (request, index) => {
	const auth = String(request.headers.authorization);
	switch (index % 5) {
		case 0:
			return { status: 400, body: { errors: [{ message: `bad request, your token was ${auth}`, code: 7 }], headers: request.headers } };
		case 1:
			return { status: 406, rawBody: `Not acceptable for ${auth}` };
		case 2:
			return { status: 200, body: { success: false, message: `rejected for ${auth}` } };
		case 3:
			return { resetAfterBody: true };
		default:
			return acceptAll(request, index);
	}
};

function everythingIn(result: RunResult): string {
	const error = result.nodeError(SEND_NODE);
	return [JSON.stringify(result.run), inspect(result.run, { depth: 12 }), inspect(error, { depth: 12, showHidden: true })].join('\n');
}

const secretParts = [TEST_TOKEN, TEST_TOKEN.split('.')[1], TEST_TOKEN.split('.')[2]];

test.each([
	['as entered', TEST_TOKEN],
	['with a Bearer prefix', `Bearer ${TEST_TOKEN}`],
])('token %s: no trace in outputs, errors or logs of a run with failures', async (_name, token) => {
	const api = await startApiServer(echoing);
	try {
		const items = Array.from({ length: 10 }, (_, i) => ({ phone: `6281200000${String(i).padStart(3, '0')}` }));
		const parameters = { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl', options: { includeRequestPayload: true } };
		const withContinue = await runSendNode({ baseUrl: api.baseUrl, token, items, parameters, onError: 'continueRegularOutput' });
		const stopping = await runSendNode({ baseUrl: api.baseUrl, token, items: items.slice(0, 1), parameters });
		const { baseUrl } = api;
		await api.close();
		const unreachable = await runSendNode({ baseUrl, token, items: items.slice(0, 1), parameters: { ...parameters, options: { maxAttempts: 1 } } });

		// The failures really happened and carry the API's words.
		expect(withContinue.output(SEND_NODE).filter((item) => item.json.error !== undefined)).toHaveLength(8);
		expect(stopping.nodeError(SEND_NODE)?.message).toMatch(/your token was (Bearer )?\[redacted\]/);
		// A server that just closed refuses the connection, or on a busy machine resets one it had begun to accept.
		expect(unreachable.nodeError(SEND_NODE)?.message).toMatch(/^(Could not reach the API|Delivery unknown: connection reset)/);

		const haystack = [everythingIn(withContinue), everythingIn(stopping), everythingIn(unreachable), ...captured].join('\n');
		for (const part of secretParts) expect(haystack).not.toContain(part);
		// The runs above logged their failures: the scan had something to read.
		expect(captured.some((line) => /your token was (Bearer )?\[redacted\]/.test(line))).toBe(true);
	} finally {
		await api.close().catch(() => undefined);
	}
});

const inPieces = (auth: string, size: number) => auth.match(new RegExp(`.{1,${size}}`, 'g')) ?? [];
test.each<[string, 'send' | 'getStatus', (auth: string) => { status: number; body: unknown }]>([
	['a refusal, one piece per error entry', 'send', (auth) => ({ status: 401, body: { errors: inPieces(auth, 8).map((message) => ({ message, code: 45 })) } })],
	['a refusal, its entries alternately {message, code} and bare texts', 'send', (auth) => ({ status: 401, body: { errors: inPieces(auth, 5).map((piece, i) => (i % 2 === 0 ? { message: piece, code: 45 } : piece)) } })],
	['a refusal, the pieces in the entries\' codes', 'send', (auth) => ({ status: 400, body: { errors: inPieces(auth, 8).map((code) => ({ message: 'x', code })) } })],
	['a status answer without history, its error entries holding the pieces', 'getStatus', (auth) => ({ status: 200, body: { errors: inPieces(auth, 8).map((message) => ({ message, code: 7 })) } })],
	['a status answer saying "no such message" (code 33) in pieces', 'getStatus', (auth) => ({ status: 200, body: { success: false, errors: inPieces(auth, 8).map((message) => ({ message, code: 33 })) } })],
])('a token echoed in short pieces over the error entries, %s, is not joined back into a reason', async (_name, operation, answer) => {
	const api = await startApiServer((request) => answer(String(request.headers.authorization)));
	try {
		const parameters = operation === 'send' ? { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl' } : { operation: 'getStatus', messageId: '={{ $json.msgid }}' };
		const result = await runSendNode({ baseUrl: api.baseUrl, items: [{ phone: '6281200000001', msgid: 'm-1' }], parameters, onError: 'continueRegularOutput', typeVersion: 2 });
		const [row] = result.output(SEND_NODE);
		expect(String(row.json.error ?? row.json.reason)).toContain('[redacted]');
		// Its letters and digits alone, as a reason joined with " (code N); " between the pieces would hold them.
		const skeleton = (text: string) => text.replace(/ \(code \d+\);? ?/g, '').replace(/[^A-Za-z0-9]/g, '');
		const haystack = skeleton([everythingIn(result), ...captured].join('\n'));
		for (const part of secretParts) expect(haystack).not.toContain(skeleton(part).slice(0, 24));
	} finally {
		await api.close();
	}
});

test("a refusal holding the token in pieces says so in the item's error", async () => {
	const api = await startApiServer((request) => ({ status: 401, body: { errors: inPieces(String(request.headers.authorization), 8).map((message) => ({ message, code: 45 })) } }));
	try {
		const result = await runSendNode({ baseUrl: api.baseUrl, items: [{ phone: '6281200000001' }], parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl' }, onError: 'continueRegularOutput' });
		expect(result.output(SEND_NODE)[0].json.error).toBe("The API refused the message (HTTP 401): [redacted] (the API's answer held the credential's token, in pieces) [item 0]");
	} finally {
		await api.close();
	}
});
