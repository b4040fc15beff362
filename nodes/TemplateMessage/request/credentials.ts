import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { baseUrlProblem, sendEndpoint } from '../shared/baseUrl';
import type { SendCredentials } from '../shared/contracts';
import { CREDENTIAL_TYPE } from '../shared/contracts';
import { hasControlCharacter } from './text';

/** The run's credential, read once and checked before anything is sent. */
export async function readCredentials(ctx: IExecuteFunctions): Promise<SendCredentials> {
	const data = await ctx.getCredentials<{ baseUrl: string; token: string }>(CREDENTIAL_TYPE);
	const baseUrl = String(data.baseUrl ?? '');
	const problem = baseUrlProblem(baseUrl);
	if (problem) {
		throw new NodeOperationError(ctx.getNode(), `The credential's Base URL ${problem}`, {
			description: 'Set the Template Message API credential\'s Base URL to the plain address of the API, e.g. https://api.example.com; the JWT goes in its own field.',
		});
	}
	const token = String(data.token ?? '');
	// A token with a line break or control character cannot go into a header.
	if (hasControlCharacter(token.trim())) {
		throw new NodeOperationError(ctx.getNode(), 'The credential\'s JWT contains a line break or another control character', {
			description: 'Copy the token again from the developer dashboard into the Template Message API credential, as one line.',
		});
	}
	const ref = ctx.getNode().credentials?.[CREDENTIAL_TYPE];
	return { url: sendEndpoint(baseUrl), token, decrypted: { id: ref?.id ?? '', name: ref?.name ?? '', type: CREDENTIAL_TYPE, data } };
}
