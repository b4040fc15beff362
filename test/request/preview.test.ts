import { MAX_PREVIEW_LENGTH, renderPreview } from '../../nodes/TemplateMessage/request/preview';
import type { ButtonInput } from '../../nodes/TemplateMessage/shared/contracts';
import { buildSendRequest } from '../../nodes/TemplateMessage/request/payload';
import type { TemplateInput } from '../../nodes/TemplateMessage/request/templateShape';
import { ORDER_BODY, templatedMessage } from '../helpers/messages';

const dynamicUrl = (index: number, value = 'INV-7'): ButtonInput => ({ kind: 'dynamicUrl', index, value });

const message = templatedMessage;

describe('the preview', () => {
	test('header, body with every placeholder filled, and the labels of the buttons', () => {
		const template: TemplateInput = { bodyText: ORDER_BODY, headerFormat: 'text', headerText: 'Order {{1}}', buttons: [{ kind: 'dynamicUrl', label: 'Track order' }, { kind: 'callPhone', label: 'Call us' }] };
		const input = message(template, { body: ['Budi', 'INV-7'], header: { type: 'text', text: 'INV-7' }, buttons: [dynamicUrl(0)] });
		expect(renderPreview(buildSendRequest(input), input.template!)).toBe('Order INV-7\nHi Budi, your order INV-7 is confirmed. Reply Budi to stop.\n[Track order → …/INV-7] [Call us]');
	});

	test('a dynamic URL button shows the suffix sent, with or without a label', () => {
		const input = message({ bodyText: 'Hi {{1}}', buttons: [{ kind: 'quickReply', label: 'Stop' }, { kind: 'dynamicUrl' }] }, { body: ['Budi'], buttons: [{ kind: 'quickReply', index: 0, value: 'STOP-7' }, dynamicUrl(1, 'ORD-2048')] });
		// A quick reply's payload is not shown to the recipient.
		expect(renderPreview(buildSendRequest(input), input.template!)).toBe('Hi Budi\n[Stop] [Dynamic URL → …/ORD-2048]');
	});

	test('a text header sent where the template does not describe one, or its text was left out, shows as sent', () => {
		for (const template of [{ bodyText: 'Hi {{1}}' }, { bodyText: 'Hi {{1}}', headerFormat: 'text' as const }]) {
			const input = message(template, { body: ['Budi'], header: { type: 'text', text: 'Flash sale' } });
			expect(renderPreview(buildSendRequest(input), input.template!)).toBe('Flash sale\nHi Budi');
		}
	});

	test('Using JSON: a value of a type the node does not build shows its fallback text, or its type, never {{1}}', () => {
		const currency = { type: 'currency', currency: { fallback_value: 'Rp 150.000', code: 'IDR', amount_1000: 150000000 } };
		const input = (parameters: unknown[]) => ({
			phoneNumber: '+62 812 3456 7890',
			templateCodeId: 'invoice_reminder',
			components: { mode: 'json' as const, rawPayload: JSON.stringify([{ position: 'body', parameters }]) },
			template: message({ bodyText: 'Your total is {{1}}.' }, { body: [] }).template,
		});
		const withFallback = input([currency]);
		expect(renderPreview(buildSendRequest(withFallback), withFallback.template!)).toBe('Your total is Rp 150.000.');
		const without = input([{ type: 'date_time', date_time: {} }]);
		expect(renderPreview(buildSendRequest(without), without.template!)).toBe('Your total is [date_time].');
	});

	test('a media header shows its kind and URL; a fixed header text shows as registered', () => {
		const media = message({ bodyText: 'Hi {{1}}', headerFormat: 'image' }, { body: ['Budi'], header: { type: 'image', url: 'https://cdn.example.com/a.png' } });
		expect(renderPreview(buildSendRequest(media), media.template!)).toBe('[image: https://cdn.example.com/a.png]\nHi Budi');
		const spaced = message({ bodyText: 'Hi {{1}}', headerFormat: 'document' }, { body: ['Budi'], header: { type: 'document', url: 'https://cdn.example.com/Invoice 1001.pdf' } });
		expect(renderPreview(buildSendRequest(spaced), spaced.template!)).toBe('[document: https://cdn.example.com/Invoice%201001.pdf]\nHi Budi');
		const fixed = message({ bodyText: 'Hi {{1}}', headerFormat: 'text', headerText: 'Welcome' }, { body: ['Budi'] });
		expect(renderPreview(buildSendRequest(fixed), fixed.template!)).toBe('Welcome\nHi Budi');
	});

	test('is cut at its bound, however often a long value repeats', () => {
		const input = message({ bodyText: '{{1}} '.repeat(600), checkCharacters: false }, { body: ['x'.repeat(4000)] });
		const preview = renderPreview(buildSendRequest(input), input.template!)!;
		expect(preview).toBe(`${'x'.repeat(4000).slice(0, MAX_PREVIEW_LENGTH)}… (preview cut at ${MAX_PREVIEW_LENGTH} characters)`);
	});

	test('shows the characters that do not show, or that would make it read otherwise than what is sent', () => {
		const input = message({ bodyText: 'Pay {{1}} to {{2}}', checkCharacters: false }, { body: ['\u202e001 DI', 'a\u0000b\u2028c'] });
		expect(renderPreview(buildSendRequest(input), input.template!)).toBe('Pay ⟨U+202E⟩001 DI to a⟨U+0000⟩b⟨U+2028⟩c');
	});

	test.each([
		['U+2063 INVISIBLE SEPARATOR', '\u2063', 'U+2063'],
		['U+2062 INVISIBLE TIMES', '\u2062', 'U+2062'],
		['U+3164 HANGUL FILLER', '\u3164', 'U+3164'],
		['U+115F HANGUL CHOSEONG FILLER', '\u115f', 'U+115F'],
		['U+034F COMBINING GRAPHEME JOINER', '\u034f', 'U+034F'],
		['U+FFA0 HALFWIDTH HANGUL FILLER', '\uffa0', 'U+FFA0'],
	])('shows %s, sent within a value', (_name, character, name) => {
		const input = message({ bodyText: 'Pay to account {{1}}' }, { body: [`12${character}34`] });
		expect(JSON.stringify(buildSendRequest(input))).toContain(character);
		expect(renderPreview(buildSendRequest(input), input.template!)).toBe(`Pay to account 12⟨${name}⟩34`);
	});

	test('a value of nothing but a Hangul filler is empty, as one of a zero-width space is', () => {
		for (const blank of ['\u200b', '\u3164', '\u115f\u1160', '\uffa0']) expect(() => buildSendRequest(message({ bodyText: 'Hi {{1}}' }, { body: [blank] }))).toThrow('Body Values → value 1: is empty');
	});

	test('none without the body text', () => {
		const input = message({ headerFormat: 'none' }, { body: ['Budi'] });
		expect(renderPreview(buildSendRequest(input), input.template!)).toBeUndefined();
	});
});
