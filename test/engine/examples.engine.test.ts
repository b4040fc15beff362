import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { IDataObject, IExecuteFunctions, INodeType } from 'n8n-workflow';
import type { AddressInfo } from 'node:net';

import { startApiServer } from '../helpers/apiServer';
import { resetDeduplicationStore } from '../helpers/deduplicationStore';
import type { WorkflowJson } from '../helpers/engine';
import { CREDENTIAL_TYPE, NODE_TYPE, PACKAGE_ROOT, runWorkflow, SEND_NODE, TEST_TOKEN } from '../helpers/engine';

const { createSandbox } = require('../../sandbox/server') as {
	createSandbox: (options: { token: string; now?: () => number }) => { server: import('node:http').Server; stats: { lookups: number } };
};

const examplesDir = path.join(PACKAGE_ROOT, 'examples');
const files = readdirSync(examplesDir).filter((file) => file.endsWith('.json'));

// The webhook example sends once per order id, recorded in n8n's deduplication store.
beforeEach(resetDeduplicationStore);

test('there are the four documented examples', () => {
	expect(files.sort()).toEqual(['manual-rows.json', 'schedule-sheet-rows.json', 'send-wait-status.json', 'webhook-order-confirmation.json']);
});

describe.each(files)('example %s', (file) => {
	const workflow = JSON.parse(readFileSync(path.join(examplesDir, file), 'utf8')) as WorkflowJson & { name: string };

	test('runs as it stands: one accepted message per pinned row, bodies per spec', async () => {
		const api = await startApiServer();
		try {
			const result = await runWorkflow(workflow, { [CREDENTIAL_TYPE]: { baseUrl: api.baseUrl, token: TEST_TOKEN } });
			const source = Object.keys(workflow.pinData ?? {})[0];
			const rows = workflow.pinData![source];
			const output = result.output(SEND_NODE);
			// The sends (a Get Status after them asks with GETs).
			const sends = api.requests.filter((request) => request.method === 'POST');

			expect(workflow.nodes.find((node) => node.name === SEND_NODE)?.type).toBe(NODE_TYPE);
			expect(sends).toHaveLength(rows.length);
			expect(output.map((item) => [item.json.success, item.pairedItem])).toEqual(rows.map((_, item) => [true, { item }]));
			// The example gives its template's text: each item shows the message, every placeholder filled.
			for (const item of output) expect(item.json.preview).toMatch(/^[^{}]+$/);
			for (const request of sends) {
				const body = request.body as { phone_number: string; message: IDataObject & { template: { payload: IDataObject[] } } };
				expect(request.headers.authorization).toBe(TEST_TOKEN);
				expect(body.phone_number).toMatch(/^[1-9]\d{6,14}$/);
				expect(body.message.type).toBe('template');
				expect(body.message.template.payload.length).toBeGreaterThan(0);
			}
		} finally {
			await api.close();
		}
	});
});

// 0.1.0 had no Get Status: the status example has no form saved with it.
const sendOnlyFiles = files.filter((file) => !readFileSync(path.join(examplesDir, file), 'utf8').includes('"getStatus"'));

test.each(sendOnlyFiles)('%s as saved with 0.1.0 (no Template fields, button values under Buttons, no Send Once) sends the same bodies', async (file) => {
	const workflow = JSON.parse(readFileSync(path.join(examplesDir, file), 'utf8')) as WorkflowJson;
	// 0.1.0 had node version 1 and no Template fields: button values went under the node's Buttons, by index.
	const asSaved = structuredClone(workflow);
	for (const node of asSaved.nodes) {
		if (node.type !== NODE_TYPE) continue;
		node.typeVersion = 1;
		const parameters = node.parameters as IDataObject;
		const templateButtons = ((parameters.template as IDataObject | undefined)?.buttons as { button?: IDataObject[] } | undefined)?.button ?? [];
		const valued = templateButtons
			.map(({ kind, payload, urlSuffix }, index) => ({ kind, index, payload, urlSuffix }))
			.filter((button) => button.payload !== undefined || button.urlSuffix !== undefined);
		if (valued.length > 0) parameters.buttons = { button: valued.map((button) => JSON.parse(JSON.stringify(button)) as IDataObject) };
		for (const added of ['template', 'sendOnce', 'messageKey']) delete parameters[added];
	}
	const bodies = async (json: WorkflowJson) => {
		resetDeduplicationStore();
		const api = await startApiServer();
		try {
			const result = await runWorkflow(json, { [CREDENTIAL_TYPE]: { baseUrl: api.baseUrl, token: TEST_TOKEN } });
			return { sent: api.requests.filter((request) => request.method === 'POST').map((request) => request.body), previews: result.output(SEND_NODE).map((item) => item.json.preview) };
		} finally {
			await api.close();
		}
	};
	const withTemplate = await bodies(workflow);
	const without = await bodies(asSaved);
	expect(without.sent).toEqual(withTemplate.sent);
	expect(without.previews.every((preview) => preview === undefined)).toBe(true);
});

