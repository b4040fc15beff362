import type { IExecuteFunctions, INodeExecutionData, INodeProperties, INodePropertyOptions, NodeOperationError, NodeParameterValue } from 'n8n-workflow';

import { sendOnceProperties } from '../description/sendOnce';
import { buttonKindField, buttonValueFields } from '../description/buttonValues';
import { FIELD, OPERATION_NAME, PAYLOAD_MODE } from '../shared/fieldNames';
import { headerKindOptions, pastedTemplateNotices, templateProperty } from '../description/templateFields';
import type { ItemResult, MessageInput, ReadMessage, SendOnce } from '../shared/contracts';
import { isInvalid, MEDIA_HEADER_KINDS, NO_VALUE_BUTTONS_IN_TEXT, TEMPLATE_BUTTON_KINDS, VALUE_BUTTON_KINDS } from '../shared/contracts';
import { optionPath, optionsProperty } from '../shared/options';
import { dryRunOutput } from '../output/dryRun';
import { invalidMessage, nothingSentText } from '../output/errors';
import { sendOutput } from '../output/sendOutput';
import { readCredentials } from '../request/credentials';
import { repeatsToSkip, requestRepeats } from '../request/duplicates';
import { tryKeyOf } from '../request/messageKey';
import { readMessageInput, readMessageKey, readRunIndex } from '../request/parameters';
import { buildSendRequest } from '../request/payload';
import { renderPreview } from '../request/preview';
import { readRunOptions } from '../request/runOptions';
import { sendAll } from '../send/sendAll';
import { MessageRecord } from '../sendOnce/record';
import { rememberSentByRun, sentByEarlierRuns } from '../send/sentMemory';
import { logLine } from '../shared/notice';
import { failuresAsRows } from '../shared/howRun';

/** Its entry in the Operation field. */
export const menuEntry: INodePropertyOptions = {
	name: OPERATION_NAME.send,
	value: 'send',
	action: 'Send a template message',
	description: 'Send an approved template to one phone number per input item',
};

/** The canvas subtitle, an expression. */
export const subtitle = '"Send template " + $parameter["templateCodeId"]';

const whenFields = { payloadMode: ['fields'] };
// Buttons with no button in it, as n8n stores it before the first and after the last is removed. n8n compares a
// condition's value with lodash's isEqual (1.78 to 2.x), so an object works, though the type says a primitive.
const NO_BUTTONS = [{}, { button: [] }] as unknown as NodeParameterValue[];

