/**
 * What the API's rate limit cost a run, as its summary says it: the "too many requests" answers and the
 * time every sender was paused, each pause counted once however many senders waited through it. On a
 * simulated clock, so the figures are exact on any machine.
 */
import { runSummary } from '../../nodes/TemplateMessage/output/runSummary';
import { accepted, simulateRun, tooManyRequests } from '../helpers/simulatedRun';

const throttledIn200 = { status: 200, body: { success: false, errors: [{ message: 'Too many requests', code: 9 }] } };

describe('a throttled run counts what the limit cost it', () => {
	test('one 429 asking for 2 s, ten senders waiting through it: one answer, 2 s waited, every item sent once', async () => {
		const run = await simulateRun({ items: 30, maxPerSecond: 0, maxConcurrency: 10, script: ({ itemIndex, index }) => (index === 0 ? tooManyRequests({ 'Retry-After': '2' }) : accepted(itemIndex)) });
		expect(run.statuses.every((status) => status === 'sent')).toBe(true);
		expect(run.requests.filter((request) => request.answer === 200)).toHaveLength(30);
		expect(run.throttled).toEqual({ answers: 1, atWindowEdge: 0, atSharedWindowEdge: 0, waitedMs: 2000 });
	});

	test('pauses that overlap count once; code 9 in a 200 counts as a 429 does', async () => {
		// Requests 0 and 1 leave together (no pace) and are both throttled for 3 s, one by a 429 and one by a 200 with code 9.
		const run = await simulateRun({
			items: 4,
			maxPerSecond: 0,
			maxConcurrency: 2,
			script: ({ itemIndex, index }) => (index === 0 ? tooManyRequests({ 'Retry-After': '3' }) : index === 1 ? { ...throttledIn200, headers: { 'Retry-After': '3' } } : accepted(itemIndex)),
		});
		expect(run.statuses).toEqual(['sent', 'sent', 'sent', 'sent']);
		expect(run.throttled).toEqual({ answers: 2, atWindowEdge: 0, atSharedWindowEdge: 0, waitedMs: 3000 });
	});

	test('a run the limit never touched says nothing of it', async () => {
		const run = await simulateRun({ items: 5 });
		expect(run.throttled).toBeUndefined();
	});
});

describe('the run summary says it', () => {
	test('how long it waited, to two figures, and the answers', () => {
		expect(runSummary(['sent', 'sent'], { answers: 112, atWindowEdge: 0, atSharedWindowEdge: 0, waitedMs: 40_200 })).toBe(
			'Sent 2 of 2 item(s). Waited 40 s for the API\'s rate limit: 112 answers were "too many requests" (HTTP 429 or code 9).',
		);
		expect(runSummary(['sent'], { answers: 1, atWindowEdge: 0, atSharedWindowEdge: 0, waitedMs: 0 })).toBe('Sent 1 of 1 item(s). 1 answer was "too many requests" (HTTP 429 or code 9).');
	});

	test('429s from the pace\'s own timing at the window\'s edge are told apart: only their own request waited', () => {
		expect(runSummary(['sent'], { answers: 1, atWindowEdge: 1, atSharedWindowEdge: 0, waitedMs: 0 })).toBe(
			'Sent 1 of 1 item(s). 1 answer was "too many requests" (HTTP 429 or code 9), at the edge of the API\'s one-second window (only that request waited).',
		);
		expect(runSummary(['sent'], { answers: 3, atWindowEdge: 2, atSharedWindowEdge: 0, waitedMs: 1000 })).toBe(
			'Sent 1 of 1 item(s). Waited 1 s for the API\'s rate limit: 3 answers were "too many requests" (HTTP 429 or code 9), 2 of them at the edge of the API\'s one-second window (only that request waited).',
		);
	});

	test('those met while other senders used the account\'s window too (other queue-mode workers, another system) say so', () => {
		expect(runSummary(['sent', 'sent'], { answers: 2, atWindowEdge: 0, atSharedWindowEdge: 2, waitedMs: 0 })).toBe(
			'Sent 2 of 2 item(s). 2 answers were "too many requests" (HTTP 429 or code 9), all at the edge of the account\'s one-second window, with other senders using it too (only that request waited).',
		);
		expect(runSummary(['sent'], { answers: 4, atWindowEdge: 1, atSharedWindowEdge: 2, waitedMs: 1000 })).toBe(
			'Sent 1 of 1 item(s). Waited 1 s for the API\'s rate limit: 4 answers were "too many requests" (HTTP 429 or code 9), 1 of them at the edge of the API\'s one-second window; 2 of them at the edge of the account\'s one-second window, with other senders using it too (only that request waited).',
		);
	});
});

describe('a 429 carrying one of the provider\'s refusals is that refusal', () => {
	test.each([
		['45 (the token is invalid)', 45],
		['5 (the balance is too low)', 5],
	])('a 429 with code %s stops the run at once, as the same code in a 401 or a 200 does; it is not waited out', async (_name, code) => {
		const run = await simulateRun({ items: 50, maxPerSecond: 25, maxConcurrency: 5, script: () => ({ status: 429, headers: { 'Retry-After': '1' }, body: { errors: [{ message: 'refused', code }] } }) });
		// Was: every row waited out as throttled, 1,937 requests over 21.7 minutes.
		expect(run.stops).toEqual([expect.objectContaining({ scope: 'account', apiCode: code })]);
		expect(run.requests.length).toBeLessThanOrEqual(5);
		expect(run.throttled).toBeUndefined();
	});
});
