import { InvalidFieldError } from '../shared/InvalidFieldError';
import { HIDDEN_MARKS } from '../shared/invisibleCharacters';
import type { PhoneSource } from '../shared/contracts';
import { describeValue, isEmptyValue, quote, refuseLostDigits, visible } from './text';
import { optionPath } from '../shared/options';
import type { ZeroAfterCountryCode } from './countryCodes';
import { countryCodeIn, countryCodeOf, readDefaultCountryCode, zeroAfterCountryCode } from './countryCodes';
import { FIELD } from '../shared/fieldNames';

// E.164: at most 15 digits with the country code; the shortest real numbers (small countries) have about 7.
const MIN_DIGITS = 7;
const MAX_DIGITS = 15;
// No real number is longer, separators included.
const MAX_TEXT_LENGTH = 40;
// What people, phones and spreadsheets put between digit groups: any Unicode space, every dash (minus, full-width), a dot.
const GROUP_SEPARATORS = '\\s\\-\\u2010-\\u2015\\u2212\\ufe58\\ufe63\\uff0d.';
const GROUP_SEPARATOR = `[${GROUP_SEPARATORS}]`;
// Those, and / ( ): what is dropped between digits, once no line break or tab sets two numbers apart.
const SEPARATORS = new RegExp(`[${GROUP_SEPARATORS}()/]`, 'g');
// What sets one line of a cell apart from the next (trimmed at its ends: JavaScript's trim leaves NEL).
const LINE_BREAK = /[\n\r\v\f\u0085\u2028\u2029]/;
// Unseen marks a phone or chat app copies along with a number (direction marks, zero-widths, BOM): dropped,
// and with them what no number needs but the preview leaves be: the zero-width (non-)joiners, written
// in emoji and some scripts, and the invisible operators U+2061 to U+2064.
const INVISIBLE = new RegExp(`[${HIDDEN_MARKS}\\u200c\\u200d]`, 'g');
// "+62 (0)812…", "0044 (0)20…": a country code, then a trunk 0 in brackets, as Indonesian and British numbers are often written.
const TRUNK_ZERO = /^(\+|00)?([1-9]\d{0,2})[\s\u00a0]*\(0\)/;
// "https://wa.me/6281234567890", "api.whatsapp.com/send?phone=62…": a chat link, with the number it opens.
const CHAT_LINK = /(?:wa\.me\/|[?&]phone=)\+?(\d+)/i;
const LINK = /^(?:[a-z][a-z\d+.-]*:\/\/|www\.|(?:api\.)?wa\.me\/|api\.whatsapp\.com\/)/i;
// "6,281,234,567,890": a number cell shown with digit grouping, copied as text.
const COMMA_GROUPED = /^\+?\d{1,3}(?:,\d{3})+(?:\.0{1,2})?$/;

/**
 * Country code and number, no "+" (the spec accepts both; one form keeps outputs comparable). The cell's own digits, changed
 * only by: a leading + or 00, a trunk 0 after the country code (by its country's rule) and a spreadsheet's ".0" dropped; a
 * leading 0 replaced by Default Country Code (or kept after it, where it is part of the number). Anything else that is not a separator is refused, naming it: never a digit added or lost.
 */
export function normalisePhoneNumber(raw: unknown, defaultCountryCode?: unknown, { mapped = false, countryCodeMapped = false, chosenByModel = false }: PhoneSource = {}): string {
	if (isEmptyValue(defaultCountryCode)) {
		// Mapped from a column and empty in this row: which country a number without + or 00 is local to is not known.
		if (countryCodeMapped) return readPhoneNumber(raw, undefined, mapped, 'countryCodeLeftEmpty');
		// An AI model leaves a country code out as readily as it writes one: "812 3456 7890" would go to Japan.
		if (chosenByModel) return readPhoneNumber(raw, undefined, mapped, 'chosenByModel');
	}
	return cleanPhoneNumber(raw, defaultCountryCode) ?? readPhoneNumber(raw, defaultCountryCode, mapped);
}

