import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { CREDENTIAL_TYPE, sendEndpoint } from '../nodes/TemplateMessage/send/transport';

export const FLOOR_NODE_TYPE = 'bench.floor';

/**
 * The least a community node can do per message: post each item's body through n8n's
 * `httpRequestWithAuthentication`, `concurrency` at a time. No expressions (the body comes from
 * the item's json), no validation, no pacing, no retries, no memory. It shows what n8n's helper
 * alone costs, so the benchmark reports it beside the raw client and this package's node.
 */
export function floorNode(concurrency: number): INodeType {
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
			properties: [],
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
					const { phone, name } = items[index].json as { phone: string; name: string };
					const body = {
						phone_number: phone,
						message: { type: 'template', template: { template_code_id: 'bench', payload: [{ position: 'body', parameters: [{ type: 'text', text: name }] }] } },
					};
					const response = await this.helpers.httpRequestWithAuthentication.call(
						this,
						CREDENTIAL_TYPE,
						{ method: 'POST', url, body, json: true, returnFullResponse: true, ignoreHttpStatusErrors: true },
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
