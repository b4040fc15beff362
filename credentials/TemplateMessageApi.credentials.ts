import { ApplicationError } from 'n8n-workflow';

import { baseUrlProblem } from '../nodes/TemplateMessage/shared/baseUrl';
import type {
	ICredentialDataDecryptedObject,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

export class TemplateMessageApi implements ICredentialType {
	name = 'templateMessageApi';

	displayName = 'Template Message API';

	icon: Icon = { light: 'file:../icons/templateMessage.svg', dark: 'file:../icons/templateMessage.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-template-message/n8n-nodes-template-message/blob/main/README.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://api.example.com',
			description:
				"Address of the messaging API, without /api/v2/…; a trailing slash is fine. If the connection test answers ECONNREFUSED, ENOTFOUND or ETIMEDOUT, n8n could not reach this address at all (n8n shows the network's own code): check it, and that n8n's host can reach it.",
		},
		{
			displayName: 'JWT',
			name: 'token',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description: 'The token from the developer dashboard. It is sent as the Authorization header exactly as entered (with or without "Bearer ").',
		},
	];

	// A function rather than the generic `{{$credentials.token}}` form: it runs for every message,
	// and this way n8n does not start its expression engine each time.
	// A Base URL that would change what is sent (a `user:password@` makes the HTTP client send Basic
	// auth in place of the JWT) is refused for every request, the connection test's too.
	async authenticate(credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		const problem = baseUrlProblem(String(credentials.baseUrl ?? ''));
		if (problem) throw new ApplicationError(`The Base URL ${problem}`);
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, Authorization: String(credentials.token ?? '').trim() },
		};
	}

	// The API has only the send endpoint. No redirect is followed: it would carry the token elsewhere. An empty body carries no recipient, so nothing can be
	// sent: a server that checks the token first answers 401/403 for a bad token and 4xx for the
	// missing content, which means the token was accepted. Unreachable hosts fail with their
	// network error (ECONNREFUSED, ENOTFOUND, …).
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.trim().replace(/\\/+$/, "")}}',
			url: '/api/v2/push/message',
			method: 'POST',
			body: {},
			disableFollowRedirect: true,
			ignoreHttpStatusErrors: { ignore: true, except: [301, 302, 303, 307, 308, 401, 403, 404] },
		},
		rules: [
			...[301, 302, 303, 307, 308].map((value) => ({
				type: 'responseCode' as const,
				properties: { value, message: `The Base URL redirects (HTTP ${value}): enter the address the API answers at, often its https:// form` },
			})),
			{ type: 'responseCode', properties: { value: 401, message: 'Token rejected (HTTP 401): check the JWT' } },
			{ type: 'responseCode', properties: { value: 403, message: 'Token rejected (HTTP 403): check the JWT' } },
			{
				type: 'responseCode',
				properties: { value: 404, message: 'No send endpoint at this address (HTTP 404): check the Base URL, which ends before /api/v2 (https://api.example.com, not https://api.example.com/api/v2)' },
			},
		],
	};
}
