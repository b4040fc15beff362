import { boundedCopy } from '../../nodes/TemplateMessage/shared/bounded';
import { Redactor } from '../../nodes/TemplateMessage/api/redact';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhY2NvdW50LTQyIn0.c2lnbmF0dXJlLWhlcmU';
const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('Redactor', () => {
	const redact = new Redactor(`Bearer ${JWT}`);

	test.each([
		['as sent', `Bearer ${JWT}`, 'Bearer [redacted]'],
		['without its prefix', `token=${JWT};`, 'token=[redacted];'],
		['cut short by the server', `got ${JWT.slice(0, 30)}`, 'got [redacted]'],
		['twice, back to back', `${JWT}${JWT}`, '[redacted]'],
		['in base64, alone', `echo ${b64(JWT)}`, 'echo [redacted]'],
	])('%s', (_name, text, expected) => {
		expect(redact.text(text)).toBe(expected);
	});

	test('inside a longer base64 text, at each of the three byte offsets', () => {
		for (const prefix of ['', 'u', 'us', 'use']) {
			const encoded = b64(`${prefix}:${JWT}:tail`);
			const left = redact.text(encoded);
			expect(left).toContain('[redacted]');
			// What is left around the mark is a few characters at each end, not the token.
			expect(left.replace('[redacted]', '').length).toBeLessThan(24);
		}
	});

	test('a token with characters that encodings escape: JSON, URL, HTML forms', () => {
		const token = `a"b<c>&d'e/f\\g h+i%j=k-long-enough`;
		const special = new Redactor(token);
		for (const form of [JSON.stringify(token).slice(1, -1), encodeURIComponent(token), token.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')]) {
			expect(special.text(`«${form}»`)).toBe('«[redacted]»');
		}
	});

	test.each([
		['every byte %-encoded, upper-case hex', (t: string) => [...Buffer.from(t)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('')],
		['every byte %-encoded, lower-case hex', (t: string) => [...Buffer.from(t)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('')],
		['every character an HTML decimal entity', (t: string) => [...t].map((c) => `&#${c.codePointAt(0)};`).join('')],
		['every character an HTML hex entity', (t: string) => [...t].map((c) => `&#X${c.codePointAt(0)!.toString(16).toUpperCase()};`).join('')],
		['every character a \\u escape', (t: string) => [...t].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
		['every character a \\u escape, upper-case hex', (t: string) => [...t].map((c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`).join('')],
		['lower-cased, as a host name', (t: string) => t.toLowerCase()],
		['upper-cased', (t: string) => t.toUpperCase()],
	])('%s, whole or cut short', (_name, encode) => {
		const form = encode(JWT);
		expect(redact.text(`«${form}»`)).toBe('«[redacted]»');
		expect(redact.text(`«${form.slice(0, Math.floor(form.length / 2))}»`)).toBe('«[redacted]»');
	});

	const pieces = (text: string, size: number) => text.match(new RegExp(`.{1,${size}}`, 'g'))!;

	test.each([
		['broken by a line break every 10 characters', pieces(JWT, 10).join('\n')],
		['broken by JSON-escaped line breaks, as in an answer\'s raw text', pieces(JWT, 10).join('\\n')],
		['broken by a space every 7 characters', pieces(JWT, 7).join(' ')],
		['in pieces of 11 characters, a JSON list', JSON.stringify(pieces(JWT, 11))],
		['its base64 wrapped at 76 characters, as MIME writes it', pieces(b64(JWT), 76).join('\r\n')],
		['in hex', Buffer.from(JWT).toString('hex')],
		['in upper-case hex, in pieces', pieces(Buffer.from(JWT).toString('hex').toUpperCase(), 9).join('-')],
		['in base64 of its base64', b64(b64(JWT))],
		['broken every 16 characters, pieces longer and shorter than 12 alike', pieces(JWT, 16).join('\\n')],
		['in three pieces of 14, 10 and the rest, as a JSON object holds them', JSON.stringify({ parts: [JWT.slice(0, 14), JWT.slice(14, 24), JWT.slice(24)] })],
	])('%s', (_name, form) => {
		const left = redact.text(`«${form}»`);
		expect(left).toContain('[redacted]');
		// Left around the marks: the breaks, the object's own words, and at most a few characters of the encoding's edges.
		expect(left.split('[redacted]').join('').replace(/[^A-Za-z0-9]/g, '').replace(/^parts/, '').length).toBeLessThanOrEqual(4);
	});

	test('text around an echo broken by other characters is kept, and ordinary text with punctuation is left alone', () => {
		expect(redact.text(`Invalid token: ${pieces(JWT, 10).join('\n')} (code 45)`)).toBe('Invalid token: [redacted] (code 45)');
		const ordinary = 'Error 500, request id 3f2a9c1e-8b4d-4e1a-9c2f-1d2e3f4a5b6c at 2026-11-28T08:00:00Z: "message_value is not same as the template" (code 39)';
		expect(redact.text(ordinary)).toBe(ordinary);
	});

	test('short tokens are matched whole, even a single character', () => {
		expect(new Redactor('x7').text('a x7 b')).toBe('a [redacted] b');
		expect(new Redactor('k').text('kk')).toBe('[redacted][redacted]');
	});

	describe("a JWT's public start: the header every token of its kind has, and the payload's `.eyJ`", () => {
		const header = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9';
		const token = `${header}.eyJzdWIiOiJhY2N0LTkxMjMiLCJpYXQiOjE3MDAwMDAwMDB9.Xq3v9LmN2pR7sT1uW4yZ6aB8cD0eF5gH-iJkLmNoPqR`;
		const jwtRedact = new Redactor(token);
		/** Another HS256 JWT, as a provider's signed msgid: it shares only the header with the token. */
		const msgid = `${header}.eyJtc2dpZCI6IjQyIiwidG8iOiI2MjgxMiJ9.Zz1Yy2Xx3Ww4Vv5Uu6Tt7Ss8Rr9Qq0Pp_Oo-Nn1Mm2L`;

		test('another JWT of the same kind (a msgid) is kept whole, in a text or in JSON', () => {
			expect(jwtRedact.text(msgid)).toBe(msgid);
			expect(jwtRedact.text(JSON.stringify({ msgid }))).toBe(JSON.stringify({ msgid }));
			expect(jwtRedact.text(`${header}.eyJ`)).toBe(`${header}.eyJ`);
		});

		test('an echo with any of the token beyond it is masked whole, the header too', () => {
			expect(jwtRedact.text(`got ${token}`)).toBe('got [redacted]');
			expect(jwtRedact.text(`got ${token.slice(0, header.length + 10)}`)).toBe('got [redacted]');
			expect(jwtRedact.text(`${msgid} and ${token.slice(-20)}`)).toBe(`${msgid} and [redacted]`);
			expect(jwtRedact.text(Buffer.from(`x:${token}`).toString('base64'))).toMatch(/^.{0,4}\[redacted\].{0,4}$/);
		});

		test('a token not shaped as a JWT has no public start: any run of it is masked', () => {
			expect(new Redactor(`${header}-not-a-jwt-secret`).text(`id ${header}`)).toBe('id [redacted]');
		});

		const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
		test.each([
			['a key as base64 JSON with two dots after it', b64url({ key: 'sk_live_4f9a1c2e8b7d6a5f3e2d1c0b9a8f7e6d' })],
			['a header with a key id, which may name the account', b64url({ alg: 'HS256', typ: 'JWT', kid: 'tenant-7731-prod-signing-key-2026' })],
		])('a first part that says more than an algorithm and a type is the token\'s own: %s', (_name, first) => {
			const token = `${first}.${b64url({ sub: 'acct-1', iat: 1700000000 })}.Xq3v9LmN2pR7sT1uW4yZ6aB8cD0eF5gH`;
			expect(new Redactor(token).text(`from ${first}`)).toBe('from [redacted]');
		});
	});

	test('text without the token is left alone, and an empty token redacts nothing', () => {
		expect(redact.text('Invalid template (code 59)')).toBe('Invalid template (code 59)');
		expect(new Redactor('').text('anything')).toBe('anything');
		expect(new Redactor('   ').text('a b')).toBe('a b');
	});
});

describe('boundedCopy', () => {
	const clean = (text: string) => text.replace('SECRET', '[redacted]');

	test('cuts depth, entries and strings, redacting before it cuts', () => {
		const deep = JSON.parse(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
		expect(JSON.stringify(boundedCopy({ d: deep }, clean))).toBe('{"d":[[[[["[…]"]]]]]}');
		expect(boundedCopy(Array.from({ length: 40 }, (_, i) => i), clean)).toHaveLength(31);
		const long = boundedCopy(`${'x'.repeat(995)}SECRET${'y'.repeat(100)}`, clean) as string;
		expect(long).toBe(`${'x'.repeat(995)}[reda…`);
		expect(boundedCopy({ ['SECRET key']: 1 }, clean)).toEqual({ '[redacted] key': 1 });
		expect(boundedCopy({ f: () => 1, n: null, b: true }, clean)).toEqual({ f: undefined, n: null, b: true });
	});

	test('a number that echoes a token of digits is masked as text; other numbers stay numbers', () => {
		const digits = new Redactor('738291046582913');
		expect(boundedCopy({ errors: [{ code: 738291046582913 }, { code: 400 }] }, (text) => digits.text(text))).toEqual({ errors: [{ code: '[redacted]' }, { code: 400 }] });
	});
});
