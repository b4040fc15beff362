/**
 * Removes the credential's token from text the server sent back, however it was echoed: as
 * entered or without its "Bearer " prefix; JSON-escaped, or with every character a \uXXXX
 * escape; URL-encoded, or with every byte %-encoded; HTML-escaped, or with every character a
 * numeric entity (decimal or hex); or in base64 (at any byte alignment, standard or URL-safe);
 * in any letter case (a host name is lower-cased), whole or in part. A text mixing forms within
 * the token (some characters escaped, others not) is not recognised.
 *
 * A token of RUN characters or more is matched by any RUN consecutive characters of any of
 * those forms, so an echo the server (or the node) cut short is still caught; a shorter token
 * is matched whole. Apply it before anything is truncated.
 */
export const REDACTED = '[redacted]';
const RUN = 12;

export class Redactor {
	private readonly runs = new Set<string>();

	private readonly whole: string[] = [];

	constructor(token: string) {
		// Every echo of "Bearer <token>" holds the token itself: that is what is looked for.
		const trimmed = token.trim();
		const secret = trimmed.replace(/^bearer\s+/i, '').trim() || trimmed;
		if (secret !== '') {
			for (const form of new Set(encodedForms(secret).map(asciiLowerCase))) {
				if (form.length < RUN) this.whole.push(form);
				else for (let i = 0; i + RUN <= form.length; i++) this.runs.add(form.slice(i, i + RUN));
			}
		}
		// Longest first, so that a short form inside a longer one does not leave pieces behind.
		this.whole.sort((a, b) => b.length - a.length);
	}

	text(text: string): string {
		let result = text;
		if (this.runs.size > 0 && result.length >= RUN) result = this.maskRuns(result);
		for (const secret of this.whole) result = maskWhole(result, secret);
		return result;
	}

	private maskRuns(text: string): string {
		const lower = asciiLowerCase(text);
		let out = '';
		let copiedUpTo = 0;
		let maskedUpTo = -1;
		for (let i = 0; i + RUN <= text.length; i++) {
			if (!this.runs.has(lower.slice(i, i + RUN))) continue;
			// A run that starts inside or right after the last masked one extends it.
			if (maskedUpTo < 0 || i > maskedUpTo + 1) out += text.slice(copiedUpTo, i) + REDACTED;
			maskedUpTo = i + RUN - 1;
			copiedUpTo = i + RUN;
		}
		return copiedUpTo === 0 ? text : out + text.slice(copiedUpTo);
	}
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
	const forms = [
		secret,
		json,
		json.replace(/\//g, '\\/'),
		encodeURIComponent(secret),
		encodeURIComponent(secret).replace(/%20/g, '+'),
		encodeURI(secret),
		html,
		html.replace(/'/g, '&#39;'),
		html.replace(/'/g, '&#x27;'),
		everyCharacter(secret, (code) => `\\u${code.toString(16).padStart(4, '0')}`),
		[...Buffer.from(secret, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''),
		everyCodePoint(secret, (code) => `&#${code};`),
		everyCodePoint(secret, (code) => `&#x${code.toString(16)};`),
		...base64Forms(secret),
	];
	return [...new Set(forms)];
}

/**
 * base64 of the secret as it appears inside a longer encoded text: the secret can start at any
 * of three byte offsets, and the four characters at either end also depend on the bytes around
 * it, so only the middle part, which is the same whatever surrounds it, is kept.
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

/** Each UTF-16 unit of the text, written by `write` (as JSON's \\uXXXX does). */
function everyCharacter(text: string, write: (code: number) => string): string {
	let out = '';
	for (let i = 0; i < text.length; i++) out += write(text.charCodeAt(i));
	return out;
}

/** Each code point of the text, written by `write` (as HTML's numeric entities do). */
function everyCodePoint(text: string, write: (code: number) => string): string {
	let out = '';
	for (const character of text) out += write(character.codePointAt(0)!);
	return out;
}
