import type { INodePropertyOptions, INodeProperties } from 'n8n-workflow';

import type { TemplateButtonKind, TemplateHeaderKind } from '../shared/contracts';
import { TEMPLATE_BUTTON_KINDS, TEMPLATE_HEADER_KINDS } from '../shared/contracts';
import { FIELD, TEMPLATE_FIELD } from '../shared/fieldNames';
import { buttonKindField, buttonValueFields } from './buttonValues';
import { capitalised } from '../shared/words';

/**
 * The template as registered, for checks and the preview; only its buttons' values are sent, when the
 * node's own Buttons are empty. Every part is optional; a part left out is not checked.
 */
export const templateProperty: INodeProperties = {
	displayName: FIELD.template,
	name: 'template',
	type: 'collection',
	placeholder: 'Add Template Detail',
	default: {},
	description:
		`The template as registered in the developer dashboard: every item is checked against it before the first message goes out, and each output item shows the message its recipient gets. Only the values of its buttons are sent, when the node's ${FIELD.buttons} are empty. With Template Code ID from an expression, map these from the same row, or leave them out.`,
	options: [
		{
			displayName: TEMPLATE_FIELD.bodyText,
			name: 'bodyText',
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			placeholder: 'Hi {{1}}, your order {{2}} is confirmed.',
			description: 'The body exactly as registered, with its {{1}}, {{2}} … placeholders. Enough on its own to check the number of body values and to show a preview.',
		},
		{
			displayName: TEMPLATE_FIELD.buttons,
			name: 'buttons',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true, sortable: true },
			default: {},
			placeholder: 'Add Template Button',
			description:
				`All of the template's buttons in their order (index 0 first), including those that take no value. Give a quick reply's payload or a dynamic URL's suffix here and leave the node's ${FIELD.buttons} empty: the buttons are then entered once.`,
			options: [
				{
					displayName: 'Button',
					name: 'button',
					values: [
						buttonKindField(Object.keys(TEMPLATE_BUTTON_KINDS) as TemplateButtonKind[]),
						{
							displayName: 'Label',
							name: 'label',
							type: 'string',
							default: '',
							placeholder: 'Track order',
							description: 'The text on the button, for the preview',
						},
						...buttonValueFields,
					],
				},
			],
		},
		{
			displayName: 'Check Values for Refused Characters',
			name: 'checkCharacters',
			type: 'boolean',
			default: true,
			description: 'Whether to refuse body values and a header text with a line break, a tab, more than four spaces in a row, a control character or a bidirectional override, which the platform refuses in template values',
		},
		{
			displayName: TEMPLATE_FIELD.header,
			name: 'headerFormat',
			type: 'options',
			options: headerKindOptions({ none: 'The template has no header', text: 'Give its text below, with {{1}} if it has a placeholder' }),
			default: 'none',
			description: "The kind of header the template has. A text header without a placeholder takes no value: set the node's Header Type to None for it.",
		},
		{
			displayName: TEMPLATE_FIELD.headerText,
			name: 'headerText',
			type: 'string',
			default: '',
			placeholder: 'Order {{1}}',
			description: 'For a text header: its text as registered, with {{1}} if it has a placeholder',
		},
	],
};

/** One entry per header kind, named after it and sorted by name as n8n's editor wants. */
export function headerKindOptions(descriptions: Partial<Record<TemplateHeaderKind, string>>): INodePropertyOptions[] {
	return [...TEMPLATE_HEADER_KINDS].sort().map((kind) => {
		const name = capitalised(kind);
		const description = descriptions[kind];
		return description === undefined ? { name, value: kind } : { name, value: kind, description };
	});
}

/**
 * Shown while a template text is in Expression mode, which a paste of `Hi {{1}}` switches it to. n8n shows a field
 * whenever the value it depends on is an expression, before it reads the condition; the condition, the lone value
 * '=', keeps it hidden for every fixed value, set or not. Not a `regex` condition: n8n evaluates display conditions
 * when it resolves a node's parameters, executions included, and runs a regex under a 250 ms limit that a busy
 * machine can exceed, failing the run. Not `startsWith` either: n8n 1.78 calls it on an unset value and throws. The
 * text is true for every expression: what request/pastedTemplate.ts keeps as written and what it takes as computed.
 */
export const pastedTemplateNotices: INodeProperties[] = [
	['bodyText', TEMPLATE_FIELD.bodyText],
	['headerText', TEMPLATE_FIELD.headerText],
].map(([name, displayName]) => ({
	displayName: `${displayName} is in Expression mode. A template pasted here keeps its {{1}}, {{2}} … as written: n8n's Result line shows them as the numbers 1, 2 …, but the node checks every item against the text as you pasted it and shows each message in its output. A text mapped whole from a column, such as {{ $json.templateText }}, is taken as n8n computes it.`,
	name: `${name}PastedNotice`,
	type: 'notice',
	default: '',
	displayOptions: { show: { [`/template.${name}`]: ['='] } },
}));
