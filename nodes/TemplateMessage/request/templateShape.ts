import { FIELD } from '../shared/fieldNames';
import { InvalidFieldError } from '../shared/InvalidFieldError';
import { buttonKindsInText, TEMPLATE_BUTTON_KINDS, TEMPLATE_HEADER_KINDS } from '../shared/contracts';
import { describeValue, visible } from './text';
import { truncate } from '../shared/bounded';
import type { Segment, TemplateButtonKind, TemplateHeaderKind, TemplateShape } from '../shared/contracts';

export interface TemplateInput {
	bodyText?: unknown;
	headerFormat?: unknown;
	headerText?: unknown;
	buttons?: Array<{ kind?: unknown; label?: unknown }>;
	checkCharacters?: unknown;
}

const BUTTON_KINDS = Object.keys(TEMPLATE_BUTTON_KINDS) as TemplateButtonKind[];
const MAX_TEMPLATE_TEXT = 4096;
const PLACEHOLDER = /\{\{\s*(\d{1,3})\s*\}\}/g;

/** The template's shape, or undefined when no part of it is given (then only refused characters are checked). */
export function parseTemplate(input: TemplateInput): TemplateShape | undefined {
	const shape: TemplateShape = { checkCharacters: input.checkCharacters !== false };
	const bodyText = optionalText(input.bodyText, FIELD.templateBody);
	if (bodyText !== undefined) shape.body = { placeholders: countPlaceholders(bodyText, FIELD.templateBody), segments: segments(bodyText) };

	if (input.headerFormat !== undefined && input.headerFormat !== '') {
		if (typeof input.headerFormat !== 'string' || !(TEMPLATE_HEADER_KINDS as readonly string[]).includes(input.headerFormat)) {
			throw new InvalidFieldError(FIELD.templateHeader, `${describeValue(input.headerFormat)} is not one of ${TEMPLATE_HEADER_KINDS.join(', ')}`);
		}
		const kind = input.headerFormat as TemplateHeaderKind;
		const text = kind === 'text' ? optionalText(input.headerText, FIELD.templateHeaderText) : undefined;
		const placeholders = text === undefined ? (kind === 'text' ? 'text left out' : 0) : countPlaceholders(text, FIELD.templateHeaderText);
		if (typeof placeholders === 'number' && placeholders > 1) {
			throw new InvalidFieldError(FIELD.templateHeaderText, `has ${placeholders} placeholders; a header text has at most one, {{1}}`, 'Paste the header text exactly as the template was registered');
		}
		shape.header = { kind, placeholders, segments: text === undefined ? [] : segments(text) };
	}

	if (input.buttons !== undefined && input.buttons.length > 0) {
		shape.buttons = input.buttons.map((button, position) => {
			if (typeof button.kind !== 'string' || !(BUTTON_KINDS as string[]).includes(button.kind)) {
				throw new InvalidFieldError(`${FIELD.templateButtons} → button ${position + 1} → Type`, `${describeValue(button.kind)} is not ${buttonKindsInText(BUTTON_KINDS, 'or')}`);
			}
			const label = previewLabel(button.label);
			return label === undefined ? { kind: button.kind as TemplateButtonKind } : { kind: button.kind as TemplateButtonKind, label };
		});
	}
	// Check Values for Refused Characters turned off is a part given too: alone, it is all that is checked (nothing).
	return shape.body || shape.header || shape.buttons || !shape.checkCharacters ? shape : undefined;
}

/** {{1}} to {{n}}, in any order, repeats allowed. A gap or a {{0}} would not have been approved: a paste typo. */
export function countPlaceholders(text: string, field: string): number {
	const seen = new Set<number>();
	for (const match of text.matchAll(PLACEHOLDER)) seen.add(Number(match[1]));
	if (seen.has(0)) throw new InvalidFieldError(field, 'has {{0}}: placeholders start at {{1}}', 'Paste the text exactly as the template was registered');
	const count = seen.size;
	for (let n = 1; n <= count; n++) {
		if (!seen.has(n)) {
			const found = [...seen].sort((a, b) => a - b).map((p) => `{{${p}}}`).join(', ');
			throw new InvalidFieldError(field, `has the placeholders ${found}: {{${n}}} is missing`, 'Placeholders are numbered from {{1}} without gaps: paste the text exactly as the template was registered');
		}
	}
	return count;
}

function segments(text: string): Segment[] {
	const parts: Segment[] = [];
	let last = 0;
	for (const match of text.matchAll(PLACEHOLDER)) {
		parts.push(text.slice(last, match.index), Number(match[1]));
		last = match.index + match[0].length;
	}
	parts.push(text.slice(last));
	return parts;
}

/** A button's Label names it in the preview and in a check's message, nothing more: never a reason to refuse the item. */
function previewLabel(raw: unknown): string | undefined {
	const text = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : '';
	return text === '' ? undefined : truncate(visible(text), MAX_LABEL_LENGTH);
}

/** A button's text is at most 25 characters; a longer Label is cut in the preview. */
const MAX_LABEL_LENGTH = 40;

function optionalText(raw: unknown, field: string): string | undefined {
	if (raw === undefined || raw === null || raw === '') return undefined;
	if (typeof raw !== 'string') throw new InvalidFieldError(field, `expected text, got ${describeValue(raw)}`);
	if (raw.length > MAX_TEMPLATE_TEXT) throw new InvalidFieldError(field, `is ${raw.length} characters long; a template text is at most ${MAX_TEMPLATE_TEXT}`);
	return raw.trim() === '' ? undefined : raw;
}
