import type { ButtonInput, MessageInput } from '../../nodes/TemplateMessage/shared/contracts';
import { bodyValuesFromList, buildSendRequest } from '../../nodes/TemplateMessage/request/payload';
import { fieldError } from '../helpers/messages';

function fields(overrides: {
	bodyValues?: unknown[];
	header?: { type: unknown; text?: unknown; url?: unknown; urlAsWritten?: boolean };
	buttons?: ButtonInput[];
}): MessageInput['components'] {
	return { mode: 'fields', bodyValues: [], header: { type: 'none' }, buttons: [], ...overrides };
}

function build(components: MessageInput['components'], extra: Partial<MessageInput> = {}) {
	return buildSendRequest({ phoneNumber: '+62 812 3456 7890', templateCodeId: 'tpl-001', components, ...extra });
}

/** The envelope rule 1 prescribes around any payload. */
function envelope(payload: unknown[]) {
	return {
		phone_number: '6281234567890',
		message: { type: 'template', template: { template_code_id: 'tpl-001', payload } },
	};
}

describe('spec rules of the send endpoint', () => {
	test('rule 1-2: envelope with phone_number, message.type template, template_code_id and payload', () => {
		expect(build(fields({}))).toEqual(envelope([]));
	});

	test('rule 3: a plain template with a dynamic body sends one text parameter per placeholder', () => {
		expect(build(fields({ bodyValues: ['Budi', 'INV-7', 150000] }))).toEqual(
			envelope([
				{
					position: 'body',
					parameters: [
						{ type: 'text', text: 'Budi' },
						{ type: 'text', text: 'INV-7' },
						{ type: 'text', text: '150000' },
					],
				},
			]),
		);
	});

	test('a template without body variables sends no body component', () => {
		const body = build(fields({ header: { type: 'text', text: 'Hello' } }));
		expect(body.message.template.payload.map((c) => c.position)).toEqual(['header']);
	});

	test('rule 4: a dynamic URL button (with a body) as in the examples', () => {
		expect(
			build(fields({ bodyValues: ['Budi'], buttons: [{ kind: 'dynamicUrl', index: 0, value: 'orders/INV-7' }] })),
		).toEqual(
			envelope([
				{ position: 'body', parameters: [{ type: 'text', text: 'Budi' }] },
				{
					position: 'button',
					parameters: [{ sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'orders/INV-7' }] }],
				},
			]),
		);
	});

	test('rule 5: a quick reply button carries its payload text', () => {
		expect(build(fields({ buttons: [{ kind: 'quickReply', index: 1, value: 'yes' }] }))).toEqual(
			envelope([
				{
					position: 'button',
					parameters: [{ sub_type: 'quick_reply', index: '1', parameters: [{ type: 'payload', payload: 'yes' }] }],
				},
			]),
		);
	});

	test.each(['image', 'video', 'document'])('rule 6: a %s header with an https url', (type) => {
		expect(build(fields({ header: { type, url: 'https://cdn.example.com/file' } }))).toEqual(
			envelope([{ position: 'header', parameters: [{ type, [type]: { url: 'https://cdn.example.com/file' } }] }]),
		);
	});

	test('a text header', () => {
		expect(build(fields({ header: { type: 'text', text: 'Invoice INV-7' } }))).toEqual(
			envelope([{ position: 'header', parameters: [{ type: 'text', text: 'Invoice INV-7' }] }]),
		);
	});

	test('header, body and several buttons together, components in header-body-button order', () => {
		const body = build(
			fields({
				bodyValues: ['Budi'],
				header: { type: 'image', url: 'http://cdn.example.com/a.png' },
				buttons: [
					{ kind: 'quickReply', index: 0, value: 'yes' },
					{ kind: 'quickReply', index: '1', value: 'no' },
					{ kind: 'dynamicUrl', index: 2, value: 'track/77' },
				],
			}),
		);
		expect(body.message.template.payload).toEqual([
			{ position: 'header', parameters: [{ type: 'image', image: { url: 'http://cdn.example.com/a.png' } }] },
			{ position: 'body', parameters: [{ type: 'text', text: 'Budi' }] },
			{
				position: 'button',
				parameters: [
					{ sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'yes' }] },
					{ sub_type: 'quick_reply', index: '1', parameters: [{ type: 'payload', payload: 'no' }] },
					{ sub_type: 'url', index: '2', parameters: [{ type: 'text', text: 'track/77' }] },
				],
			},
		]);
	});
});

