/**
 * The workflows the browser suite opens, imported beside the examples: rows pinned on a manual
 * trigger, sent with the sandbox's invoice_reminder template (sandbox/templates.js).
 */
export const FIELDS = 'tmBrowserFields1';
export const GOOD_AND_BAD_ROWS = 'tmBrowserRows001';
export const STOPS_AT_BAD_ROW = 'tmBrowserStop001';
export const PASTED_TEMPLATE = 'tmBrowserPaste01';
export const RESULTS_TABLE = 'tmBrowserTable01';
export const INVOICE_BODY = 'Hi {{1}}, invoice {{2}} for {{3}} is due. Reply to this message if you have already paid.';

const rows = [
	{ phone: '+62 812 3456 7890', name: 'Budi', invoice: 'INV-7', amount: 'Rp 150.000' },
	{ phone: 'not a phone', name: 'Sari', invoice: 'INV-8', amount: 'Rp 90.000' },
];

const templateMessage = (onError?: string, bodyText = INVOICE_BODY, options?: object) => ({
	id: 'browser-send',
	name: 'Template Message',
	type: 'n8n-nodes-template-message.templateMessage',
	typeVersion: 1,
	position: [260, 0],
	parameters: {
		phoneNumber: '={{ $json.phone }}',
		templateCodeId: 'invoice_reminder',
		bodyValues: { values: [{ text: '={{ $json.name }}' }, { text: '={{ $json.invoice }}' }, { text: '={{ $json.amount }}' }] },
		template: { bodyText },
		...(options ? { options } : {}),
	},
	credentials: { templateMessageApi: { id: 'x', name: 'x' } },
	...(onError ? { onError } : {}),
});

const workflow = (id: string, name: string, onError?: string, bodyText?: string, pinned = rows, options?: object) => ({
	id,
	name,
	nodes: [{ id: 'browser-rows', name: 'Rows', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} }, templateMessage(onError, bodyText, options)],
	connections: { Rows: { main: [[{ node: 'Template Message', type: 'main', index: 0 }]] } },
	pinData: { Rows: pinned.map((json) => ({ json })) },
	settings: { executionOrder: 'v1' },
});

export const editorWorkflows = [
	workflow(FIELDS, 'Browser: the node panel'),
	workflow(GOOD_AND_BAD_ROWS, 'Browser: a good and a bad row, continue on error', 'continueRegularOutput'),
	workflow(STOPS_AT_BAD_ROW, 'Browser: a good and a bad row, stop on error'),
	// Empty, as a new node's Body Text is: n8n switches an empty field to Expression mode on a paste with {{ }}.
	workflow(PASTED_TEMPLATE, 'Browser: the template body pasted in', undefined, '', rows.slice(0, 1)),
	workflow(RESULTS_TABLE, 'Browser: results with the input fields, for writing back', 'continueRegularOutput', undefined, rows, { includeInputFields: true }),
];
