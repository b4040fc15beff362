import { baseUrlProblem } from './baseUrl';
import { hasControlCharacter } from './controlCharacters';

/** The Authorization header every request carries: the JWT as entered, trimmed. */
export function authorization(token: unknown): string {
	return String(token ?? '').trim();
}

/**
 * What is wrong with the credential's values, by field, or undefined: a Base URL that would change
 * what is sent (see baseUrlProblem), or a JWT that cannot go into a header. The node refuses a run
 * with it, and the connection test says it without a request.
 */
export function credentialProblem(baseUrl: string, token: unknown): { field: 'Base URL' | 'JWT'; problem: string } | undefined {
	const problem = baseUrlProblem(baseUrl);
	if (problem) return { field: 'Base URL', problem };
	if (hasControlCharacter(authorization(token))) return { field: 'JWT', problem: 'contains a line break or another control character' };
	return undefined;
}
