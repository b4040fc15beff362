import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { sendEndpoint } from '../shared/baseUrl';
import type { SendCredentials } from '../shared/contracts';
import { CREDENTIAL_DISPLAY_NAME, CREDENTIAL_TYPE } from '../shared/contracts';
import { credentialProblem } from '../shared/credentialValues';

const FIXES = {
	'Base URL': `Set the ${CREDENTIAL_DISPLAY_NAME} credential's Base URL to the plain address of the API, e.g. https://api.example.com; the JWT goes in its own field.`,
	// A token with a line break or control character cannot go into a header.
	JWT: `Copy the token again from the developer dashboard into the ${CREDENTIAL_DISPLAY_NAME} credential, as one line.`,
};

export async function readCredentials(ctx: IExecuteFunctions): Promise<SendCredentials> {
	const data = await ctx.getCredentials<{ baseUrl: string; token: string }>(CREDENTIAL_TYPE);
	const baseUrl = String(data.baseUrl ?? '');
	const wrong = credentialProblem(baseUrl, data.token);
	if (wrong) throw new NodeOperationError(ctx.getNode(), `The credential's ${wrong.field} ${wrong.problem}`, { description: wrong.fix ?? FIXES[wrong.field] });
	const ref = ctx.getNode().credentials?.[CREDENTIAL_TYPE];
	return { url: sendEndpoint(baseUrl), token: String(data.token ?? ''), decrypted: { id: ref?.id ?? '', name: ref?.name ?? '', type: CREDENTIAL_TYPE, data } };
}
