import { PASTED_TEMPLATE_VALUE, pastedTemplateNotices } from '../../nodes/TemplateMessage/description/templateFields';
import { templateTextAsWritten } from '../../nodes/TemplateMessage/request/pastedTemplate';

/** What the run makes of a stored value: kept as written, computed by n8n, or refused. */
function run(written: string): 'asWritten' | 'computed' | 'refused' {
	try {
		return templateTextAsWritten(written, 'computed by n8n', 'Body Text') === 'computed by n8n' ? 'computed' : 'asWritten';
	} catch {
		return 'refused';
	}
}

test.each([
	['=Hi {{1}}, invoice {{2}} for {{3}} is due.', true],
	['=Order {{ 1 }}', true],
	['=Hi {{1}}, from {{ $json.shop }}', false],
	['={{ $json.templateText }}', false],
	['=Hi there', false],
	['Hi {{1}}', false],
])('the notice shows for %j exactly when the run keeps the text as written (%s)', (stored, shown) => {
	expect(new RegExp(PASTED_TEMPLATE_VALUE).test(stored)).toBe(shown);
	expect(run(stored) === 'asWritten').toBe(shown);
});

test('one notice per template text, each shown by its own field', () => {
	expect(pastedTemplateNotices.map((notice) => Object.keys(notice.displayOptions!.show!))).toEqual([['/template.bodyText'], ['/template.headerText']]);
});
