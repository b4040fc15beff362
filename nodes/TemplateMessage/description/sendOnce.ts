import type { INodeProperties } from 'n8n-workflow';

import { MESSAGE_KEY_FIELD } from '../shared/contracts';
import { FIELD, OPERATION_NAME, SEND_ONCE_CHOICE } from '../shared/fieldNames';
import { optionPath } from '../shared/options';

/** Send Once: the record of sent messages, kept in n8n's database across executions. */
export const sendOnceProperties: INodeProperties[] = [
	{
		displayName: FIELD.sendOnce,
		name: 'sendOnce',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: SEND_ONCE_CHOICE.off,
				value: 'off',
				description: `Every execution sends every item. Repeats within one run: ${optionPath('skipDuplicates')}.`,
			},
			{
				name: SEND_ONCE_CHOICE.recipientTemplate,
				value: 'recipientTemplate',
				description: 'A recipient gets this template once, whatever its values, e.g. a welcome message',
			},
			{
				name: SEND_ONCE_CHOICE.recipientTemplateValues,
				value: 'recipientTemplateValues',
				description: 'The same message to the same recipient goes once; other values make a new message, e.g. a new invoice number',
			},
			{
				name: SEND_ONCE_CHOICE.customKey,
				value: 'customKey',
				description: 'A key of your own from an expression, e.g. an order ID, or the phone and the date for once a day',
			},
		],
		default: 'off',
		description:
			`Whether to record every message in n8n's database before sending it and never send the same message again from this workflow: not in a later execution, after a restart, from another queue-mode worker (unless one stalls between its checks: n8n's store has no lock), or when a webhook is called twice. A message the API refused is forgotten again, so a later run sends it; one whose fate is unknown comes out as unknown, and later runs find it in doubt. To send a message again, feed its row to this node with Operation ${OPERATION_NAME.forget}.`,
	},
	{
		displayName: MESSAGE_KEY_FIELD,
		name: 'messageKey',
		type: 'string',
		required: true,
		default: '',
		displayOptions: { show: { sendOnce: ['customKey'] } },
		placeholder: "e.g. {{ $json.orderId }} or {{ String($json.phone).replace(/\\D/g, '') }}-{{ $now.toFormat('yyyy-MM-dd') }}",
		description: "What names this message: two items with the same key are the same message, and it goes out once, from any Template Message node of this workflow whatever its template (add the template to the key to tell them apart)",
	},
];
