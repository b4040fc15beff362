export const SEND_PATH = '/api/v2/push/message';

export const BASE_URL_ENDS = 'ends before /api/v2 (https://api.example.com, not https://api.example.com/api/v2)';

export function sendEndpoint(baseUrl: string): string {
	return `${baseUrl.trim().replace(/\/+$/, '')}${SEND_PATH}`;
}

/**
 * `{base_url}/api/v2/message/{msgid}/status`. The msgid is percent-encoded, so that none can change the
 * path or the host asked; the caller refuses an empty one, and "." and "..", which URLs read as steps.
 */
export function statusEndpoint(baseUrl: string, msgid: string): string {
	return `${baseUrl.trim().replace(/\/+$/, '')}/api/v2/message/${encodeURIComponent(msgid)}/status`;
}

/** A `user:password@` would make the HTTP client send Basic auth in place of the JWT; a path with /api/v2 would double it. */
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
