import type { SendRequestBody } from '../request/payload';
import { componentParameters } from '../request/templateCheck';
import type { Segment, TemplateShape } from '../request/template';

/**
 * The message as the recipient will read it, from the template's text and the item's values:
 * the header, the body with its placeholders filled in, and the buttons' labels where the
 * template gives them. Only with the body text known; the request must have passed the template
 * check (one value for each placeholder).
 */
export function renderPreview(request: SendRequestBody, shape: TemplateShape): string | undefined {
	if (!shape.body) return undefined;
	const { payload } = request.message.template;
	const lines: string[] = [];
	const header = componentParameters(payload, 'header')[0];
	if (shape.header?.kind === 'text' && shape.header.segments.length > 0) lines.push(fill(shape.header.segments, [header]));
	else if (header && typeof header.type === 'string' && header.type !== 'text') lines.push(`[${header.type}: ${(header[header.type] as { url?: string } | undefined)?.url ?? ''}]`);
	lines.push(fill(shape.body.segments, componentParameters(payload, 'body')));
	const labels = (shape.buttons ?? []).filter((button) => button.label).map((button) => `[${button.label}]`);
	if (labels.length > 0) lines.push(labels.join(' '));
	return lines.join('\n');
}

function fill(segments: Segment[], values: Array<Record<string, unknown> | undefined>): string {
	let text = '';
	for (const segment of segments) text += typeof segment === 'string' ? segment : String(values[segment - 1]?.text ?? `{{${segment}}}`);
	return text;
}
