import { requestRepeats } from '../../nodes/TemplateMessage/request/duplicates';
import { messageKey, tryKeyOf } from '../../nodes/TemplateMessage/request/messageKey';
import { buildSendRequest } from '../../nodes/TemplateMessage/request/payload';
import type { SendRequestBody } from '../../nodes/TemplateMessage/shared/contracts';

// Every text one hash: two messages of one hash are still told apart by their whole text.
let collide = false;
jest.mock('../../nodes/TemplateMessage/shared/fingerprint', () => {
	const actual = jest.requireActual('../../nodes/TemplateMessage/shared/fingerprint');
	return { fingerprint: (text: string) => (collide ? 'same' : actual.fingerprint(text)) };
});

const request = (phone: string, name: string, templateCodeId = 't') =>
	buildSendRequest({ phoneNumber: phone, templateCodeId, components: { mode: 'fields', bodyValues: [name], header: { type: 'none' }, buttons: [] } });

describe('duplicate rows', () => {
	const prepared = (requests: Array<SendRequestBody | undefined>) => requests.map((one) => one && { request: one, tryKey: tryKeyOf(one) });
	const requests = [request('+62 812-3456-7890', 'Budi'), request('6281234567890', 'Budi'), request('6281234567890', 'Sari'), undefined, request('62 812 3456 7890', 'Budi'), request('6281234567890', 'Sari')];

	test('the same number after normalising, template and values repeat the first; anything else differs', () => {
		expect([...requestRepeats(prepared(requests))]).toEqual([
			[1, 0],
			[4, 0],
			[5, 2],
		]);
	});

	test('two messages whose hashes collide are not repeats of each other', () => {
		collide = true;
		try {
			expect([...requestRepeats(prepared(requests))]).toEqual([
				[1, 0],
				[4, 0],
				[5, 2],
			]);
		} finally {
			collide = false;
		}
	});
});

describe('message keys (Send Once)', () => {
	test('recipient and template: the normalised number and the template, whatever the values', () => {
		expect(messageKey(request('+62 812-3456-7890', 'Budi'), 'recipientTemplate')).toBe('6281234567890|t');
		expect(messageKey(request('6281234567890', 'Sari'), 'recipientTemplate')).toBe('6281234567890|t');
		expect(messageKey(request('6281234567890', 'Sari', 'u'), 'recipientTemplate')).toBe('6281234567890|u');
	});

	test('recipient, template and values: other values make another message', () => {
		const budi = messageKey(request('+62 812-3456-7890', 'Budi'), 'recipientTemplateValues');
		expect(budi).toMatch(/^6281234567890\|t\|\w+$/);
		expect(messageKey(request('6281234567890', 'Budi'), 'recipientTemplateValues')).toBe(budi);
		expect(messageKey(request('6281234567890', 'Sari'), 'recipientTemplateValues')).not.toBe(budi);
	});

	test('a key of the user\'s own is taken trimmed; an empty or overlong one is a field error', () => {
		expect(messageKey(request('6281234567890', 'x'), 'customKey', '  order-17 ')).toBe('order-17');
		expect(messageKey(request('6281234567890', 'x'), 'customKey', 17)).toBe('17');
		expect(() => messageKey(request('6281234567890', 'x'), 'customKey', '  ')).toThrow(/^Message Key: is empty$/);
		expect(() => messageKey(request('6281234567890', 'x'), 'customKey', undefined)).toThrow(/^Message Key: is empty$/);
		expect(() => messageKey(request('6281234567890', 'x'), 'customKey', 'k'.repeat(501))).toThrow(/^Message Key: has 501 characters/);
		// A list or an object from the expression is not "empty": it says what it is.
		expect(() => messageKey(request('6281234567890', 'x'), 'customKey', ['order-17', '628'])).toThrow(/^Message Key: expected text or a number, got a list/);
		expect(() => messageKey(request('6281234567890', 'x'), 'customKey', { id: 17 })).toThrow(/^Message Key: expected text or a number, got an object/);
	});

	test('an order id beyond 2^53 that arrived as a number is refused: two such ids would be one key, and the second message never sent', () => {
		const [first, second] = [JSON.parse('1234567890123456789'), JSON.parse('1234567890123456790')] as number[];
		expect(first).toBe(second);
		expect(() => messageKey(request('6281234567890', 'x'), 'customKey', first)).toThrow(/^Message Key: is a number too large to hold all its digits/);
		expect(messageKey(request('6281234567890', 'x'), 'customKey', '1234567890123456789')).toBe('1234567890123456789');
	});
});