export const properties: INodeProperties[] = [
	{
		displayName: FIELD.phoneNumber,
		name: 'phoneNumber',
		type: 'string',
		required: true,
		default: '',
		placeholder: '+62 812 3456 7890',
		description:
			`Recipient number with its country code; map it from a column of the input. A leading +, spaces, dashes and parentheses are accepted. A number starting with 0 needs ${optionPath('defaultCountryCode')}.`,
	},
	{
		displayName: FIELD.templateCodeId,
		name: 'templateCodeId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 3f2a9c1e_8b4d_4e1a_9c2f_1d2e3f4a5b6c:order_confirmed',
		description: 'Code ID the developer dashboard gave the template, usually its ID and name joined by a colon. Only templates with status Approved can be sent.',
	},
	// What one pastes first: the template as registered, before the values that fill it.
	templateProperty,
	...pastedTemplateNotices,
	{
		displayName: FIELD.payloadMode,
		name: 'payloadMode',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: PAYLOAD_MODE.fields,
				value: 'fields',
				description: 'Body values, header and buttons from the fields below',
			},
			{
				name: PAYLOAD_MODE.json,
				value: 'json',
				description: 'The whole payload array as JSON, for anything the fields cannot express',
			},
		],
		default: 'fields',
		description: "How the template's values are given. n8n keeps only the fields shown: switching clears what was entered for the other way.",
	},
	{
		displayName: FIELD.bodyValues,
		name: 'bodyValuesMode',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: whenFields },
		options: [
			{
				name: 'One Field per Value',
				value: 'fields',
				description: 'Enter or map each placeholder value in its own field, in template order',
			},
			{
				name: 'All Values From One Expression',
				value: 'list',
				description: 'One expression that yields the list of values, e.g. a spreadsheet row',
			},
		],
		default: 'fields',
		description: 'How the values for the body placeholders ({{1}}, {{2}}, …) are given. For a body without placeholders, add no value.',
	},
	{
		displayName: 'Values',
		name: 'bodyValues',
		type: 'fixedCollection',
		placeholder: 'Add Body Value',
		typeOptions: { multipleValues: true, sortable: true },
		displayOptions: { show: { ...whenFields, bodyValuesMode: ['fields'] } },
		default: {},
		description: 'Values for the body placeholders in order: the first fills {{1}}, the second {{2}}, and so on',
		options: [
			{
				displayName: 'Body Value',
				name: 'values',
				values: [
					{
						displayName: 'Value',
						name: 'text',
						type: 'string',
						default: '',
						placeholder: '{{ $json.name }}',
						description: 'The first value fills {{1}}, the second {{2}}, and so on (drag to reorder); typically mapped from a column of the input',
					},
				],
			},
		],
	},
	{
		displayName: 'Values List',
		name: 'bodyValuesList',
		type: 'string',
		displayOptions: { show: { ...whenFields, bodyValuesMode: ['list'] } },
		default: '',
		placeholder: '{{ [$json.name, $json.invoice, $json.amount] }}',
		description: 'An expression that yields a list of texts, first for {{1}}, second for {{2}}, …',
	},
	{
		displayName: FIELD.headerType,
		name: 'headerType',
		type: 'options',
		displayOptions: { show: whenFields },
		options: headerKindOptions({ none: 'The template has no header, or a static one' }),
		default: 'none',
		description: 'The kind of header the template has, if it takes a value at send time',
	},
	{
		displayName: FIELD.headerText,
		name: 'headerText',
		type: 'string',
		displayOptions: { show: { ...whenFields, headerType: ['text'] } },
		default: '',
		description: 'Value for the header placeholder',
	},
	{
		displayName: FIELD.headerMediaUrl,
		name: 'headerMediaUrl',
		type: 'string',
		displayOptions: { show: { ...whenFields, headerType: [...MEDIA_HEADER_KINDS] } },
		default: '',
		placeholder: 'https://example.com/invoice.pdf',
		description: 'Public http or https address of the image, video or document',
	},
	{
		displayName: `Only buttons that take a value go under ${FIELD.buttons}: ${VALUE_BUTTON_KINDS.map((kind) => `${TEMPLATE_BUTTON_KINDS[kind].inText} (${TEMPLATE_BUTTON_KINDS[kind].value!.described})`).join(' and ')}. ${NO_VALUE_BUTTONS_IN_TEXT} take none: leave them out. Or give every button of the template, with its value, once, under ${FIELD.templateButtons}, and leave these empty.`,
		name: 'buttonsNotice',
		type: 'notice',
		// Once a button is added: before that it speaks of nothing on the panel. On Buttons itself, not on a path
		// into it: n8n 1.x cannot order a dependency on 'buttons.button', and would fail every run.
		displayOptions: { show: whenFields, hide: { buttons: NO_BUTTONS.map((value) => ({ _cnd: { eq: value } })) } },
		default: '',
	},
	{
		displayName: FIELD.buttons,
		name: 'buttons',
		type: 'fixedCollection',
		placeholder: 'Add Button',
		typeOptions: { multipleValues: true, sortable: true },
		displayOptions: { show: whenFields },
		default: {},
		options: [
			{
				displayName: 'Button',
				name: 'button',
				values: [
					buttonKindField(VALUE_BUTTON_KINDS, {
						dynamicUrl: 'A visit-website button whose URL ends with a value given now',
						quickReply: 'A reply button that sends a payload back when tapped',
					}),
					{
						displayName: 'Index',
						name: 'index',
						type: 'number',
						typeOptions: { minValue: 0, numberPrecision: 0 },
						default: 0,
						description: "Position of the button in the template, starting at 0",
					},
					...buttonValueFields,
				],
			},
		],
	},
	// Version 1 (0.1.0) started with an example payload, which would go to every recipient as it
	// stands; its workflows keep that default (n8n saves only values that differ from it).
	{
		displayName: FIELD.rawPayload,
		name: 'payloadJson',
		type: 'json',
		displayOptions: { show: { payloadMode: ['json'], '@version': [1] } },
		default: '[\n  {\n    "position": "body",\n    "parameters": [{ "type": "text", "text": "Budi" }]\n  }\n]',
		description: 'The payload array of the template object: one component per template part that takes values',
	},
	{
		displayName: FIELD.rawPayload,
		name: 'payloadJson',
		type: 'json',
		displayOptions: { show: { payloadMode: ['json'], '@version': [2] } },
		default: '[]',
		description:
			'The payload array of the template object: one component per template part that takes values, e.g. [{"position": "body", "parameters": [{"type": "text", "text": "Budi"}]}], with the values mapped by expressions. Empty for a template without values.',
	},
	...sendOnceProperties,
	optionsProperty,
];


