import { quote } from '../../nodes/TemplateMessage/request/text';
import { hasControlCharacter } from '../../nodes/TemplateMessage/shared/controlCharacters';

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
