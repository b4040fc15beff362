/** Why a parsed URL is no web address the node sends to or passes on (the Base URL, a header's media URL); undefined when it is. */
export function notHttpProblem(url: URL): string | undefined {
	return url.protocol === 'https:' || url.protocol === 'http:' ? undefined : `uses ${url.protocol.replace(':', '')}; only http and https are allowed`;
}
