import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	NodeConnectionType,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { messageProperties } from './description/properties';
import { routedToErrorOutput } from './output/errorOutput';
import { invalidItemError } from './output/errors';
import { dryRunItem } from './output/items';
import { readMessageInput, readRunOptions } from './request/parameters';
import type { SendRequestBody } from './request/payload';
import { buildSendRequest } from './request/payload';
import { sendAll } from './send/sendAll';
import { CREDENTIAL_TYPE } from './send/transport';

// n8n-workflow exports NodeConnectionTypes from 1.83 on; an older n8n could not load the node at
// all, so its value is read with the string it stands for as the fallback.
const MAIN = (NodeConnectionTypes as Partial<typeof NodeConnectionTypes> | undefined)?.Main ?? ('main' as NodeConnectionType);

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
		inputs: [MAIN],
		outputs: [MAIN],
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
		const output = options.dryRun ? requests.map(dryRunItem) : await sendAll(this, requests, options, continueOnFail);
		return [routedToErrorOutput(this, output)];
	}
}
