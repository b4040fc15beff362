import { baseUrlProblem } from './baseUrl';
import { hasControlCharacter } from './controlCharacters';

/** The JWT as entered (no "Bearer " added), trimmed. */
export function authorization(token: unknown): string {
	return String(token ?? '').trim();
}

export function credentialProblem(baseUrl: string, token: unknown): { field: 'Base URL' | 'JWT'; problem: string } | undefined {
	const problem = baseUrlProblem(baseUrl);
	if (problem) return { field: 'Base URL', problem };
	if (hasControlCharacter(authorization(token))) return { field: 'JWT', problem: 'contains a line break or another control character' };
	return undefined;
}
