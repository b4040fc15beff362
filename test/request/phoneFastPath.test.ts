/**
 * The clean forms' fast path (cleanPhoneNumber) against the whole reading (readPhoneNumber): on every cell the fast path takes,
 * the whole reading gives the same digits and refuses nothing; the fast path may only leave cells to it. Generated cells sit on
 * the fast path's edges: a 0 after the country code, lengths around 7 and 15, one separator more, a leading 0 with and
 * without a Default Country Code its rule knows, Default Country Code set for a number without +.
 */
import fc from 'fast-check';

import { InvalidFieldError } from '../../nodes/TemplateMessage/shared/InvalidFieldError';
import { cleanPhoneNumber, normalisePhoneNumber, readPhoneNumber } from '../../nodes/TemplateMessage/request/phone';

const digitRun = (minLength: number, maxLength: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength, maxLength }).map((digits) => digits.join(''));

const countryCode = fc.oneof(
	// Short codes, codes whose 0 is a trunk prefix or part of the number, codes without a rule, a non-code.
	fc.constantFrom('1', '7', '62', '44', '39', '55', '52', '49', '91', '225', '379', '380', '971', '999', '21', '0', '10', '12', '81'),
	fc.integer({ min: 1, max: 999 }).map(String),
);
const separator = fc.constantFrom(' ', '-', '', '', '  ', '.', '/', '\u00a0', '\u2013', '(0)', ',', ' - ', '\u200e');
const cell = fc
	.tuple(
		fc.constantFrom('', '', '+', '+', '++', '00', '0', "'", ' ', '+0', '+ ', '\u200e+', 'https://wa.me/'),
		countryCode,
		fc.constantFrom('', '', '', '0', '00', ' 0', '(0)'),
		fc.array(fc.tuple(separator, digitRun(1, 5)), { minLength: 0, maxLength: 5 }),
		fc.constantFrom('', '', '', ' ', '.0', '.5', 'x12', ' ext 4', '\n', '/0812 3456 7890', ' or +62 811 2233 4455'),
	)
	.map(([prefix, code, zero, groups, suffix]) => prefix + code + zero + groups.map(([between, digits]) => between + digits).join('') + suffix);
// Mostly the fast path's own forms, so that its edges (the 0, the lengths, the country codes) are walked many times.
const cleanish = fc
	.tuple(fc.constantFrom('', '+', '+', '0', '0'), countryCode, fc.constantFrom('', '', '', '0', '00'), fc.array(fc.tuple(fc.constantFrom(' ', '-', ''), digitRun(1, 5)), { maxLength: 5 }))
	.map(([prefix, code, zero, groups]) => prefix + code + zero + groups.map(([between, digits]) => between + digits).join(''));
const anyCell = fc.oneof(
	{ weight: 5, arbitrary: cleanish },
	{ weight: 4, arbitrary: cell },
	{ weight: 1, arbitrary: fc.maxSafeInteger() },
	{ weight: 1, arbitrary: fc.oneof(fc.double(), fc.constant(undefined), fc.constant(null), fc.boolean(), fc.string({ maxLength: 20 })) },
);
const defaultCountryCode = fc.oneof(
	fc.constantFrom<unknown>(undefined, ''),
	// Japan and Israel, whose prefixes for calling abroad start with one 0 (010, 012 to 019).
	fc.constantFrom<unknown>(null, '  ', '62', '+62', ' 44 ', '39', '225', '55', '1', '2', '0', '1000', 'abc', 62, 44.5, true, ['62'], '81', '972'),
);

type Outcome = { digits: string } | { refused: string; hint: string | undefined };
function outcome(read: () => string): Outcome {
	try {
		return { digits: read() };
	} catch (error) {
		if (!(error instanceof InvalidFieldError)) throw error;
		return { refused: error.message, hint: error.hint };
	}
}

