import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { InvalidFieldError } from './InvalidFieldError';
import type { Outcome } from './outcome';

export type FailedOutcome = Exclude<Outcome, { kind: 'accepted' }>;

const STATUS_HINTS: Record<number, string> = {
	400: 'The API refused the content of the message: check the template code id, the number of body values and the buttons against the template.',
	401: 'The token was rejected: check the JWT in the Template Message API credential.',
	403: 'The token is not allowed to send this message: check the JWT and the template in the developer dashboard.',
	404: 'The send endpoint was not found: check the Base URL in the Template Message API credential.',
	429: 'The API is limiting how fast messages are sent: lower Options → Max Messages per Second.',
};

/** A bad field of one item: names the field and the item, says what to do. */
export function invalidItemError(node: INode, error: unknown, itemIndex: number): NodeOperationError {
	if (error instanceof InvalidFieldError) {
		return new NodeOperationError(node, `${error.field}: ${error.problem} [item ${itemIndex}]`, {
			itemIndex,
			description: error.hint,
		});
	}
	if (error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error as Error, { itemIndex });
}

/** A send that did not end in "accepted". The JWT is removed from everything the API echoed. */
export function sendFailedError(
	node: INode,
	outcome: FailedOutcome,
	itemIndex: number,
	redact: (text: string) => string,
): NodeApiError {
	const reason = redact(outcome.reason);
	const status = outcome.statusCode !== undefined ? ` (HTTP ${outcome.statusCode})` : '';
	let message: string;
	let description: string | undefined;
	if (outcome.kind === 'unknown') {
		message = `Delivery unknown${status}: ${reason} [item ${itemIndex}]`;
		description =
			'The API may have accepted this message, so it was not sent again to avoid a duplicate. Check with the recipient or the provider before sending this item again.';
	} else if (outcome.statusCode === undefined) {
		message = `Could not reach the API: ${reason} [item ${itemIndex}]`;
		description = `The message was not sent${outcome.errorCode ? ` (${outcome.errorCode})` : ''}. Check the Base URL in the Template Message API credential and that the API is reachable from n8n.`;
	} else {
		message = `The API refused the message${status}: ${reason} [item ${itemIndex}]`;
		description =
			STATUS_HINTS[outcome.statusCode] ??
			(outcome.statusCode >= 500
				? 'The API failed while handling this message and said it was not sent. Try this item again later.'
				: 'The reason above is the API\'s own. Fix the item or the template, then send this item again.');
	}

	// Only the status and the API's body go into the error: never the request or its headers.
	const response: JsonObject = { reason };
	if (outcome.statusCode !== undefined) response.statusCode = outcome.statusCode;
	if (outcome.body !== undefined) response.body = JSON.parse(redact(JSON.stringify(outcome.body) ?? 'null'));

	return new NodeApiError(node, response, {
		message,
		description,
		httpCode: outcome.statusCode !== undefined ? String(outcome.statusCode) : undefined,
		itemIndex,
	});
}

/** Replaces every occurrence of the secret (and of the token inside "Bearer …") with a mark. */
export function secretRedactor(secret: string): (text: string) => string {
	const secrets = [secret, secret.replace(/^bearer\s+/i, '')].map((s) => s.trim()).filter((s) => s.length >= 8);
	return (text) => secrets.reduce((acc, s) => acc.split(s).join('[redacted]'), text);
}
