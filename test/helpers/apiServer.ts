/**
 * A real HTTP server on 127.0.0.1 standing in for the messaging API. It records every request
 * (headers and parsed body) and answers as the test scripts it: by default like the spec's
 * success response.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const { slidingWindow } = require('../../sandbox/rateLimit') as { slidingWindow: (perSecond: number) => () => boolean };

export interface RecordedRequest {
	method: string;
	url: string;
	headers: http.IncomingHttpHeaders;
	body: unknown;
	rawBody: string;
	/** What the server did: an HTTP status, or 'reset' / 'hang' / 'raw'. */
	answer?: number | 'reset' | 'hang' | 'raw';
	/** When the whole request had arrived (ms since the epoch). */
	receivedAt: number;
}

export type Reply =
	| { status: number; body?: unknown; rawBody?: string; headers?: Record<string, string>; delayMs?: number }
	/** Read the request (so it counts as received), then close the socket without answering. */
	| { resetAfterBody: true }
	/** Read the request and never answer (the client's timeout must end it). */
	| { hang: true }
	/** Answer by hand on the response (and its socket): drips, bombs, broken HTTP. */
	| { raw: (res: http.ServerResponse) => void };

export type Responder = (request: RecordedRequest, index: number) => Reply;

export interface ApiServer {
	baseUrl: string;
	requests: RecordedRequest[];
	respondWith(responder: Responder): void;
	/** Close the next `count` connections as soon as they open, before reading anything. */
	resetNextConnections(count: number): void;
	close(): Promise<void>;
}

let msgCounter = 0;
export const acceptAll: Responder = () => ({ status: 200, body: { msgid: `msg-${++msgCounter}`, success: true } });

export async function startApiServer(responder: Responder = acceptAll): Promise<ApiServer> {
	const requests: RecordedRequest[] = [];
	let respond = responder;
	const sockets = new Set<import('node:net').Socket>();

	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const rawBody = Buffer.concat(chunks).toString('utf8');
			let body: unknown = rawBody;
			try {
				body = JSON.parse(rawBody);
			} catch {
				// kept as text
			}
			const recorded: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, rawBody, receivedAt: Date.now() };
			requests.push(recorded);
			const reply = respond(recorded, requests.length - 1);
			if ('resetAfterBody' in reply) {
				recorded.answer = 'reset';
				req.socket.destroy();
				return;
			}
			if ('hang' in reply) {
				recorded.answer = 'hang';
				return;
			}
			if ('raw' in reply) {
				recorded.answer = 'raw';
				reply.raw(res);
				return;
			}
			recorded.answer = reply.status;
			const send = () => {
				const text = reply.rawBody ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
				res.writeHead(reply.status, { 'content-type': reply.rawBody !== undefined ? 'text/plain' : 'application/json', ...reply.headers });
				res.end(text);
			};
			if (reply.delayMs) setTimeout(send, reply.delayMs);
			else send();
		});
	});
	let resetConnections = 0;
	server.on('connection', (socket) => {
		if (resetConnections > 0) {
			resetConnections--;
			socket.resetAndDestroy();
			return;
		}
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;

	return {
		baseUrl: `http://127.0.0.1:${port}`,
		requests,
		respondWith(next) {
			respond = next;
		},
		resetNextConnections(count) {
			resetConnections = count;
		},
		async close() {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/** A provider that accepts at most `perSecond` messages in any one-second window, 429 past it. */
export function rateLimited(perSecond: number, retryAfterSeconds?: number): Responder {
	const withinLimit = slidingWindow(perSecond);
	return (request, index) => {
		if (!withinLimit()) {
			return { status: 429, body: { errors: [{ message: 'Too many requests', code: 429 }] }, headers: retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : {} };
		}
		return acceptAll(request, index);
	};
}

/** How many requests the server received for each recipient, and how many it accepted. */
export function perRecipient(requests: RecordedRequest[]): Record<string, { received: number; accepted: number }> {
	const counts: Record<string, { received: number; accepted: number }> = {};
	for (const request of requests) {
		const phone = String((request.body as { phone_number?: unknown })?.phone_number);
		counts[phone] ??= { received: 0, accepted: 0 };
		counts[phone].received++;
		if (request.answer === 200) counts[phone].accepted++;
	}
	return counts;
}

/**
 * The request bodies, and the numbers they went to, in the order of the numbers: the node sends items
 * concurrently, so the order they arrive in is the machine's, not the node's.
 */
export function bodiesByPhone(requests: RecordedRequest[]): Array<{ phone_number: string }> {
	return requests.map((request) => request.body as { phone_number: string }).sort((a, b) => String(a.phone_number).localeCompare(String(b.phone_number)));
}

export function phonesSent(requests: RecordedRequest[]): string[] {
	return bodiesByPhone(requests).map((body) => body.phone_number);
}