describe('the clean forms take a fast path that agrees with the whole reading', () => {
	test('every cell the fast path takes, the whole reading gives the same digits for, refusing none', () => {
		let taken = 0;
		let takenLocal = 0;
		let left = 0;
		fc.assert(
			fc.property(anyCell, defaultCountryCode, (raw, code) => {
				const fast = cleanPhoneNumber(raw, code);
				if (fast === undefined) {
					left++;
					return;
				}
				taken++;
				if (typeof raw === 'string' && raw.trim().startsWith('0')) takenLocal++;
				expect(outcome(() => readPhoneNumber(raw, code))).toEqual({ digits: fast });
			}),
			{ numRuns: 20_000, seed: 20261125 },
		);
		// Both sides of the edge were generated, each many times, local numbers with a leading 0 among those taken.
		expect(taken).toBeGreaterThan(1_000);
		expect(takenLocal).toBeGreaterThan(100);
		expect(left).toBeGreaterThan(1_000);
	});

	test("a prefix for calling abroad that starts with one 0 (Japan's 010, Israel's 012 to 019) is seen however the cell groups it", () => {
		const grouped = fc
			.tuple(fc.constantFrom('010', '012', '014', '019', '011', '020'), digitRun(8, 11), fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 3 }), fc.constantFrom(' ', '-'))
			.map(([prefix, rest, cuts, between]) => [...new Set(cuts)].sort((a, b) => b - a).reduce((text, cut) => text.slice(0, cut) + between + text.slice(cut), prefix + rest));
		fc.assert(
			fc.property(grouped, fc.constantFrom('81', '972', '62'), (raw, code) => {
				const fast = cleanPhoneNumber(raw, code);
				if (fast !== undefined) expect(outcome(() => readPhoneNumber(raw, code))).toEqual({ digits: fast });
			}),
			{ numRuns: 5_000, seed: 20261129 },
		);
	});

	test('normalisePhoneNumber answers as the whole reading does, digits and refusals alike', () => {
		fc.assert(
			fc.property(anyCell, defaultCountryCode, fc.boolean(), (raw, code, mapped) => {
				expect(outcome(() => normalisePhoneNumber(raw, code, { mapped }))).toEqual(outcome(() => readPhoneNumber(raw, code, mapped)));
			}),
			{ numRuns: 5_000, seed: 20261126 },
		);
	});

	test.each([
		['+6281234567890', undefined, '6281234567890'],
		['6281234567890', undefined, '6281234567890'],
		['6281234567890', '', '6281234567890'],
		['+62 812-3456-7890', '62', '6281234567890'],
		['+62 812 00000001', undefined, '6281200000001'],
		['  +44 20 7946 0958 ', undefined, '442079460958'],
		[6281234567890, undefined, '6281234567890'],
		['0812-3456-7890', '62', '6281234567890'],
		['0812 3456 7890', ' +62 ', '6281234567890'],
		['020 7946 0958', 44, '442079460958'],
	])('%j (Default Country Code %j) takes the fast path', (raw, code, digits) => {
		expect(cleanPhoneNumber(raw, code)).toBe(digits);
	});

	test.each([
		['+62 0812 3456 7890', undefined], // a trunk 0: its country's rule
		['+1 012 345 6789', undefined], // a 0 with no rule: refused
		['+62.812.3456.7890', undefined], // dots: "62.81" would be a decimal
		['6281234567890', '62'], // no +, Default Country Code set: may be local
		['+62 812', undefined], // too short
		['+62 812 3456 7890 123', undefined], // too long
		['+62  812 3456 7890', undefined], // two spaces in a row
		['0812 3456 7890', undefined], // a 0 without Default Country Code: refused
		['0812 3456 7890', 'abc'], // Default Country Code refused
		['011 98765 4321', '55'], // a 0 with no rule for the country
		['06 6982 1234', '39'], // a 0 that is part of the number: the whole reading keeps it
		['00 62 812 3456 7890', undefined], // 00, the international prefix
	])('%j (Default Country Code %j) is left to the whole reading', (raw, code) => {
		expect(cleanPhoneNumber(raw, code)).toBeUndefined();
	});
});
