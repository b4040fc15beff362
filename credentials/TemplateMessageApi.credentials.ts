import { ApplicationError } from 'n8n-workflow';

import { baseUrlProblem } from '../nodes/TemplateMessage/shared/baseUrl';
import { authorization } from '../nodes/TemplateMessage/shared/credentialValues';
import { CREDENTIAL_DISPLAY_NAME, CREDENTIAL_TYPE } from '../nodes/TemplateMessage/shared/contracts';
import type {
	ICredentialDataDecryptedObject,
	Icon,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

export class TemplateMessageApi implements ICredentialType {
	name = CREDENTIAL_TYPE;
	displayName = CREDENTIAL_DISPLAY_NAME;
	icon: Icon = { light: 'file:../icons/templateMessage.svg', dark: 'file:../icons/templateMessage.dark.svg' };
	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-template-message';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://api.example.com',
			description:
				'Address of the messaging API, without /api/v2/…; a trailing slash is fine',
		},
		{
			displayName: 'JWT',
			name: 'token',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description: 'The token from the developer dashboard. It is sent as the Authorization header as entered, spaces around it trimmed: nothing is added or removed, so enter it without "Bearer " unless the provider asks for it.',
		},
	];

	// A function, not `{{$credentials.token}}`: it runs for every message, and n8n need not start its expression engine.
	// A Base URL that would change what is sent (`user:password@` makes the HTTP client send Basic auth
	// in place of the JWT) is refused for every request; the connection test refuses it too.
	async authenticate(credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		const problem = baseUrlProblem(String(credentials.baseUrl ?? ''));
		if (problem) throw new ApplicationError(`The Base URL ${problem}`);
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, Authorization: authorization(credentials.token) },
		};
	}

	// No `test`: the node's own (testedBy) names the Base URL and the fix for each kind of network error.
}
