import { FIELD } from '../shared/fieldNames';
import { InvalidFieldError } from '../shared/InvalidFieldError';
import type { PayloadComponent, SendRequestBody, TemplateButtonKind, TemplateShape } from '../shared/contracts';
import { buttonKindsInText, TEMPLATE_BUTTON_KINDS } from '../shared/contracts';
import { hasControlCharacter } from '../shared/invisibleCharacters';
import { capitalised } from '../shared/words';

const SPACES_HINT = 'Replace line breaks and tabs with spaces, and runs of spaces with one, e.g. with .replace(/\\s+/g, " ") in the expression';
const INVISIBLE_HINT = 'Remove it from the value, e.g. with .replace(/[\\u0000-\\u001f\\u007f\\u202d\\u202e]/g, "") in the expression';

// The platform refuses these in template parameters; the provider answers code 39 for the row.
const REFUSED_CHARACTERS: Array<[(text: string) => boolean, string, string]> = [
	[(text) => /[\r\n\u2028\u2029]/.test(text), 'a line break', SPACES_HINT],
	[(text) => text.includes('\t'), 'a tab', SPACES_HINT],
	[(text) => text.includes('     '), 'more than four spaces in a row', SPACES_HINT],
	// Any other control character: line breaks and tabs are ones too, but the first match names them.
	[hasControlCharacter, 'a control character', INVISIBLE_HINT],
	// Left-to-right and right-to-left overrides make a text read otherwise than it is written.
	[(text) => /[\u202d\u202e]/.test(text), 'a bidirectional override (U+202D or U+202E)', INVISIBLE_HINT],
];

type Mode = 'fields' | 'json';

/** Errors name the field in the words of the item's mode. */
const where = (mode: Mode, part: 'body' | 'header' | 'button', fieldsName: string) => (mode === 'json' ? `${FIELD.rawPayload} → ${part}` : fieldsName);

/** A part the shape does not give is not checked. */
export function checkAgainstTemplate(request: SendRequestBody, shape: TemplateShape, mode: Mode): void {
	const { payload } = request.message.template;
	if (shape.body) checkBody(componentParameters(payload, 'body'), shape.body.placeholders, where(mode, 'body', FIELD.bodyValues));
	if (shape.header) checkHeader(componentParameters(payload, 'header'), shape.header, where(mode, 'header', FIELD.headerType));
	if (shape.buttons) checkButtons(componentParameters(payload, 'button'), shape.buttons, where(mode, 'button', FIELD.buttons));
}

/** Every body value and a header's text, template pasted or not: the platform refuses these in any text parameter. */
export function checkRefusedCharacters(request: SendRequestBody, mode: Mode): void {
	const { payload } = request.message.template;
	const body = where(mode, 'body', FIELD.bodyValues);
	componentParameters(payload, 'body').forEach((value, position) => refuseCharacters(value, `${body} → value ${position + 1}`));
	const header = componentParameters(payload, 'header')[0];
	if (header?.type === 'text') refuseCharacters(header, mode === 'json' ? `${FIELD.rawPayload} → header → value 1` : FIELD.headerText);
}

function refuseCharacters(value: Record<string, unknown>, field: string): void {
	const text = typeof value.text === 'string' ? value.text : '';
	for (const [refuses, what, hint] of REFUSED_CHARACTERS) {
		if (refuses(text)) throw new InvalidFieldError(field, `contains ${what}, which the platform refuses in template values`, hint);
	}
}

export function componentParameters(payload: PayloadComponent[], position: PayloadComponent['position']): Array<Record<string, unknown>> {
	return (payload.find((entry) => entry.position === position)?.parameters ?? []) as Array<Record<string, unknown>>;
}

function checkBody(values: Array<Record<string, unknown>>, expected: number, field: string): void {
	if (values.length !== expected) {
		const placeholders = expected === 0 ? 'no placeholder' : expected === 1 ? 'one placeholder, {{1}}' : `${expected} placeholders, {{1}} to {{${expected}}}`;
		throw new InvalidFieldError(field, `has ${values.length} value(s); the template body has ${placeholders}`, `Give exactly one value per placeholder, in order (or correct ${FIELD.templateBody} if the template changed)`);
	}
}

