import { InvalidFieldError } from '../shared/InvalidFieldError';
import { describeValue, quote, visible } from './text';
import { optionPath, optionName } from '../shared/options';
import { FIELD } from '../shared/fieldNames';

// E.164: at most 15 digits with the country code; the shortest real numbers (small countries) have about 7.
const MIN_DIGITS = 7;
const MAX_DIGITS = 15;
// No real number is longer, separators included.
const MAX_TEXT_LENGTH = 40;
// What people, phones and spreadsheets put between digits: any Unicode space, every dash (minus, full-width), . / ( )
const SEPARATORS = /[\s\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\-\u2010-\u2015\u2212\ufe58\ufe63\uff0d.()/]/g;
// Unseen marks a phone or chat app copies along with a number (direction marks, zero-widths, BOM): dropped.
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
// "+62 (0)812…", "0044 (0)20…": a country code, then a trunk 0 in brackets, as Indonesian and British numbers are often written.
const TRUNK_ZERO = /^(\+|00)?([1-9]\d{0,2})[\s\u00a0]*\(0\)/;

/**
 * Country code and number, no "+" (the spec accepts both; one form keeps outputs comparable). The cell's own digits, changed
 * only by: a leading + or 00, a bracketed trunk 0 and a spreadsheet's ".0" dropped; a leading 0 replaced by Default Country
 * Code. Anything else that is not a separator is refused, naming it: never a digit added or lost.
 */
export function normalisePhoneNumber(raw: unknown, defaultCountryCode?: unknown, mapped = false): string {
	const given = phoneText(raw);
	// A leading apostrophe is how Sheets and Excel keep a number as text.
	const text = given.replace(INVISIBLE, '').trim().replace(/^'/, '');
	if (text.length > MAX_TEXT_LENGTH) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${shown(given)} is too long for a phone number`, 'Map the column that holds the phone number');
	}
	refuseWhatIsNotANumber(text, given);
	const compact = wholeNumber(text, given).replace(TRUNK_ZERO, '$1$2').replace(SEPARATORS, '');
	if (compact === '') {
		throw new InvalidFieldError(
			FIELD.phoneNumber,
			'is empty',
			mapped ? 'The column mapped to it is empty in this row: fill the cell, or leave rows without a number out with a Filter step before this node' : 'Map a column or enter the recipient number, e.g. +62 812 3456 7890',
		);
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
				FIELD.phoneNumber,
				`${shown(given)} starts with 0, a local number without country code`,
				`Write it with its country code (e.g. +62 812…), or set ${optionPath('defaultCountryCode')} so that a leading 0 is replaced by it`,
			);
		}
		digits = countryCode + compact.slice(1);
	} else {
		digits = compact;
	}

	if (!/^\d+$/.test(digits)) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${shown(given)} contains ${describeOthers(digits, text)}, which no phone number has`, 'Use digits only, optionally with a leading +, spaces, dashes or parentheses');
	}
	if (digits.startsWith('0')) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${shown(given)} has no valid country code (country codes never start with 0)`, 'Start the number with its country code, e.g. +62 812 3456 7890');
	}
	if (digits.length < MIN_DIGITS || digits.length > MAX_DIGITS) {
		throw new InvalidFieldError(
			FIELD.phoneNumber,
			`${shown(given)} has ${digits.length} digits; a number with its country code has ${MIN_DIGITS} to ${MAX_DIGITS}`,
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
	if (typeof raw === 'number' && Number.isFinite(raw) && raw > 0 && !Number.isInteger(raw)) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${raw} is a decimal number, not a phone number`, 'Map the column that holds the phone number, formatted as plain text');
	}
	throw new InvalidFieldError(FIELD.phoneNumber, `expected text or a whole number, got ${describeValue(raw)}`, 'Map the column that holds the phone number');
}

/** A spreadsheet's "6281234567890.0" is the whole number; scientific notation has lost digits; other fractions are no number. */
function wholeNumber(text: string, given: string): string {
	if (/^\+?\d+(\.\d+)?e\+?\d+$/i.test(text)) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${shown(given)} is in scientific notation, which has lost the number's last digits`, 'Format the column as plain text (or as a number with no decimals) in the sheet, then read it again');
	}
	const decimal = /^(\+?\d+)\.(\d{1,2})$/.exec(text);
	if (!decimal) return text;
	if (/^0+$/.test(decimal[2])) return decimal[1];
	throw new InvalidFieldError(FIELD.phoneNumber, `${shown(given)} is a decimal number, not a phone number`, 'Map the column that holds the phone number, formatted as plain text');
}

function refuseWhatIsNotANumber(text: string, given: string): void {
	const twoNumbers =
		(text.match(/\+/g) ?? []).length > 1 ||
		/[,;|&\n]|\d\s*\b(?:or|atau|and|dan)\b\s*\+?\d/i.test(text) ||
		slashedNumbers(text);
	if (twoNumbers) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${shown(given)} holds more than one number`, 'Give one number per row: split the cell, or map the column that holds the number to message');
	}
	const extension = /(?:ext\.?|extension|x|#)\s*\d+$/i.exec(text);
	if (extension && /\d/.test(text.slice(0, extension.index))) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${shown(given)} has an extension (${extension[0]}), which a messaging number does not`, 'Give the mobile number alone');
	}
}

/** "0812 3456 7890 / 0813 1111 2222": parts of a number each, where together they cannot be one. */
function slashedNumbers(text: string): boolean {
	const parts = text.split('/').map((part) => part.trim());
	const digits = (part: string) => (part.match(/\d/g) ?? []).length;
	if (parts.filter((part) => digits(part) >= MIN_DIGITS).length < 2) return false;
	return parts.reduce((sum, part) => sum + digits(part), 0) > MAX_DIGITS + 2 || parts.slice(1).some((part) => part.startsWith('+'));
}

/** Letters as they are, the rest as ⟨U+XXXX⟩ where it does not show. */
function describeOthers(digits: string, text: string): string {
	const others = digits.replace(/\d/g, '');
	if (/^\p{L}+$/u.test(others)) return `letters (${(text.match(/\p{L}+/gu) ?? []).join(' ')})`;
	return `characters other than digits (${visible([...new Set(others)].join(''))})`;
}

function shown(given: string): string {
	return quote(visible(given));
}

function normaliseCountryCode(raw: unknown): string | undefined {
	if (raw === undefined || raw === null || raw === '') return undefined;
	const code = String(raw).trim().replace(/^\+/, '');
	if (!/^[1-9]\d{0,2}$/.test(code)) {
		throw new InvalidFieldError(optionName('defaultCountryCode'), `"${String(raw)}" is not a country code`, 'Use 1 to 3 digits, e.g. 62 or +62');
	}
	return code;
}