/** Why a number must have + or 00 in front, when it must: no Default Country Code to read a local number by. */
type PlusRequired = 'countryCodeLeftEmpty' | 'chosenByModel';



// "+6281234567890", "+62 812-3456-7890", "6281234567890", "0812-3456-7890": a +, a 0 or none, then digit groups, one space or
// dash between them. Nothing else is in it: no letter, comma, dot, slash, bracket, 00 or second +, so no refusal below can apply.
const CLEAN = /^(?:\+?[1-9]|0[1-9])\d*(?:[ -]\d+)*$/;
const CLEAN_SEPARATORS = /[ -]/g;

/**
 * The common clean forms, in one scan: what readPhoneNumber would return for them, or undefined to leave the cell to it (a
 * number without + while Default Country Code is set, a 0 without a valid Default Country Code or a rule for it, a 0 after
 * the country code, a length out of bounds, anything else).
 */
export function cleanPhoneNumber(raw: unknown, defaultCountryCode?: unknown): string | undefined {
	let text: string;
	if (typeof raw === 'string') text = raw.trim();
	else if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw > 0) text = String(raw);
	else return undefined;
	if (text.length > MAX_TEXT_LENGTH || !CLEAN.test(text)) return undefined;
	const first = text.charCodeAt(0);
	let digits: string;
	if (first === 43) {
		// +
		digits = text.slice(1).replace(CLEAN_SEPARATORS, '');
	} else if (first === 48) {
		// 0: a local number, Default Country Code in front of it by its country's rule.
		const code = countryCodeIn(defaultCountryCode);
		const zero = code === undefined ? undefined : zeroAfterCountryCode(code);
		const local = text.replace(CLEAN_SEPARATORS, '');
		if (zero === undefined || INTERNATIONAL_PREFIX_AFTER_ONE_ZERO[code!]?.test(local)) return undefined;
		digits = code + (zero === 'part of the number' ? local : local.slice(1));
	} else {
		// Without + or 0, Default Country Code decides whether the number is local.
		if (!(defaultCountryCode === undefined || defaultCountryCode === null || defaultCountryCode === '')) return undefined;
		if (NORTH_AMERICAN_WITHOUT_CODE.test(text)) return undefined;
		digits = text.replace(CLEAN_SEPARATORS, '');
	}
	if (digits.length < MIN_DIGITS || digits.length > MAX_DIGITS) return undefined;
	if (digits.charCodeAt(countryCodeOf(digits).length) === 48) return undefined; // a 0 after the country code: its country's rule
	if (implausible(digits) !== undefined) return undefined;
	return digits;
}

