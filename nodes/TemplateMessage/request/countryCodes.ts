import { InvalidFieldError } from '../shared/InvalidFieldError';
import { optionName } from '../shared/options';
import { quote, visible } from './text';

// Country codes: which digits a number's country code is, and what a 0 right after it means.

/**
 * E.164 country codes are prefix-free and 1 to 3 digits long: these are all the 1- and 2-digit ones
 * (ITU-T, List of ITU-T Recommendation E.164 assigned country codes, https://www.itu.int/pub/T-SP-E.164D);
 * every other code is 3 digits.
 */
const SHORT_COUNTRY_CODES = new Set([
	'1', '7',
	'20', '27', '30', '31', '32', '33', '34', '36', '39', '40', '41', '43', '44', '45', '46', '47', '48', '49',
	'51', '52', '53', '54', '55', '56', '57', '58', '60', '61', '62', '63', '64', '65', '66', '81', '82', '84', '86',
	'90', '91', '92', '93', '94', '95', '98',
]);

/** The assigned country codes are prefix-free: the 1- or 2-digit code a number starts with, else its first 3 digits. */
export function countryCodeOf(digits: string): string {
	const one = digits.slice(0, 1);
	if (SHORT_COUNTRY_CODES.has(one)) return one;
	const two = digits.slice(0, 2);
	return SHORT_COUNTRY_CODES.has(two) ? two : digits.slice(0, 3);
}

/** What a 0 right after a country code is in that country: a trunk prefix dropped from abroad, or a digit of the number. */
export type ZeroAfterCountryCode = 'trunk prefix' | 'part of the number';

/**
 * What a 0 right after the country code is, from each country's national numbering plan (ITU-T E.164
 * national numbering plans, https://www.itu.int/oth/T0202): a country not listed here is refused,
 * as the node cannot tell. Left out on purpose: Brazil (55), whose national prefix is 0 followed by a
 * two-digit carrier code, and Mexico (52), whose former prefixes were 01, 044 and 045 (dropping one 0
 * there sends the rest of the prefix); Vatican City (379), a code not in use (the Vatican is reached
 * through +39 06 698…).
 */
const ZERO_AFTER_COUNTRY_CODE: Readonly<Record<string, ZeroAfterCountryCode>> = {
	// The trunk prefix, dialled within the country only: no national number there starts with 0.
	'20': 'trunk prefix', // Egypt
	'27': 'trunk prefix', // South Africa
	'31': 'trunk prefix', // Netherlands
	'32': 'trunk prefix', // Belgium
	'33': 'trunk prefix', // France
	'40': 'trunk prefix', // Romania
	'41': 'trunk prefix', // Switzerland
	'43': 'trunk prefix', // Austria
	'44': 'trunk prefix', // United Kingdom
	'46': 'trunk prefix', // Sweden
	'49': 'trunk prefix', // Germany
	'60': 'trunk prefix', // Malaysia
	'61': 'trunk prefix', // Australia
	'62': 'trunk prefix', // Indonesia
	'63': 'trunk prefix', // Philippines
	'64': 'trunk prefix', // New Zealand
	'66': 'trunk prefix', // Thailand
	'81': 'trunk prefix', // Japan
	'82': 'trunk prefix', // South Korea
	'84': 'trunk prefix', // Vietnam
	'86': 'trunk prefix', // China
	'90': 'trunk prefix', // Turkey
	'91': 'trunk prefix', // India
	'92': 'trunk prefix', // Pakistan
	'94': 'trunk prefix', // Sri Lanka
	'98': 'trunk prefix', // Iran
	'212': 'trunk prefix', // Morocco
	'233': 'trunk prefix', // Ghana
	'234': 'trunk prefix', // Nigeria
	'254': 'trunk prefix', // Kenya
	'255': 'trunk prefix', // Tanzania
	'256': 'trunk prefix', // Uganda
	'353': 'trunk prefix', // Ireland
	'358': 'trunk prefix', // Finland
	'380': 'trunk prefix', // Ukraine
	'880': 'trunk prefix', // Bangladesh
	'886': 'trunk prefix', // Taiwan
	'966': 'trunk prefix', // Saudi Arabia
	'971': 'trunk prefix', // United Arab Emirates
	'972': 'trunk prefix', // Israel
	// Dialled from abroad too: the country has no trunk prefix, and its numbers start with 0.
	'39': 'part of the number', // Italy (landlines: +39 06…)
	'225': 'part of the number', // Côte d'Ivoire (10-digit numbers since 2021: +225 07…)
	'242': 'part of the number', // Republic of the Congo (+242 06…)
	'378': 'part of the number', // San Marino (+378 0549…)
};

/** What a 0 right after this country code is; undefined where the node cannot tell (the country is refused then). */
export function zeroAfterCountryCode(countryCode: string): ZeroAfterCountryCode | undefined {
	return ZERO_AFTER_COUNTRY_CODE[countryCode];
}

/** Default Country Code as written (1 to 3 digits, a + in front allowed), without its +; undefined for anything else. */
export function countryCodeIn(raw: unknown): string | undefined {
	if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
	const code = String(raw).trim().replace(/^\+/, '');
	return /^[1-9]\d{0,2}$/.test(code) ? code : undefined;
}

/** Default Country Code as an option: its digits, none when empty, refused (naming the option) when it is no country code. */
export function readDefaultCountryCode(raw: unknown): string | undefined {
	if (raw === undefined || raw === null || raw === '') return undefined;
	const code = countryCodeIn(raw);
	if (code === undefined) throw new InvalidFieldError(optionName('defaultCountryCode'), `${quote(visible(String(raw)))} is not a country code`, 'Use 1 to 3 digits, e.g. 62 or +62');
	return code;
}
