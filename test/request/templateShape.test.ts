import type { ButtonInput, MessageInput } from '../../nodes/TemplateMessage/shared/contracts';
import { buildSendRequest } from '../../nodes/TemplateMessage/request/payload';
import type { TemplateInput } from '../../nodes/TemplateMessage/request/templateShape';
import { countPlaceholders, parseTemplate } from '../../nodes/TemplateMessage/request/templateShape';
import { fieldError, ORDER_BODY, templatedMessage } from '../helpers/messages';


describe('placeholders', () => {
	test.each([
		['no placeholder', 'Hello', 0],
		['one', 'Hi {{1}}', 1],
		['repeated placeholders count once', ORDER_BODY, 2],
		['out of order', '{{2}} then {{1}}', 2],
		['spaces inside the braces', 'Hi {{ 1 }} and {{2 }}', 2],
	])('%s', (_, text, count) => {
		expect(countPlaceholders(text, 'Body')).toBe(count);
	});

	test('a skipped number is refused, naming the missing one', () => {
		const error = fieldError(() => countPlaceholders('Hi {{1}}, order {{3}}', 'Template (Checks and Preview) → Body Text'));
		expect(error.message).toBe('Template (Checks and Preview) → Body Text: has the placeholders {{1}}, {{3}}: {{2}} is missing');
	});

	test('{{0}} is refused', () => {
		expect(fieldError(() => countPlaceholders('Hi {{0}}', 'Body')).problem).toBe('has {{0}}: placeholders start at {{1}}');
	});
});

describe('parseTemplate', () => {
	test('nothing given: no shape, nothing to check', () => {
		expect(parseTemplate({})).toBeUndefined();
		expect(parseTemplate({ bodyText: '  ', headerFormat: '', buttons: [] })).toBeUndefined();
	});

	test('each part as given', () => {
		const shape = parseTemplate({
			bodyText: ORDER_BODY,
			headerFormat: 'text',
			headerText: 'Order {{1}}',
			buttons: [{ kind: 'dynamicUrl', label: 'Track' }, { kind: 'callPhone' }],
		})!;
		expect(shape.body).toMatchObject({ placeholders: 2 });
		expect(shape.header).toMatchObject({ kind: 'text', placeholders: 1 });
		expect(shape.buttons).toEqual([{ kind: 'dynamicUrl', label: 'Track' }, { kind: 'callPhone' }]);
		expect(shape.checkCharacters).toBe(true);
	});

	test.each<[string, TemplateInput, string]>([
		['a header text with two placeholders', { headerFormat: 'text', headerText: '{{1}} {{2}}' }, 'Template (Checks and Preview) → Header Text: has 2 placeholders; a header text has at most one, {{1}}'],
		['an unknown header kind', { headerFormat: 'audio' }, 'Template (Checks and Preview) → Header: "audio" is not one of none, text, image, video, document'],
		['an unknown button kind', { buttons: [{ kind: 'copyCode' }] }, 'Template (Checks and Preview) → Buttons → button 1 → Type: "copyCode" is not quick reply, dynamic URL, static URL or call phone'],
		['a body that is not text', { bodyText: 42 }, 'Template (Checks and Preview) → Body Text: expected text, got 42'],
	])('refuses %s', (_, input, message) => {
		expect(fieldError(() => parseTemplate(input)).message).toBe(message);
	});
});

const quickReply = (index: number, value = 'yes'): ButtonInput => ({ kind: 'quickReply', index, value });
const dynamicUrl = (index: number, value = 'INV-7'): ButtonInput => ({ kind: 'dynamicUrl', index, value });

const message = templatedMessage;
const check = (template: TemplateInput, parts: Parameters<typeof message>[1]) => fieldError(() => buildSendRequest(message(template, parts))).message;

