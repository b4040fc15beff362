import type { INodeProperties } from 'n8n-workflow';

import { FORGET_KEY_DEFAULT, MESSAGE_KEY_FIELD, optionPath } from '../shared/contracts';

/** Send Once: the record of sent messages, kept in n8n's database across executions. */
export const sendOnceProperties: INodeProperties[] = [
	{
		displayName: 'Send Once',
		name: 'sendOnce',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Off',
				value: 'off',
				description: `Every execution sends every item. Repeats within one run: ${optionPath('skipDuplicates')}.`,
			},
			{
				name: 'Once per Recipient and Template',
				value: 'recipientTemplate',
				description: 'A recipient gets this template once, whatever its values, e.g. a welcome message',
			},
			{
				name: 'Once per Recipient, Template and Values',
				value: 'recipientTemplateValues',
				description: 'The same message to the same recipient goes once; other values make a new message, e.g. a new invoice number',
			},
			{
				name: 'Once per Message Key',
				value: 'customKey',
				description: 'A key of your own from an expression, e.g. an order ID, or the phone and the date for once a day',
			},
		],
		default: 'off',
		description:
			"Whether to record every message in n8n's database before sending it and never send the same message again from this workflow: not in a later execution, after a restart, from another queue-mode worker, or when a webhook is called twice. A message the API refused is forgotten again, so a later run sends it; one whose fate is unknown comes out as in doubt. To send a message again, feed its row to this node with Operation Forget Sent Messages.",
	},
	{
		displayName: MESSAGE_KEY_FIELD,
		name: 'messageKey',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: { sendOnce: ['customKey'] } },
		placeholder: "e.g. {{ $json.orderId }} or {{ $json.phone }}-{{ $now.toFormat('yyyy-MM-dd') }}",
		description: 'What names this message: two items with the same key are the same message, and it goes out once',
	},
];

export const forgetProperties: INodeProperties[] = [
	{
		displayName: 'Forget',
		name: 'forget',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'The Key of Each Input Item', value: 'keys', description: 'A later run sends these messages again' },
			{
				name: 'Everything This Workflow Remembers',
				value: 'all',
				description: "Clears the workflow's whole record, including what Remove Duplicates nodes of this workflow keep with scope Workflow",
			},
		],
		default: 'keys',
	},
	{
		displayName: MESSAGE_KEY_FIELD,
		name: 'forgetKey',
		type: 'string',
		required: true,
		default: FORGET_KEY_DEFAULT,
		displayOptions: { show: { forget: ['keys'] } },
		description:
			"The key as Send Once recorded it: a sent item's messageKey, your own key, or for Once per Recipient and Template the number as sent and the template code ID joined by |, e.g. 6281234567890|3f2a…:order_confirmed",
	},
];
