'use strict';
/**
 * The templates the sandbox knows, as a dashboard would show them: the examples' templates. A
 * message for one of them is checked against it the way the provider does (code 39, "message_value
 * is not same as the template", when the values do not fit), and shown rendered on the page. A
 * template code id it does not know is accepted unchecked.
 *
 * The template is read, checked and rendered by the node's own code, from the build (npm start and
 * the tests build first), so that the sandbox and the node cannot differ on what a template is.
 */
const path = require('node:path');

const TEMPLATES = {
	invoice_reminder: {
		bodyText: 'Hi {{1}}, invoice {{2}} for {{3}} is due. Reply to this message if you have already paid.',
		headerFormat: 'none',
		buttons: [],
	},
	payment_due_with_invoice: {
		bodyText: 'Hello {{1}}, your payment is due on {{2}}. The invoice is attached.',
		headerFormat: 'document',
		buttons: [
			{ kind: 'quickReply', label: 'I have paid' },
			{ kind: 'quickReply', label: 'Remind me later' },
		],
	},
	order_confirmed: {
		bodyText: 'Thank you {{1}}! Your order {{2}} is confirmed and on its way.',
		headerFormat: 'none',
		buttons: [
			{ kind: 'dynamicUrl', label: 'Track order' },
			{ kind: 'quickReply', label: 'Cancel order' },
		],
	},
};

let nodeCode;
/** The node's template parser, check and preview, from dist/. */
function templateCode() {
	if (!nodeCode) {
		const built = (file) => path.join(__dirname, '..', 'dist', 'nodes', 'TemplateMessage', 'request', file);
		try {
			nodeCode = { ...require(built('templateShape')), ...require(built('templateCheck')), ...require(built('preview')) };
		} catch (error) {
			throw new Error(`The sandbox checks templates with the node's built code: run npm run build first (${error.message})`);
		}
	}
	return nodeCode;
}

const requestOf = (template_code_id, payload) => ({ phone_number: '', message: { type: 'template', template: { template_code_id, payload } } });

/** Why a message does not fit a template (as the provider would say it), or undefined. */
function mismatch(template, template_code_id, payload) {
	const { parseTemplate, checkAgainstTemplate } = templateCode();
	try {
		checkAgainstTemplate(requestOf(template_code_id, Array.isArray(payload) ? payload : []), parseTemplate(template), 'json');
		return undefined;
	} catch (error) {
		// The node names its own field (Payload (JSON) → body: …); the provider names only the part.
		return String(error.message).replace(/^Payload \(JSON\) → /, '');
	}
}

/** Why a message does not fit its known template, or undefined (it fits, or the template is unknown). */
function templateMismatch(template_code_id, payload) {
	const template = TEMPLATES[template_code_id];
	return template && mismatch(template, template_code_id, payload);
}

/** The message as the recipient reads it, for a known template (what the node's output shows as `preview`). */
function renderMessage(template_code_id, payload) {
	const template = TEMPLATES[template_code_id];
	if (!template) return undefined;
	const { parseTemplate, renderPreview } = templateCode();
	return renderPreview(requestOf(template_code_id, payload), parseTemplate(template));
}

module.exports = { TEMPLATES, mismatch, templateMismatch, renderMessage };
