import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	NodeConnectionType,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { messageProperties } from './description/properties';
import { dryRunOutput, requestKeysOf } from './output/dryRun';
import { shapedForOnError } from './output/errorOutput';
import { invalidItemError } from './output/errors';
import type { PreparedMessage, MessageInput } from './shared/contracts';
import { renderPreview } from './request/preview';
import { repeatsToSkip } from './request/duplicates';
import { readMessageInput, readMessageKey } from './request/parameters';
import { readRunOptions } from './request/runOptions';
import { buildSendRequest } from './request/payload';
import { forgetSent } from './send/forgetSent';
import { sendAll } from './send/sendAll';
import { CREDENTIAL_TYPE } from './send/transport';
import { optionPath } from './shared/contracts';

// n8n-workflow exports NodeConnectionTypes from 1.83 on; an older n8n could not load the node at
// all, so its value is read with the string it stands for as the fallback.
const MAIN = (NodeConnectionTypes as Partial<typeof NodeConnectionTypes> | undefined)?.Main ?? ('main' as NodeConnectionType);

export class TemplateMessage implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Template Message',
		name: 'templateMessage',
		icon: { light: 'file:../../icons/templateMessage.svg', dark: 'file:../../icons/templateMessage.dark.svg' },
		group: ['output'],
		// 2: Payload (JSON) starts empty (see description/properties.ts); nothing else differs.
		version: [1, 2],
		defaultVersion: 2,
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
		if (this.getNodeParameter('operation', 0, 'send') === 'forget') return [await forgetSent(this, items)];
		const options = readRunOptions(this);
		const continueOnFail = this.continueOnFail();

		// Every item is built and checked (against the template too, when it is given) before the
		// first request, so a bad row in a sheet stops the run before anyone is messaged (or, with
		// Continue On Fail, only that row fails).
		const prepared: Array<PreparedMessage | NodeOperationError> = items.map((_, itemIndex) => {
			let input: MessageInput | undefined;
			try {
				input = readMessageInput(this, itemIndex);
				const request = buildSendRequest(input);
				return { request, preview: input.template && renderPreview(request, input.template), key: readMessageKey(this, itemIndex, options.sendOnce, request) };
			} catch (error) {
				return invalidItemError(this.getNode(), error, itemIndex, input);
			}
		});
		// A dry run reports on every item, so it does not stop at the first invalid one.
		if (options.dryRun) return [shapedForOnError(this, dryRunOutput(this, prepared, options.skipDuplicates), items, options.includeInputFields)];
		const invalid = prepared.filter((item) => item instanceof NodeOperationError);
		if (invalid.length > 0 && !continueOnFail) throw withOthersCounted(invalid[0], invalid.length - 1);
		const keys = prepared.map((item) => (item instanceof NodeOperationError ? undefined : item.key));
		const skipped = repeatsToSkip(keys, requestKeysOf(prepared), options.skipDuplicates);
		return [shapedForOnError(this, await sendAll(this, prepared, skipped, options, continueOnFail), items, options.includeInputFields)];
	}
}

/** Without Continue On Fail the first invalid row stops the run: its error says how many more there are. */
function withOthersCounted(error: NodeOperationError, others: number): NodeOperationError {
	const more = others === 0 ? '' : ` ${others === 1 ? '1 other row is' : `${others} other rows are`} invalid too: run with ${optionPath('dryRun')} to list every invalid row at once.`;
	error.description = `${error.description ?? ''} Nothing was sent.${more}`.trim();
	return error;
}
