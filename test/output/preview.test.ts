import { renderPreview } from '../../nodes/TemplateMessage/output/preview';
import type { ButtonInput } from '../../nodes/TemplateMessage/request/payload';
import { buildSendRequest } from '../../nodes/TemplateMessage/request/payload';
import type { TemplateInput } from '../../nodes/TemplateMessage/request/template';
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
		const fixed = message({ bodyText: 'Hi {{1}}', headerFormat: 'text', headerText: 'Welcome' }, { body: ['Budi'] });
		expect(renderPreview(buildSendRequest(fixed), fixed.template!)).toBe('Welcome\nHi Budi');
	});

	test('none without the body text', () => {
		const input = message({ headerFormat: 'none' }, { body: ['Budi'] });
		expect(renderPreview(buildSendRequest(input), input.template!)).toBeUndefined();
	});
});
