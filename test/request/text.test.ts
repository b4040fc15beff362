import { quote, requiredText } from '../../nodes/TemplateMessage/request/text';
import { fieldError } from '../helpers/messages';
import { hasControlCharacter } from '../../nodes/TemplateMessage/shared/invisibleCharacters';

describe('quote, for error messages', () => {
	test('shows line breaks, other control characters and backslashes escaped', () => {
		expect(quote('a\nb\tc\u0000d\u007fe\\f')).toBe('"a\\nb\\tc\\u0000d\\u007fe\\\\f"');
	});

	test('cuts a long value and says how long it was', () => {
		const quoted = quote('9'.repeat(10_000));
		expect(quoted.length).toBeLessThan(200);
		expect(quoted).toMatch(/…" \(10000 characters\)$/);
	});
});

test.each([
	['plain text', false],
	['tab\there', true],
	['nul\u0000', true],
	['del\u007f', true],
	['non-breaking\u00a0space', false],
])('hasControlCharacter(%j) is %s', (text, expected) => {
	expect(hasControlCharacter(text)).toBe(expected);
});

describe('requiredText', () => {
	test('a whole number above 2^53 is refused: its digits were lost before the node saw it', () => {
		for (const value of [2 ** 53, Number('12345678901234567890'), 1e21, -(2 ** 53)]) {
			const error = fieldError(() => requiredText(value, 'Template Code ID'));
			expect(error.message).toBe(`Template Code ID: is a number too large to hold all its digits (beyond ±2^53): the sheet's digits were lost on the way (it arrived as ${String(value)})`);
		}
	});

	test('every number that holds its digits is its text', () => {
		expect(requiredText(Number.MAX_SAFE_INTEGER, 'Body Values → value 1')).toBe('9007199254740991');
		expect(requiredText(-42, 'Body Values → value 1')).toBe('-42');
		expect(requiredText(150000.5, 'Body Values → value 1')).toBe('150000.5');
	});
});