describe('naming variants of the spec', () => {
	const buttons: ButtonInput[] = [
		{ kind: 'quickReply', index: 0, value: 'yes' },
		{ kind: 'dynamicUrl', index: 1, value: 'x/1' },
	];

	test('field reference spelling: sub_types, url_dynamic, numeric index', () => {
		const body = build(fields({ buttons }), {
			compatibility: { buttonTypeField: 'sub_types', dynamicUrlSubType: 'url_dynamic', buttonIndexFormat: 'number' },
		});
		expect(body.message.template.payload[0].parameters).toEqual([
			{ sub_types: 'quick_reply', index: 0, parameters: [{ type: 'payload', payload: 'yes' }] },
			{ sub_types: 'url_dynamic', index: 1, parameters: [{ type: 'text', text: 'x/1' }] },
		]);
	});

	test.each([
		['text', { type: 'payload', text: 'yes' }],
		['both', { type: 'payload', payload: 'yes', text: 'yes' }],
	] as const)('quick reply value in %s', (quickReplyValueField, expected) => {
		const body = build(fields({ buttons: [buttons[0]] }), { compatibility: { quickReplyValueField } });
		expect(body.message.template.payload[0].parameters).toEqual([
			{ sub_type: 'quick_reply', index: '0', parameters: [expected] },
		]);
	});
});

describe('raw JSON payload', () => {
	const components = [{ position: 'body', parameters: [{ type: 'text', text: 'Budi' }] }];

	test('JSON text and an already parsed value give the same request', () => {
		expect(build({ mode: 'json', rawPayload: JSON.stringify(components) })).toEqual(envelope(components));
		expect(build({ mode: 'json', rawPayload: components })).toEqual(envelope(components));
	});

	test('invalid JSON and wrong shapes are refused before sending', () => {
		expect(fieldError(() => build({ mode: 'json', rawPayload: '[{"position": ' })).message).toMatch(/^Payload \(JSON\): is not valid JSON/);
		expect(fieldError(() => build({ mode: 'json', rawPayload: '{"position":"body"}' })).message).toMatch(/must be a list of components, got an object/);
		expect(fieldError(() => build({ mode: 'json', rawPayload: [{ position: 'footer', parameters: [] }] })).field).toBe(
			'Payload (JSON) → component 1 → position',
		);
		expect(fieldError(() => build({ mode: 'json', rawPayload: [{ position: 'body' }] })).field).toBe(
			'Payload (JSON) → component 1 → parameters',
		);
	});

	test('a value the fields refuse is refused here too: empty (an empty mapped cell), null, an object; a button index other than decimal digits', () => {
		const body = (text: unknown) => ({ mode: 'json' as const, rawPayload: [{ position: 'body', parameters: [{ type: 'text', text: 'Budi' }, { type: 'text', text }] }] });
		for (const [text, problem] of [['', 'is empty'], ['  ', 'is empty'], [null, 'is empty'], [undefined, 'is empty'], [{ first: 'Budi' }, 'expected text, got an object'], [true, 'expected text, got true']] as Array<[unknown, string]>) {
			expect(fieldError(() => build(body(text)))).toMatchObject({ field: 'Payload (JSON) → body → value 2', problem });
		}
		expect(fieldError(() => build({ mode: 'json', rawPayload: [{ position: 'header', parameters: [{ type: 'text', text: '' }] }] }))).toMatchObject({ field: 'Payload (JSON) → header → value 1', problem: 'is empty' });
		const button = (index: unknown, value: Record<string, unknown> = { type: 'payload', payload: 'yes' }) => ({ mode: 'json' as const, rawPayload: [{ position: 'button', parameters: [{ sub_type: 'quick_reply', index, parameters: [value] }] }] });
		for (const index of ['', ' ', null, false, '0x0', '1e0', -1]) expect(fieldError(() => build(button(index))).field).toBe('Payload (JSON) → button 1 → index');
		expect(fieldError(() => build(button(0, { type: 'payload', payload: '' })))).toMatchObject({ field: 'Payload (JSON) → button 1 → payload', problem: 'is empty' });
		expect(fieldError(() => build(button('1', { type: 'text', text: null })))).toMatchObject({ field: 'Payload (JSON) → button 1 → text', problem: 'is empty' });
		expect(fieldError(() => build(button('1', { type: 'text', text: 'INV-7\n' })))).toMatchObject({ field: 'Payload (JSON) → button 1 → text', problem: 'contains a line break, a tab or another control character, which a link cannot hold' });
		// What the spec shows goes as written: an index as text or a number, a number as a value, other parameter types untouched.
		for (const request of [button('0'), button(1), body(42), { mode: 'json' as const, rawPayload: [{ position: 'body', parameters: [{ type: 'currency', currency: { code: 'IDR', amount_1000: 1 } }] }] }]) {
			expect(build(request)).toEqual(envelope(request.rawPayload));
		}
	});
});

