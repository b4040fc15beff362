import { bareToken } from '../shared/credentialValues';

export const REDACTED = '[redacted]';
const RUN = 12;

/**
 * Removes the token from text the server sent back, however echoed: with or without "Bearer ";
 * JSON-, URL- or HTML-escaped, or every character as \uXXXX, %XX or a numeric entity; in base64
 * (any alignment, standard or URL-safe, or base64 again), in hex; in any letter case (a host name is
 * lower-cased); broken by line breaks, spaces or other punctuation (a wrapped line, pieces in a list).
 * Forms mixed within the token, and pieces in separate fields of an answer, are not recognised. Any
 * RUN consecutive characters of a form match, so an echo cut short is still caught (a shorter token is
 * matched whole): apply it before truncating.
 */
export class Redactor {
	private readonly runs = new Set<string>();
	/** The same runs of each form's letters and digits alone, for an echo broken by other characters (see skeleton). */
	private readonly skeletonRuns = new Set<string>();
	private readonly whole: string[] = [];
	/** Runs of both kinds that every JWT of the token's header has too (see publicStart): alone, they are not the token. */
	private readonly publicRuns = new Set<string>();

	constructor(token: string) {
		// Every echo of "Bearer <token>" holds the token itself: that is what is looked for.
		const secret = bareToken(token);
		if (secret !== '') {
			for (const form of new Set(encodedForms(secret).map(asciiLowerCase))) {
				if (form.length < RUN) this.whole.push(form);
				else addRuns(this.runs, form);
				addRuns(this.skeletonRuns, skeleton(form).text);
			}
			const shared = publicStart(secret);
			if (shared !== undefined) {
				for (const form of new Set(encodedForms(shared).map(asciiLowerCase))) {
					addRuns(this.publicRuns, form);
					addRuns(this.publicRuns, skeleton(form).text);
				}
			}
		}
		// Longest first, so that a short form inside a longer one does not leave pieces behind.
		this.whole.sort((a, b) => b.length - a.length);
	}

	/** Whether texts that each hold less than a run join into the token: an answer's error messages, say, which a reason joins with their codes between them. */
	inPieces(pieces: string[]): boolean {
		const joined = pieces.join('');
		return pieces.length > 1 && this.text(joined) !== joined;
	}

	text(text: string): string {
		let result = text;
		if (result.length >= RUN) {
			// Both kinds of runs are found in the text as it came, then masked together: masking one first
			// would leave the other's short pieces next to a mark. Runs of a JWT's public start alone (another
			// JWT: a msgid, say) are not the token: a group of runs is masked when it holds another run.
			const spans = [...this.runSpans(result), ...this.skeletonSpans(result)];
			if (spans.some(([, , secret]) => secret)) result = maskSpans(result, spans);
		}
		for (const secret of this.whole) result = maskWhole(result, secret);
		return result;
	}

	private runSpans(text: string): Span[] {
		const spans: Span[] = [];
		if (this.runs.size === 0) return spans;
		const lower = asciiLowerCase(text);
		for (let i = 0; i + RUN <= text.length; i++) {
			const run = lower.slice(i, i + RUN);
			if (!this.runs.has(run)) continue;
			addSpan(spans, [i, i + RUN, !this.publicRuns.has(run)]);
		}
		return spans;
	}

	/** Runs found among the text's letters and digits alone, each from its first character to its last, whatever lies between. */
	private skeletonSpans(text: string): Span[] {
		const spans: Span[] = [];
		if (this.skeletonRuns.size === 0) return spans;
		const { text: letters, at } = skeleton(text);
		for (let i = 0; i + RUN <= letters.length; i++) {
			const run = letters.slice(i, i + RUN);
			if (!this.skeletonRuns.has(run)) continue;
			addSpan(spans, [at[i], at[i + RUN - 1] + 1, !this.publicRuns.has(run)]);
		}
		return spans;
	}
}

function addRuns(runs: Set<string>, text: string): void {
	for (let i = 0; i + RUN <= text.length; i++) runs.add(text.slice(i, i + RUN));
}

/**
 * A JWT's header and the `.eyJ` its payload starts with, when the header says no more than its algorithm
 * and type (`eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9`, the same in every HS256 token): what any other JWT of
 * the same kind holds too, a msgid that is one, say. A header with more (a key id) may name the account;
 * the payload's claims and the signature are the token's own.
 */
function publicStart(secret: string): string | undefined {
	if (!/^eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+$/.test(secret)) return undefined;
	const header = secret.slice(0, secret.indexOf('.'));
	let fields: unknown;
	try {
		fields = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
	} catch {
		return undefined;
	}
	if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return undefined;
	const said = Object.entries(fields);
	if (!said.every(([key, value]) => PUBLIC_HEADER_FIELDS.has(key) && typeof value === 'string' && value.length <= 16)) return undefined;
	return `${header}.eyJ`;
}