describe('the check of an item against its template', () => {
	test('an item that fits passes, in fields and in JSON mode', () => {
		const template: TemplateInput = { bodyText: ORDER_BODY, headerFormat: 'image', buttons: [{ kind: 'dynamicUrl' }, { kind: 'quickReply' }, { kind: 'callPhone' }] };
		const parts = { body: ['Budi', 'INV-7'], header: { type: 'image', url: 'https://cdn.example.com/a.png' }, buttons: [dynamicUrl(0), quickReply(1)] };
		const request = buildSendRequest(message(template, parts));
		expect(request.message.template.payload).toHaveLength(3);
		const asJson: MessageInput = { ...message(template), components: { mode: 'json', rawPayload: JSON.stringify(request.message.template.payload) } };
		expect(buildSendRequest(asJson)).toEqual(request);
	});

	test.each<[string, TemplateInput, Parameters<typeof message>[1], string]>([
		['one body value too few', { bodyText: ORDER_BODY }, { body: ['Budi'] }, 'Body Values: has 1 value(s); the template body has 2 placeholders, {{1}} to {{2}}'],
		['one body value too many', { bodyText: 'Hi {{1}}' }, { body: ['Budi', 'INV-7'] }, 'Body Values: has 2 value(s); the template body has one placeholder, {{1}}'],
		['a value for a body without placeholders', { bodyText: 'Hello!' }, { body: ['Budi'] }, 'Body Values: has 1 value(s); the template body has no placeholder'],
		['a line break in a value', { bodyText: 'Hi {{1}}' }, { body: ['Bu\ndi'] }, 'Body Values → value 1: contains a line break, which the platform refuses in template values'],
		['a tab in a value', { bodyText: 'Hi {{1}} {{2}}' }, { body: ['ok', 'a\tb'] }, 'Body Values → value 2: contains a tab, which the platform refuses in template values'],
		['five spaces in a row', { bodyText: 'Hi {{1}}' }, { body: ['a     b'] }, 'Body Values → value 1: contains more than four spaces in a row, which the platform refuses in template values'],
		['a line separator (U+2028)', { bodyText: 'Hi {{1}}' }, { body: ['Bu\u2028di'] }, 'Body Values → value 1: contains a line break, which the platform refuses in template values'],
		['a paragraph separator (U+2029)', { bodyText: 'Hi {{1}}' }, { body: ['Bu\u2029di'] }, 'Body Values → value 1: contains a line break, which the platform refuses in template values'],
		['a NUL', { bodyText: 'Hi {{1}}' }, { body: ['Bu\u0000di'] }, 'Body Values → value 1: contains a control character, which the platform refuses in template values'],
		['a right-to-left override (U+202E)', { bodyText: 'Pay {{1}}' }, { body: ['\u202e001 DI'] }, 'Body Values → value 1: contains a bidirectional override (U+202D or U+202E), which the platform refuses in template values'],
		['a header value for a template without header', { headerFormat: 'none' }, { header: { type: 'text', text: 'Hi' } }, 'Header Type: is text, but the template has no header'],
		['a header value for a fixed header text', { headerFormat: 'text', headerText: 'Your order' }, { header: { type: 'text', text: 'Hi' } }, "Header Type: is text, but the template's header text has no placeholder"],
		['no value for a header with a placeholder', { headerFormat: 'text', headerText: 'Order {{1}}' }, {}, 'Header Type: is None, but the template has a header text with a placeholder, {{1}}'],
		['no media for a media header', { headerFormat: 'document' }, {}, 'Header Type: is None, but the template has a document header'],
		['another media kind', { headerFormat: 'video' }, { header: { type: 'image', url: 'https://cdn.example.com/a.png' } }, "Header Type: is image, but the template's header is a video"],
		['a button index the template does not have', { buttons: [{ kind: 'quickReply' }] }, { buttons: [quickReply(0), quickReply(1)] }, 'Buttons → button 2 → Index: is 1, but the template has 1 button(s), indexes 0 to 0'],
		['a value for a call-phone button', { buttons: [{ kind: 'callPhone', label: 'Call us' }] }, { buttons: [quickReply(0)] }, 'Buttons → button 1: gives a value to button 0, the template\'s call phone "Call us" button, which takes none'],
		['the wrong kind of button', { buttons: [{ kind: 'dynamicUrl', label: 'Track' }] }, { buttons: [quickReply(0)] }, 'Buttons → button 1 → Type: is quick reply, but the template\'s button 0 is a dynamic URL "Track" button'],
		['a missing dynamic URL value', { buttons: [{ kind: 'quickReply' }, { kind: 'dynamicUrl' }] }, { buttons: [quickReply(0)] }, "Buttons: has no value for button 1, the template's dynamic URL button"],
		['a missing quick reply payload', { buttons: [{ kind: 'quickReply', label: 'Yes' }] }, {}, 'Buttons: has no value for button 0, the template\'s quick reply "Yes" button'],
	])('refuses %s', (_, template, parts, expected) => {
		expect(check(template, parts)).toBe(expected);
	});

	test('refused characters are let through when that check is off', () => {
		expect(() => buildSendRequest(message({ bodyText: 'Hi {{1}}', checkCharacters: false }, { body: ['Bu\ndi'] }))).not.toThrow();
	});

	test('in JSON mode a second body component is refused, not sent unchecked', () => {
		const payload = [
			{ position: 'body', parameters: [{ type: 'text', text: 'Budi' }, { type: 'text', text: 'INV-7' }] },
			{ position: 'body', parameters: [{ type: 'text', text: 'a\nb' }, { type: 'text', text: 'c' }, { type: 'text', text: 'd' }] },
		];
		const input: MessageInput = { ...message({ bodyText: ORDER_BODY }), components: { mode: 'json', rawPayload: JSON.stringify(payload) } };
		const error = fieldError(() => buildSendRequest(input));
		expect(error.message).toBe('Payload (JSON) → component 2 → position: is a second body component');
	});

	test('in JSON mode the error names the payload', () => {
		const input: MessageInput = { ...message({ bodyText: ORDER_BODY }), components: { mode: 'json', rawPayload: '[{"position":"body","parameters":[{"type":"text","text":"Budi"}]}]' } };
		expect(fieldError(() => buildSendRequest(input)).message).toBe('Payload (JSON) → body: has 1 value(s); the template body has 2 placeholders, {{1}} to {{2}}');
	});
});

describe('a part of the template left out is not checked', () => {
	test('Check Values for Refused Characters off, given alone (or beside a Body Text mapped empty for the row), turns the check off', () => {
		for (const template of [{ checkCharacters: false }, { bodyText: '', checkCharacters: false }] as TemplateInput[]) {
			expect(buildSendRequest(message(template, { body: ['Bu\ndi'] })).message.template.payload[0].parameters[0]).toEqual({ type: 'text', text: 'Bu\ndi' });
		}
		// Left on, or nothing given: the platform's refusal is said before sending.
		expect(check({ checkCharacters: true }, { body: ['Bu\ndi'] })).toMatch(/contains a line break/);
		expect(parseTemplate({})).toBeUndefined();
	});

	test('a text header whose Header Text is left out takes a text value or none; a media value is its kind\'s mismatch', () => {
		expect(buildSendRequest(message({ headerFormat: 'text' }, { header: { type: 'text', text: 'INV-7' } })).message.template.payload[0]).toEqual({ position: 'header', parameters: [{ type: 'text', text: 'INV-7' }] });
		expect(buildSendRequest(message({ headerFormat: 'text' }, {})).message.template.payload).toEqual([]);
		expect(check({ headerFormat: 'text' }, { header: { type: 'image', url: 'https://cdn.example.com/a.png' } })).toBe("Header Type: is image, but the template's header is a text");
	});
});
