import type { INodeProperties } from 'n8n-workflow';

import { optionsProperty } from './options';
import { forgetProperties, sendOnceProperties } from './sendOnce';
import { buttonValueFields } from './buttonValues';
import { FIELD } from '../shared/fieldNames';
import { pastedTemplateNotices, templateProperty } from './templateFields';
import { optionPath, TEMPLATE_BUTTON_KINDS } from '../shared/contracts';

const whenFields = { payloadMode: ['fields'] };

const operationProperty: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'Send',
			value: 'send',
			action: 'Send a template message',
			description: 'Send an approved template to one phone number per input item',
		},
		{
			name: 'Forget Sent Messages',
			value: 'forget',
			action: 'Forget sent messages',
			description: "Clear keys from this workflow's Send Once record, so that those messages can be sent again",
		},
	],
	default: 'send',
};

const sendProperties: INodeProperties[] = [
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
		displayName: 'Define Content',
		name: 'payloadMode',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Using Fields Below',
				value: 'fields',
				description: 'Body values, header and buttons from the fields below',
			},
			{
				name: 'Using JSON',
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
		options: [
			{ name: 'Document', value: 'document' },
			{ name: 'Image', value: 'image' },
			{ name: 'None', value: 'none', description: 'The template has no header, or a static one' },
			{ name: 'Text', value: 'text' },
			{ name: 'Video', value: 'video' },
		],
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
		displayOptions: { show: { ...whenFields, headerType: ['image', 'video', 'document'] } },
		default: '',
		placeholder: 'https://example.com/invoice.pdf',
		description: 'Public http or https address of the image, video or document',
	},
	{
		displayName: `Only buttons that take a value go under ${FIELD.buttons}: quick reply (its payload) and dynamic URL (the text appended to its URL). Call-phone and static URL buttons take none: leave them out. Or give every button of the template, with its value, once, under ${FIELD.templateButtons}, and leave these empty.`,
		name: 'buttonsNotice',
		type: 'notice',
		displayOptions: { show: whenFields },
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
					{
						displayName: 'Type',
						name: 'kind',
						type: 'options',
						options: [
							{
								name: TEMPLATE_BUTTON_KINDS.dynamicUrl.name,
								value: 'dynamicUrl',
								description: 'A visit-website button whose URL ends with a value given now',
							},
							{
								name: TEMPLATE_BUTTON_KINDS.quickReply.name,
								value: 'quickReply',
								description: 'A reply button that sends a payload back when tapped',
							},
						],
						default: 'quickReply',
					},
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

/** Shows a property only for one operation, keeping its own display conditions. */
const forOperation =
	(operation: string) =>
	(property: INodeProperties): INodeProperties => ({
		...property,
		displayOptions: { ...property.displayOptions, show: { ...property.displayOptions?.show, operation: [operation] } },
	});

export const messageProperties: INodeProperties[] = [operationProperty, ...sendProperties.map(forOperation('send')), ...forgetProperties.map(forOperation('forget'))];