/** The whole reading, every refusal included. */
export function readPhoneNumber(raw: unknown, defaultCountryCode?: unknown, mapped = false, plusRequired?: PlusRequired): string {
	const asWritten = phoneText(raw);
	// A leading apostrophe is how Sheets and Excel keep a number as text.
	const text = withAsciiDigits(trimmed(trimmed(asWritten.replace(INVISIBLE, '')).replace(/^'/, '')));
	refuseLink(text, asWritten);
	if (text.length > MAX_TEXT_LENGTH) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${shown(asWritten)} is too long for a phone number`, 'Map the column that holds the phone number');
	}
	const whole = wholeNumber(text, asWritten);
	refuseWhatIsNotANumber(whole, asWritten);
	const bracketedAfter = TRUNK_ZERO.exec(whole)?.[2];
	const compact = whole.replace(TRUNK_ZERO, '$1$2 0').replace(SEPARATORS, '');
	if (compact === '') {
		throw new InvalidFieldError(
			FIELD.phoneNumber,
			'is empty',
			mapped ? 'The column mapped to it is empty in this row: fill the cell, or leave rows without a number out with a Filter step before this node' : 'Map a column or enter the recipient number, e.g. +62 812 3456 7890',
		);
	}

	// Said before any problem of the prefix: no other fix would make it a number.
	const written = compact.replace(/^\+/, '');
	if (!/^\d+$/.test(written)) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${shown(asWritten)} contains ${describeOthers(written, text)}, which no phone number has`, 'Use digits only, optionally with a leading +, spaces, dashes or parentheses');
	}

	let digits: string;
	let local = false;
	if (compact.startsWith('+')) {
		digits = compact.slice(1);
	} else if (compact.startsWith('00')) {
		// "(0)0812…", "0 0812…": a marked trunk 0, or a stray one, before a local number's own 0 is not the prefix 00.
		if (!/^\(?00/.test(whole)) {
			throw new InvalidFieldError(
				FIELD.phoneNumber,
				`${shown(asWritten)} starts with a 0 set apart from the next 0: not the international prefix 00 (two 0s written together), nor a local number with one leading 0`,
				'Write the number with its country code (e.g. +62 812 3456 7890), or as a local number with one leading 0',
			);
		}
		digits = compact.slice(2);
	} else if (plusRequired === 'countryCodeLeftEmpty') {
		throw new InvalidFieldError(
			FIELD.phoneNumber,
			`${shown(asWritten)} has no + or 00, and ${optionPath('defaultCountryCode')} is empty for this item (its expression gave nothing): the node cannot tell which country the number is local to`,
			'Fill the country code in this row, or write the number with + and its country code, e.g. +62 812 3456 7890 (a number cell cannot keep a +: format the column as text)',
		);
	} else if (plusRequired === 'chosenByModel') {
		// A JSON number cannot hold the +: telling the model to add one would not help.
		throw new InvalidFieldError(
			FIELD.phoneNumber,
			`${shown(asWritten)} has no + in front: a number chosen by the AI model must start with + (or 00) and its country code, so that one without it cannot go to another country`,
			typeof raw === 'number'
				? `The model gave a number, which cannot hold a +: give $fromAI() the type 'string' for the Phone Number, or set ${optionPath('defaultCountryCode')} for local numbers`
				: `Give the number as + followed by its country code and number, e.g. +62 812 3456 7890; or set ${optionPath('defaultCountryCode')} for local numbers`,
		);
	} else if (compact.startsWith('0')) {
		const countryCode = readDefaultCountryCode(defaultCountryCode);
		if (countryCode === undefined) {
			throw new InvalidFieldError(
				FIELD.phoneNumber,
				`${shown(asWritten)} starts with 0, a local number without country code`,
				`Write it with its country code (e.g. +62 812…), or set ${optionPath('defaultCountryCode')} so that a leading 0 is replaced by it`,
			);
		}
		const zero = zeroAfterCountryCode(countryCode);
		if (zero === undefined) {
			// Brazil's 0 comes with a carrier code, Mexico's prefixes were 01, 044 and 045: dropping one 0 could make another number.
			throw new InvalidFieldError(
				FIELD.phoneNumber,
				`${shown(asWritten)} starts with 0, and the node has no rule for what a leading 0 means in country code ${countryCode} (${optionPath('defaultCountryCode')})`,
				`Write the number with its country code and without the 0 or any prefix before it, e.g. +${countryCode} …`,
			);
		}
		const prefix = INTERNATIONAL_PREFIX_AFTER_ONE_ZERO[countryCode]?.exec(compact)?.[0];
		if (prefix !== undefined) {
			throw new InvalidFieldError(
				FIELD.phoneNumber,
				`${shown(asWritten)} starts with ${prefix}, the international prefix dialled from country code ${countryCode} (${optionPath('defaultCountryCode')}), not a local number's 0`,
				'Write the number with + and its own country code instead of the prefix, e.g. +33 1 23 45 67 89',
			);
		}
		// Where the 0 is part of the number (Italy's 06…), it stays after the country code too.
		digits = countryCode + (zero === 'part of the number' ? compact : compact.slice(1));
	} else {
		if (readDefaultCountryCode(defaultCountryCode) === undefined) refuseNorthAmericanWithoutCode(whole, asWritten);
		digits = compact;
		local = true;
	}

	if (digits.startsWith('0')) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${shown(asWritten)} has no valid country code (country codes never start with 0)`, 'Start the number with its country code, e.g. +62 812 3456 7890');
	}
	// Too few digits for a number at all: the length check below says so.
	if (local && digits.length >= MIN_DIGITS) refuseLocalWithoutZero(digits, defaultCountryCode, asWritten);
	digits = withoutTrunkZero(digits, bracketedAfter, asWritten);
	if (digits.length < MIN_DIGITS || digits.length > MAX_DIGITS) {
		throw new InvalidFieldError(
			FIELD.phoneNumber,
			`${shown(asWritten)} has ${digits.length} digits; a number with its country code has ${MIN_DIGITS} to ${MAX_DIGITS}`,
			'Check the number is complete and starts with its country code, e.g. +62 812 3456 7890',
		);
	}
	const problem = implausible(digits);
	if (problem !== undefined) throw new InvalidFieldError(FIELD.phoneNumber, `${shown(asWritten)} ${problem.problem}`, problem.hint);
	return digits;
}

/**
 * Where the prefix for calling abroad starts with one 0, and no local number does: Japan's 010, Israel's
 * carriers' 012 to 019. With Default Country Code set there, "010 33 1…" is a French number, not Japan's 10 33….
 * (A prefix starting 00 is never a local number's 0; Australia's 0011 or Indonesia's 001 land on +1, and are refused as such.)
 */
const INTERNATIONAL_PREFIX_AFTER_ONE_ZERO: Readonly<Record<string, RegExp>> = { '81': /^010/, '972': /^01[2-9]/ };

/** Numbers of these country codes have exactly 10 digits after it: North America (1, an area code from 2 to 9 first), Russia and Kazakhstan (7). */
const TEN_DIGIT_COUNTRIES: Readonly<Record<string, RegExp>> = { '1': /^[2-9]\d{9}$/, '7': /^\d{10}$/ };
/** From this many digits on, a number whose digits after the country code start with that code again holds it twice. */
const TWICE_FROM_DIGITS = 14;

/**
 * A number no country has, that a sheet makes of a real one: the country code twice (a formula adding it to a
 * cell that has it), a North American number with a 1 after the +1, a trunk 8 after +7, or another country's
 * international prefix (0011, 001) read as 00 and a country code. Refused: sent, it would go to someone else.
 */
function implausible(digits: string): { problem: string; hint: string } | undefined {
	const countryCode = countryCodeOf(digits);
	const national = digits.slice(countryCode.length);
	const hint = `Write the country code once, then the number, e.g. +${countryCode === '1' ? '1 212 555 0100' : countryCode === '7' ? '7 912 345 6789' : '62 812 3456 7890'}; a formula that puts the code in front of a cell that has it already makes such numbers`;
	const tenDigits = TEN_DIGIT_COUNTRIES[countryCode];
	if (tenDigits && !tenDigits.test(national)) {
		return { problem: `has ${national.length} digits after country code ${countryCode} (${national.slice(0, 4)}…); numbers there have 10${countryCode === '1' ? ', the first from 2 to 9' : ''}`, hint };
	}
	if (digits.length >= TWICE_FROM_DIGITS && national.startsWith(countryCode)) {
		return { problem: `holds country code ${countryCode} twice (${countryCode} ${countryCode}…), or is too long for a number of that country`, hint };
	}
	return undefined;
}

/** Country code first; the country's 0 rule decides a 0 right after it (a bracketed "(0)" is one the writer marked as a trunk prefix). */
function withoutTrunkZero(digits: string, bracketedAfter: string | undefined, asWritten: string): string {
	const countryCode = countryCodeOf(digits);
	if (bracketedAfter !== undefined && bracketedAfter !== countryCode) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${shown(asWritten)} has (0) after ${bracketedAfter}, which is not a country code`, 'Write the country code, then the number, e.g. +62 (0)812 3456 7890 or +62 812 3456 7890');
	}
	const rest = digits.slice(countryCode.length);
	if (!rest.startsWith('0')) return digits;
	// No number of any country starts with 00 after its country code: "+39 (0) 06…" or "+39 006…" has a 0 too many.
	if (rest.startsWith('00')) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${shown(asWritten)} has two 0s right after country code ${countryCode}`, `Check the number: write +${countryCode} followed by the number${zeroAfterCountryCode(countryCode) === 'part of the number' ? ', with its own leading 0 once' : ' without its leading 0'}`);
	}
	const zero = zeroAfterCountryCode(countryCode);
	if (zero === 'part of the number') {
		if (bracketedAfter !== countryCode) return digits;
		// "+39 (0)347…": a trunk 0 marked where there is none; "+39 (0)6…" may mean Rome's 06. Either way a guess.
		throw new InvalidFieldError(
			FIELD.phoneNumber,
			`${shown(asWritten)} has (0) after country code ${countryCode}, whose numbers have no trunk prefix (a 0 there is part of the number): the node cannot tell whether that 0 belongs to the number`,
			`Write the number as it is dialled from abroad, without brackets: +${countryCode} then the number, with the 0 only if the number itself starts with 0`,
		);
	}
	if (zero === undefined && bracketedAfter !== countryCode) {
		throw new InvalidFieldError(
			FIELD.phoneNumber,
			`${shown(asWritten)} has a 0 right after country code ${countryCode}, which may be a trunk prefix dialled only within the country or part of the number; for this country the node cannot tell`,
			`Write the number as it is dialled from abroad: +${countryCode} then the number without the 0 if it is a trunk prefix, with it if the number starts with 0`,
		);
	}
	return countryCode + rest.slice(1);
}

/** "(212) 555-0100", "212-555-0100": an area code, then 3 and 4 digits, the first of each from 2 to 9, as North America writes its numbers. */
const NORTH_AMERICAN_WITHOUT_CODE = new RegExp(`^\\(?[2-9]\\d{2}\\)?${GROUP_SEPARATOR}*[2-9]\\d{2}${GROUP_SEPARATOR}+\\d{4}$`);

/** Read as international, it would go to the country its area code spells (212: Morocco), a number too short for it. */
function refuseNorthAmericanWithoutCode(whole: string, asWritten: string): void {
	if (!NORTH_AMERICAN_WITHOUT_CODE.test(whole)) return;
	const digits = whole.replace(/\D/g, '');
	throw new InvalidFieldError(
		FIELD.phoneNumber,
		`${shown(asWritten)} is written as a North American number without its country code 1 (sent as it is, it would go to country code ${countryCodeOf(digits)})`,
		`Write it with its country code, e.g. +1 ${digits.slice(0, 3)} ${digits.slice(3, 6)} ${digits.slice(6)}; a number of another country with + in front`,
	);
}

/** With Default Country Code, a number without + or 00 is local: one that does not start with that code lost its 0 (or is foreign, written without +). */
/** A number after its country code has this many digits at least wherever local numbers can start with the code's digits (India's 91…, Italy's 39…). */
const SHORTEST_NUMBER_AFTER_COUNTRY_CODE_WITHOUT_PLUS = 9;

function refuseLocalWithoutZero(digits: string, defaultCountryCode: unknown, asWritten: string): void {
	const countryCode = readDefaultCountryCode(defaultCountryCode);
	if (countryCode === undefined) return;
	if (digits.startsWith(countryCode)) {
		// India's 9123456789 is a local mobile; read as 91 23456789 it would go to another number.
		if (digits.length - countryCode.length >= SHORTEST_NUMBER_AFTER_COUNTRY_CODE_WITHOUT_PLUS) return;
		throw new InvalidFieldError(
			FIELD.phoneNumber,
			`${shown(asWritten)} has no + or 00, starts with ${countryCode} (${optionPath('defaultCountryCode')}) and is short: it may be a local number that begins with those digits, or the country code and a short number`,
			`Write it with + and its country code, e.g. +${countryCode} …, so that the node cannot mistake it`,
		);
	}
	const likely = LIKELY_CAUSE[zeroAfterCountryCode(countryCode) ?? 'unknown'];
	throw new InvalidFieldError(
		FIELD.phoneNumber,
		`${shown(asWritten)} has no + or 00 and does not start with ${countryCode} (${optionPath('defaultCountryCode')}): ${likely.cause(countryCode)} (sent as it is, it would go to country code ${countryCodeOf(digits)})`,
		`${likely.fix(countryCode)}, and write numbers of other countries with + or 00, e.g. +44 20 7946 0958`,
	);
}

/**
 * Why a local number may not start with the country code, by what a 0 after that code is: a trunk
 * prefix (every local number is written with it, so the sheet dropped it), part of the number (no
 * trunk prefix: Italy's mobiles start with 3, written without the code), or unknown (Singapore's
 * numbers have no trunk 0 at all, other countries' do).
 */
const LIKELY_CAUSE: Record<ZeroAfterCountryCode | 'unknown', { cause: (code: string) => string; fix: (code: string) => string }> = {
	'trunk prefix': {
		cause: () => 'most likely a local number whose leading 0 the sheet dropped',
		fix: () => 'Format the column as text in the sheet so that the leading 0 stays',
	},
	'part of the number': {
		cause: (code) => `most likely a local number written without its country code (numbers of country code ${code} have no trunk 0; a landline's own leading 0 may also have been dropped by the sheet)`,
		fix: (code) => `Write the number with +${code} in front (e.g. with an expression on the column), format the column as text so that a leading 0 stays`,
	},
	unknown: {
		cause: () => 'most likely a local number written without its country code, or one whose leading 0 the sheet dropped',
		fix: (code) => `Write the number with +${code} in front (e.g. with an expression on the column), format the column as text so that a leading 0 stays`,
	},
};

