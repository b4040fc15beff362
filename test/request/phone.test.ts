import fc from 'fast-check';

import { InvalidFieldError } from '../../nodes/TemplateMessage/shared/InvalidFieldError';
import { countryCodeOf } from '../../nodes/TemplateMessage/request/countryCodes';
import { normalisePhoneNumber } from '../../nodes/TemplateMessage/request/phone';
import { buildSendRequest } from '../../nodes/TemplateMessage/request/payload';
import { messageKey } from '../../nodes/TemplateMessage/request/messageKey';

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

	test("a 0 before scientific notation's point is no local number's 0: refused, never sent to the default country", () => {
		expect(() => normalisePhoneNumber('0.447700900123E+12', '62')).toThrow(/scientific notation/);
		expect(() => normalisePhoneNumber('0,6281234567890E+13', '44')).toThrow(/scientific notation/);
		expect(normalisePhoneNumber('6.281234567890E+12', '62')).toBe('6281234567890');
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

	test('an empty cell of a mapped column is named as such, not as a field to map', () => {
		expect(rejects('', /^Phone Number: is empty$/).hint).toBe('Map a column or enter the recipient number, e.g. +62 812 3456 7890');
		let error: InvalidFieldError | undefined;
		try {
			normalisePhoneNumber(undefined, undefined, { mapped: true });
		} catch (caught) {
			error = caught as InvalidFieldError;
		}
		expect(error?.hint).toBe('The column mapped to it is empty in this row: fill the cell, or leave rows without a number out with a Filter step before this node');
	});

	test('a local number without a default country code says what to do', () => {
		const error = rejects('0812 3456 7890', /starts with 0/);
		expect(error.hint).toMatch(/Default Country Code/);
	});

	test('letters, a bad country code, wrong lengths and non-text values', () => {
		rejects('+62 812 CALL ME', /contains letters/);
		// Letters are said first: a fix for another problem (the missing country code) would not make it a number.
		rejects('0812-ABC-99', /^Phone Number: "0812-ABC-99" contains letters \(ABC\), which no phone number has/);
		rejects('0812 3456 78x', /contains letters \(x\)/, '62');
		rejects('(0)0812 34x', /contains letters \(x\)/);
		rejects('+0812345678', /no valid country code/);
		rejects('+62 812', /has 5 digits/);
		rejects('+62 8123 4567 8901 2345', /has 18 digits/);
		rejects({ phone: '62' }, /expected text or a whole number, got an object/);
		rejects(62.5, /is a decimal number, not a phone number/);
		rejects(true, /expected text or a whole number/);
		rejects('0812 3456 7890', /Default Country Code: "62a" is not a country code/, '62a');
	});

	describe('cells as sheets and phones give them', () => {
		test.each([
			// A trunk 0 in brackets after the country code (Indonesian and British writing).
			['+62 (0)812 3456 7890', '6281234567890'],
			['+44 (0)20 7946 0958', '442079460958'],
			['62 (0) 812-3456-7890', '6281234567890'],
			['0044 (0)20 7946 0958', '442079460958'],
			// A whole number exported as a decimal (Excel, CSV).
			['6281234567890.0', '6281234567890'],
			['6281234567890.00', '6281234567890'],
			['6281234567890,0', '6281234567890'],
			// Dots between groups, a slash after an area code.
			['+62 812.3456.7890', '6281234567890'],
			['+62 0812.3456789', '628123456789'],
			['+49 30/1234 5678', '493012345678'],
			['+49 (0)6151/12345', '49615112345'],
			['+49 (0)6151/1234', '4961511234'],
			['0049 6151/1234', '4961511234'],
			['+62 0812/3456/7890', '6281234567890'],
			// Dots between groups of two, as French numbers are written.
			['+33 6.12.34.56.00', '33612345600'],
			['+6281234567890.0', '6281234567890'],
			// The apostrophe Sheets and Excel keep numbers as text with.
			["'+62 812 3456 7890", '6281234567890'],
			["'6281234567890", '6281234567890'],
			// Non-breaking, thin, narrow and ideographic spaces; every dash.
			['+62\u202f812\u20093456\u30007890', '6281234567890'],
			['+62\u2013812\u20143456\u22127890', '6281234567890'],
			['+62\uff0d812\u2010345\u20116\u20127890', '6281234567890'],
			// Direction and zero-width marks a phone or a chat app copies along: dropped.
			['\u202a+62 812-3456-7890\u202c', '6281234567890'],
			['\u200e+62 812 3456 7890', '6281234567890'],
			['\u2066+62 812 3456 7890\u2069', '6281234567890'],
			['+62\u200b812\ufeff34567890', '6281234567890'],
			// Scientific notation that writes every digit of the number (a sheet with more decimals shown).
			['4.47700900123E+11', '447700900123'],
			['+6,281234567890E12', '6281234567890'],
			['6.2812345678900e+12', '6281234567890'],
		])('%j → %s', (input, expected) => {
			expect(normalisePhoneNumber(input)).toBe(expected);
		});

		test.each([
			['6.28123456789E+12', /"6\.28123456789E\+12" is in scientific notation, in which a sheet drops a number's last digits$/],
			['6.2812E12', /scientific notation/],
			['6.2812345678901E+12', /scientific notation/],
			['6.28123456789E+120', /scientific notation/],
			// A 0 before the point, or more than one digit there: no sheet writes it so, and a 0 read as a digit would send abroad.
			['0.447700900123E+12', /scientific notation/],
			['0,6281234567890E+13', /scientific notation/],
			['06.281234567890E+12', /scientific notation/],
			['62.81234567890E+11', /scientific notation/],
			['6281234567890.5', /is a decimal number, not a phone number$/],
			// A decimal comma, as sheets in Indonesia and much of Europe write numbers.
			['6,28123E+11', /"6,28123E\+11" is in scientific notation, in which a sheet drops a number's last digits$/],
			['6281234567890,5', /is a decimal number, not a phone number$/],
			// Zeros after a dot may be decimals or the number's last digits; so may a ".0" after a grouped number.
			['62812345678.000', /"62812345678\.000" ends in "\.000", which may be a decimal part or digits of the number; the node cannot tell which$/],
			['62 812 3456 7890.0', /"62 812 3456 7890\.0" ends in "\.0", which may be a decimal part or digits of the number/],
			['0812 3456 78.00', /ends in "\.00", which may be a decimal part/],
			['+62 812.3456.7890.0', /ends in "\.0", which may be a decimal part/],
			// Another ending after a slash: two numbers, never one longer one.
			['0812-3456-7890/91', /"0812-3456-7890\/91" holds more than one number$/],
			['(021) 555 1234/35', /holds more than one number$/],
			['+62 812 3456 7890/1', /holds more than one number$/],
			// More slashes: a lone group shorter than the one before it is another ending; "//" is one slash.
			['(021) 555 1234/35/36', /holds more than one number$/],
			['+62 21 555 1234/35/36', /holds more than one number$/],
			['+49 30/1234 5678/90', /holds more than one number$/],
			['+49 30/1234 5678/901', /holds more than one number$/],
			['+62 812 3456 7890 // 12', /holds more than one number$/],
			// A dot set apart by a space, or before a last group of one digit.
			['+49 151 1234567 . 12', /ends in " \. 12", which may be a decimal part or digits of the number/],
			['+49 151 1234567. 12', /ends in "\. 12"/],
			['+49 151.1234567.1', /ends in "\.1"/],
			['+62 812 3456 7890 ext. 12', /has an extension \(ext\. 12\), which a messaging number does not$/],
			['+62 812 3456 7890 (12)', /has an extension \(12\), which a messaging number does not$/],
			['+62 812 3456 7890 x12', /has an extension \(x12\)/],
			['+62 812 3456 7890 / +62 813 1111 2222', /holds more than one number$/],
			['0812-3456-7890 / 0813-1111-2222', /holds more than one number$/],
			['+62 812 3456 7890, +62 813 1111 2222', /holds more than one number$/],
			['+62 812 3456 7890 atau 0813 1111 2222', /holds more than one number$/],
			['+62 812 CALL ME', /contains letters \(CALL ME\), which no phone number has$/],
			['+62 812 3456 7890 ☎', /contains characters other than digits \(☎\)/],
			['+62 812\u0007 3456', /"\+62 812⟨U\+0007⟩ 3456" contains characters other than digits \(⟨U\+0007⟩\)/],
		])('%j is refused with the reason', (input, pattern) => {
			rejects(input, pattern);
		});

		test('a number typed as a decimal is refused; a whole number is taken as it is', () => {
			rejects(6281234567890.5, /is a decimal number, not a phone number$/);
			expect(normalisePhoneNumber(6281234567890)).toBe('6281234567890');
		});

		test('the value quoted in an error shows the marks it carried', () => {
			rejects('\u202a+62 812\u202c', /^Phone Number: "⟨U\+202A⟩\+62 812⟨U\+202C⟩" has 5 digits/);
		});
	});

	describe('a 0 right after the country code', () => {
		test.each([
			// The trunk prefix, written after the country code: dropped, in every international form.
			['+62 0812 3456 7890', '6281234567890'],
			['0062 0812 3456 7890', '6281234567890'],
			['62 0812 3456 7890', '6281234567890'],
			['+62 (0)812 3456 7890', '6281234567890'],
			['+44 020 7946 0958', '442079460958'],
			['+49 030 1234567', '49301234567'],
			['+91 098765 43210', '919876543210'],
			['+61 0412 345 678', '61412345678'],
			['+33 06 12 34 56 78', '33612345678'],
			['+31 06 12345678', '31612345678'],
			['+60 012-345 6789', '60123456789'],
			['+66 081 234 5678', '66812345678'],
			['+63 0917 123 4567', '639171234567'],
			['+84 091 234 5678', '84912345678'],
			['+90 0532 123 4567', '905321234567'],
			['+27 082 123 4567', '27821234567'],
			['+92 0300 1234567', '923001234567'],
			['+81 090-1234-5678', '819012345678'],
			['+82 010-1234-5678', '821012345678'],
			['+86 010 1234 5678', '861012345678'],
			// 3-digit country codes: the 0 is the one after the whole code.
			['+234 0803 123 4567', '2348031234567'],
			['+254 0712 345678', '254712345678'],
			['+880 01711-123456', '8801711123456'],
			['+353 087 123 4567', '353871234567'],
		])('%j → %s (trunk 0 dropped)', (input, expected) => {
			expect(normalisePhoneNumber(input)).toBe(expected);
		});

		test.each([
			// Part of the number there, dialled from abroad too: kept.
			['+39 06 6982 1234', '390669821234'],
			['0039 06 6982 1234', '390669821234'],
			['+378 0549 123456', '3780549123456'],
			['+225 07 12 34 56 78', '2250712345678'],
			['+242 06 123 4567', '242061234567'],
		])('%j → %s (0 kept)', (input, expected) => {
			expect(normalisePhoneNumber(input)).toBe(expected);
		});

		test.each([
			// Countries the table does not hold, Brazil and Mexico on purpose (their prefixes are more than one 0).
			['+55 011 98765 4321', '55'],
			['+52 044 55 1234 5678', '52'],
			['+34 0612 345 678', '34'],
			['+1 0212 555 0100', '1'],
			['+7 0912 345 6789', '7'],
			['+379 06 6982 1234', '379'],
		])('%j is refused: the node cannot tell what the 0 after %s is', (input, countryCode) => {
			const error = rejects(input, new RegExp(`has a 0 right after country code ${countryCode}, which may be a trunk prefix dialled only within the country or part of the number; for this country the node cannot tell$`));
			expect(error.hint).toBe(`Write the number as it is dialled from abroad: +${countryCode} then the number without the 0 if it is a trunk prefix, with it if the number starts with 0`);
		});

		test('a trunk 0 in brackets is dropped for a country the node has no rule for, as its writer marked it', () => {
			expect(normalisePhoneNumber('+55 (0)11 98765 4321')).toBe('5511987654321');
		});

		test.each([
			// A mobile written with a trunk mark: sent as it reads, 39 0347…, a digit more.
			'+39 (0)347 123 4567',
			// Rome's 06, the 0 in brackets: the same form, meant otherwise.
			'+39 (0)6 6982 1234',
		])('%j is refused: a (0) after a country code whose 0 is part of the number may or may not be a digit of it', (input) => {
			rejects(input, /has \(0\) after country code 39, whose numbers have no trunk prefix \(a 0 there is part of the number\): the node cannot tell whether that 0 belongs to the number$/);
		});

		test.each([
			['+39 (0) 06 6982 1234', '39'],
			['0039 (0)06 6982 1234', '39'],
			['+39 006 6982 1234', '39'],
			['+225 (0) 07 12 34 56 78', '225'],
			['+62 (0) 0812 3456 7890', '62'],
		])('%j is refused: no number starts with 00 after its country code, a digit more whichever 0 it is', (input, countryCode) => {
			rejects(input, new RegExp(`has two 0s right after country code ${countryCode}$`));
		});

		test('a (0) anywhere but right after the country code is refused', () => {
			rejects('+628 (0)12 3456 7890', /has \(0\) after 628, which is not a country code$/);
			rejects('+6 (0)2 812 3456 7890', /has \(0\) after 6, which is not a country code$/);
		});

		test('with Default Country Code, a local number whose 0 is part of it keeps the 0', () => {
			expect(normalisePhoneNumber('06 6982 1234', '39')).toBe('390669821234');
			expect(normalisePhoneNumber('0549 123456', '378')).toBe('3780549123456');
			expect(normalisePhoneNumber('0812 3456 7890', '62')).toBe('6281234567890');
		});

		test('a second 0 after a dropped trunk 0 is refused, not sent', () => {
			rejects('+62 00812 3456 7890', /has two 0s right after country code 62$/);
			rejects('+62 (0) 0812 3456 7890', /has two 0s right after country code 62$/);
		});

		test('country codes split as assigned, so a 0 after them is read in the right place', () => {
			expect(countryCodeOf('12125550100')).toBe('1');
			expect(countryCodeOf('74951234567')).toBe('7');
			expect(countryCodeOf('6281234567890')).toBe('62');
			expect(countryCodeOf('2348031234567')).toBe('234');
			expect(countryCodeOf('8801711123456')).toBe('880');
			expect(countryCodeOf('3780549123456')).toBe('378');
			// A 0 inside the number, not right after the code, is the number's own.
			expect(normalisePhoneNumber('+234 803 012 3456')).toBe('2348030123456');
			expect(normalisePhoneNumber('+1 212 055 0100')).toBe('12120550100');
		});

		test('both spellings of one number are one recipient for Send Once', () => {
			const request = (phoneNumber: string, defaultCountryCode?: string) =>
				buildSendRequest({ phoneNumber, defaultCountryCode, templateCodeId: 'tpl', components: { mode: 'fields', bodyValues: [], header: { type: 'none' }, buttons: [] } });
			const keys = [request('+62 0812 3456 7890'), request('6281234567890'), request('0812-3456-7890', '62'), request('62 0812 3456 7890', '62')].map((built) => messageKey(built, 'recipientTemplate'));
			expect(new Set(keys)).toEqual(new Set(['6281234567890|tpl']));
		});
	});

	describe('with Default Country Code the sheet is local', () => {
		test('a number that lost its leading 0 is refused, never sent abroad', () => {
			for (const input of [81234567890, '812-3456-7890', '81234567890']) {
				const error = rejects(
					input,
					/ has no \+ or 00 and does not start with 62 \(Options → Default Country Code\): most likely a local number whose leading 0 the sheet dropped \(sent as it is, it would go to country code 81\)$/,
					'62',
				);
				expect(error.hint).toBe('Format the column as text in the sheet so that the leading 0 stays, and write numbers of other countries with + or 00, e.g. +44 20 7946 0958');
			}
		});

		test("the reason follows the country: no trunk 0 in Italy (a mobile starts with 3) and unknown for Singapore, whose numbers never had one", () => {
			const italy = rejects('312 345 6789', /does not start with 39 \(Options → Default Country Code\): most likely a local number written without its country code \(numbers of country code 39 have no trunk 0; a landline's own leading 0 may also have been dropped by the sheet\) \(sent as it is, it would go to country code 31\)$/, '39');
			expect(italy.hint).toBe('Write the number with +39 in front (e.g. with an expression on the column), format the column as text so that a leading 0 stays, and write numbers of other countries with + or 00, e.g. +44 20 7946 0958');
			const singapore = rejects('8123 4567', /does not start with 65 \(Options → Default Country Code\): most likely a local number written without its country code, or one whose leading 0 the sheet dropped \(sent as it is, it would go to country code 81\)$/, '65');
			expect(singapore.problem).not.toMatch(/^.*: most likely a local number whose leading 0/);
			expect(singapore.hint).toMatch(/^Write the number with \+65 in front/);
		});

		test('a number that starts with the country code, or has + or 00, is taken', () => {
			expect(normalisePhoneNumber(6281234567890, '62')).toBe('6281234567890');
			expect(normalisePhoneNumber('+81 90-1234-5678', '62')).toBe('819012345678');
			expect(normalisePhoneNumber('0081 90 1234 5678', '+62')).toBe('819012345678');
		});

		test('a cell with too few digits for any number says so', () => {
			rejects('812 345', /"812 345" has 6 digits; a number with its country code has 7 to 15$/, '62');
		});

		test("a short number that starts with the country code could be a local one (India's 91…, Singapore's 65…, Italy's 39…): refused, never read as the code and a short number", () => {
			rejects('9123456789', /"9123456789" has no \+ or 00, starts with 91 \(Options → Default Country Code\) and is short/, '91');
			rejects('6512 3456', /starts with 65 .* and is short/, '65');
			rejects('3931234567', /starts with 39 .* and is short/, '39');
			expect(normalisePhoneNumber('919876543210', '91')).toBe('919876543210');
			expect(normalisePhoneNumber('+65 6512 3456', '65')).toBe('6565123456');
		});

		test("a leading 0 in a country the node has no rule for (Brazil's carrier codes, Mexico's old prefixes) is refused, not dropped", () => {
			rejects('0 21 11 98765-4321', /starts with 0, and the node has no rule for what a leading 0 means in country code 55/, '55');
			rejects('044 55 1234 5678', /no rule for what a leading 0 means in country code 52/, '52');
			expect(normalisePhoneNumber('0812 3456 7890', '62')).toBe('6281234567890');
		});

		test('without Default Country Code a number without + is read as international, as before', () => {
			expect(normalisePhoneNumber('81234567890')).toBe('81234567890');
		});

		test("a 0 set apart from the next 0 is not the international prefix 00: never sent abroad (to +81 for Indonesia's 0812…)", () => {
			for (const cell of ['(0)0812 3456 7890', '0 0812 3456 7890', '0-0812-3456-7890', '0.0812.3456.7890']) {
				for (const code of ['62', undefined]) rejects(cell, /starts with a 0 set apart from the next 0: not the international prefix 00/, code);
			}
			// Written together, 00 is the prefix, as before.
			expect(normalisePhoneNumber('0062 812 3456 7890', '62')).toBe('6281234567890');
			expect(normalisePhoneNumber('(0062) 812 3456 7890')).toBe('6281234567890');
			expect(normalisePhoneNumber('(0)812 3456 7890', '62')).toBe('6281234567890');
		});

		test('a number written as North America writes it, without its country code 1, is refused: read as international it goes to the country its area code spells', () => {
			for (const cell of ['(212) 555-0100', '212-555-0100', '212.555.0100', '212 555 0100', '(415)555-2671']) {
				const error = rejects(cell, /is written as a North American number without its country code 1 \(sent as it is, it would go to country code \d+\)$/);
				expect(error.hint).toMatch(/^Write it with its country code, e\.g\. \+1 \d{3} \d{3} \d{4}/);
			}
			expect(normalisePhoneNumber('+1 (212) 555-0100')).toBe('12125550100');
			expect(normalisePhoneNumber('1 212 555 0100')).toBe('12125550100');
			// With + it is the number as written; grouped otherwise it is read as before.
			expect(normalisePhoneNumber('+354 555 0100')).toBe('3545550100');
			expect(normalisePhoneNumber('2125550100')).toBe('2125550100');
		});
	});

	describe('what a sheet did to the cell, said as it is', () => {
		test('a number cell above 2^53 lost its digits on the way', () => {
			const error = rejects(
				Number('9007199254740993'),
				/^Phone Number: is a number too large to hold all its digits \(beyond ±2\^53\): the sheet's digits were lost on the way \(it arrived as 9007199254740992\)$/,
			);
			expect(error.hint).toBe('Format the column as plain text in the sheet, then read it again');
		});

		test('a number with digit grouping is separated by commas, not two numbers', () => {
			rejects('6,281,234,567,890.0', /is one number separated by commas \(digit grouping, as a sheet shows a number\)/);
			const error = rejects('6,281,234,567,890', /^Phone Number: "6,281,234,567,890" is one number separated by commas \(digit grouping, as a sheet shows a number\), not a phone number as written$/);
			expect(error.hint).toMatch(/^Format the column as plain text/);
			rejects('+62 812 3456 7890, +62 813 1111 2222', /holds more than one number$/);
		});

		test.each([
			['https://wa.me/6281234567890', '+6281234567890'],
			['wa.me/6281234567890?text=Halo', '+6281234567890'],
			['https://api.whatsapp.com/send?phone=6281234567890', '+6281234567890'],
		])('a chat link %j is a link, not a number; its number is the suggestion', (input, number) => {
			const error = rejects(input, new RegExp(`is a link, not a phone number \\(the number in it reads \\${number}\\)$`));
			expect(error.hint).toBe(`Map the column that holds the number itself, e.g. ${number}`);
		});

		test('any other link is a link', () => {
			expect(rejects('https://example.com/contact', /is a link, not a phone number$/).hint).toBe('Map the column that holds the phone number');
		});
	});

	describe('never a digit added or lost', () => {
		const separator = fc.constantFrom(' ', '-', '.', '\u00a0', '\u2009', '\u2013', '\u2212', '(', ')', '/', '\u202a', '\u200e', '\u2066', '\u200b', '');
		const digitsOf = (text: string) => text.replace(/[^0-9]/g, '');
		// Where a documented rule drops a 0 the generator happened to write (tested by the tables above):
		// a 0 alone in brackets after the country code; one or two digits after a dot that ends a whole
		// number (a decimal: its .0 is dropped, another fraction refused); a 0 right after the country code.
		// Refused by rule: a single dot before one or two digits that end the cell, or before zeros alone, one set apart by
		// a space before them, and a last group of one digit after a dot (a decimal part or digits?); one to four digits
		// after a cell's one slash that follows more than an area code (another ending of it), and between more slashes a lone
		// group shorter than the one before it;
		// digits in brackets that end the cell (an extension); without a country code, North America's way of writing a number.
		const byRule = (cell: string) => {
			const plain = cell.replace(/[\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim();
			const digits = (text: string) => text.replace(/\D/g, '').length;
			// Any one slash before one to four digits (the rule also asks for more than an area code before it).
			const parts = plain.split(/\/+/).filter((part) => digits(part) > 0);
			const slashEnding = parts.length === 2 && digits(parts[1]) >= 1 && digits(parts[1]) <= 4;
			const groups = (part: string) => part.match(/\d+/g) ?? [];
			const endings = parts.length > 2 && parts.slice(1).some((part, i) => groups(part).length === 1 && (groups(part)[0] ?? '').length < (groups(parts[i]).at(-1) ?? '').length);
			const dotEnding = /^[^.]*\.(\d{1,2}|0{3,})$/.test(plain) || /\d(\s+\.\s*\d{1,2}|\.\s+\d{1,2}|\.\d)$/.test(plain);
			const northAmerican = /^\(?[2-9]\d{2}\)?[\s.-]*[2-9]\d{2}[\s.-]+\d{4}$/.test(plain);
			return /\(\P{Nd}*0\P{Nd}*\)/u.test(plain) || dotEnding || slashEnding || endings || /\d\s*\(\s*\d{1,6}\s*\)$/.test(plain) || northAmerican;
		};
		const zeroAfterCountryCode = (digits: string) => digits.slice(countryCodeOf(digits).length).startsWith('0');
		// Numbers no country has: +1 and +7 take 10 digits (+1's first from 2 to 9), and 14 digits or more that repeat the country code.
		const noSuchNumber = (digits: string) => {
			const code = countryCodeOf(digits);
			const national = digits.slice(code.length);
			if (code === '1') return !/^[2-9]\d{9}$/.test(national);
			if (code === '7') return national.length !== 10;
			return digits.length >= 14 && national.startsWith(code);
		};

		test('any number written with any separators and marks goes to its own digits', () => {
			const number = fc.tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 6, maxLength: 14 })).map(([first, rest]) => [first, ...rest].join(''));
			fc.assert(
				fc.property(number, fc.array(separator, { minLength: 15, maxLength: 15 }), fc.constantFrom('+', '00', "'+", ''), (digits, separators, prefix) => {
					const cell = prefix + [...digits].map((digit, i) => digit + separators[i]).join('');
					fc.pre(!byRule(cell) && !zeroAfterCountryCode(digits) && !noSuchNumber(digits));
					expect(normalisePhoneNumber(cell)).toBe(digits);
				}),
				{ numRuns: 2000 },
			);
		});

		test("whatever a cell holds, a number it is taken as is the cell's digits in their order, less at most a leading 00, one trunk 0 and a .0", () => {
			const character = fc.oneof(fc.constantFrom(...'0123456789'), separator, fc.constantFrom('+', "'", 'x', 'e', 'E', ',', '#', 'a', '☎', '\u0007', '0', '(0)', '.0'));
			fc.assert(
				fc.property(fc.array(character, { maxLength: 30 }), (parts) => {
					const cell = parts.join('');
					let sent: string;
					try {
						sent = normalisePhoneNumber(cell);
					} catch (error) {
						expect(error).toBeInstanceOf(InvalidFieldError);
						return;
					}
					// Every digit sent is the cell's, in order; only zeros were left out, at most five.
					const given = digitsOf(cell);
					let at = 0;
					const dropped: string[] = [];
					for (const digit of given) {
						if (at < sent.length && sent[at] === digit) at++;
						else dropped.push(digit);
					}
					expect(at).toBe(sent.length);
					expect(dropped.every((digit) => digit === '0')).toBe(true);
					expect(dropped.length).toBeLessThanOrEqual(5);
				}),
				{ numRuns: 5000 },
			);
		});

		test('with Default Country Code, a leading 0 is replaced by the code and nothing else changes', () => {
			// A second 0 would make it 00…, the international prefix. Countries whose leading 0 is a trunk prefix (a 0 elsewhere is refused: see above).
			const local = fc.tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 5, maxLength: 10 })).map(([second, rest]) => `0${second}${rest.join('')}`);
			fc.assert(
				fc.property(local, fc.constantFrom('62', '+62', '44', '49'), fc.array(separator, { minLength: 12, maxLength: 12 }), (digits, code, separators) => {
					const cell = [...digits].map((digit, i) => digit + separators[i]).join('');
					fc.pre(!byRule(cell));
					expect(normalisePhoneNumber(cell, code)).toBe(code.replace('+', '') + digits.slice(1));
				}),
				{ numRuns: 1000 },
			);
		});
	});
});


