import type { SendRequestBody, Segment, TemplateShape } from '../shared/contracts';
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
	else if (header && typeof header.type === 'string' && header.type !== 'text') lines.push(`[${visible(header.type)}: ${textOf((header[header.type] as { url?: unknown } | undefined)?.url) ?? ''}]`);
	lines.push(fill(shape.body.segments, componentParameters(payload, 'body')));
	const labels = (shape.buttons ?? []).filter((button) => button.label).map((button) => `[${button.label}]`);
	if (labels.length > 0) lines.push(labels.join(' '));
	return cut(lines.join('\n'));
}

function fill(segments: Segment[], values: Array<Record<string, unknown> | undefined>): string {
	let text = '';
	for (const segment of segments) {
		text += typeof segment === 'string' ? segment : visible(textOf(values[segment - 1]?.text) ?? `{{${segment}}}`);
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
