import { InvalidFieldError } from '../../nodes/TemplateMessage/shared/InvalidFieldError';
import { templateTextAsWritten } from '../../nodes/TemplateMessage/request/pastedTemplate';

const FIELD = 'Template (Checks and Preview) → Body Text';

describe('a template text as the user wrote it', () => {
	test('a Fixed text is what n8n gives', () => {
		expect(templateTextAsWritten('Hi {{1}}', 'Hi {{1}}', FIELD)).toBe('Hi {{1}}');
	});

	test('pasted, so in Expression mode with only placeholders: taken as written, not as n8n computed it', () => {
		expect(templateTextAsWritten('=Hi {{1}}, invoice {{ 2 }} for {{3}} is due.', 'Hi 1, invoice 2 for 3 is due.', FIELD)).toBe('Hi {{1}}, invoice {{ 2 }} for {{3}} is due.');
	});

	test('a real expression is what n8n computed', () => {
		expect(templateTextAsWritten('={{ $json.template }}', 'Hi {{1}}', FIELD)).toBe('Hi {{1}}');
		expect(templateTextAsWritten('=No placeholder at all', 'No placeholder at all', FIELD)).toBe('No placeholder at all');
	});

	test('placeholders mixed with real expressions: refused, with the cause and the fix', () => {
		let error: unknown;
		try {
			templateTextAsWritten('=Hi {{1}} from {{ $json.shop }}', 'Hi 1 from Toko', FIELD);
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(InvalidFieldError);
		expect((error as Error).message).toBe(`${FIELD}: is in Expression mode and mixes n8n expressions with template placeholders: n8n computed {{1}} as 1`);
	});
});