function phoneText(raw: unknown): string {
	if (typeof raw === 'string') return raw.trim();
	// Spreadsheets often hand numbers over as numbers.
	if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw > 0) return String(raw);
	if (raw === undefined || raw === null) return '';
	refuseLostDigits(raw, FIELD.phoneNumber);
	if (typeof raw === 'number' && Number.isFinite(raw) && raw > 0 && !Number.isInteger(raw)) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${raw} is a decimal number, not a phone number`, 'Map the column that holds the phone number, formatted as plain text');
	}
	if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw < 0) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${raw} is a negative number, not a phone number`, 'Map the column that holds the phone number; a sheet formula may have subtracted from it');
	}
	throw new InvalidFieldError(FIELD.phoneNumber, `expected text or a whole number, got ${describeValue(raw)}`, 'Map the column that holds the phone number');
}

/**
 * A spreadsheet's "6281234567890.0" (or "…,0" with a decimal comma) is the whole number, as is scientific notation that
 * writes every digit ("4.47700900123E+11"); with fewer, it has lost the number's last digits; other fractions are no number. A dot before three or more digits separates groups ("0812.3456789"),
 * but before zeros alone ("62812345678.000") it may be either, and a number grouped otherwise that ends in ".0" or ".12"
 * ("62 812 3456 7890.0") may end in a decimal part or in digits: the node cannot tell which.
 */