describe('raw JSON payload: what the contract requires of each value', () => {
	const json = <T,>(rawPayload: T) => ({ mode: 'json' as const, rawPayload });
	const header = (type: string, media: unknown) => json([{ position: 'header', parameters: [{ type, [type]: media }] }]);
	const button = (entry: unknown) => json([{ position: 'button', parameters: [entry] }]);

	test.each(['ftp://files.example.com/a.pdf', 'javascript:alert(1)', 'file:///etc/passwd', 'not a url', 'https:/cdn.example.com/a.pdf', 'https:cdn.example.com/a.pdf'])('rule 6: a media URL %j is refused, as the fields refuse it', (url) => {
		expect(fieldError(() => build(header('document', { url }))).field).toBe('Payload (JSON) → header → value 1 → document → url');
		expect(fieldError(() => build(fields({ header: { type: 'document', url } }))).field).toBe('Header Media URL');
	});

	test('a media header without its media object, or with no url, is refused; other fields of the media object go as given', () => {
		expect(fieldError(() => build(json([{ position: 'header', parameters: [{ type: 'image' }] }])))).toMatchObject({ field: 'Payload (JSON) → header → value 1 → image', problem: 'must be an object with url, got undefined' });
		expect(fieldError(() => build(header('video', {})))).toMatchObject({ field: 'Payload (JSON) → header → value 1 → video → url', problem: 'is empty' });
		const media = [{ position: 'header', parameters: [{ type: 'document', document: { url: 'https://cdn.example.com/a b.pdf', filename: 'Invoice.pdf' } }] }];
		expect(build(json(media))).toEqual(envelope(media));
	});

	test('the quick reply as the spec\'s example carries it, its value in text, goes as written', () => {
		const request = button({ sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', text: 'yes' }] });
		expect(build(request)).toEqual(envelope(request.rawPayload));
		expect(fieldError(() => build(button({ sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', text: ' ' }] })))).toMatchObject({ field: 'Payload (JSON) → button 1 → payload', problem: 'is empty' });
	});

	test.each([
		['a reference beyond 2^53', '12345678901234567890', '12345678901234567000'],
		['an amount with a trailing 0', '150000.50', '150000.5'],
		['a number in exponent form', '1e3', '1000'],
	])('%s mapped without quotes (%s) is refused: JSON would send %s', (_what, written, sent) => {
		const raw = `[{"position":"body","parameters":[{"type":"text","text":"Budi"},{"type":"text","text":${written}}]}]`;
		expect(fieldError(() => build(json(raw)))).toMatchObject({ field: 'Payload (JSON)', problem: `holds the number ${written} as a text, which JSON sends as ${sent}` });
		// In quotes, the row's text goes as it is.
		expect(build(json(raw.replace(written, `"${written}"`))).message.template.payload[0].parameters[1]).toEqual({ type: 'text', text: written });
	});

	test('a number JSON keeps as written goes as given; digits in a text are not numbers', () => {
		const raw = '[{"position":"body","parameters":[{"type":"text","text":42},{"type":"text","text":"1.50 and 1e3"}]},{"position":"button","parameters":[{"sub_type":"url","index":0,"parameters":[{"type":"text","text":"a\\"1.0"}]}]}]';
		expect(build(json(raw))).toEqual(envelope(JSON.parse(raw) as unknown[]));
	});

	test('numbers that are not what a recipient reads go as JSON reads them: an index 1.0 or -0, a currency amount 1.5e6; a key or text that holds "text": 1.0 is text', () => {
		const raw = '[{"position":"body","parameters":[{"type":"currency","currency":{"code":"IDR","amount_1000":1.5e6}},{"type":"text","text":"\\"text\\": 1.0"}]},{"position":"button","parameters":[{"sub_type":"quick_reply","index":1.0,"parameters":[{"type":"payload","payload":"yes"}]}]}]';
		expect(build(json(raw))).toEqual(envelope(JSON.parse(raw) as unknown[]));
		expect(fieldError(() => build(json('[{"position":"button","parameters":[{"sub_type":"quick_reply","index":0,"parameters":[{"type":"payload","payload":7.10}]}]}]')))).toMatchObject({ problem: 'holds the number 7.10 as a payload, which JSON sends as 7.1' });
	});

	test('a value given as an expression\'s list: a number beyond 2^53 is refused, as the fields refuse it', () => {
		expect(fieldError(() => build(json([{ position: 'body', parameters: [{ type: 'text', text: Number('12345678901234567890') }] }]))).problem).toMatch(/^is a number too large to hold all its digits/);
	});

	test.each([
		['a null body value (an unmatched mapping)', json([{ position: 'body', parameters: [null] }]), 'Payload (JSON) → body → value 1', 'must be an object with type and its value, got null'],
		['a bare text as a body value', json([{ position: 'body', parameters: ['Budi'] }]), 'Payload (JSON) → body → value 1', 'must be an object with type and its value, got "Budi"'],
		['a null button', button(null), 'Payload (JSON) → button 1', 'must be an object with sub_type, index and parameters, got null'],
		['a button without sub_type', button({ index: '0', parameters: [{ type: 'text', text: 'x' }] }), 'Payload (JSON) → button 1 → sub_type', 'is missing'],
		['a dynamic URL button without parameters', button({ sub_type: 'url', index: '0' }), 'Payload (JSON) → button 1 → parameters', 'are missing'],
		['a button whose value is null', button({ sub_type: 'url', index: '0', parameters: [null] }), 'Payload (JSON) → button 1 → parameters', 'must be an object with type and its value, got null'],
	])('%s is refused, naming where', (_what, request, field, problem) => {
		expect(fieldError(() => build(request))).toMatchObject({ field, problem });
	});

	test('two buttons with one index are refused, as in the fields', () => {
		const request = json([{ position: 'button', parameters: [0, '0'].map((index) => ({ sub_type: 'quick_reply', index, parameters: [{ type: 'payload', payload: 'a' }] })) }]);
		expect(fieldError(() => build(request))).toMatchObject({ field: 'Payload (JSON) → button 2 → index', problem: 'index 0 is used by another button' });
	});
});

describe('copy-paste damage and text a reader would not see', () => {
	test.each(['\u200bord_confirmed', 'ord_confirmed\u200e', 'ord\u202econfirmed'])('a Template Code ID with a mark that does not show, %j, is refused, showing it', (templateCodeId) => {
		expect(fieldError(() => build(fields({}), { templateCodeId })).message).toMatch(/^Template Code ID: contains a control character or a mark that does not show .*⟨U\+20[0-9A-F]{2}⟩/);
	});

	test.each(['\u200b', '\u2060', '\u200e\u200f', ' \ufeff '])('a value of such marks only, %j, is empty, as "  " is', (value) => {
		expect(fieldError(() => build(fields({ bodyValues: [value] })))).toMatchObject({ field: 'Body Values → value 1', problem: 'is empty' });
	});

	test('a value is counted in characters as a reader counts them: 2,100 emoji are 2,100, within 4,096', () => {
		expect(build(fields({ bodyValues: ['😀'.repeat(2100)] })).message.template.payload[0].parameters[0]).toEqual({ type: 'text', text: '😀'.repeat(2100) });
		expect(fieldError(() => build(fields({ bodyValues: ['😀'.repeat(4097)] }))).problem).toBe('is 4097 characters long; at most 4096 are sent');
	});

	test('half of an emoji (a text cut with .slice()) is refused, not sent as a broken character', () => {
		expect(fieldError(() => build(fields({ bodyValues: ['Hi \ud83d'] }))).problem).toMatch(/^holds half of an emoji/);
		expect(fieldError(() => build(fields({ bodyValues: ['\ude00 there'] }))).problem).toMatch(/^holds half of an emoji/);
	});
});

describe('validation names the field', () => {
	test.each([
		['missing phone number', { phoneNumber: '' }, 'Phone Number', /is empty/],
		['missing template id', { templateCodeId: '  ' }, 'Template Code ID', /is empty/],
		['template id that is an object', { templateCodeId: { id: 1 } }, 'Template Code ID', /expected text, got an object/],
	])('%s', (_name, extra, field, problem) => {
		const error = fieldError(() => build(fields({}), extra as Partial<MessageInput>));
		expect(error.field).toBe(field);
		expect(error.problem).toMatch(problem);
	});

	test.each([
		['ftp://cdn.example.com/a.pdf', /uses ftp; only http and https are allowed/],
		['javascript:alert(1)', /uses javascript/],
		['cdn.example.com/a.pdf', /is not a URL/],
		['', /is empty/],
		// What the URL parser would silently drop or turn into a slash is refused, not sent as typed.
		['https://exa\nmple.com/a.png', /"https:\/\/exa\\nmple\.com\/a\.png" contains a tab, line break, control character or backslash/],
		['https://cdn.example.com/a\tb.png', /contains a tab/],
		['https://cdn.example.com/a.png\u2028https://cdn.example.com/b.png', /line break/],
		['https:\\evil.example\\a.png', /contains a tab, line break, control character or backslash/],
		['https://cdn.example.com/a\u0000.png', /control character/],
	])('media URL %j', (url, problem) => {
		const error = fieldError(() => build(fields({ header: { type: 'document', url } })));
		expect(error.field).toBe('Header Media URL');
		expect(error.problem).toMatch(problem);
	});

	test.each([
		['a space, as a storage console shows it', 'https://bucket.s3.amazonaws.com/Invoice 1001.pdf', 'https://bucket.s3.amazonaws.com/Invoice%201001.pdf'],
		['an already encoded URL, unchanged', 'https://cdn.example.com/Invoice%201001.pdf?X-Amz-Signature=ab%2Fcd', 'https://cdn.example.com/Invoice%201001.pdf?X-Amz-Signature=ab%2Fcd'],
		['both, the %XX kept as it is', 'https://cdn.example.com/a%20b c.pdf', 'https://cdn.example.com/a%20b%20c.pdf'],
		['non-ASCII in the path and query, as UTF-8', 'https://cdn.example.com/Rechnung März.pdf?name=Ü', 'https://cdn.example.com/Rechnung%20M%C3%A4rz.pdf?name=%C3%9C'],
		['a non-ASCII host, in punycode', 'https://bücher.example/a.pdf', 'https://xn--bcher-kva.example/a.pdf'],
		['quotes and angle brackets', 'https://cdn.example.com/"a"<b>.pdf', 'https://cdn.example.com/%22a%22%3Cb%3E.pdf'],
		// Nothing to encode: sent as written, not normalised.
		['an ASCII URL the parser would normalise', 'https://CDN.example.com:443/a/./b.pdf', 'https://CDN.example.com:443/a/./b.pdf'],
	])('version 2 sends a media URL with %s as a browser writes it', (_name, url, sent) => {
		expect(build(fields({ header: { type: 'document', url } })).message.template.payload).toEqual([
			{ position: 'header', parameters: [{ type: 'document', document: { url: sent } }] },
		]);
	});

	test.each([
		['https://cdn.example.com/my file.png', /contains a space, tab, line break, control character or backslash/],
		['https://cdn.example.com/my\u00a0file.png', /contains a space/],
	])('version 1 refuses a media URL with a space, as 0.1.0 did: %j', (url, problem) => {
		const error = fieldError(() => build(fields({ header: { type: 'document', url, urlAsWritten: true } })));
		expect(error.field).toBe('Header Media URL');
		expect(error.problem).toMatch(problem);
		expect(error.hint).toMatch(/Write spaces in a URL as %20/);
	});

	test('version 1 sends other characters as written', () => {
		const url = 'https://cdn.example.com/März.pdf';
		expect(build(fields({ header: { type: 'document', url, urlAsWritten: true } })).message.template.payload).toEqual([
			{ position: 'header', parameters: [{ type: 'document', document: { url } }] },
		]);
	});

	test.each([
		[-1, /-1 is not a whole number of 0 or more/],
		[1.5, /is not a whole number/],
		[1e21, /is not a whole number/],
		['two', /"two" is not a whole number/],
		[undefined, /is not a whole number/],
		// Number() reads these as 16, 3 and 1000; only decimal digits are an index.
		['0x10', /"0x10" is not a whole number/],
		['0b11', /"0b11" is not a whole number/],
		['1e3', /"1e3" is not a whole number/],
		['-0', /"-0" is not a whole number/],
		['2.5', /"2.5" is not a whole number/],
		['2.', /"2." is not a whole number/],
		['++2', /"\+\+2" is not a whole number/],
	])('button index %j', (index, problem) => {
		const error = fieldError(() => build(fields({ buttons: [{ kind: 'quickReply', index, value: 'yes' }] })));
		expect(error.field).toBe('Buttons → button 1 → Index');
		expect(error.problem).toMatch(problem);
	});

	test.each([' 02 ', '2.0', '+2', ' +2.00 '])('decimal digits, spaces around them, a + before or a .0 after (a whole number as a sheet may write it), are an index: %j', (index) => {
		expect(build(fields({ buttons: [{ kind: 'quickReply', index, value: 'yes' }] })).message.template.payload[0].parameters).toEqual([
			{ sub_type: 'quick_reply', index: '2', parameters: [{ type: 'payload', payload: 'yes' }] },
		]);
	});

	test('values too large for any template, and raw JSON too deep or too large, are refused', () => {
		expect(fieldError(() => build(fields({ bodyValues: ['x'.repeat(4097)] }))).problem).toBe('is 4097 characters long; at most 4096 are sent');
		expect(fieldError(() => build(fields({ bodyValues: Array.from({ length: 101 }, () => 'x') }))).problem).toMatch(/^has 101 values/);
		expect(fieldError(() => build({ mode: 'json', rawPayload: [{ position: 'body', parameters: [[[[[[[[[]]]]]]]]] }] })).problem).toBe('is nested more than 8 levels deep');
		expect(fieldError(() => build({ mode: 'json', rawPayload: `[${'"x",'.repeat(20_000)}"x"]` })).problem).toMatch(/^is \d+ characters long; at most 65536$/);
		expect(fieldError(() => build({ mode: 'json', rawPayload: [{ position: 'body', parameters: Array.from({ length: 20_000 }, () => ({ type: 'text', text: 'xxxx' })) }] })).problem).toBe(
			'is larger than 65536 characters',
		);
	});

	test('two buttons with the same index', () => {
		const error = fieldError(() =>
			build(fields({ buttons: [{ kind: 'quickReply', index: 0, value: 'a' }, { kind: 'quickReply', index: '0', value: 'b' }] })),
		);
		expect(error.field).toBe('Buttons → button 2 → Index');
	});

	test('empty quick reply payload and empty URL suffix', () => {
		expect(fieldError(() => build(fields({ buttons: [{ kind: 'quickReply', index: 0, value: ' ' }] }))).field).toBe('Buttons → button 1 → Payload');
		expect(fieldError(() => build(fields({ buttons: [{ kind: 'dynamicUrl', index: 0, value: '' }] }))).field).toBe('Buttons → button 1 → URL Suffix');
	});

	test('a URL suffix with a line break, a tab or another control character is refused: the link would break', () => {
		for (const value of ['INV-7\n', 'INV\t7', 'INV\u00007', 'INV-7\u2028']) {
			expect(fieldError(() => build(fields({ buttons: [{ kind: 'dynamicUrl', index: 0, value }] })))).toMatchObject({ field: 'Buttons → button 1 → URL Suffix', problem: 'contains a line break, a tab or another control character, which a link cannot hold' });
		}
		expect(build(fields({ buttons: [{ kind: 'dynamicUrl', index: 0, value: 'orders/INV 7?x=1' }] })).message.template.payload[0].parameters).toEqual([{ sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'orders/INV 7?x=1' }] }]);
	});

	test('an unknown button type and header type', () => {
		expect(fieldError(() => build(fields({ buttons: [{ kind: 'callPhone', index: 0, value: '' }] }))).field).toBe('Buttons → button 1 → Type');
		expect(fieldError(() => build(fields({ header: { type: 'audio' } }))).field).toBe('Header Type');
	});

	test('an empty or non-text body value names its position', () => {
		expect(fieldError(() => build(fields({ bodyValues: ['Budi', ''] }))).field).toBe('Body Values → value 2');
		expect(fieldError(() => build(fields({ bodyValues: [null] }))).field).toBe('Body Values → value 1');
		expect(fieldError(() => build(fields({ bodyValues: [['a']] }))).problem).toBe('expected text, got a list');
	});
});

describe('body values from one expression', () => {
	test('a list, a JSON text of a list, and nothing', () => {
		expect(bodyValuesFromList(['Budi', 7])).toEqual(['Budi', 7]);
		expect(bodyValuesFromList('["Budi","INV-7"]')).toEqual(['Budi', 'INV-7']);
		expect(bodyValuesFromList('')).toEqual([]);
	});

	test('anything else is refused with the field named', () => {
		expect(fieldError(() => bodyValuesFromList('Budi')).field).toBe('Body Values');
		expect(fieldError(() => bodyValuesFromList({ name: 'Budi' })).problem).toBe('expected a list, got an object');
	});
});

describe('values the platform refuses, whether or not a template is pasted', () => {
	test.each([
		['a line break', ['Budi', 'INV\n7'], 'Body Values → value 2', 'contains a line break, which the platform refuses in template values'],
		['a carriage return', ['Bu\rdi'], 'Body Values → value 1', 'contains a line break, which the platform refuses in template values'],
		['a tab', ['Bu\tdi'], 'Body Values → value 1', 'contains a tab, which the platform refuses in template values'],
		['five spaces in a row', ['Budi     Santoso'], 'Body Values → value 1', 'contains more than four spaces in a row, which the platform refuses in template values'],
		['a control character', ['Bu\u0007di'], 'Body Values → value 1', 'contains a control character, which the platform refuses in template values'],
		['a right-to-left override', ['\u202e001 DI'], 'Body Values → value 1', 'contains a bidirectional override (U+202D or U+202E), which the platform refuses in template values'],
	])('a body value with %s is refused, the item not built', (_, bodyValues, field, problem) => {
		const error = fieldError(() => build(fields({ bodyValues })));
		expect(error.field).toBe(field);
		expect(error.problem).toBe(problem);
	});

	test('four spaces in a row are still a value', () => {
		expect(build(fields({ bodyValues: ['Budi    Santoso'] })).message.template.payload[0].parameters).toEqual([{ type: 'text', text: 'Budi    Santoso' }]);
	});

	test("a header's text is checked the same way, in either mode", () => {
		expect(fieldError(() => build(fields({ header: { type: 'text', text: 'Order\n7' } }))).message).toBe('Header Text: contains a line break, which the platform refuses in template values');
		expect(fieldError(() => build({ mode: 'json', rawPayload: [{ position: 'header', parameters: [{ type: 'text', text: 'a\tb' }] }] })).message).toBe(
			'Payload (JSON) → header → value 1: contains a tab, which the platform refuses in template values',
		);
	});

	test('in JSON mode, the body values of the payload are checked the same way', () => {
		const error = fieldError(() => build({ mode: 'json', rawPayload: [{ position: 'body', parameters: [{ type: 'text', text: 'Budi' }, { type: 'text', text: 'a\tb' }] }] }));
		expect(error.message).toBe('Payload (JSON) → body → value 2: contains a tab, which the platform refuses in template values');
	});

	test("a pasted template's Check Values for Refused Characters, turned off, still lets them through", () => {
		const template = { checkCharacters: false, body: { placeholders: 1, segments: [] } };
		expect(build(fields({ bodyValues: ['Bu\ndi'] }), { template }).message.template.payload[0].parameters).toEqual([{ type: 'text', text: 'Bu\ndi' }]);
	});

	test('a body value that is a number above 2^53 lost its digits: refused, not sent as 12345678901234567000', () => {
		const error = fieldError(() => build(fields({ bodyValues: ['Budi', Number('12345678901234567890')] })));
		expect(error.message).toBe("Body Values → value 2: is a number too large to hold all its digits (beyond ±2^53): the sheet's digits were lost on the way (it arrived as 12345678901234567000)");
		expect(error.hint).toBe('Format the column as plain text in the sheet, then read it again');
		expect(build(fields({ bodyValues: [Number.MAX_SAFE_INTEGER, 150000.5] })).message.template.payload[0].parameters).toEqual([
			{ type: 'text', text: '9007199254740991' },
			{ type: 'text', text: '150000.5' },
		]);
	});
});
