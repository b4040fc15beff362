import type { INodeExecutionData } from 'n8n-workflow';

import { runSummary, statusOf } from '../../nodes/TemplateMessage/output/runSummary';

const row = (json: INodeExecutionData['json']): INodeExecutionData => ({ json });

describe('status and the run summary', () => {
	const rows = [
		row({ success: true, msgid: 'm-1' }),
		row({ success: true, msgid: 'm-2' }),
		row({ error: 'refused', details: { delivery: 'failed' } }),
		row({ success: false, delivery: 'unknown', error: 'timeout', details: { delivery: 'unknown' } }),
		row({ error: 'not sent', details: { delivery: 'notSent' } }),
		row({ error: 'bad phone', details: { delivery: 'invalid' } }),
		row({ skipped: true, sentBefore: true }),
	];

	test('each row says what became of its item', () => {
		expect(rows.map((item) => statusOf(item.json))).toEqual(['sent', 'sent', 'failed', 'unknown', 'notSent', 'invalid', 'skipped']);
		expect(statusOf({ dryRun: true, request: {} })).toBe('dryRun');
	});

	test('one sentence counts them, leaving out what did not happen', () => {
		expect(runSummary(rows)).toBe('Sent 2 of 7 item(s): 1 refused, 1 delivery unknown, 1 not sent (held back or throttled), 1 invalid, 1 skipped.');
		expect(runSummary(rows.slice(0, 2))).toBe('Sent 2 of 2 item(s).');
	});

	test('an item a stopped run never reached counts as not sent', () => {
		expect(runSummary([rows[0], rows[2], undefined, undefined])).toBe('Sent 1 of 4 item(s): 1 refused, 2 not sent (held back or throttled).');
	});
});
