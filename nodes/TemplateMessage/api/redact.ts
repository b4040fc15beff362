export const REDACTED = '[redacted]';
const RUN = 12;

/**
 * Removes the token from text the server sent back, however echoed: with or without "Bearer ";
 * JSON-, URL- or HTML-escaped, or every character as \uXXXX, %XX or a numeric entity; in base64
 * (any alignment, standard or URL-safe); in any letter case (a host name is lower-cased). Forms mixed
 * within the token are not recognised. Any RUN consecutive characters of a form match, so an echo
 * cut short is still caught (a shorter token is matched whole): apply it before truncating.
 */
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