describe('numbers no country has, that sheets make of real ones, are refused: sent, they would reach someone else', () => {
	test.each<[string, string | undefined, RegExp]>([
		['+62 62 812 3456 7890', undefined, /holds country code 62 twice/],
		['+62 6281234567890', '62', /holds country code 62 twice/],
		['62 62 812 3456 7890', '62', /holds country code 62 twice/],
		['0062 62 812 3456 7890', undefined, /holds country code 62 twice/],
		['+44 44 7911 123456', undefined, /holds country code 44 twice/],
		['+91 919876543210', '91', /holds country code 91 twice/],
		['+1 1-212-555-0100', '1', /has 11 digits after country code 1 \(1212…\); numbers there have 10, the first from 2 to 9/],
		['+11 212 555 0100', undefined, /after country code 1/],
		// Australia's international prefix 0011 and Indonesia's 001, read as 00 and a country code 1.
		['0011 44 20 7946 0958', '61', /after country code 1/],
		['001 62 812 3456 7890', '62', /after country code 1/],
		// Russia's trunk 8 after +7.
		['+7 8 (912) 345-67-89', undefined, /has 11 digits after country code 7/],
		// Japan's international prefix 010 and Israel's carriers' 012 to 019, where no local number starts with them.
		['010 33 1 23 45 67 89', '81', /starts with 010, the international prefix dialled from country code 81/],
		['010-1-212-555-0100', '81', /starts with 010, the international prefix dialled from country code 81/],
		['014 44 20 7946 0958', '972', /starts with 014, the international prefix dialled from country code 972/],
	])('%j (Default Country Code %s)', (cell, defaultCountryCode, problem) => {
		expect(() => normalisePhoneNumber(cell, defaultCountryCode)).toThrow(problem);
	});

	test.each<[string, string]>([
		['+1 212 555 0100', '12125550100'],
		['+7 912 345 6789', '79123456789'],
		// Kazakhstan's numbers start with 7 after +7.
		['+7 777 123 4567', '77771234567'],
		// Area codes that start with the country code's digits: Pangkalan Brandan (0620), Emden (04921).
		['+62 620 123 4567', '626201234567'],
		['+49 4921 1234567', '4949211234567'],
	])('%j is still its own number', (cell, digits) => {
		expect(normalisePhoneNumber(cell)).toBe(digits);
	});
});