function wholeNumber(text: string, asWritten: string): string {
	// "6,281,234,567,890.0": digit grouping, said as such below.
	if (COMMA_GROUPED.test(text)) return text;
	// As sheets write it: one digit from 1 to 9 before the point ("0.447700900123E+12" is not read: its 0 is no digit of the number).
	const scientific = /^(\+?)([1-9])(?:[.,](\d+))?e\+?(\d{1,2})$/i.exec(text);
	if (scientific) {
		const [, plus, lead, fraction = '', exponent] = scientific;
		// "4.47700900123E+11" writes every digit of 447700900123: the number, exactly. Fewer, and the sheet dropped some.
		const length = lead.length + Number(exponent);
		const digits = lead + fraction;
		if (digits.length >= length && /^0*$/.test(digits.slice(length))) return plus + digits.slice(0, length);
	}
	if (/^\+?\d+([.,]\d+)?e\+?\d+$/i.test(text)) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${shown(asWritten)} is in scientific notation, in which a sheet drops a number's last digits`, 'Format the column as plain text (or as a number with no decimals) in the sheet, then read it again');
	}
	const decimal = /^(\+?\d+)([.,])(\d+)$/.exec(text);
	if (decimal) {
		const [, whole, point, fraction] = decimal;
		const zeros = /^0+$/.test(fraction);
		if (zeros && fraction.length <= 2) return whole;
		if (fraction.length <= 2) throw new InvalidFieldError(FIELD.phoneNumber, `${shown(asWritten)} is a decimal number, not a phone number`, 'Map the column that holds the phone number, formatted as plain text');
		if (zeros && point === '.') throw ambiguousEnding(asWritten, `.${fraction}`);
		return text;
	}
	// One dot before the last one or two digits, or one set apart by a space ("+49 151 1234567 . 12"), or a last group
	// of one digit ("+62 812.3456.7890.0"): dots between groups of two ("06.12.34.56.78") stay separators.
	const ending = /^[^.]*(\.\d{1,2})$/.exec(text) ?? /(?<=\d)(\s+\.\s*\d{1,2}|\.\s+\d{1,2}|\.\d)$/.exec(text);
	if (ending) throw ambiguousEnding(asWritten, ending[1]);
	return text;
}

