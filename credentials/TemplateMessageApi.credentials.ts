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

	documentationUrl = 'https://github.com/n8n-nodes-template-message/n8n-nodes-template-message#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://api.example.com',
			description: 'Address of the messaging API, without /api/v2/…; a trailing slash is fine',
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
	async authenticate(credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, Authorization: String(credentials.token ?? '').trim() },
		};
	}

	// The API has only the send endpoint. An empty body carries no recipient, so nothing can be
	// sent: a server that checks the token first answers 401/403 for a bad token and 4xx for the
	// missing content, which means the token was accepted. Unreachable hosts fail with their
	// network error (ECONNREFUSED, ENOTFOUND, …).
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.trim().replace(/\\/+$/, "")}}',
			url: '/api/v2/push/message',
			method: 'POST',
			body: {},
			ignoreHttpStatusErrors: { ignore: true, except: [401, 403, 404] },
		},
		rules: [
			{ type: 'responseCode', properties: { value: 401, message: 'Token rejected (HTTP 401): check the JWT' } },
			{ type: 'responseCode', properties: { value: 403, message: 'Token rejected (HTTP 403): check the JWT' } },
			{
				type: 'responseCode',
				properties: { value: 404, message: 'No send endpoint at this address (HTTP 404): check the Base URL' },
			},
		],
	};
}
