import { codePointName, HIDDEN_MARKS } from './invisibleCharacters';
import { notHttpProblem } from './httpUrl';

export const SEND_PATH = '/api/v2/push/message';

const HIDDEN_MARK = new RegExp(`[${HIDDEN_MARKS}]`);

export const BASE_URL_ENDS = 'ends before /api/v2 (https://api.example.com, not https://api.example.com/api/v2)';

/** The Base URL as every endpoint is appended to it. */
const apiRoot = (baseUrl: string) => baseUrl.trim().replace(/\/+$/, '');

export function sendEndpoint(baseUrl: string): string {
	return `${apiRoot(baseUrl)}${SEND_PATH}`;
}

/**
 * `{base_url}/api/v2/message/{msgid}/status`. The msgid is percent-encoded, so that none can change the
 * path or the host asked; the caller refuses an empty one, and "." and "..", which URLs read as steps.
 */
export function statusEndpoint(baseUrl: string, msgid: string): string {
	return `${apiRoot(baseUrl)}/api/v2/message/${encodeURIComponent(msgid)}/status`;
}

/**
 * What makes a Base URL unable to reach the send endpoint, with the fix; undefined when it can. The
 * endpoint is the Base URL's text with SEND_PATH appended, so: a `user:password@` would make the HTTP
 * client send Basic auth in place of the JWT; a query would take the path in (`/?code=abc/api/v2/…`);
 * a fragment is never sent (every message would go to `/`); a "." or ".." step moves it (`/api/v2/..` would
 * send to `/api/api/v2/…`); a path with /api/v2 would double it, and one
 * with another version (/api/v1) would put two versions in it. The query and fragment are named, never
 * shown: they can hold a key.
 */
export function baseUrlProblem(baseUrl: string): string | undefined {
	const text = baseUrl.trim();
	const hidden = HIDDEN_MARK.exec(text);
	if (hidden) return `contains a character that does not show (${codePointName(hidden[0])}), copied along with the address: type the address again`;
	// The URL parser forgives "https:/host" and "https:host", n8n's HTTP client does not; and without a
	// scheme it reads "localhost:5680" as one called "localhost".
	if (/^https?:/i.test(text) && !/^https?:\/\//i.test(text)) return 'needs two slashes after its scheme: https://api.example.com, not https:/api.example.com';
	if (!/^[a-z][a-z\d+.-]*:\/\//i.test(text)) return 'has no https:// in front: enter the address as https://api.example.com (or http:// for a server without TLS)';
	// A URL reads "\" as "/": a ".." written with it would move the address unseen.
	if (text.includes('\\')) return 'contains a backslash (\\), which the address reads as "/": write "/" if one is meant';
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		return 'is not a URL';
	}
	const notHttp = notHttpProblem(url);
	if (notHttp) return notHttp;
	if (url.username !== '' || url.password !== '') return 'contains a user name or password, which would be sent in place of the JWT';
	const fragmentAt = text.indexOf('#');
	if ((fragmentAt === -1 ? text : text.slice(0, fragmentAt)).includes('?')) {
		return `has a query (the part from "?" on), which the node would put in front of ${SEND_PATH}: remove it, and give the address alone`;
	}
	if (fragmentAt !== -1) return `has a fragment (the part from "#" on), which is never sent, so every message would go to the address before it: remove it, and give the address alone`;
	// Read from the text, not url.pathname, which has already taken the steps: the endpoint is the text with SEND_PATH appended.
	const path = text.replace(/^[a-z][a-z\d+.-]*:\/\/[^/]*/i, '');
	if (/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(path)) return `has a "." or ".." step in its path, which moves the address every message goes to: give the address without it`;
	const version = /\/api\/(v\d+)(?=\/|$)/i.exec(url.pathname);
	if (version && version[1].toLowerCase() === 'v2') return `ends with the API's own path (${url.pathname.replace(/\/+$/, '')}); the node adds ${SEND_PATH} itself`;
	if (version) return `contains another API version's path (${version[0]}); the node sends to ${SEND_PATH} itself: remove ${version[0]} and what follows it`;
	return undefined;
}
