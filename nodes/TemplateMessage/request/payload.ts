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
import { hasControlCharacter } from '../shared/invisibleCharacters';
import { describeValue, hasHiddenMark, parseJson, quote, requiredText, visible } from './text';
import { mediaUrl } from './mediaUrl';

/** The API spellings a message uses where its item gives none: the options' defaults, read once. */
const SPELLING_DEFAULTS: CompatibilityOptions = readOptions({}, 'item', 2, fieldError);

/** Pure: throws InvalidFieldError naming the field at the first problem found. */
export function buildSendRequest(input: MessageInput): SendRequestBody {
	const compatibility = { ...SPELLING_DEFAULTS, ...input.compatibility };
	const phoneNumber = normalisePhoneNumber(input.phoneNumber, input.defaultCountryCode, input.phoneSource);
	const templateCodeId = requiredText(input.templateCodeId, FIELD.templateCodeId, 'Copy the template code id from the developer dashboard (the template must be Approved)').trim();
	if (hasControlCharacter(templateCodeId) || hasHiddenMark(templateCodeId)) {
		throw new InvalidFieldError(FIELD.templateCodeId, `contains a control character or a mark that does not show (a tab, a line break, a zero-width space, a direction mark): ${quote(visible(templateCodeId))}`, 'Copy the template code id again from the developer dashboard, or check the mapped column');
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
