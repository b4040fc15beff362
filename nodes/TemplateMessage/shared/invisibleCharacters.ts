/** Characters a reader cannot see: control characters, and marks that do not show or reorder the text around them. */

export function isControlCharacter(code: number): boolean {
	return code < 0x20 || code === 0x7f;
}

export function hasControlCharacter(text: string): boolean {
	for (let i = 0; i < text.length; i++) {
		if (isControlCharacter(text.charCodeAt(i))) return true;
	}
	return false;
}

/**
 * Marks that do not show, or reorder the text around them, for a character class: the soft hyphen, the
 * combining grapheme joiner, Hangul's fillers (full and half width), Khmer's invisible vowels, the Mongolian
 * vowel separator, the zero-width space, direction marks (Arabic's too), embeddings and overrides, the word
 * joiner, the invisible operators, isolates, the byte order mark.
 */
export const HIDDEN_MARKS =
	'\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180e\\u200b\\u200e\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\u3164\\ufeff\\uffa0';

/** `U+200B`: how a message names a character that does not show, or that might be mistaken for another. */
export function codePointName(character: string): string {
	return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}
