import { FIELD } from '../shared/fieldNames';
import { InvalidFieldError } from '../shared/InvalidFieldError';
import { hasControlCharacter } from '../shared/invisibleCharacters';
import { notHttpProblem } from '../shared/httpUrl';
import { quote, requiredText } from './text';

/**
 * Rule 6: media URLs must be http or https, checked here so that nothing is sent otherwise.
 * Version 2 writes the URL as a browser would (WHATWG serialisation): a space becomes %20, other
 * characters a URL cannot carry are percent-encoded (UTF-8), a non-ASCII host its punycode; a URL
 * that needs none of that is sent exactly as written, an existing %XX included. Version 1 refuses
 * a space, as 0.1.0 did, and sends other characters as written.
 */
export function mediaUrl(raw: unknown, asWritten: boolean, field: string = FIELD.headerMediaUrl): string {
	const text = requiredText(raw, field, 'Give the public http(s) address of the image, video or document').trim();
	// What the parser would drop (tabs, line breaks) or read as / (a backslash) is refused: the API may not read it so, and a line break often joins two cells.
	const refused = asWritten ? /[\s\\]/ : /[\t\n\v\f\r\u2028\u2029\\]/;
	if (refused.test(text) || hasControlCharacter(text)) {
		throw new InvalidFieldError(
			field,
			asWritten ? `${quote(text)} contains a space, tab, line break, control character or backslash` : `${quote(text)} contains a tab, line break, control character or backslash`,
			asWritten ? 'Write spaces in a URL as %20, and use / between its parts' : 'Give one address, and use / between its parts',
		);
	}
	// Also an http(s) address without a host: the parser refuses it. "https:/cdn…" and "https:cdn…" it repairs, but the API gets them as written.
	if (!URL.canParse(text) || (/^https?:/i.test(text) && !/^https?:\/\/[^/]/i.test(text))) {
		throw new InvalidFieldError(field, `${quote(text)} is not a URL`, 'Give a full address starting with https:// (or http://)');
	}
	const url = new URL(text);
	const notHttp = notHttpProblem(url);
	if (notHttp) throw new InvalidFieldError(field, `${quote(text)} ${notHttp}`, 'Host the file at a web address starting with https://');
	return asWritten || !NEEDS_ENCODING.test(text) ? text : url.href;
}

/** What a browser percent-encodes in some part of a URL (and a non-ASCII host it writes in punycode): a space, a non-ASCII character, " < > ` { }. */
const NEEDS_ENCODING = /[^\x21-\x7e]|["<>`{}]/;
