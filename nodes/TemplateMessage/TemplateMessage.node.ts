import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { messageProperties } from './description';
import { invalidItemError, secretRedactor, sendFailedError } from './errors';
import { readMessageInput, readRunOptions } from './parameters';
import type { SendRequestBody } from './payload';
import { buildSendRequest } from './payload';
import { CREDENTIAL_TYPE, postMessage, sendEndpoint } from './transport';

const REQUEST_TIMEOUT_MS = 30_000;

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
		const credentials = await this.getCredentials<{ baseUrl: string; token: string }>(CREDENTIAL_TYPE);
		const redact = secretRedactor(String(credentials.token ?? ''));
		const url = sendEndpoint(String(credentials.baseUrl ?? ''));
		const runOptions = readRunOptions(this);
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

		const output: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < requests.length; itemIndex++) {
			const request = requests[itemIndex];
			if (request instanceof NodeOperationError) {
				output.push(failedItem(request, itemIndex, { delivery: 'invalid' }));
				continue;
			}
			const outcome = await postMessage(this, url, request, REQUEST_TIMEOUT_MS);
			const summary: IDataObject = {
				phone_number: request.phone_number,
				template_code_id: request.message.template.template_code_id,
			};
			if (runOptions.includeRequestPayload) summary.request = request as unknown as IDataObject;

			if (outcome.kind === 'accepted') {
				output.push({ json: { success: true, msgid: outcome.msgid, ...summary }, pairedItem: { item: itemIndex } });
				continue;
			}
			const error = sendFailedError(this.getNode(), outcome, itemIndex, redact);
			if (!continueOnFail) throw error;
			output.push(
				failedItem(error, itemIndex, {
					delivery: outcome.kind === 'unknown' ? 'unknown' : 'failed',
					httpCode: outcome.statusCode,
					errorCode: outcome.errorCode,
					...summary,
				}),
			);
		}
		return [output];
	}
}

/**
 * n8n's shape for an item that failed under "On Error: Continue": `error` and `details` only, so
 * that "Continue (using error output)" routes it to the error output. (Setting `item.error`
 * would make the engine replace the json with the bare message.)
 */
function failedItem(
	error: NodeOperationError | ReturnType<typeof sendFailedError>,
	itemIndex: number,
	details: IDataObject,
): INodeExecutionData {
	return {
		json: {
			error: error.message,
			details: { success: false, itemIndex, description: error.description ?? undefined, ...details },
		},
		pairedItem: { item: itemIndex },
	};
}