describe('separators and digits as other scripts and web pages write them', () => {
	const dashes = ['\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2212', '\uff0d', '\ufe63'];

	test.each(dashes)('a North American number without its 1, grouped with U+%s: refused, never sent to the country its area code spells', (dash) => {
		for (const cell of [`(212) 555${dash}0100`, `212${dash}555${dash}0100`, `(475) 555 ${dash} 0123`, `' (212) 555${dash}0100`]) {
			expect(() => normalisePhoneNumber(cell)).toThrow(/is written as a North American number without its country code 1/);
		}
	});

	test.each(['\r', '\v', '\f', '\u0085', '\u2028', '\u2029', '\r\n'])('a second number after %j is refused as two numbers, as after \\n, never glued onto the first', (lineBreak) => {
		for (const [cell, countryCode] of [[`+62 21 555 1234${lineBreak}1235`, undefined], [`5551234${lineBreak}5551235`, undefined], [`(021) 555 1234${lineBreak}35`, '62']]) {
			expect(() => normalisePhoneNumber(cell, countryCode)).toThrow(/holds more than one number$/);
		}
	});

	test.each([
		['\u0660\u0668\u0661\u0662 \u0663\u0664\u0665\u0666 \u0667\u0668\u0669\u0660', '62', '6281234567890'],
		['+\u06f9\u06f8 \u06f9\u06f1\u06f2 \u06f3\u06f4\u06f5 \u06f6\u06f7\u06f8\u06f9', undefined, '989123456789'],
		['+\uff16\uff12 \uff18\uff11\uff12 \uff13\uff14\uff15\uff16 \uff17\uff18\uff19\uff10', undefined, '6281234567890'],
		['+\u096f\u0967 \u096f\u096e\u096d\u096c\u096b \u096a\u0969\u0968\u0967\u0966', undefined, '919876543210'],
	])('%j (Default Country Code %s): the digits of its script are the number\'s digits, %s', (cell, countryCode, digits) => {
		expect(normalisePhoneNumber(cell, countryCode)).toBe(digits);
	});

	test.each(['+62 21 555 1234\t1235', '+62\t812 3456 7890', '0812\t3456\t7890'])('%j: a tab may set two numbers apart or two parts of one, refused as such', (cell) => {
		expect(() => normalisePhoneNumber(cell, '62')).toThrow(/contains a tab, which may set two numbers apart \(two cells copied together\) or two parts of one: the node cannot tell which$/);
	});

	test.each(['\u0085', '\n', '\t', '\u2028'])('%j at either end is trimmed, as spaces are', (end) => {
		expect(normalisePhoneNumber(`${end}+62 812 3456 7890${end}`)).toBe('6281234567890');
	});

	test.each(['01-0 33 1 23 45 67 89', '0-10 33 1 23 45 67 89'])('%j with 81: Japan\'s international prefix, however it is grouped, on the fast path too', (cell) => {
		expect(() => normalisePhoneNumber(cell, '81')).toThrow(/starts with 010, the international prefix dialled from country code 81/);
	});

	test.each(['\u00ad', '\u061c', '\u180e'])('U+%s (a soft hyphen, an Arabic direction mark, a Mongolian vowel separator) is dropped, as other marks that do not show', (mark) => {
		expect(normalisePhoneNumber(`${mark}+62 812${mark}3456 7890`)).toBe('6281234567890');
	});

	test('a Default Country Code that is refused shows a mark copied along with it', () => {
		expect(() => normalisePhoneNumber('0812 3456 7890', '\u200e62')).toThrow('Default Country Code: "⟨U+200E⟩62" is not a country code');
	});

	test('a negative number cell is said to be one', () => {
		expect(() => normalisePhoneNumber(-447700900123)).toThrow('Phone Number: -447700900123 is a negative number, not a phone number');
	});
});

