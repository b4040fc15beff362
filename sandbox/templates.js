'use strict';
/**
 * The templates the sandbox knows, as a dashboard would show them: the examples' templates. A
 * message for one of them is checked against it the way the provider does (code 39, "message_value
 * is not same as the template", when the values do not fit), and shown rendered on the page. A
 * template code id it does not know is accepted unchecked, as before.
 */
const TEMPLATES = {
	invoice_reminder: {
		body: 'Hi {{1}}, invoice {{2}} for {{3}} is due. Reply to this message if you have already paid.',
		header: 'none',
		buttons: [],
	},
	payment_due_with_invoice: {
		body: 'Hello {{1}}, your payment is due on {{2}}. The invoice is attached.',
		header: 'document',
		buttons: [
			{ kind: 'quickReply', label: 'I have paid' },
			{ kind: 'quickReply', label: 'Remind me later' },
		],
	},
	order_confirmed: {
		body: 'Thank you {{1}}! Your order {{2}} is confirmed and on its way.',
		header: 'none',
		buttons: [
			{ kind: 'dynamicUrl', label: 'Track order' },
			{ kind: 'quickReply', label: 'Cancel order' },
		],
	},
};

const placeholders = (text) => new Set([...text.matchAll(/\{\{\s*(\d+)\s*\}\}/g)].map((match) => match[1])).size;
const params = (payload, position) => payload.find((component) => component.position === position)?.parameters ?? [];
const buttonKind = (button) => ((button.sub_type ?? button.sub_types) === 'quick_reply' ? 'quickReply' : 'dynamicUrl');

/** Why a message does not fit its known template, or undefined (it fits, or the template is unknown). */
function templateMismatch(template_code_id, payload) {
	const template = TEMPLATES[template_code_id];
	if (!template) return undefined;
	const body = params(payload, 'body').length;
	if (body !== placeholders(template.body)) return `body has ${body} parameter(s), the template ${placeholders(template.body)}`;
	const header = params(payload, 'header')[0]?.type ?? 'none';
	if (header !== template.header) return `header is ${header}, the template's is ${template.header}`;
	const buttons = params(payload, 'button');
	for (const button of buttons) {
		const expected = template.buttons[Number(button.index)];
		if (!expected || expected.kind !== buttonKind(button)) return `button ${button.index} does not match the template's buttons`;
	}
	const given = buttons.length;
	const needed = template.buttons.filter((button) => button.kind === 'quickReply' || button.kind === 'dynamicUrl').length;
	if (given !== needed) return `${given} button parameter(s), the template needs ${needed}`;
	return undefined;
}

/** The message as the recipient reads it, for a known template. */
function renderMessage(template_code_id, payload) {
	const template = TEMPLATES[template_code_id];
	if (!template) return undefined;
	const values = params(payload, 'body');
	const header = params(payload, 'header')[0];
	const lines = [];
	if (header && header.type !== 'text') lines.push(`[${header.type}: ${header[header.type]?.url ?? ''}]`);
	lines.push(template.body.replace(/\{\{\s*(\d+)\s*\}\}/g, (_, n) => values[Number(n) - 1]?.text ?? `{{${n}}}`));
	if (template.buttons.length > 0) lines.push(template.buttons.map((button) => `[${button.label}]`).join(' '));
	return lines.join('\n');
}

module.exports = { TEMPLATES, templateMismatch, renderMessage };
