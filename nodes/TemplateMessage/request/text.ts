import { InvalidFieldError } from '../shared/InvalidFieldError';
import { codePointName, HIDDEN_MARKS, isControlCharacter } from '../shared/invisibleCharacters';

/** Far above what any template field takes (a body is at most about 1,000 characters). */
const MAX_TEXT_LENGTH = 4096;

export function requiredText(raw: unknown, field: string, hint?: string): string {
	refuseLostDigits(raw, field);
	if ((typeof raw === 'number' && Number.isFinite(raw)) || typeof raw === 'boolean' || typeof raw === 'bigint') return String(raw);
	if (isEmptyValue(raw)) throw new InvalidFieldError(field, 'is empty', hint);
	if (typeof raw !== 'string') {
		throw new InvalidFieldError(field, `expected text, got ${describeValue(raw)}`, hint);
	}
	// Counted in code points (an emoji is one, a flag or a skin tone two), once it may be too long.
	const characters = raw.length > MAX_TEXT_LENGTH ? characterCount(raw) : raw.length;
	if (characters > MAX_TEXT_LENGTH) {
		throw new InvalidFieldError(field, `is ${characters} characters long; at most ${MAX_TEXT_LENGTH} are sent`, 'Template values are short texts: check the right column is mapped');
	}
	if (hasLoneSurrogate(raw)) {
		throw new InvalidFieldError(field, 'holds half of an emoji (a lone UTF-16 surrogate), which no text can send', 'An expression cut the text inside an emoji (e.g. with .slice()): cut it with Array.from(text).slice(…).join("") instead, or map the whole value');
	}
	return raw;
}

/** Code points, without building a copy of a text that may be megabytes. */
function characterCount(text: string): number {
	let count = 0;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
			const next = text.charCodeAt(i + 1);
			if (next >= 0xdc00 && next <= 0xdfff) i++;
		}
		count++;
	}
	return count;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Half of a character written in two UTF-16 units (an emoji cut by .slice()): no text can carry it, nor a URL. */
export function hasLoneSurrogate(text: string): boolean {
	return LONE_SURROGATE.test(text);
}

/** A mark that does not show, or reorders the text around it: copy-paste damage in an id. */
export function hasHiddenMark(text: string): boolean {
	return HIDDEN_MARK.test(text);
}

/** Nothing given: undefined, null, or a text of spaces and marks that do not show. */
export function isEmptyValue(value: unknown): boolean {
	return value === undefined || value === null || (typeof value === 'string' && isBlank(value));
}

/** Spaces and marks that do not show (a zero-width space, direction marks) only: what a recipient would see as nothing. */
export function isBlank(text: string): boolean {
	return text.replace(BLANK_MARKS, '').trim() === '';
}

/**
 * A whole number above 2^53 cannot hold all its digits as a JSON (JavaScript) number: a sheet's
 * 12345678901234567890 arrives as 12345678901234567000. Refused, as what would be sent is not the cell.
 */
export function refuseLostDigits(raw: unknown, field: string): void {
	if (typeof raw !== 'number' || !Number.isInteger(raw) || Number.isSafeInteger(raw)) return;
	throw new InvalidFieldError(
		field,
		`is a number too large to hold all its digits (beyond ±2^53): the sheet's digits were lost on the way (it arrived as ${String(raw)})`,
		'Format the column as plain text in the sheet, then read it again',
	);
}

/** JSON.parse that reports failure as a value, so callers can throw their own field error. */
export function parseJson(text: string): { value: unknown } | { error: string } {
	try {
		return { value: JSON.parse(text) };
	} catch (error) {
		return { error: (error as Error).message };
	}
}

export function describeValue(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'object') return 'an object';
	if (typeof value === 'string') return quote(value);
	return String(value);
}

const MAX_QUOTED = 60;

/** For an error message: cut short (a mapped cell can hold megabytes), control characters and backslashes escaped. */
export function quote(text: string): string {
	const shown = text.length > MAX_QUOTED ? text.slice(0, MAX_QUOTED) : text;
	let escaped = '';
	for (const c of shown) escaped += c === '\\' || isControlCharacter(c.charCodeAt(0)) ? escape(c) : c;
	return text.length > MAX_QUOTED ? `"${escaped}…" (${text.length} characters)` : `"${escaped}"`;
}

/** As JSON writes it (\n, \t, \u0000, \\), and DEL, which JSON leaves as it is, as \u007f. */
function escape(character: string): string {
	return character === '\u007f' ? '\\u007f' : JSON.stringify(character).slice(1, -1);
}

// The preview also shows the line and paragraph separators and the C1 controls (NEL among them), which
// break a line where none is seen; not the zero-width joiners: emoji and some scripts are written with them. Control characters are
// tested apart: ESLint's no-control-regex refuses them in a regex.
const BLANK_MARKS = new RegExp(`[${HIDDEN_MARKS}]`, 'g');
const HIDDEN_MARK = new RegExp(`[${HIDDEN_MARKS}]`);

const HIDDEN = new RegExp(`[${HIDDEN_MARKS}\\u0080-\\u009f\\u2028\\u2029]`);

/** Characters that do not show, or change how the rest shows, as ⟨U+XXXX⟩: a preview reads as what is sent. */
export function visible(value: string): string {
	let shown = '';
	for (const character of value) {
		const code = character.charCodeAt(0);
		shown += (isControlCharacter(code) && code !== 0x0a) || HIDDEN.test(character) ? `⟨${codePointName(character)}⟩` : character;
	}
	return shown;
}
