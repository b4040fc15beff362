import { buildButtonParameters } from './buttons';
import { FIELD } from '../shared/fieldNames';
import { InvalidFieldError } from '../shared/InvalidFieldError';
import { normalisePhoneNumber } from './phone';
import { parseRawPayload } from './rawPayload';
import { checkAgainstTemplate, checkRefusedCharacters } from './templateCheck';
import type { CompatibilityOptions, ComponentsInput, MessageInput, PayloadComponent, SendRequestBody } from '../shared/contracts';
import { isMediaHeaderKind, TEMPLATE_HEADER_KINDS } from '../shared/contracts';
import { readOptions } from '../shared/options';
import { fieldError } from '../shared/optionSpec';
import { hasControlCharacter } from '../shared/controlCharacters';
import { notHttpProblem } from '../shared/httpUrl';
import { describeValue, parseJson, quote, requiredText } from './text';

/** The API spellings a message uses where its item gives none: the options' defaults, read once. */
const SPELLING_DEFAULTS: CompatibilityOptions = readOptions({}, 'item', 2, fieldError);

/** Pure: throws InvalidFieldError naming the field at the first problem found. */
export function buildSendRequest(input: MessageInput): SendRequestBody {
	const compatibility = { ...SPELLING_DEFAULTS, ...input.compatibility };
	const phoneNumber = normalisePhoneNumber(input.phoneNumber, input.defaultCountryCode, input.phoneNumberMapped, input.defaultCountryCodeMapped);
	const templateCodeId = requiredText(input.templateCodeId, FIELD.templateCodeId, 'Copy the template code id from the developer dashboard (the template must be Approved)').trim();
	if (hasControlCharacter(templateCodeId)) {
		throw new InvalidFieldError(FIELD.templateCodeId, `contains a control character (a tab, a line break or another invisible character): ${JSON.stringify(templateCodeId).slice(0, 80)}`, 'Copy the template code id again from the developer dashboard, or check the mapped column');
	}
	const payload =
		input.components.mode === 'json'
			? parseRawPayload(input.components.rawPayload)
			: buildComponents(input.components, compatibility);

	const request: SendRequestBody = {
		phone_number: phoneNumber,
		message: {
			type: 'template',
			template: { template_code_id: templateCodeId, payload },
		},
	};
	if (input.template) checkAgainstTemplate(request, input.template, input.components.mode);
	// Turned off only by a pasted template's Check Values for Refused Characters.
	if (input.template?.checkCharacters !== false) checkRefusedCharacters(request, input.components.mode);
	return request;
}

function buildComponents(
	input: Extract<ComponentsInput, { mode: 'fields' }>,
	compatibility: CompatibilityOptions,
): PayloadComponent[] {
	const components: PayloadComponent[] = [];
	const header = buildHeaderParameter(input.header);
	if (header) components.push({ position: 'header', parameters: [header] });
	if (input.bodyValues.length > MAX_BODY_VALUES) {
		throw new InvalidFieldError(FIELD.bodyValues, `has ${input.bodyValues.length} values; a template has far fewer placeholders (at most ${MAX_BODY_VALUES} are sent)`, 'Give one value per placeholder of the template body');
	}
	// Rule 3 and the note under "Component object": no body component without body variables.
	if (input.bodyValues.length > 0) {
		components.push({ position: 'body', parameters: input.bodyValues.map(bodyParameter) });
	}
	if (input.buttons.length > 0) {
		components.push({ position: 'button', parameters: buildButtonParameters(input.buttons, compatibility) });
	}
	return components;
}

function bodyParameter(value: unknown, position: number): { type: 'text'; text: string } {
	const field = `${FIELD.bodyValues} → value ${position + 1}`;
	return { type: 'text', text: requiredText(value, field, 'Every placeholder of the template body needs a value; check the mapped column is filled for this row') };
}

function buildHeaderParameter(header: { type: unknown; text?: unknown; url?: unknown; urlAsWritten?: boolean }): object | undefined {
	const type = header.type ?? 'none';
	if (type === 'none') return undefined;
	if (type === 'text') return { type: 'text', text: requiredText(header.text, FIELD.headerText) };
	if (isMediaHeaderKind(type)) return { type, [type]: { url: mediaUrl(header.url, header.urlAsWritten === true) } };
	throw new InvalidFieldError(FIELD.headerType, `${describeValue(type)} is not one of ${TEMPLATE_HEADER_KINDS.join(', ')}`, 'Pick the kind of header the template has');
}

/**
 * Rule 6: media URLs must be http or https, checked here so that nothing is sent otherwise.
 * Version 2 writes the URL as a browser would (WHATWG serialisation): a space becomes %20, other
 * characters a URL cannot carry are percent-encoded (UTF-8), a non-ASCII host its punycode; a URL
 * that needs none of that is sent exactly as written, an existing %XX included. Version 1 refuses
 * a space, as 0.1.0 did, and sends other characters as written.
 */
function mediaUrl(raw: unknown, asWritten: boolean): string {
	const text = requiredText(raw, FIELD.headerMediaUrl, 'Give the public http(s) address of the image, video or document').trim();
	// What the parser would drop (tabs, line breaks) or read as / (a backslash) is refused: the API may not read it so, and a line break often joins two cells.
	const refused = asWritten ? /[\s\\]/ : /[\t\n\v\f\r\u2028\u2029\\]/;
	if (refused.test(text) || hasControlCharacter(text)) {
		throw new InvalidFieldError(
			FIELD.headerMediaUrl,
			asWritten ? `${quote(text)} contains a space, tab, line break, control character or backslash` : `${quote(text)} contains a tab, line break, control character or backslash`,
			asWritten ? 'Write spaces in a URL as %20, and use / between its parts' : 'Give one address, and use / between its parts',
		);
	}
	// Also an http(s) address without a host: the parser refuses it.
	if (!URL.canParse(text)) {
		throw new InvalidFieldError(FIELD.headerMediaUrl, `${quote(text)} is not a URL`, 'Give a full address starting with https:// (or http://)');
	}
	const url = new URL(text);
	const notHttp = notHttpProblem(url);
	if (notHttp) throw new InvalidFieldError(FIELD.headerMediaUrl, `${quote(text)} ${notHttp}`, 'Host the file at a web address starting with https://');
	return asWritten || !NEEDS_ENCODING.test(text) ? text : url.href;
}

/** What a browser percent-encodes in some part of a URL (and a non-ASCII host it writes in punycode): a space, a non-ASCII character, " < > ` { }. */
const NEEDS_ENCODING = /[^\x21-\x7e]|["<>`{}]/;

const MAX_BODY_VALUES = 100;

/** Body values given as one expression: a list (or a JSON text of one) of texts. */
export function bodyValuesFromList(raw: unknown): unknown[] {
	if (raw === undefined || raw === null || raw === '') return [];
	let value: unknown = raw;
	if (typeof raw === 'string') {
		const parsed = parseJson(raw);
		if ('error' in parsed) {
			throw new InvalidFieldError(FIELD.bodyValues, `expected a list such as ["Budi", "INV-7"], got ${describeValue(raw)}`, 'Use an expression that yields a list, e.g. {{ [$json.name, $json.invoice] }}');
		}
		value = parsed.value;
	}
	if (!Array.isArray(value)) {
		throw new InvalidFieldError(FIELD.bodyValues, `expected a list, got ${describeValue(value)}`, 'Use an expression that yields a list, e.g. {{ [$json.name, $json.invoice] }}');
	}
	return value;
}
