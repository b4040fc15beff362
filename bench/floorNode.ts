import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { sendEndpoint } from '../nodes/TemplateMessage/shared/baseUrl';
import { CREDENTIAL_TYPE } from '../nodes/TemplateMessage/shared/contracts';

export const FLOOR_NODE_TYPE = 'bench.floor';

/**
 * The least a community node can do per message: read the two mapped fields (phone number and one
 * body value, expressions evaluated by n8n as for any node) and post the body through n8n's
 * `httpRequestWithAuthentication`, `concurrency` at a time. No validation, no pacing, no retries,
 * no memory, no deadline. What this package's node costs beyond it is the node's own doing.
 */
export function floorNode(concurrency: number, followRedirects: boolean): INodeType {
	return {
		description: {
			displayName: 'Floor',
			name: 'floor',
			group: ['output'],
			version: 1,
			description: 'Benchmark only',
			defaults: { name: 'Floor' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: CREDENTIAL_TYPE, required: true }],
			properties: [
				{ displayName: 'Phone Number', name: 'phoneNumber', type: 'string', default: '' },
				{ displayName: 'Text', name: 'text', type: 'string', default: '' },
			],
		},
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const items = this.getInputData();
			const credentials = await this.getCredentials<{ baseUrl: string }>(CREDENTIAL_TYPE);
			const credentialsDecrypted = { id: 'c', name: 'c', type: CREDENTIAL_TYPE, data: credentials };
			const url = sendEndpoint(credentials.baseUrl);
			const output: INodeExecutionData[] = [];
			let next = 0;
			const worker = async () => {
				while (next < items.length) {
					const index = next++;
					const phone = this.getNodeParameter('phoneNumber', index) as string;
					const name = this.getNodeParameter('text', index) as string;
					const body = {
						phone_number: phone,
						message: { type: 'template', template: { template_code_id: 'bench', payload: [{ position: 'body', parameters: [{ type: 'text', text: name }] }] } },
					};
					const response = await this.helpers.httpRequestWithAuthentication.call(
						this,
						CREDENTIAL_TYPE,
						{ method: 'POST', url, body, json: true, returnFullResponse: true, ignoreHttpStatusErrors: true, disableFollowRedirect: !followRedirects },
						{ credentialsDecrypted },
					);
					output[index] = { json: { statusCode: response.statusCode }, pairedItem: { item: index } };
				}
			};
			await Promise.all(Array.from({ length: concurrency }, worker));
			return [output];
		},
	};
}