describe('Default Country Code mapped from a column, empty in a row', () => {
	test.each([
		['81234567890', undefined],
		['81234567890', ''],
		['81234567890', '  '],
		['0812 3456 7890', ''],
		['447700900123', null],
	])('%j with %j: refused, the country is not known (never sent as if international)', (cell, countryCode) => {
		expect(() => normalisePhoneNumber(cell, countryCode, { mapped: true, countryCodeMapped: true })).toThrow(/has no \+ or 00, and Options → Default Country Code is empty for this item \(its expression gave nothing\): the node cannot tell which country the number is local to$/);
	});

	test.each([
		['+44 7700 900123', '447700900123'],
		['0044 7700 900123', '447700900123'],
	])('%j, written with its country code, goes: %s', (cell, digits) => {
		expect(normalisePhoneNumber(cell, '', { mapped: true, countryCodeMapped: true })).toBe(digits);
	});

	test('typed, not mapped, an empty Default Country Code is no country code, as before', () => {
		expect(normalisePhoneNumber('447700900123', '', { mapped: true })).toBe('447700900123');
	});
});

describe("chosen by an AI model ($fromAI), without Default Country Code", () => {
	const chosenByModel = { mapped: true, chosenByModel: true };

	test.each(['812 3456 7890', '98765 43210', '6281234567890', '0812 3456 7890', '(212) 555-0100'])('%j: refused, naming the fix (a left-out code would send it abroad)', (cell) => {
		expect(() => normalisePhoneNumber(cell, undefined, chosenByModel)).toThrow(/has no \+ in front: a number chosen by the AI model must start with \+ \(or 00\) and its country code, so that one without it cannot go to another country$/);
	});

	test.each([
		['+62 812 3456 7890', '6281234567890'],
		['0062 812 3456 7890', '6281234567890'],
		['+1 (212) 555-0100', '12125550100'],
	])('%j, with its country code: %s', (cell, digits) => {
		expect(normalisePhoneNumber(cell, undefined, chosenByModel)).toBe(digits);
	});

	test('with Default Country Code set, its local numbers are read as any other', () => {
		expect(normalisePhoneNumber('0812 3456 7890', '62', chosenByModel)).toBe('6281234567890');
	});
});
