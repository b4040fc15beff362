/**
 * A real HTTP server on 127.0.0.1 standing in for the messaging API. It records every request
 * (headers and parsed body) and answers as the test scripts it: by default like the spec's
 * success response.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
	method: string;
	url: string;
	headers: http.IncomingHttpHeaders;
	body: unknown;
	rawBody: string;
}

export type Reply =
	| { status: number; body?: unknown; rawBody?: string; headers?: Record<string, string>; delayMs?: number }
	/** Read the request (so it counts as received), then close the socket without answering. */
	| { resetAfterBody: true }
	/** Read the request and never answer (the client's timeout must end it). */
	| { hang: true };

export type Responder = (request: RecordedRequest, index: number) => Reply;

export interface ApiServer {
	baseUrl: string;
	requests: RecordedRequest[];
	respondWith(responder: Responder): void;
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
			const recorded: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, rawBody };
			requests.push(recorded);
			const reply = respond(recorded, requests.length - 1);
			if ('resetAfterBody' in reply) {
				req.socket.destroy();
				return;
			}
			if ('hang' in reply) return;
			const send = () => {
				const text = reply.rawBody ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
				res.writeHead(reply.status, { 'content-type': reply.rawBody !== undefined ? 'text/plain' : 'application/json', ...reply.headers });
				res.end(text);
			};
			if (reply.delayMs) setTimeout(send, reply.delayMs);
			else send();
		});
	});
	server.on('connection', (socket) => {
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
		async close() {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
