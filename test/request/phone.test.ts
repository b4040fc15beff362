import { InvalidFieldError } from '../../nodes/TemplateMessage/shared/InvalidFieldError';
import { normalisePhoneNumber } from '../../nodes/TemplateMessage/request/phone';

describe('normalisePhoneNumber', () => {
	test.each([
		['+6281234567890', '6281234567890'],
		['6281234567890', '6281234567890'],
		['+62 812-3456-7890', '6281234567890'],
		['+62 (812) 3456 7890', '6281234567890'],
		['  +62.812.3456.7890  ', '6281234567890'],
		['0062 812 3456 7890', '6281234567890'],
		['+62\u00a0812\u00a03456\u00a07890', '6281234567890'],
	])('%j → %s', (input, expected) => {
		expect(normalisePhoneNumber(input)).toBe(expected);
	});

	test('a number from a spreadsheet cell that holds a number', () => {
		expect(normalisePhoneNumber(6281234567890)).toBe('6281234567890');
	});

	test('a leading 0 becomes the default country code', () => {
		expect(normalisePhoneNumber('0812-3456-7890', '62')).toBe('6281234567890');
		expect(normalisePhoneNumber('0812 3456 7890', '+62')).toBe('6281234567890');
	});

	test('the default country code leaves international numbers alone', () => {
		expect(normalisePhoneNumber('+44 20 7946 0958', '62')).toBe('442079460958');
	});

	const rejects = (input: unknown, pattern: RegExp, countryCode?: unknown) => {
		let error: unknown;
		try {
			normalisePhoneNumber(input, countryCode);
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(InvalidFieldError);
		expect((error as InvalidFieldError).message).toMatch(pattern);
		return error as InvalidFieldError;
	};

	test('empty, missing and blank numbers', () => {
		for (const input of ['', '   ', undefined, null]) rejects(input, /^Phone Number: is empty$/);
	});

	test('a local number without a default country code says what to do', () => {
		const error = rejects('0812 3456 7890', /starts with 0/);
		expect(error.hint).toMatch(/Default Country Code/);
	});

	test('letters, a bad country code, wrong lengths and non-text values', () => {
		rejects('+62 812 CALL ME', /characters other than digits/);
		rejects('+0812345678', /no valid country code/);
		rejects('+62 812', /has 5 digits/);
		rejects('+62 8123 4567 8901 2345', /has 18 digits/);
		rejects({ phone: '62' }, /expected text or a whole number, got an object/);
		rejects(62.5, /expected text or a whole number/);
		rejects(true, /expected text or a whole number/);
		rejects('0812 3456 7890', /Default Country Code: "62a" is not a country code/, '62a');
	});
});