function checkHeader(values: Array<Record<string, unknown>>, header: NonNullable<TemplateShape['header']>, field: string): void {
	const headerValue = values[0];
	const valueKind = typeof headerValue?.type === 'string' ? headerValue.type : undefined;
	// A text header whose text was left out may or may not take a value: only its kind is checked.
	if (header.placeholders === 'text left out') {
		if (headerValue !== undefined && valueKind !== 'text') throw new InvalidFieldError(field, `is ${valueKind}, but the template's header is a text`, 'Set Header Type to Text');
		return;
	}
	const takesValue = header.kind === 'text' ? header.placeholders > 0 : header.kind !== 'none';
	if (!takesValue) {
		if (headerValue === undefined) return;
		const template = header.kind === 'none' ? 'the template has no header' : 'the template\'s header text has no placeholder';
		throw new InvalidFieldError(field, `is ${valueKind ?? 'set'}, but ${template}`, 'Set Header Type to None: a fixed header needs no value');
	}
	if (headerValue === undefined) {
		const what = header.kind === 'text' ? 'a header text with a placeholder, {{1}}' : `a ${header.kind} header`;
		throw new InvalidFieldError(field, `is None, but the template has ${what}`, `Set Header Type to ${header.kind === 'text' ? 'Text' : capitalised(header.kind)} and give its ${header.kind === 'text' ? 'value' : 'media URL'}`);
	}
	if (valueKind !== header.kind) {
		throw new InvalidFieldError(field, `is ${valueKind}, but the template's header is ${header.kind === 'text' ? 'a text' : `a ${header.kind}`}`, `Set Header Type to ${capitalised(header.kind)}`);
	}
}

function checkButtons(values: Array<Record<string, unknown>>, buttons: NonNullable<TemplateShape['buttons']>, field: string): void {
	const valued = new Set<number>();
	values.forEach((value, position) => {
		const index = Number(value.index);
		const name = `${field} → button ${position + 1}`;
		if (!Number.isInteger(index) || index < 0 || index >= buttons.length) {
			throw new InvalidFieldError(`${name} → Index`, `is ${String(value.index)}, but the template has ${buttons.length} button(s), indexes 0 to ${buttons.length - 1}`, 'Buttons are numbered in template order starting at 0');
		}
		const template = buttons[index];
		const kind = buttonKind(value);
		if (TEMPLATE_BUTTON_KINDS[template.kind].value === undefined) {
			throw new InvalidFieldError(name, `gives a value to button ${index}, the template's ${describeButton(template)} button, which takes none`, `Leave ${buttonKindsInText(['callPhone', 'staticUrl'], 'and')} buttons out of ${FIELD.buttons}`);
		}
		if (kind !== template.kind) {
			throw new InvalidFieldError(`${name} → Type`, `is ${kind ? TEMPLATE_BUTTON_KINDS[kind].inText : 'unknown'}, but the template's button ${index} is a ${describeButton(template)} button`, `Set its Type to ${TEMPLATE_BUTTON_KINDS[template.kind].inText}`);
		}
		valued.add(index);
	});
	buttons.forEach((button, index) => {
		if (TEMPLATE_BUTTON_KINDS[button.kind].value !== undefined && !valued.has(index)) {
			const { inText, value } = TEMPLATE_BUTTON_KINDS[button.kind];
			throw new InvalidFieldError(field, `has no value for button ${index}, the template's ${describeButton(button)} button`, `Add a ${inText} button with Index ${index} and ${value!.described}`);
		}
	});
}

function buttonKind(value: Record<string, unknown>): TemplateButtonKind | undefined {
	const subType = value.sub_type ?? value.sub_types;
	if (subType === 'quick_reply') return 'quickReply';
	if (subType === 'url' || subType === 'url_dynamic') return 'dynamicUrl';
	return undefined;
}

function describeButton(button: { kind: TemplateButtonKind; label?: string }): string {
	return button.label ? `${TEMPLATE_BUTTON_KINDS[button.kind].inText} "${button.label}"` : TEMPLATE_BUTTON_KINDS[button.kind].inText;
}

