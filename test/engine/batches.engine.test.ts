/**
 * The node inside a loop that runs it once per batch in one execution (Loop Over Items): what a
 * stop at a bad row in a later batch says about what was sent and which row it was.
 */
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeType } from 'n8n-workflow';

import type { ApiServer } from '../helpers/apiServer';
import { acceptAll, startApiServer } from '../helpers/apiServer';
import { CREDENTIAL_TYPE, NODE_TYPE, runWorkflow, SEND_NODE, SOURCE_NODE, TEST_TOKEN } from '../helpers/engine';

let api: ApiServer;
beforeEach(async () => {
	api = await startApiServer();
});
afterEach(async () => {
	await api.close();
});

const LOOP_NODE = 'Loop Over Items';
const BATCH_SIZE = 2;

/** What n8n's Loop Over Items does for these tests: its batches on output 2 ("loop"), then everything on output 1 ("done"). */
const loopType: INodeType = {
	description: {
		displayName: 'Loop (test stand-in)',
		name: 'loop',
		group: ['organization'],
		version: 1,
		description: 'Batches of its input, one per run',
		defaults: { name: LOOP_NODE },
		inputs: ['main'],
		outputs: ['main', 'main'],
		properties: [],
	},
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const context = this.getContext('node') as { left?: INodeExecutionData[] };
		context.left ??= this.getInputData().map((item) => ({ json: item.json }));
		const batch = context.left.splice(0, BATCH_SIZE);
		return batch.length === 0 ? [[{ json: { done: true } }], []] : [[], batch];
	},
} as INodeType;

async function runInLoop(rows: IDataObject[], send: Partial<INode> = {}) {
	return await runWorkflow(
		{
			nodes: [
				{ id: 'rows', name: SOURCE_NODE, type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{ id: 'loop', name: LOOP_NODE, type: 'test.loop', typeVersion: 1, position: [200, 0], parameters: {} },
				{
					id: 'send',
					name: SEND_NODE,
					type: NODE_TYPE,
					typeVersion: 2,
					position: [400, 0],
					parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl-loop' },
					credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Template Message account' } },
					...send,
				},
			],
			connections: {
				[SOURCE_NODE]: { main: [[{ node: LOOP_NODE, type: 'main', index: 0 }]] },
				[LOOP_NODE]: { main: [[], [{ node: SEND_NODE, type: 'main', index: 0 }]] },
				[SEND_NODE]: { main: [[{ node: LOOP_NODE, type: 'main', index: 0 }]] },
			},
			pinData: { [SOURCE_NODE]: rows.map((json) => ({ json })) },
		},
		{ [CREDENTIAL_TYPE]: { baseUrl: api.baseUrl, token: TEST_TOKEN } },
		{ 'test.loop': loopType },
	);
}

const rows = (count: number) => Array.from({ length: count }, (_, i) => ({ phone: `+62 812 3456 ${String(7000 + i)}` }));

test('a bad row in the third batch: nothing of that batch sent, what the earlier batches sent said, the row found by its batch and phone number', async () => {
	const input = rows(6);
	input[5] = { phone: '+62 812 CALL ME' };
	const result = await runInLoop(input);

	expect(api.requests).toHaveLength(4);
	const runs = result.run.data.resultData.runData[SEND_NODE];
	expect(runs).toHaveLength(3);
	const error = runs[2].error as IDataObject | undefined;
	expect(error?.message).toMatch(/^Phone Number: .* \[item 1\]$/);
	expect(error?.description).toContain('Item 1 is row 2 of this batch (run 3 of this node in this execution, Phone Number "+62 812 CALL ME"; n8n counts items from 0).');
	expect(error?.description).toContain('Nothing of this batch was sent. Its 2 earlier runs in this execution (the earlier batches) sent 4 messages, which went out.');
	expect(error?.description).not.toContain('Nothing was sent.');
});

test('a bad row in the first batch: nothing was sent, and the item is the input row', async () => {
	const input = rows(6);
	input[1] = { phone: '+62 812 CALL ME' };
	const result = await runInLoop(input);

	expect(api.requests).toHaveLength(0);
	const runs = result.run.data.resultData.runData[SEND_NODE];
	expect(runs).toHaveLength(1);
	expect(runs[0].error?.description).toContain('Item 1 is input row 2 (n8n counts items from 0).');
	expect(runs[0].error?.description).toContain('Nothing was sent.');
});

test('30 batches, each with a row the API refuses (On Error: Continue): what the node keeps in the saved execution does not grow with the batches', async () => {
	api.respondWith((request, index) => (/[13579]$/.test(String((request.body as IDataObject).phone_number)) ? { status: 404, body: { errors: [{ message: 'Data does not exist', code: 33 }] } } : acceptAll(request, index)));
	const result = await runInLoop(rows(60), { onError: 'continueRegularOutput', parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl-loop', options: { maxPerSecond: 0 } } });
	expect(result.run.data.resultData.runData[SEND_NODE]).toHaveLength(30);
	const kept = (result.run.data.executionData?.contextData ?? {})[`node:${SEND_NODE}`] as IDataObject;
	// Retry On Fail runs a batch again at its own index, never an earlier one: only the last batch's memory is kept.
	expect(Object.keys(kept).filter((key) => key.startsWith('sent-run-'))).toEqual(['sent-run-29']);
	expect(kept['sent-by-run']).toEqual({ before: 29, run: 29, sent: 1 });
});
