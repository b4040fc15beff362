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
		expect(renderPreview(buildSendRequest(input), input.template!)).toBe('Order INV-7\nHi Budi, your order INV-7 is confirmed. Reply Budi to stop.\n[Track order] [Call us]');
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

	test('none without the body text', () => {
		const input = message({ headerFormat: 'none' }, { body: ['Budi'] });
		expect(renderPreview(buildSendRequest(input), input.template!)).toBeUndefined();
	});
});