function ambiguousEnding(asWritten: string, ending: string): InvalidFieldError {
	return new InvalidFieldError(
		FIELD.phoneNumber,
		`${shown(asWritten)} ends in "${ending}", which may be a decimal part or digits of the number; the node cannot tell which`,
		'Format the column as plain text in the sheet and write the number without that dot, e.g. +62 812 3456 7890',
	);
}

/** A link is refused even when it holds a number: what it opens is not certainly that number. */
function refuseLink(text: string, asWritten: string): void {
	if (!LINK.test(text)) return;
	const number = CHAT_LINK.exec(text)?.[1];
	throw new InvalidFieldError(
		FIELD.phoneNumber,
		`${shown(asWritten)} is a link, not a phone number${number === undefined ? '' : ` (the number in it reads +${number})`}`,
		number === undefined ? 'Map the column that holds the phone number' : `Map the column that holds the number itself, e.g. +${number}`,
	);
}

function refuseWhatIsNotANumber(text: string, asWritten: string): void {
	if (COMMA_GROUPED.test(text)) {
		throw new InvalidFieldError(
			FIELD.phoneNumber,
			`${shown(asWritten)} is one number separated by commas (digit grouping, as a sheet shows a number), not a phone number as written`,
			'Format the column as plain text (or as a number without thousands separators) in the sheet, then read it again',
		);
	}
	// A tab: two cells copied together, or a number's parts typed apart; either way the node cannot tell which.
	if (text.includes('\t')) {
		throw new InvalidFieldError(
			FIELD.phoneNumber,
			`${shown(asWritten)} contains a tab, which may set two numbers apart (two cells copied together) or two parts of one: the node cannot tell which`,
			'Give one number per row, its parts set apart by spaces or dashes, e.g. +62 812 3456 7890',
		);
	}
	const twoNumbers =
		(text.match(/\+/g) ?? []).length > 1 ||
		/[,;|&]|\d\s*\b(?:or|atau|and|dan)\b\s*\+?\d/i.test(text) ||
		(LINE_BREAK.test(text) && /\d/.test(text.slice(text.search(LINE_BREAK)))) ||
		slashedNumbers(text) ||
		otherEnding(text);
	if (twoNumbers) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${shown(asWritten)} holds more than one number`, 'Give one number per row: split the cell, or map the column that holds the number to message');
	}
	const extension = /(?:ext\.?|extension|x|#)\s*\d+$|\(\s*\d{1,6}\s*\)$/i.exec(text);
	if (extension && /\d/.test(text.slice(0, extension.index))) {
		throw new InvalidFieldError(FIELD.phoneNumber, `${shown(asWritten)} has an extension ${extension[0].startsWith('(') ? extension[0] : `(${extension[0]})`}, which a messaging number does not`, 'Give the mobile number alone');
	}
}

/** Without spaces and line breaks at either end, NEL included (String.prototype.trim leaves it). */
function trimmed(text: string): string {
	return text.replace(/^[\s\u0085]+|[\s\u0085]+$/g, '');
}

/** "0812 3456 7890 / 0813 1111 2222": parts of a number each, where together they cannot be one. */
function slashedNumbers(text: string): boolean {
	const parts = text.split('/').map((part) => part.trim());
	const digits = (part: string) => (part.match(/\d/g) ?? []).length;
	if (parts.filter((part) => digits(part) >= MIN_DIGITS).length < 2) return false;
	return parts.reduce((sum, part) => sum + digits(part), 0) > MAX_DIGITS + 2 || parts.slice(1).some((part) => part.startsWith('+'));
}

/**
 * "0812 3456 7890/91", "(021) 555 1234/35": a whole number, then after its one slash another ending of it (two numbers).
 * A slash after an area code ("030/1234567", "+49 (0)6151/1234") has fewer digits before it, country code and trunk 0
 * left aside, than any number has. Between more slashes ("0812/3456/7890" separates groups), an ending is a lone group
 * shorter than the group before it ("1234/35/36", "+49 30/1234 5678/90").
 */
function otherEnding(text: string): boolean {
	const parts = text.split(/\/+/).filter((part) => /\d/.test(part));
	const groups = (part: string) => part.match(/\d+/g) ?? [];
	if (parts.length > 2) return parts.slice(1).some((part, i) => groups(part).length === 1 && (groups(part)[0] ?? '').length < (groups(parts[i]).at(-1) ?? '').length);
	if (parts.length !== 2) return false;
	const after = parts[1].replace(/\D/g, '').length;
	if (after < 1 || after > 4) return false;
	const before = parts[0].replace(TRUNK_ZERO, '$1$2').replace(/\D/g, '');
	const withCode = before.replace(/^00/, '');
	const national = /^\s*(\+|00)/.test(parts[0]) ? withCode.slice(countryCodeOf(withCode).length) : before.replace(/^0/, '');
	return national.length > LONGEST_AREA_CODE;
}
/** The most digits an area code has, without its trunk 0 (Germany's 33203). */
const LONGEST_AREA_CODE = 5;

/** The 0 of each script whose digits a phone keyboard writes numbers in; its 1 to 9 follow it (Unicode). */
const SCRIPT_ZEROS = [0x0660, 0x06f0, 0x07c0, 0x0966, 0x09e6, 0x0a66, 0x0ae6, 0x0b66, 0x0be6, 0x0c66, 0x0ce6, 0x0d66, 0x0de6, 0x0e50, 0x0ed0, 0x0f20, 0x1040, 0x1090, 0x17e0, 0x1810, 0xff10];

/** Digits of those scripts (Arabic-Indic ٠١٢, Persian ۰۱۲, Devanagari, Thai, full-width ０１２…) as 0 to 9: the same number. */
function withAsciiDigits(text: string): string {
	return text.replace(/(?![0-9])\p{Nd}/gu, (digit) => {
		const code = digit.codePointAt(0)!;
		const zero = SCRIPT_ZEROS.find((first) => code >= first && code <= first + 9);
		return zero === undefined ? digit : String(code - zero);
	});
}

/** Letters as they are, the rest as ⟨U+XXXX⟩ where it does not show. */
function describeOthers(digits: string, text: string): string {
	const others = digits.replace(/\d/g, '');
	if (/^\p{L}+$/u.test(others)) return `letters (${(text.match(/\p{L}+/gu) ?? []).join(' ')})`;
	return `characters other than digits (${visible([...new Set(others)].join(''))})`;
}

function shown(asWritten: string): string {
	return quote(visible(asWritten));
}

