import type { SendRequestBody, Segment, TemplateShape } from '../shared/contracts';
import { TEMPLATE_BUTTON_KINDS } from '../shared/contracts';
import { componentParameters } from './templateCheck';
import { visible } from './text';

/** A body is at most 1,024 characters, a text header 60; a value repeated by many placeholders could make every item megabytes. */
export const MAX_PREVIEW_LENGTH = 1500;

/** The message as the recipient reads it; the request must have passed the template check (one value per placeholder). */
export function renderPreview(request: SendRequestBody, shape: TemplateShape): string | undefined {
	if (!shape.body) return undefined;
	const { payload } = request.message.template;
	const lines: string[] = [];
	const header = componentParameters(payload, 'header')[0];
	if (shape.header?.kind === 'text' && shape.header.segments.length > 0) lines.push(fill(shape.header.segments, [header]));
	// A header the template does not describe, or a text header whose text was left out: shown as sent.
	else if (header && header.type === 'text') lines.push(visible(valueText(header) ?? ''));
	else if (header && typeof header.type === 'string') lines.push(`[${visible(header.type)}: ${textOf((header[header.type] as { url?: unknown } | undefined)?.url) ?? ''}]`);
	lines.push(fill(shape.body.segments, componentParameters(payload, 'body')));
	const buttons = (shape.buttons ?? []).flatMap((button, index) => {
		// What a dynamic URL button's link ends with, as sent.
		const suffix = button.kind === 'dynamicUrl' ? valueText(buttonValue(payload, index)) : undefined;
		if (suffix !== undefined) return [`[${button.label ?? TEMPLATE_BUTTON_KINDS[button.kind].name} → …/${visible(suffix)}]`];
		return button.label ? [`[${button.label}]`] : [];
	});
	if (buttons.length > 0) lines.push(buttons.join(' '));
	return cut(lines.join('\n'));
}

/** The one parameter a message gives button `index` (its value in `parameters`). */
function buttonValue(payload: SendRequestBody['message']['template']['payload'], index: number): Record<string, unknown> | undefined {
	const button = componentParameters(payload, 'button').find((entry) => Number(entry.index) === index);
	return Array.isArray(button?.parameters) ? (button.parameters[0] as Record<string, unknown> | undefined) : undefined;
}

/**
 * A parameter as the recipient reads it: its text, or for a type the node does not build (a currency, a date given
 * in JSON) the fallback text the platform shows, or its type.
 */
function valueText(value: Record<string, unknown> | undefined): string | undefined {
	if (!value) return undefined;
	const text = textOf(value.text);
	if (text !== undefined || typeof value.type !== 'string' || value.type === 'text') return text;
	return textOf((value[value.type] as { fallback_value?: unknown } | undefined)?.fallback_value) ?? `[${value.type}]`;
}

function fill(segments: Segment[], values: Array<Record<string, unknown> | undefined>): string {
	let text = '';
	for (const segment of segments) {
		text += typeof segment === 'string' ? segment : visible(valueText(values[segment - 1]) ?? `{{${segment}}}`);
		if (text.length > MAX_PREVIEW_LENGTH) break;
	}
	return text;
}

/** A value as the preview shows it; none for what is not text, a number or a boolean (the preview never throws on a value). */
function textOf(value: unknown): string | undefined {
	return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}

function cut(text: string): string {
	return text.length > MAX_PREVIEW_LENGTH ? `${text.slice(0, MAX_PREVIEW_LENGTH)}… (preview cut at ${MAX_PREVIEW_LENGTH} characters)` : text;
}
