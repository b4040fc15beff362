import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { TemplateButtonKind } from '../shared/contracts';
import { TEMPLATE_BUTTON_KINDS, VALUE_BUTTON_KINDS } from '../shared/contracts';

const VALUE_FIELD_TEXTS: Partial<Record<TemplateButtonKind, { placeholder: string; description: string }>> = {
	quickReply: { placeholder: 'yes', description: 'Text that comes back to you when the recipient taps this button' },
	dynamicUrl: { placeholder: 'orders/INV-7', description: 'Text appended to the URL registered with the template' },
};

/** A button's value, by its kind: under the node's Buttons, and under Template → Buttons so that buttons can be entered once. */
export const buttonValueFields: INodeProperties[] = VALUE_BUTTON_KINDS.map((kind) => {
	const { field, displayName } = TEMPLATE_BUTTON_KINDS[kind].value!;
	return {
		displayName,
		name: field,
		type: 'string',
		displayOptions: { show: { kind: [kind] } },
		default: '',
		...VALUE_FIELD_TEXTS[kind],
	};
});

/** A button's Type, among the kinds given: under the node's Buttons, and under Template → Buttons. */
export function buttonKindField(kinds: readonly TemplateButtonKind[], descriptions: Partial<Record<TemplateButtonKind, string>> = {}): INodeProperties {
	return {
		displayName: 'Type',
		name: 'kind',
		type: 'options',
		options: buttonKindOptions(kinds, descriptions),
		default: 'quickReply',
	};
}

/** One entry per kind given, named as the editor names it and sorted by name as n8n's editor wants. */
function buttonKindOptions(kinds: readonly TemplateButtonKind[], descriptions: Partial<Record<TemplateButtonKind, string>>): INodePropertyOptions[] {
	return kinds
		.map((kind) => {
			const { name } = TEMPLATE_BUTTON_KINDS[kind];
			const description = descriptions[kind];
			return description === undefined ? { name, value: kind } : { name, value: kind, description };
		})
		.sort((a, b) => a.name.localeCompare(b.name));
}
