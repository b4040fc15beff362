import { InvalidFieldError } from '../shared/InvalidFieldError';
import { describeValue, quote } from './text';
import { optionPath } from '../shared/contracts';

const FIELD = 'Phone Number';
// E.164 allows at most 15 digits including the country code; the shortest real numbers
// (small countries) are about 7 digits with their code.
const MIN_DIGITS = 7;
const MAX_DIGITS = 15;
// Separators included, no real number is longer.
const MAX_TEXT_LENGTH = 40;
// Characters people and spreadsheets put between digits: spaces (any Unicode space), dashes,
// dots, slashes and parentheses.
const SEPARATORS = /[\s\u00a0\u2000-\u200b\u202f\u205f\u3000\-\u2010-\u2015.()/]/g;

/**
 * Turns what a user or a spreadsheet gives as a phone number into the digits the API expects:
 * country code followed by the number, no "+" (the spec accepts both; one canonical form keeps
 * outputs comparable).
 */
export function normalisePhoneNumber(raw: unknown, defaultCountryCode?: unknown): string {
	const text = phoneText(raw);
	if (text.length > MAX_TEXT_LENGTH) {
		throw new InvalidFieldError(FIELD, `${quote(text)} is too long for a phone number`, 'Map the column that holds the phone number');
	}
	const compact = text.replace(SEPARATORS, '');
	if (compact === '') {
		throw new InvalidFieldError(FIELD, 'is empty', 'Map a column or enter the recipient number, e.g. +62 812 3456 7890');
	}

	let digits: string;
	if (compact.startsWith('+')) {
		digits = compact.slice(1);
	} else if (compact.startsWith('00')) {
		digits = compact.slice(2);
	} else if (compact.startsWith('0')) {
		const countryCode = normaliseCountryCode(defaultCountryCode);
		if (countryCode === undefined) {
			throw new InvalidFieldError(
				FIELD,
				`${quote(text)} starts with 0, a local number without country code`,
				`Write it with its country code (e.g. +62 812…), or set ${optionPath('defaultCountryCode')} so that a leading 0 is replaced by it`,
			);
		}
		digits = countryCode + compact.slice(1);
	} else {
		digits = compact;
	}

	if (!/^\d+$/.test(digits)) {
		throw new InvalidFieldError(FIELD, `${quote(text)} contains characters other than digits`, 'Use digits only, optionally with a leading +, spaces, dashes or parentheses');
	}
	if (digits.startsWith('0')) {
		throw new InvalidFieldError(FIELD, `${quote(text)} has no valid country code (country codes never start with 0)`, 'Start the number with its country code, e.g. +62 812 3456 7890');
	}
	if (digits.length < MIN_DIGITS || digits.length > MAX_DIGITS) {
		throw new InvalidFieldError(
			FIELD,
			`${quote(text)} has ${digits.length} digits; a number with its country code has ${MIN_DIGITS} to ${MAX_DIGITS}`,
			'Check the number is complete and starts with its country code, e.g. +62 812 3456 7890',
		);
	}
	return digits;
}

function phoneText(raw: unknown): string {
	if (typeof raw === 'string') return raw.trim();
	// Spreadsheets often hand numbers over as numbers.
	if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw > 0) return String(raw);
	if (raw === undefined || raw === null) return '';
	throw new InvalidFieldError(FIELD, `expected text or a whole number, got ${describeValue(raw)}`, 'Map the column that holds the phone number');
}

function normaliseCountryCode(raw: unknown): string | undefined {
	if (raw === undefined || raw === null || raw === '') return undefined;
	const code = String(raw).trim().replace(/^\+/, '');
	if (!/^[1-9]\d{0,2}$/.test(code)) {
		throw new InvalidFieldError('Default Country Code', `"${String(raw)}" is not a country code`, 'Use 1 to 3 digits, e.g. 62 or +62');
	}
	return code;
}