export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const continueOnFail = failuresAsRows(this);
	const options = readRunOptions(this);
	const runIndex = readRunIndex(this);

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
			return invalidMessage(this.getNode(), error, itemIndex, this.getInputData()[itemIndex]?.json.row_number, input, runIndex);
		}
	});
	const valid = prepared.map((message) => (isInvalid(message) ? undefined : message));
	// A dry run reports on every item, so it does not stop at the first invalid one.
	if (options.dryRun) {
		const credential = await readCredentials(this).then(
			() => undefined,
			(error: Error) => error.message,
		);
		const repeats = requestRepeats(valid);
		return [dryRunOutput(this, prepared, repeats, repeatsToSkip(valid, options.skipDuplicates, repeats), options, { credential, record: recordProblem(this, options.sendOnce), continueOnFail }, items)];
	}
	const invalid = prepared.filter(isInvalid);
	if (invalid.length > 0 && !continueOnFail) {
		const error = withOthersCounted(invalid[0].invalid, invalid.length - 1, nothingSentText(runIndex, sentByEarlierRuns(this.getContext('node'), runIndex)));
		// n8n logs a node's error without its message: the run's line says what stopped it, as after any other run.
		logLine(this, `${error.message}. ${error.description ?? ''}`.trim(), 'warn');
		throw error;
	}
	const skipped = repeatsToSkip(valid, options.skipDuplicates);
	const credentials = await readCredentials(this);
	const run = await sendAll(this, valid.map((message, itemIndex) => (skipped.has(itemIndex) ? undefined : message)), credentials, options, continueOnFail, runIndex);
	rememberSentByRun(this.getContext('node'), runIndex, run.results.filter((result) => result?.kind === 'sent').length);
	const results = prepared.map((message, itemIndex): ItemResult | undefined => {
		if (isInvalid(message)) return { kind: 'invalid', invalid: message };
		const duplicate = skipped.get(itemIndex);
		return duplicate ? { kind: 'duplicate', duplicate } : run.results[itemIndex];
	});
	return [sendOutput(this, prepared, results, run, options, items)];
}

/** Why Send Once's record could not be opened (no store in this n8n, a workflow never saved): a dry run says it. Opening it makes no store call. */
function recordProblem(ctx: IExecuteFunctions, sendOnce: SendOnce): string | undefined {
	if (sendOnce === 'off') return undefined;
	try {
		MessageRecord.open(ctx);
		return undefined;
	} catch (error) {
		return error instanceof Error ? error.message : String(error);
	}
}

function withOthersCounted(error: NodeOperationError, others: number, nothingSent: string): NodeOperationError {
	const more = others === 0 ? '' : ` ${others === 1 ? '1 other row is' : `${others} other rows are`} invalid too: run with ${optionPath('dryRun')} to list every invalid row at once.`;
	error.description = `${error.description ?? ''} ${nothingSent}${more}`.trim();
	return error;
}
