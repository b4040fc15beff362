import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import type { Delivery } from './delivery';
import { deliver } from './delivery';
import { messageProperties } from './description';
import { invalidItemError, secretRedactor, sendFailedError } from './errors';
import { sharedPacer } from './pacer';
import { readMessageInput, readRunOptions } from './parameters';
import type { SendRequestBody } from './payload';
import { buildSendRequest } from './payload';
import { runPool } from './pool';
import { fingerprint, SentMemory } from './sentMemory';
import { CREDENTIAL_TYPE, sendEndpoint } from './transport';

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
		if (options.dryRun) return [requests.map((request, itemIndex) => dryRunItem(request, itemIndex))];

		const credentials = await this.getCredentials<{ baseUrl: string; token: string }>(CREDENTIAL_TYPE);
		const token = String(credentials.token ?? '');
		const redact = secretRedactor(token);
		const url = sendEndpoint(String(credentials.baseUrl ?? ''));
		const credentialRef = this.getNode().credentials?.[CREDENTIAL_TYPE];

		const runIndex = Number(this.getWorkflowDataProxy(0).$runIndex ?? 0);
		const memory = new SentMemory(this.getContext('node'), `sent-run-${runIndex}`);
		// Without Continue On Fail the run stops at the first failure: nothing new is sent after it.
		let firstFailure: NodeApiError | undefined;
		const stopping = () => firstFailure !== undefined;
		const context = {
			ctx: this,
			url,
			credentials: { id: credentialRef?.id ?? '', name: credentialRef?.name ?? '', type: CREDENTIAL_TYPE, data: credentials },
			timeoutMs: options.timeoutMs,
			pacer: sharedPacer(`${url}\u0000${fingerprint(token)}`, options.maxPerSecond),
			retry: options.retry,
			memory,
			signal: this.getExecutionCancelSignal(),
			stopping,
		};

		const output = await runPool(
			items.length,
			options.maxConcurrency,
			async (itemIndex): Promise<INodeExecutionData | undefined> => {
				const request = requests[itemIndex];
				if (request instanceof NodeOperationError) return failedItem(request, itemIndex, { delivery: 'invalid' });

				const delivery = await deliver(itemIndex, request, context);
				if (!delivery) return undefined;
				const summary: IDataObject = {
					phone_number: request.phone_number,
					template_code_id: request.message.template.template_code_id,
					attempts: delivery.attempts,
				};
				if (delivery.remembered) summary.sentInEarlierTry = true;
				if (options.includeRequestPayload) summary.request = request as unknown as IDataObject;
				if (delivery.outcome.kind === 'accepted') {
					return { json: { success: true, msgid: delivery.outcome.msgid, ...summary }, pairedItem: { item: itemIndex } };
				}

				const error = sendFailedError(this.getNode(), delivery.outcome, itemIndex, redact);
				if (!continueOnFail && (!firstFailure || itemIndex < Number(firstFailure.context.itemIndex))) firstFailure = error;
				return failedItem(error, itemIndex, failureDetails(delivery, summary));
			},
			stopping,
		);

		if (firstFailure) {
			const accepted = output.filter((item) => item?.json.success === true).length;
			const notSent = output.filter((item) => item === undefined).length;
			firstFailure.description = [
				firstFailure.description,
				`${accepted} other item(s) were accepted before the run stopped${notSent ? ` and ${notSent} were not sent` : ''}. n8n's Retry On Fail will not send the accepted ones again.`,
			]
				.filter(Boolean)
				.join(' ');
			throw firstFailure;
		}
		if (!output.some((item) => item?.json.error !== undefined)) memory.clear();
		return [output as INodeExecutionData[]];
	}
}

/** What a dry run puts out: the request that would be sent, or why the item is invalid. */
function dryRunItem(request: SendRequestBody | NodeOperationError, itemIndex: number): INodeExecutionData {
	if (request instanceof NodeOperationError) return failedItem(request, itemIndex, { delivery: 'invalid', dryRun: true });
	return {
		json: {
			dryRun: true,
			phone_number: request.phone_number,
			template_code_id: request.message.template.template_code_id,
			request: request as unknown as IDataObject,
		},
		pairedItem: { item: itemIndex },
	};
}

function failureDetails(delivery: Delivery, summary: IDataObject): IDataObject {
	const { outcome } = delivery;
	if (outcome.kind === 'accepted') return summary;
	const details: IDataObject = { delivery: outcome.kind === 'unknown' ? 'unknown' : 'failed', ...summary };
	if (outcome.statusCode !== undefined) details.httpCode = outcome.statusCode;
	if (outcome.errorCode !== undefined) details.errorCode = outcome.errorCode;
	return details;
}

/**
 * n8n's shape for an item that failed under "On Error: Continue": `error` and `details` only, so
 * that "Continue (using error output)" routes it to the error output. (Setting `item.error`
 * would make the engine replace the json with the bare message.)
 */
function failedItem(error: NodeOperationError | NodeApiError, itemIndex: number, details: IDataObject): INodeExecutionData {
	return {
		json: {
			error: error.message,
			details: { success: false, itemIndex, description: error.description ?? undefined, ...details },
		},
		pairedItem: { item: itemIndex },
	};
}