test('the spreadsheet example maps columns into header, body and buttons', async () => {
	const api = await startApiServer();
	try {
		const workflow = JSON.parse(readFileSync(path.join(examplesDir, 'schedule-sheet-rows.json'), 'utf8')) as WorkflowJson;
		const result = await runWorkflow(workflow, { [CREDENTIAL_TYPE]: { baseUrl: api.baseUrl, token: TEST_TOKEN } });
		// The preview the README shows.
		expect(result.output(SEND_NODE)[0].json.preview).toBe(
			'[document: https://files.example.com/invoices/INV-1001.pdf]\nHello Budi, your payment is due on 25 Nov. The invoice is attached.\n[I have paid] [Remind me later]',
		);
		expect(api.requests[0].body).toEqual({
			phone_number: '6281234567890',
			message: {
				type: 'template',
				template: {
					template_code_id: 'payment_due_with_invoice',
					payload: [
						{ position: 'header', parameters: [{ type: 'document', document: { url: 'https://files.example.com/invoices/INV-1001.pdf' } }] },
						{ position: 'body', parameters: [{ type: 'text', text: 'Budi' }, { type: 'text', text: '25 Nov' }] },
						{
							position: 'button',
							parameters: [
								{ sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'paid' }] },
								{ sub_type: 'quick_reply', index: '1', parameters: [{ type: 'payload', payload: 'remind-later' }] },
							],
						},
					],
				},
			},
		});
	} finally {
		await api.close();
	}
});

/** A Wait that lets its time pass on the sandbox's clock, at once. */
function clockWait(advance: (ms: number) => void): INodeType {
	return {
		description: {
			displayName: 'Wait',
			name: 'n8n-nodes-base.wait',
			group: ['organization'],
			version: [1, 1.1],
			description: 'Wait (test engine)',
			defaults: {},
			inputs: ['main'],
			outputs: ['main'],
			properties: [
				{ displayName: 'Amount', name: 'amount', type: 'number', default: 1 },
				{ displayName: 'Unit', name: 'unit', type: 'string', default: 'hours' },
			],
		},
		async execute(this: IExecuteFunctions) {
			const amount = this.getNodeParameter('amount', 0) as number;
			const unit = this.getNodeParameter('unit', 0) as 'seconds' | 'minutes';
			advance(amount * { seconds: 1000, minutes: 60_000 }[unit]);
			return [this.getInputData()];
		},
	} as unknown as INodeType;
}

test('the status example writes each row its status after its Wait: read, rejected (1340) with the reason, and one still submitted', async () => {
	let time = Date.UTC(2026, 0, 5, 9, 0, 0);
	const sandbox = createSandbox({ token: TEST_TOKEN, now: () => time });
	await new Promise<void>((resolve) => sandbox.server.listen(0, '127.0.0.1', resolve));
	try {
		const workflow = JSON.parse(readFileSync(path.join(examplesDir, 'send-wait-status.json'), 'utf8')) as WorkflowJson;
		const baseUrl = `http://127.0.0.1:${(sandbox.server.address() as AddressInfo).port}`;
		const result = await runWorkflow(workflow, { [CREDENTIAL_TYPE]: { baseUrl, token: TEST_TOKEN } }, { 'n8n-nodes-base.wait': clockWait((ms) => (time += ms)) });
		const rows = result.output('Write the status back').map((item) => item.json);
		// Each row as the sheet had it, its msgid, and the status its message reached.
		expect(rows.map(({ name, success, deliveryStatus, final, failureCode, failureReason }) => ({ name, success, deliveryStatus, final, failureCode, failureReason }))).toEqual([
			{ name: 'Budi', success: true, deliveryStatus: 'read', final: true, failureCode: null, failureReason: null },
			{ name: 'Sari', success: true, deliveryStatus: 'read', final: true, failureCode: null, failureReason: null },
			{ name: 'Andi', success: true, deliveryStatus: 'read', final: true, failureCode: null, failureReason: null },
			{ name: 'Dewi', success: true, deliveryStatus: 'rejected', final: true, failureCode: 1340, failureReason: 'Send Outside Allowed Window' },
			{ name: 'Rina', success: true, deliveryStatus: 'submitted', final: false, failureCode: null, failureReason: null },
		]);
		expect(rows.every((row) => typeof row.msgid === 'string' && row.msgid === result.output(SEND_NODE)[rows.indexOf(row)].json.msgid)).toBe(true);
	} finally {
		await new Promise((resolve) => sandbox.server.close(resolve));
	}
});

test('the status example with rows the Send did not take (On Error: Continue): each keeps its own row, none is joined to another by an empty msgid', async () => {
	const sandbox = createSandbox({ token: TEST_TOKEN });
	await new Promise<void>((resolve) => sandbox.server.listen(0, '127.0.0.1', resolve));
	try {
		const workflow = JSON.parse(readFileSync(path.join(examplesDir, 'send-wait-status.json'), 'utf8')) as WorkflowJson;
		const send = workflow.nodes.find((node) => node.name === SEND_NODE)!;
		send.onError = 'continueRegularOutput';
		const rows = Object.values(workflow.pinData ?? {})[0] as Array<{ json: Record<string, unknown> }>;
		rows.push({ json: { ...rows[0].json, phone: 'not a phone', name: 'Bad' } }, { json: { ...rows[0].json, phone: 'also bad', name: 'Bad too' } });
		const baseUrl = `http://127.0.0.1:${(sandbox.server.address() as AddressInfo).port}`;
		const result = await runWorkflow(workflow, { [CREDENTIAL_TYPE]: { baseUrl, token: TEST_TOKEN } }, { 'n8n-nodes-base.wait': clockWait(() => undefined) });
		const sent = result.output(SEND_NODE).map((item) => item.json);
		const merged = result.output('Write the status back').map((item) => item.json);
		expect(merged.map((row) => [row.name, row.status, row.error ?? null])).toEqual(sent.map((row) => [row.name, row.status, row.error ?? null]));
		expect(merged.slice(-2).map((row) => [row.phone, row.deliveryStatus])).toEqual([
			['not a phone', undefined],
			['also bad', undefined],
		]);
		expect(sandbox.stats.lookups).toBe(5);
	} finally {
		await new Promise((resolve) => sandbox.server.close(resolve));
	}
});
