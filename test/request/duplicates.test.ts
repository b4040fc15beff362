import { findRepeats } from '../../nodes/TemplateMessage/request/duplicates';
import { buildSendRequest } from '../../nodes/TemplateMessage/request/payload';

describe('duplicate rows', () => {
	const request = (phone: string, name: string) => buildSendRequest({ phoneNumber: phone, templateCodeId: 't', components: { mode: 'fields', bodyValues: [name], header: { type: 'none' }, buttons: [] } });

	test('the same number after normalising, template and values repeat the first; anything else differs', () => {
		const requests = [request('+62 812-3456-7890', 'Budi'), request('6281234567890', 'Budi'), request('6281234567890', 'Sari'), undefined, request('62 812 3456 7890', 'Budi')];
		expect([...findRepeats(requests)]).toEqual([
			[1, 0],
			[4, 0],
		]);
	});
});
