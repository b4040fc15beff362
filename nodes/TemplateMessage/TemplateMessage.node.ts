import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	NodeConnectionType,
	NodeOperationError,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { messageProperties } from './description/properties';
import { dryRunOutput } from './output/dryRun';
import { shapedForOnError } from './output/errorOutput';
import { invalidItemError, invalidMessage } from './output/errors';
import { failedItem, forgottenAllItem, forgottenItem } from './output/items';
import { sendOutput } from './output/sendOutput';
import { readCredentials } from './request/credentials';
import { findRepeats, repeatsToSkip, requestKeysOf } from './request/duplicates';
import { tryKeyOf } from './request/messageKey';
import { readForgetAll, readForgetKey, readMessageInput, readMessageKey } from './request/parameters';
import { buildSendRequest } from './request/payload';
import { renderPreview } from './request/preview';
import { readRunOptions } from './request/runOptions';
import { testCredential } from './send/credentialTest';
import { sendAll } from './send/sendAll';
import { MessageRecord } from './send/sendOnce/record';
import type { ItemResult, MessageInput, ReadMessage } from './shared/contracts';
import { FORGET_KEY_DEFAULT, isInvalid, optionPath } from './shared/contracts';

// n8n-workflow exports NodeConnectionTypes from 1.83 on; without the fallback an older n8n could not load the node.
const MAIN = (NodeConnectionTypes as Partial<typeof NodeConnectionTypes> | undefined)?.Main ?? ('main' as NodeConnectionType);

export class TemplateMessage implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Template Message',
		name: 'templateMessage',
		icon: { light: 'file:../../icons/templateMessage.svg', dark: 'file:../../icons/templateMessage.dark.svg' },
		group: ['output'],
		// 2: Payload (JSON) starts empty, and a dry run's rows carry the request only with Include Request Payload.
		version: [1, 2],
		defaultVersion: 2,
		subtitle: '={{ $parameter["operation"] === "forget" ? "Forget sent messages" : "Send template " + $parameter["templateCodeId"] }}',
		description: 'Send approved template messages (text, media header, quick reply and URL buttons) to phone numbers',
		defaults: { name: 'Template Message' },
		usableAsTool: true,
		inputs: [MAIN],
		outputs: [MAIN],
		// Written out (CREDENTIAL_TYPE): n8n's lint reads the name and testedBy as literals.
		credentials: [{ name: 'templateMessageApi', required: true, testedBy: 'testCredential' }],
		properties: messageProperties,
	};

	// The node's own credential test tells a refused connection, DNS, timeout and TLS errors apart; a declarative one shows only the code.
	methods = { credentialTest: { testCredential } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const continueOnFail = this.continueOnFail();
		if (this.getNodeParameter('operation', 0, 'send') === 'forget') return [await forgetSentMessages(this, items.length, continueOnFail)];
		const options = readRunOptions(this);

		// Every item is checked before the first request, so that a bad row stops the run before anyone
		// is messaged (or, with Continue On Fail, only that row fails).
		const prepared: ReadMessage[] = items.map((_, itemIndex) => {
			let input: MessageInput | undefined;
			try {
				input = readMessageInput(this, itemIndex);
				const request = buildSendRequest(input);
				return {
					request,
					preview: input.template && renderPreview(request, input.template),
					key: readMessageKey(this, itemIndex, options.sendOnce, request),
					tryKey: tryKeyOf(request),
				};
			} catch (error) {
				return invalidMessage(this.getNode(), error, itemIndex, input);
			}
		});
		const valid = prepared.map((message) => (isInvalid(message) ? undefined : message));
		// A dry run reports on every item, so it does not stop at the first invalid one.
		if (options.dryRun) {
			const credentialProblem = await readCredentials(this).then(
				() => undefined,
				(error: Error) => error.message,
			);
			return [shapedForOnError(this, dryRunOutput(this, prepared, findRepeats(requestKeysOf(valid)), options, credentialProblem), items, options.includeInputFields)];
		}
		const invalid = prepared.filter(isInvalid);
		if (invalid.length > 0 && !continueOnFail) throw withOthersCounted(invalid[0].invalid, invalid.length - 1);
		const skipped = repeatsToSkip(valid, options.skipDuplicates);
		const credentials = await readCredentials(this);
		const run = await sendAll(this, valid.map((message, itemIndex) => (skipped.has(itemIndex) ? undefined : message)), credentials, options, continueOnFail);
		const results = prepared.map((message, itemIndex): ItemResult | undefined => {
			if (isInvalid(message)) return { status: 'invalid', invalid: message };
			const duplicate = skipped.get(itemIndex);
			return duplicate ? { status: 'skipped', duplicate } : run.results[itemIndex];
		});
		return [shapedForOnError(this, sendOutput(this, prepared, results, run, options.includeRequestPayload), items, options.includeInputFields)];
	}
}

async function forgetSentMessages(ctx: IExecuteFunctions, itemCount: number, continueOnFail: boolean): Promise<INodeExecutionData[]> {
	if (readForgetAll(ctx)) return [forgottenAllItem(await MessageRecord.open(ctx).forgetAll(), itemCount)];
	const keys = Array.from({ length: itemCount }, (_, itemIndex) => {
		try {
			return readForgetKey(ctx, itemIndex);
		} catch (error) {
			const invalid = invalidItemError(ctx.getNode(), error, itemIndex);
			invalid.description = `Map the key to forget: the default, ${FORGET_KEY_DEFAULT.slice(1)}, takes it from any row a Template Message node with Send Once put out.`;
			if (!continueOnFail) throw invalid;
			return invalid;
		}
	});
	const valid = keys.filter((key): key is string => typeof key === 'string');
	await MessageRecord.open(ctx).forget(valid);
	return keys.map((key, itemIndex) => (typeof key === 'string' ? forgottenItem(key, itemIndex) : failedItem(key, itemIndex, {})));
}

function withOthersCounted(error: NodeOperationError, others: number): NodeOperationError {
	const more = others === 0 ? '' : ` ${others === 1 ? '1 other row is' : `${others} other rows are`} invalid too: run with ${optionPath('dryRun')} to list every invalid row at once.`;
	error.description = `${error.description ?? ''} Nothing was sent.${more}`.trim();
	return error;
}
