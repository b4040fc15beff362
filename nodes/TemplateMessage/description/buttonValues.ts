import type { INodeProperties } from 'n8n-workflow';

/**
 * The value a button takes when the message is sent, by its kind: under the node's Buttons and
 * under Template (Checks and Preview) → Buttons (where each of the template's buttons can carry its value, so that the
 * buttons are entered once).
 */
export const buttonValueFields: INodeProperties[] = [
	{
		displayName: 'Payload',
		name: 'payload',
		type: 'string',
		displayOptions: { show: { kind: ['quickReply'] } },
		default: '',
		placeholder: 'yes',
		description: 'Text that comes back to you when the recipient taps this button',
	},
	{
		displayName: 'URL Suffix',
		name: 'urlSuffix',
		type: 'string',
		displayOptions: { show: { kind: ['dynamicUrl'] } },
		default: '',
		placeholder: 'orders/INV-7',
		description: 'Text appended to the URL registered with the template',
	},
];
