/** The API's answers are a few hundred bytes. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

export type Answer = { text: string } | { tooLarge: true; declaredBytes?: number };

interface ReadableLike {
	on(event: string, listener: (...args: never[]) => void): unknown;
	removeListener(event: string, listener: (...args: never[]) => void): unknown;
	destroy(error?: Error): unknown;
}

function isReadable(body: unknown): body is ReadableLike {
	const stream = body as Partial<ReadableLike> | null;
	return typeof body === 'object' && typeof stream?.on === 'function' && typeof stream.removeListener === 'function' && typeof stream.destroy === 'function';
}

/**
 * Past `maxBytes` the stream is destroyed and only the size reported. Rejects when `signal` aborts,
 * so a server sending one byte a second cannot outlast the deadline. A body already text or data
 * (an n8n version that ignored `encoding: 'stream'`) gets the same size bound.
 */
export async function readAnswer(body: unknown, signal: AbortSignal, maxBytes = MAX_ANSWER_BYTES, declaredBytes?: number): Promise<Answer> {
	if (!isReadable(body)) return fromValue(body, maxBytes);
	if (declaredBytes !== undefined && declaredBytes > maxBytes) {
		body.destroy();
		return { tooLarge: true, declaredBytes };
	}
	const stream = body;
	return await new Promise<Answer>((resolve, reject) => {
		const chunks: Uint8Array[] = [];
		let size = 0;
		const finish = (settle: () => void) => {
			signal.removeEventListener('abort', onAbort);
			stream.removeListener('data', onData);
			settle();
		};
		const onAbort = () => {
			finish(() => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted')));
			stream.destroy();
		};
		const onData = (chunk: Uint8Array | string) => {
			const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			size += bytes.length;
			if (size > maxBytes) {
				finish(() => resolve({ tooLarge: true, declaredBytes }));
				stream.destroy();
				return;
			}
			chunks.push(bytes);
		};
		if (signal.aborted) return onAbort();
		signal.addEventListener('abort', onAbort, { once: true });
		stream.on('data', onData);
		stream.on('end', () => finish(() => resolve({ text: Buffer.concat(chunks).toString('utf8') })));
		stream.on('error', (error: Error) => finish(() => reject(error)));
	});
}

const BOM = '\uFEFF';

/**
 * An answer's JSON, or its text when it is not JSON. A UTF-8 byte order mark in front, which some
 * gateways put before every body, is skipped: JSON.parse refuses it, which made every accepted message
 * "delivery unknown".
 */
export function parseAnswer(text: string): unknown {
	try {
		return JSON.parse(keepMsgidDigits(text.startsWith(BOM) ? text.slice(BOM.length) : text));
	} catch {
		return text;
	}
}

/**
 * A msgid written as a JSON number of 16 digits or more, read as text: JSON.parse would round one beyond
 * 2^53 (`1234567890123456789` becomes `…800`), and the row would name another message. Only the value of
 * a `"msgid"` key is touched; within a JSON string its quotes are escaped, so that never matches.
 */
function keepMsgidDigits(text: string): string {
	return text.includes('"msgid"') ? text.replace(/("msgid"\s*:\s*)(-?\d{16,})(?=\s*[,}\]])/g, '$1"$2"') : text;
}

function fromValue(body: unknown, maxBytes: number): Answer {
	if (body === undefined || body === null) return { text: '' };
	if (typeof body === 'string') return body.length > maxBytes ? { tooLarge: true } : { text: body };
	if (body instanceof Uint8Array) {
		return body.length > maxBytes ? { tooLarge: true } : { text: Buffer.from(body).toString('utf8') };
	}
	// Parsed by the helper: re-serialised within the bound (one too deep to serialise is unreadable).
	try {
		const text = JSON.stringify(body) ?? '';
		return text.length > maxBytes ? { tooLarge: true } : { text };
	} catch {
		return { text: '' };
	}
}
