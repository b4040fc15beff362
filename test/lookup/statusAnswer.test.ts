/**
 * Reading a status answer, without a server: timestamps in every accepted form (and the same result
 * whatever this machine's time zone), the order of the history, what is final, and the bounds.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

import { isFinalStatus, MAX_HISTORY, readStatusAnswer, timeOf } from '../../nodes/TemplateMessage/lookup/statusAnswer';

const PACKAGE_ROOT = path.join(__dirname, '..', '..');
const same = (text: string) => text;
const EXAMPLE_MS = Date.UTC(2024, 2, 1, 3, 22, 58, 73);

const TIME_CASES: Array<[string, unknown, number | null]> = [
	['ISO with Z', '2024-03-01T03:22:58.073Z', EXAMPLE_MS],
	['ISO with an offset', '2024-03-01T10:22:58.073+07:00', EXAMPLE_MS],
	['ISO with microseconds', '2024-03-01T03:22:58.073456Z', EXAMPLE_MS],
	['a date and time without a zone: UTC', '2024-03-01 03:22:58.073', EXAMPLE_MS],
	['epoch seconds', 1709263378.073, EXAMPLE_MS],
	['epoch seconds as digits', '1709263378', EXAMPLE_MS - 73],
	['epoch milliseconds', EXAMPLE_MS, EXAMPLE_MS],
	['epoch milliseconds as digits', String(EXAMPLE_MS), EXAMPLE_MS],
	['a word', 'yesterday', null],
	['a date in words', 'Fri, 01 Mar 2024 03:22:58 GMT', null],
	['zero', 0, null],
	['a negative number', -1709263378, null],
	['before 2001', 946684800, null],
	['an object', { seconds: 1709263378 }, null],
	['an impossible date', '2024-13-45T99:99:99Z', null],
	['a huge text', `2024-03-01T03:22:58Z${' '.repeat(100_000)}x`, null],
];

describe('timeOf', () => {
	test.each([...TIME_CASES, ['NaN', Number.NaN, null] as [string, unknown, null]])('%s', (_name, value, expected) => {
		expect(timeOf(value)).toBe(expected);
	});

	// jest gives each test file its own copy of process.env, so the zone is set on a process of its own (the build's code).
	test.each(['UTC', 'Asia/Jakarta', 'America/Los_Angeles'])('the same in time zone %s', (zone) => {
		const module = path.join(PACKAGE_ROOT, 'dist', 'nodes', 'TemplateMessage', 'lookup', 'statusAnswer.js');
		const script = `const { timeOf } = require(${JSON.stringify(module)}); process.stdout.write(JSON.stringify(JSON.parse(process.argv[1]).map(timeOf)));`;
		const output = execFileSync(process.execPath, ['-e', script, JSON.stringify(TIME_CASES.map(([, value]) => value))], { env: { ...process.env, TZ: zone }, encoding: 'utf8' });
		expect(JSON.parse(output)).toEqual(TIME_CASES.map(([, , expected]) => expected));
	});
});

describe('readStatusAnswer', () => {
	test('the latest status is the newest entry by time, whatever the order; equal times keep the API order', () => {
		const reading = readStatusAnswer(
			{
				history_status: [
					{ timestamp: 1709263400, status: 'read' },
					{ timestamp: 1709263378, status: 'submitted' },
					{ timestamp: 1709263381, status: 'Delivered' },
					{ timestamp: 1709263400, status: 'read' },
				],
			},
			same,
		);
		expect(reading.history.map((entry) => entry.status)).toEqual(['submitted', 'delivered', 'read', 'read']);
		expect([reading.deliveryStatus, reading.final, reading.readAt]).toEqual(['read', true, new Date(1709263400_000).toISOString()]);
		expect(reading.problems).toEqual([]);
	});

	test('at equal times by how far the message got, whatever the API order (newest first, seconds only): never a rejected message read as submitted', () => {
		const at = '2024-03-01T03:22:58Z';
		const rejected = readStatusAnswer({ history_status: [{ timestamp: at, status: 'rejected' }, { timestamp: at, status: 'submitted' }] }, same);
		expect([rejected.deliveryStatus, rejected.final]).toEqual(['rejected', true]);
		const read = readStatusAnswer({ history_status: [{ timestamp: at, status: 'read' }, { timestamp: at, status: 'delivered' }, { timestamp: '2024-03-01T03:22:50Z', status: 'submitted' }] }, same);
		expect(read.history.map((entry) => entry.status)).toEqual(['submitted', 'delivered', 'read']);
		expect([read.deliveryStatus, read.final]).toEqual(['read', true]);
		const delivered = readStatusAnswer({ history_status: [{ timestamp: at, status: 'delivered' }, { timestamp: at, status: 'submitted' }] }, same);
		expect([delivered.deliveryStatus, delivered.final]).toEqual(['delivered', false]);
		// Two final statuses keep the API's order.
		const both = readStatusAnswer({ history_status: [{ timestamp: at, status: 'failed' }, { timestamp: at, status: 'read' }] }, same);
		expect(both.deliveryStatus).toBe('read');
	});

	test('with any unreadable time the API order is kept, and said; a documented status does not go back in it', () => {
		const reading = readStatusAnswer({ history_status: [{ timestamp: 1709263400, status: 'delivered' }, { timestamp: 'later', status: 'submitted' }, { timestamp: 'later', status: 'blocked' }] }, same);
		expect(reading.history.map(({ status }) => status)).toEqual(['delivered', 'submitted', 'blocked']);
		// A word the provider does not document follows delivered; submitted does not.
		expect([reading.deliveryStatus, reading.statusAt, reading.final]).toEqual(['blocked', null, false]);
		expect(reading.problems).toEqual([expect.stringMatching(/^2 timestamps could not be read .*kept in the API's order$/), 'the history goes back (submitted after delivered): the status is the furthest it got']);
	});

	test('final: read, failed and rejected; not submitted, delivered or a word the provider does not document', () => {
		expect(['read', 'failed', 'rejected', 'submitted', 'delivered', 'queued', 'deleted'].map((status) => [status, isFinalStatus(status)])).toEqual([
			['read', true],
			['failed', true],
			['rejected', true],
			['submitted', false],
			['delivered', false],
			['queued', false],
			['deleted', false],
		]);
	});

	test(`keeps the newest ${MAX_HISTORY} entries and counts the rest; cuts every text; cleans every text kept`, () => {
		const entries = Array.from({ length: 120 }, (_, index) => ({ timestamp: 1709263378 + index, status: index === 119 ? `SECRET-${'r'.repeat(100)}` : 'delivered' }));
		const reading = readStatusAnswer({ msgid: 'SECRET-id', phone_number: 'SECRET', history_status: entries, additional_info: { code: 'SECRET', reason: 'SECRET' } }, (text) => text.replace(/SECRET/g, '[redacted]'));
		expect(reading.history).toHaveLength(MAX_HISTORY);
		expect(reading.historyDropped).toBe(70);
		expect(reading.deliveryStatus).toBe(`[redacted]-${'r'.repeat(29)}…`);
		expect(JSON.stringify(reading)).not.toContain('SECRET');
	});

	test.each([
		['+6281234567890', '6281234567890'],
		['6281234567890', '6281234567890'],
		[6281234567890, '6281234567890'],
		['+62 812-3456-7890', '+62 812-3456-7890'],
		['unknown', 'unknown'],
	])('the recipient %j comes out as a Send writes it, %j, when it is a plain number', (given, expected) => {
		expect(readStatusAnswer({ phone_number: given, history_status: [] }, same).phoneNumber).toBe(expected);
	});

	test('odd shapes are said, never thrown', () => {
		for (const body of [null, 7, 'text', [], { history_status: 7 }, { history_status: [null, [], 'x'] }, { history_status: [{ status: 42 }] }, { additional_info: 'x' }]) {
			const reading = readStatusAnswer(body, same);
			expect(reading.deliveryStatus).toBeNull();
			expect(reading.final).toBeNull();
			expect(reading.problems.length).toBeGreaterThan(0);
		}
	});

	test('additional_info is a failure beside submitted or failed; beside delivered or read, or as code 0 or "Success", it is none', () => {
		const info = { code: 1340, reason: 'Send Outside Allowed Window' };
		const at = (status: string, additional_info: object) => readStatusAnswer({ history_status: [{ timestamp: '2024-03-01T03:22:58Z', status }], additional_info }, same);
		expect(at('submitted', info)).toMatchObject({ failureCode: 1340, failureReason: 'Send Outside Allowed Window' });
		expect(at('rejected', info)).toMatchObject({ failureCode: 1340 });
		for (const status of ['delivered', 'read']) expect(at(status, info)).toMatchObject({ failureCode: null, failureReason: null });
		expect(at('submitted', { code: 0, reason: 'Success' })).toMatchObject({ failureCode: null, failureReason: null });
		expect(at('submitted', { code: '200', reason: ' ok ' })).toMatchObject({ failureCode: null, failureReason: null });
	});

	test('a failure code given as digits is a number; other codes stay text', () => {
		expect(readStatusAnswer({ history_status: [], additional_info: { code: '1340', reason: ' Send Outside Allowed Window ' } }, same)).toMatchObject({ failureCode: 1340, failureReason: 'Send Outside Allowed Window' });
		expect(readStatusAnswer({ history_status: [], additional_info: { code: 'E_WINDOW' } }, same)).toMatchObject({ failureCode: 'E_WINDOW', failureReason: null });
	});
});

describe('the status a history says, whatever order its receipts came in', () => {
	const answer = (history: Array<[unknown, string]>, extra: Record<string, unknown> = {}) =>
		readStatusAnswer({ msgid: 'm-1', phone_number: '+6281234567890', history_status: history.map(([timestamp, status]) => ({ timestamp, status })), ...extra }, same);

	test('read, then a delivered receipt stamped after it: read, final (receipts come out of order)', () => {
		const reading = answer([
			['2024-03-01T03:22:58Z', 'submitted'],
			['2024-03-01T03:30:00Z', 'read'],
			['2024-03-01T03:30:01Z', 'delivered'],
		]);
		expect([reading.deliveryStatus, reading.final, reading.statusAt, reading.readAt, reading.deliveredAt]).toEqual(['read', true, '2024-03-01T03:30:00.000Z', '2024-03-01T03:30:00.000Z', '2024-03-01T03:30:01.000Z']);
	});

	test.each<[string, Array<[unknown, string]>, string]>([
		['rejected, newest first, times the node cannot read (RFC 1123)', [['Fri, 01 Mar 2024 03:22:59 GMT', 'rejected'], ['Fri, 01 Mar 2024 03:22:58 GMT', 'submitted']], 'rejected'],
		['read, newest first, one time empty', [['2024-03-01T03:30:00Z', 'read'], ['2024-03-01T03:23:01Z', 'delivered'], ['', 'submitted']], 'read'],
		['delivered then submitted, times unreadable', [['x', 'delivered'], ['y', 'submitted']], 'delivered'],
	])('%s: %s', (_what, history, status) => {
		expect(answer(history).deliveryStatus).toBe(status);
	});

	test('a final status followed by another final one: the later', () => {
		expect(answer([['2024-03-01T03:22:58Z', 'read'], ['2024-03-01T03:22:59Z', 'failed']]).deliveryStatus).toBe('failed');
	});
});

describe('why a message failed reaches the row, however additional_info is written', () => {
	const rejected = (info: unknown, status = 'rejected') =>
		readStatusAnswer({ history_status: [{ timestamp: '2024-03-01T03:22:58Z', status: 'submitted' }, { timestamp: '2024-03-01T03:22:59Z', status }], additional_info: info }, same);

	test.each([
		['rejected', { code: 0, reason: 'Recipient is not a valid WhatsApp user' }, 0, 'Recipient is not a valid WhatsApp user'],
		['failed', { code: '0', reason: 'Message expired' }, 0, 'Message expired'],
	])('%s with code 0: its reason kept (a 0 beside a failure is no success)', (status, info, code, reason) => {
		expect(rejected(info, status)).toMatchObject({ failureCode: code, failureReason: reason });
	});

	test('code 0 "Success" beside delivered or submitted is still no failure', () => {
		expect(rejected({ code: 0, reason: 'Success' }, 'delivered')).toMatchObject({ failureCode: null, failureReason: null });
		expect(rejected({ code: 0, reason: 'Success' }, 'submitted')).toMatchObject({ failureCode: null, failureReason: null });
	});

	test.each<[string, unknown]>([
		['a list of {code, reason}', [{ code: 1340, reason: 'Send Outside Allowed Window' }]],
		['its JSON text', JSON.stringify({ code: 1340, reason: 'Send Outside Allowed Window' })],
		['{code, message}', { code: 1340, message: 'Send Outside Allowed Window' }],
		['{code, description}', { code: '1340', description: 'Send Outside Allowed Window' }],
	])('as %s: code and reason', (_what, info) => {
		expect(rejected(info)).toMatchObject({ deliveryStatus: 'rejected', failureCode: 1340, failureReason: 'Send Outside Allowed Window', problems: [] });
	});

	test('as bare text: the reason; in a shape the node cannot read: said', () => {
		expect(rejected('Send Outside Allowed Window')).toMatchObject({ failureCode: null, failureReason: 'Send Outside Allowed Window' });
		expect(rejected(42).problems).toEqual(['its additional_info could not be read (neither {code, reason} nor a text)']);
		expect(rejected({ detail: { code: 1340 } }).problems).toEqual(['its additional_info has neither a code nor a reason the node can read']);
	});
});

describe('ISO 8601 in the forms it is written', () => {
	test.each<[string, string]>([
		['2024-03-01T10:22:58+07', '2024-03-01T03:22:58.000Z'],
		['2024-03-01T10:22:58+0700', '2024-03-01T03:22:58.000Z'],
		['2024-03-01 10:22:58 +07:00', '2024-03-01T03:22:58.000Z'],
		['2024-03-01T03:22:58,073Z', '2024-03-01T03:22:58.073Z'],
		['2024-03-01T03:22:58.073456789Z', '2024-03-01T03:22:58.073Z'],
		['20240301T032258Z', '2024-03-01T03:22:58.000Z'],
		['20240301T102258.5+07', '2024-03-01T03:22:58.500Z'],
		['2024-03-01', '2024-03-01T00:00:00.000Z'],
		['2024-03-01T03:22', '2024-03-01T03:22:00.000Z'],
	])('%s is %s', (text, iso) => {
		expect(new Date(timeOf(text)!).toISOString()).toBe(iso);
	});

	test.each(['2024-02-30T10:00:00Z', '2023-02-29', '2024-13-01', '2024-03-01T24:00:00Z', '2024-03-01T03:60:00Z'])('%s, which no calendar or clock has, is no time', (text) => {
		expect(timeOf(text)).toBeNull();
	});
});

describe('a history that goes back is read for the furthest it got, and said', () => {
	const read = (...statuses: string[]) => readStatusAnswer({ history_status: statuses.map((status) => ({ timestamp: 'unreadable', status })) }, same);

	test.each([
		[['delivered', 'sent', 'submitted'], 'sent', 'submitted after delivered'],
		[['rejected', 'blocked', 'submitted'], 'rejected', 'submitted after rejected'],
		[['submitted', 'failed', 'delivered'], 'failed', 'delivered after failed'],
	])('%j: %s, and the row says the history goes back (%s)', (statuses, status, back) => {
		const reading = read(...statuses);
		expect(reading.deliveryStatus).toBe(status);
		expect(reading.problems).toContain(`the history goes back (${back}): the status is the furthest it got`);
	});

	test('a history that moves on, or whose receipts came out of order (delivered after read), says nothing of it', () => {
		expect(read('submitted', 'delivered', 'read').problems.filter((problem) => problem.includes('goes back'))).toEqual([]);
		const outOfOrder = read('submitted', 'read', 'delivered');
		expect([outOfOrder.deliveryStatus, outOfOrder.problems.filter((problem) => problem.includes('goes back'))]).toEqual(['read', []]);
	});
});

describe('additional_info with nothing in it, beside a message that got through, is no noise', () => {
	test.each([[[]], [0], [false], [{ code: null, reason: null }], [{}], ['']])('%j', (info) => {
		const reading = readStatusAnswer({ history_status: [{ timestamp: '2024-03-01T03:22:58Z', status: 'read' }], additional_info: info }, same);
		expect([reading.failureCode, reading.failureReason, reading.problems]).toEqual([null, null, []]);
	});

	test('one the node cannot read is said beside a failure, not beside read', () => {
		const answer = (status: string) => readStatusAnswer({ history_status: [{ timestamp: '2024-03-01T03:22:58Z', status }], additional_info: 42 }, same).problems;
		expect(answer('failed')).toEqual(['its additional_info could not be read (neither {code, reason} nor a text)']);
		expect(answer('read')).toEqual([]);
	});
});
