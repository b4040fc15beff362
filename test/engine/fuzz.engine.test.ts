/**
 * Property-based: random spreadsheet-like rows (unicode, blanks, whitespace, long strings,
 * numbers, booleans, null, nested values, malformed phones and URLs in every mapped field) through
 * the node in n8n's engine with Continue On Fail. Fixed seed, 10,000 items in all (the fast loop,
 * npm run test:unit, takes the first 2,000 of them).
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import type { ApiServer } from '../helpers/apiServer';
import { acceptAll, startApiServer } from '../helpers/apiServer';
import { runSendNode, SEND_NODE } from '../helpers/engine';

const { validateSendRequest } = require('../../sandbox/validate') as { validateSendRequest: (body: unknown) => string[] };

const SEED = 20261121;
const BATCHES = process.env.FAST_LOOP === '1' ? 2 : 10;
const ITEMS_PER_BATCH = 1000;

const anyValue = fc.oneof(
	fc.string(),
	fc.string({ unit: 'grapheme', maxLength: 40 }),
	fc.constantFrom('', ' ', '\t\n', '   x  ', '0', '-1', '1.5', 'null', '[]', '{}'),
	fc.string({ minLength: 2000, maxLength: 5000 }),
	fc.integer(),
	fc.double(),
	fc.boolean(),
	fc.constant(null),
	fc.constant(undefined),
	fc.array(fc.string(), { maxLength: 3 }),
	fc.dictionary(fc.string({ maxLength: 5 }), fc.string(), { maxKeys: 2 }),
);
const phoneLike = fc.oneof(
	anyValue,
	fc.stringMatching(/^\+?[0-9 ()\-.]{6,22}$/),
	fc.integer({ min: 1_000_000, max: 999_999_999_999_999 }),
	// Numbers of the Default Country Code's country (62), as cells and as text: without + or 00, only these are taken.
	fc.stringMatching(/^628[1-9]\d{7,9}$/),
	fc.stringMatching(/^628[1-9]\d{7,9}$/).map(Number),
	fc.constantFrom('+62 812-3456-7890', '0812 3456 7890', '0062 812 3456 7890', '+0812', '62 812 CALL ME'),
);
const urlLike = fc.oneof(anyValue, fc.webUrl(), fc.constantFrom('ftp://x.example/a.pdf', 'javascript:alert(1)', 'https://', 'http://[::1', 'cdn.example.com/a.png'));
const row = fc.record({
	phone: phoneLike,
	template: fc.oneof(anyValue, fc.constantFrom('tpl-1', ' tpl-2 ')),
	name: anyValue,
	amount: anyValue,
	headerType: fc.constantFrom('none', 'text', 'image', 'video', 'document', 'audio', ''),
	headerText: anyValue,
	url: urlLike,
	index: fc.oneof(anyValue, fc.integer({ min: -2, max: 12 }), fc.constantFrom('0', '1', ' 2 ')),
	payload: anyValue,
	values: fc.oneof(anyValue, fc.array(anyValue, { maxLength: 4 })),
});

const parameters = {
	phoneNumber: '={{ $json.phone }}',
	templateCodeId: '={{ $json.template }}',
	headerType: '={{ $json.headerType }}',
	headerText: '={{ $json.headerText }}',
	headerMediaUrl: '={{ $json.url }}',
	bodyValues: { values: [{ text: '={{ $json.name }}' }, { text: '={{ $json.amount }}' }] },
	buttons: { button: [{ kind: 'quickReply', index: '={{ $json.index }}', payload: '={{ $json.payload }}' }] },
	options: { defaultCountryCode: '62', maxPerSecond: 0, maxConcurrency: 20 },
};

const FIELD_NAMES = /^(Phone Number|Default Country Code|Template Code ID|Header Type|Header Text|Header Media URL|Body Values → value \d+|Buttons → button 1 → (Index|Payload)): .+ \[item (\d+)\]$/;

let api: ApiServer;
beforeAll(async () => {
	api = await startApiServer((request, index) =>
		validateSendRequest(request.body).length === 0 ? acceptAll(request, index) : { status: 400, body: { errors: validateSendRequest(request.body).map((message) => ({ message, code: 101 })) } },
	);
});
afterAll(async () => {
	await api.close();
});

test(`${BATCHES * ITEMS_PER_BATCH} random rows: one output per row in order, valid requests or item-indexed field errors`, async () => {
	const batches = fc.sample(fc.array(row, { minLength: ITEMS_PER_BATCH, maxLength: ITEMS_PER_BATCH }), { seed: SEED, numRuns: BATCHES });
	let invalid = 0;
	let sent = 0;
	for (const items of batches) {
		api.requests.length = 0;
		const result = await runSendNode({ baseUrl: api.baseUrl, items: items as IDataObject[], parameters, onError: 'continueRegularOutput' });
		expect(result.run.data.resultData.error).toBeUndefined();
		const output = result.output(SEND_NODE);

		expect(output).toHaveLength(items.length);
		expect(output.map((item) => item.pairedItem)).toEqual(items.map((_, item) => ({ item })));

		const sentPhones: string[] = [];
		output.forEach((item, index) => {
			if (item.json.success === true) {
				sent++;
				sentPhones.push(String(item.json.phone_number));
				return;
			}
			const details = item.json.details as IDataObject;
			// Only invalid input fails here: the server accepts every spec-valid request.
			expect(details.delivery).toBe('invalid');
			const match = FIELD_NAMES.exec(String(item.json.error));
			expect(match).not.toBeNull();
			expect(Number(match![match!.length - 1])).toBe(index);
			invalid++;
		});
		// Invalid rows cause no request; every request made was spec-valid.
		expect(api.requests).toHaveLength(sentPhones.length);
		expect(api.requests.every((request) => request.answer === 200)).toBe(true);
	}
	// The generator must exercise both paths, or the test proves little.
	expect(sent).toBeGreaterThan(10 * BATCHES);
	expect(invalid).toBeGreaterThan(100 * BATCHES);
}, 300_000);
