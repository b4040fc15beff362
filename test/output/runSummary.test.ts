import { runSummary } from '../../nodes/TemplateMessage/output/runSummary';
import type { ItemStatus } from '../../nodes/TemplateMessage/shared/contracts';

describe('the run summary', () => {
	const statuses: ItemStatus[] = ['sent', 'sent', 'failed', 'unknown', 'notSent', 'invalid', 'skipped'];

	test('one sentence counts the results, leaving out what did not happen', () => {
		expect(runSummary(statuses)).toBe('Sent 2 of 7 item(s): 1 refused, 1 delivery unknown, 1 not sent, 1 invalid, 1 skipped.');
		expect(runSummary(statuses.slice(0, 2))).toBe('Sent 2 of 2 item(s).');
		expect(runSummary(['inDoubt', 'sent'])).toBe('Sent 1 of 2 item(s): 1 in doubt (not sent: see the rows).');
	});

	test('an item a stopped run never reached counts as not sent', () => {
		expect(runSummary(['sent', 'failed', undefined, undefined])).toBe('Sent 1 of 4 item(s): 1 refused, 2 not sent.');
	});
});