/** What a JWT's header says of every token of its kind. */
const PUBLIC_HEADER_FIELDS = new Set(['alg', 'typ']);

/** Where a run was found: from a start index up to, not including, an end index; and whether it is more than a JWT's public start. */
type Span = [number, number, boolean];

/** Spans found in order: one that overlaps or touches the last extends it, so a long echo is one span. */
function addSpan(spans: Span[], span: Span): void {
	const last = spans.at(-1);
	if (last && span[0] <= last[1]) {
		last[1] = Math.max(last[1], span[1]);
		last[2] ||= span[2];
	} else spans.push(span);
}

/** One mark for each group of spans that overlap or touch and hold more than a JWT's public start. */
function maskSpans(text: string, spans: Span[]): string {
	const groups: Span[] = [];
	for (const span of [...spans].sort((a, b) => a[0] - b[0])) addSpan(groups, [...span]);
	let out = '';
	let copiedUpTo = 0;
	for (const [start, end, secret] of groups) {
		if (!secret) continue;
		out += text.slice(copiedUpTo, start) + REDACTED;
		copiedUpTo = end;
	}
	return out + text.slice(copiedUpTo);
}

/**
 * The letters and digits of a text (lower-cased), with where each stands in it: JSON's escapes of
 * line breaks and tabs (\\n, \\r, \\t) count as breaks, not as letters.
 */
function skeleton(text: string): { text: string; at: number[] } {
	let letters = '';
	const at: number[] = [];
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code === 0x5c && /[nrt]/.test(text[i + 1] ?? '')) {
			i++;
			continue;
		}
		const isDigit = code >= 0x30 && code <= 0x39;
		const isLetter = (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
		if (!isDigit && !isLetter) continue;
		letters += isLetter && code <= 0x5a ? String.fromCharCode(code + 0x20) : text[i];
		at.push(i);
	}
	return { text: letters, at };
}

/** Lower-cases A to Z only, so that every index in the result is the same as in the text. */
function asciiLowerCase(text: string): string {
	return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** Masks every occurrence of `secret` (already lower-cased) in `text`, in any letter case. */
function maskWhole(text: string, secret: string): string {
	const lower = asciiLowerCase(text);
	let out = '';
	let from = 0;
	for (let at = lower.indexOf(secret); at >= 0; at = lower.indexOf(secret, from)) {
		out += text.slice(from, at) + REDACTED;
		from = at + secret.length;
	}
	return from === 0 ? text : out + text.slice(from);
}

function encodedForms(secret: string): string[] {
	const json = JSON.stringify(secret).slice(1, -1);
	const html = secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
	// JSON's \uXXXX escapes UTF-16 units; HTML's numeric entities, code points.
	const units = secret.split('').map((unit) => unit.charCodeAt(0));
	const codePoints = [...secret].map((character) => character.codePointAt(0)!);
	return [
		secret,
		json,
		json.replace(/\//g, '\\/'),
		encodeURIComponent(secret),
		encodeURIComponent(secret).replace(/%20/g, '+'),
		encodeURI(secret),
		html,
		html.replace(/'/g, '&#39;'),
		html.replace(/'/g, '&#x27;'),
		units.map((code) => `\\u${code.toString(16).padStart(4, '0')}`).join(''),
		[...Buffer.from(secret, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''),
		codePoints.map((code) => `&#${code};`).join(''),
		codePoints.map((code) => `&#x${code.toString(16)};`).join(''),
		...base64Forms(secret),
		// Hex of its bytes; and base64 of its base64, as a server wrapping a header it echoes would.
		Buffer.from(secret, 'utf8').toString('hex'),
		...base64Forms(Buffer.from(secret, 'utf8').toString('base64')),
	];
}

/**
 * base64 of the secret inside a longer text: it can start at any of three byte offsets, and the four
 * characters at either end depend on the bytes around it, so only the middle part is kept.
 */
function base64Forms(secret: string): string[] {
	const bytes = Buffer.from(secret, 'utf8');
	const forms: string[] = [];
	for (let offset = 0; offset < 3; offset++) {
		const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
		const middle = encoded.slice(offset === 0 ? 0 : 4, encoded.length - 4);
		if (offset === 0) forms.push(encoded, encoded.replace(/=+$/, ''));
		if (middle.length > 0) forms.push(middle);
	}
	return forms.flatMap((form) => [form, form.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')]);
}
