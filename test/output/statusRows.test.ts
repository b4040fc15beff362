import { Redactor } from '../../nodes/TemplateMessage/api/redact';
import { statusSummary } from '../../nodes/TemplateMessage/output/statusRows';
import type { StatusReading, StatusResult } from '../../nodes/TemplateMessage/shared/status';
import { TEST_TOKEN } from '../helpers/engine';

describe("Get Status's run summary: status words the node does not know, each a piece of the token", () => {
	const reading = (deliveryStatus: string): StatusReading =>
		({ deliveryStatus, final: false, statusAt: null, deliveredAt: null, readAt: null, failureCode: null, failureReason: null, history: [], historyDropped: 0, msgid: null, phoneNumber: null, problems: [] }) as unknown as StatusReading;
	// The token after its public start (the payload's claims and the signature), in pieces of 10: each less than a run.
	const pieces = TEST_TOKEN.slice(TEST_TOKEN.indexOf('.') + 4)
		.slice(0, 60)
		.match(/.{1,10}/g)!
		.map((piece) => piece.toLowerCase());
	const lettersOf = (text: string) => text.replace(/[^a-z0-9]/gi, '').toLowerCase();

	test.each([
		['as they come', undefined, 'Get Status (the API\'s answers held the credential\'s token, in pieces: their words are left out): 6 with 6 other statuses'],
		[
			'still so after waiting (Wait Until), the node\'s words between them',
			{ until: 'delivered' as const, reached: false, asks: 3, waitedMs: 60_000 },
			"Get Status, waiting up to 1 min for delivered (the API's answers held the credential's token, in pieces: their words are left out): 6 with 6 other statuses",
		],
	])('%s: none is named, and they are counted together', (_name, wait, expected) => {
		const results = pieces.map((word): StatusResult => ({ kind: 'status', reading: reading(word), attempts: 1, ...(wait && { wait }) }) as StatusResult);
		const summary = statusSummary(results, new Redactor(TEST_TOKEN), wait && { until: 'delivered', limitMs: 60_000 });
		expect(summary).toBe(expected);
		expect(lettersOf(summary!)).not.toContain(lettersOf(pieces.join('')).slice(0, 16));
	});

	test('words that are not the token are named as they came', () => {
		const results = ['queued', 'accepted_by_carrier'].map((word): StatusResult => ({ kind: 'status', reading: reading(word), attempts: 1 }) as StatusResult);
		expect(statusSummary(results, new Redactor(TEST_TOKEN))).toBe('Get Status: 1 queued, 1 accepted_by_carrier');
	});

	test('failure codes that are pieces of the token (a code as text): the node\'s "code" between them does not hide them', () => {
		const rejected = (failureCode: string): StatusReading => ({ ...reading('rejected'), final: true, failureCode }) as unknown as StatusReading;
		const results = pieces.slice(0, 3).map((piece): StatusResult => ({ kind: 'status', reading: rejected(piece), attempts: 1 }) as StatusResult);
		expect(statusSummary(results, new Redactor(TEST_TOKEN))).toBe("Get Status (the API's answers held the credential's token, in pieces: their words are left out): 3 rejected");
	});
});
