/** The text as a sentence or a name starts it: its first letter upper case. */
export function capitalised(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A refusal's or an outcome's reason, after its HTTP status when it has one: `HTTP 502: Bad Gateway`. */
export function withStatus({ statusCode, reason }: { statusCode?: number; reason: string }): string {
	return statusCode === undefined ? reason : `HTTP ${statusCode}: ${reason}`;
}
