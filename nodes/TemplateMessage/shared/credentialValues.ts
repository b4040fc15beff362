import { baseUrlProblem } from './baseUrl';
import { codePointName, hasControlCharacter } from './invisibleCharacters';

/** The JWT as entered (no "Bearer " added or removed: the spec shows the JWT alone; an API that wants "Bearer <JWT>" gets it as typed), trimmed. */
export function authorization(token: unknown): string {
	return String(token ?? '').trim();
}

/** The token itself, as entered with or without "Bearer " in front: what names the account, and what is kept secret. */
export function bareToken(token: unknown): string {
	const sent = authorization(token);
	return sent.replace(/^bearer\s+/i, '').trim() || sent;
}

export interface CredentialProblem {
	field: 'Base URL' | 'JWT';
	/** Never holds the token. */
	problem: string;
	/** What to do, where the problem's own text does not say it. */
	fix?: string;
}

const NOT_ASCII = /[^\x20-\x7e]/u;

/** Any of these at either end: a token pasted in quotes (straight, typographic or a back quote). */
const QUOTES = /^["'`\u2018\u2019\u201C\u201D]|["'`\u2018\u2019\u201C\u201D]$/;

/**
 * What the API would answer only with "Token invalid (code 45)": said before sending, naming the
 * problem and the fix, never the token. One "Bearer " in front is left as it is (some gateways want it).
 */
export function tokenProblem(token: string): Omit<CredentialProblem, 'field'> | undefined {
	if (hasControlCharacter(token)) return { problem: 'contains a line break or another control character' };
	if (/^bearer\s+bearer(\s|$)/i.test(token)) return { problem: 'starts with "Bearer Bearer"', fix: 'Enter the token with one "Bearer " in front at most, or the token alone.' };
	if (QUOTES.test(token.replace(/^bearer\s+/i, ''))) return { problem: 'is in quotation marks, which would be sent as part of the token', fix: 'Enter the token without the quotation marks around it.' };
	// A JWT is letters, digits, "-", "_" and "."; an HTTP header cannot carry other characters, and some n8n
	// versions drop them unseen. Named, not shown: the character is not part of a real token.
	const foreign = NOT_ASCII.exec(token);
	if (foreign) {
		const name = codePointName(token.endsWith('\u2026') ? '\u2026' : foreign[0]);
		return token.endsWith('\u2026')
			? { problem: `ends in "…" (${name}), as a token shown cut short does`, fix: 'Copy the whole token from the developer dashboard (its copy button), not the text shown.' }
			: { problem: `contains a character no token has (${name}${/\p{Cf}|\s/u.test(foreign[0]) ? ', which does not show' : ''})`, fix: 'Copy the token again from the developer dashboard, as plain text.' };
	}
	return undefined;
}

export function credentialProblem(baseUrl: string, token: unknown): CredentialProblem | undefined {
	const problem = baseUrlProblem(baseUrl);
	if (problem) return { field: 'Base URL', problem };
	const wrong = tokenProblem(authorization(token));
	return wrong && { field: 'JWT', ...wrong };
}
