import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { messageProperties } from './description';
import { invalidItemError } from './errors';
import { dryRunItem } from './output';
import { readMessageInput, readRunOptions } from './parameters';
import type { SendRequestBody } from './payload';
import { buildSendRequest } from './payload';
import { sendAll } from './send';
import { CREDENTIAL_TYPE } from './transport';

export class TemplateMessage implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Template Message',
		name: 'templateMessage',
		icon: { light: 'file:../../icons/templateMessage.svg', dark: 'file:../../icons/templateMessage.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{"Send template " + $parameter["templateCodeId"]}}',
		description: 'Send approved template messages (text, media header, quick reply and URL buttons) to phone numbers',
		defaults: { name: 'Template Message' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		properties: messageProperties,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const options = readRunOptions(this);
		const continueOnFail = this.continueOnFail();

		// Every item is built and checked before the first request, so a bad row in a sheet
		// stops the run before anyone is messaged (or, with Continue On Fail, only that row fails).
		const requests: Array<SendRequestBody | NodeOperationError> = items.map((_, itemIndex) => {
			try {
				return buildSendRequest(readMessageInput(this, itemIndex));
			} catch (error) {
				return invalidItemError(this.getNode(), error, itemIndex);
			}
		});
		const firstInvalid = requests.find((request) => request instanceof NodeOperationError);
		if (firstInvalid && !continueOnFail) throw firstInvalid;
		if (options.dryRun) return [requests.map(dryRunItem)];
		return [await sendAll(this, requests, options, continueOnFail)];
	}
}
