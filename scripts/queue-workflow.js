'use strict';
/**
 * The queue-mode demo and test workflow: a webhook (POST /webhook/queue-bulk with
 * {"rows":[{"phone":…,"name":…}, …]}) whose rows each become one template message, paced at
 * `rate` messages per second. Send Once (per recipient and template) makes "run it again" the way
 * to recover after a worker died mid-run.
 */
function bulkWorkflow(rate) {
	return {
		id: 'tmQueueBulk0001',
		name: 'Queue mode: rows from a webhook',
		nodes: [
			{ id: 'q1', name: 'Bulk webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: 'tm-queue-bulk', parameters: { httpMethod: 'POST', path: 'queue-bulk', options: {} } },
			{ id: 'q2', name: 'Rows', type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: [200, 0], parameters: { fieldToSplitOut: 'body.rows', options: {} } },
			{
				id: 'q3',
				name: 'Template Message',
				type: 'n8n-nodes-template-message.templateMessage',
				typeVersion: 1,
				position: [400, 0],
				parameters: {
					phoneNumber: '={{ $json.phone }}',
					templateCodeId: 'queue_test',
					bodyValues: { values: [{ text: '={{ $json.name }}' }] },
					sendOnce: 'recipientTemplate',
					options: { maxPerSecond: rate, maxConcurrency: 5 },
				},
				credentials: { templateMessageApi: { id: 'x', name: 'x' } },
			},
		],
		connections: {
			'Bulk webhook': { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
			Rows: { main: [[{ node: 'Template Message', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

module.exports = { bulkWorkflow };
