/**
 * A long run says where it is: at most one line every 10 s, with counts only. On a simulated clock,
 * so the lines and their moments are exact on any machine.
 */
import { progressLine } from '../../nodes/TemplateMessage/send/progress';
import { accepted, simulateRun } from '../helpers/simulatedRun';

const TOKEN = 'token';

describe('a long run reports its progress', () => {
	test('120 messages at 4 a second (30 s): a line at 10 s and at 20 s, none at the end, each with counts, pace and time left', async () => {
		const run = await simulateRun({ items: 120, maxPerSecond: 4, reportProgress: true, script: ({ itemIndex }) => (itemIndex % 10 === 9 ? { status: 406, body: { errors: [{ message: 'Wrong parameters', code: 39 }] } } : accepted(itemIndex)) });
		expect(run.statuses.filter((status) => status === 'sent')).toHaveLength(108);
		// The pacer spaces 4 a second 251 ms apart (its 4 ms room); each answer takes 20 ms.
		expect(run.progress.map(({ at, line }) => [run.since(at), line])).toEqual([
			[10_060, 'Template Message: 41 of 120 handled, 37 sent, 4.1 a second, about 19 s left'],
			[20_100, 'Template Message: 81 of 120 handled, 73 sent, 4.0 a second, about 9.7 s left'],
		]);
		expect(run.progress.some(({ line }) => line.includes(TOKEN))).toBe(false);
	});

	test('a run shorter than 10 s says nothing', async () => {
		const run = await simulateRun({ items: 20, maxPerSecond: 4, reportProgress: true });
		expect(run.statuses.every((status) => status === 'sent')).toBe(true);
		expect(run.progress).toEqual([]);
	});
});

test('the line reads as a person would say it', () => {
	expect(progressLine(1200, 50_000, 1180, 48_193)).toBe('Template Message: 1,200 of 50,000 handled, 1,180 sent, 24.9 a second, about 33 min left');
	expect(progressLine(10, 100_000, 10, 10_000)).toBe('Template Message: 10 of 100,000 handled, 10 sent, 1.0 a second, about 27 h 47 min left');
});
