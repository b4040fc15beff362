import type { ICredentialsDecrypted, IExecuteFunctions, IN8nHttpFullResponse } from 'n8n-workflow';

import type { Outcome } from './outcome';
import { classifyResponse, classifyTransportError } from './outcome';
import type { SendRequestBody } from './payload';

export const CREDENTIAL_TYPE = 'templateMessageApi';
export const SEND_PATH = '/api/v2/push/message';

/** `{base_url}/api/v2/push/message`, tolerating a trailing slash on the base URL. */
export function sendEndpoint(baseUrl: string): string {
	return `${baseUrl.trim().replace(/\/+$/, '')}${SEND_PATH}`;
}

/**
 * One POST, never retried here. Every HTTP status comes back as a response (not a throw) so
 * that the outcome is decided in one place; n8n's helper adds the credential's Authorization
 * header, proxy and SSRF handling, and cancels the request when the execution is cancelled.
 * The credential read once for the run is handed over, so that n8n does not decrypt and
 * resolve it again for every message.
 */
export async function postMessage(
	ctx: IExecuteFunctions,
	url: string,
	body: SendRequestBody,
	timeoutMs: number,
	credentials: ICredentialsDecrypted,
): Promise<Outcome> {
	try {
		const response = (await ctx.helpers.httpRequestWithAuthentication.call(
			ctx,
			CREDENTIAL_TYPE,
			{
				method: 'POST',
				url,
				body,
				json: true,
				headers: { 'content-type': 'application/json' },
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				timeout: timeoutMs,
			},
			{ credentialsDecrypted: credentials },
		)) as IN8nHttpFullResponse;
		return classifyResponse({
			statusCode: response.statusCode,
			headers: response.headers as Record<string, unknown>,
			body: response.body,
		});
	} catch (error) {
		return classifyTransportError(error);
	}
}
