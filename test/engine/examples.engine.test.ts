import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { IDataObject } from 'n8n-workflow';

import { startApiServer } from '../helpers/apiServer';
import type { WorkflowJson } from '../helpers/engine';
import { CREDENTIAL_TYPE, NODE_TYPE, PACKAGE_ROOT, runWorkflow, SEND_NODE, TEST_TOKEN } from '../helpers/engine';

const examplesDir = path.join(PACKAGE_ROOT, 'examples');
const files = readdirSync(examplesDir).filter((file) => file.endsWith('.json'));

test('there are the three documented examples', () => {
	expect(files.sort()).toEqual(['manual-rows.json', 'schedule-sheet-rows.json', 'webhook-order-confirmation.json']);
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

			expect(workflow.nodes.find((node) => node.name === SEND_NODE)?.type).toBe(NODE_TYPE);
			expect(api.requests).toHaveLength(rows.length);
			expect(output.map((item) => [item.json.success, item.pairedItem])).toEqual(rows.map((_, item) => [true, { item }]));
			for (const request of api.requests) {
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

test('the spreadsheet example maps columns into header, body and buttons', async () => {
	const api = await startApiServer();
	try {
		const workflow = JSON.parse(readFileSync(path.join(examplesDir, 'schedule-sheet-rows.json'), 'utf8')) as WorkflowJson;
		await runWorkflow(workflow, { [CREDENTIAL_TYPE]: { baseUrl: api.baseUrl, token: TEST_TOKEN } });
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
