import type { INodeProperties } from 'n8n-workflow';

/** A button's value, by its kind: under the node's Buttons, and under Template → Buttons so that buttons can be entered once. */
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
