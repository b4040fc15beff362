/** The API's only endpoint, below the credential's Base URL. */
export const SEND_PATH = '/api/v2/push/message';

/** What a right Base URL looks like, for the messages that say it is wrong. */
export const BASE_URL_ENDS = 'ends before /api/v2 (https://api.example.com, not https://api.example.com/api/v2)';

/** `{base_url}/api/v2/push/message`, tolerating a trailing slash on the base URL. */
export function sendEndpoint(baseUrl: string): string {
	return `${baseUrl.trim().replace(/\/+$/, '')}${SEND_PATH}`;
}

/**
 * What is wrong with a Base URL, or undefined. A `user:password@` would make the HTTP client send
 * Basic auth in place of the JWT; a Base URL that already holds the API's path would double it.
 * The credential (for every request), its connection test and the node (once a run, before
 * anything is sent) refuse what this finds.
 */
export function baseUrlProblem(baseUrl: string): string | undefined {
	let url: URL;
	try {
		url = new URL(baseUrl.trim());
	} catch {
		return 'is not a URL';
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') return `uses ${url.protocol.replace(':', '')}; only http and https are allowed`;
	if (url.username !== '' || url.password !== '') return 'contains a user name or password, which would be sent in place of the JWT';
	if (/\/api\/v2(\/|$)/.test(url.pathname)) return `ends with the API's own path (${url.pathname.replace(/\/+$/, '')}); the node adds ${SEND_PATH} itself`;
	return undefined;
}
