import { InvalidFieldError } from '../shared/InvalidFieldError';

const EXPRESSION_PART = /\{\{([\s\S]*?)\}\}/g;
const BARE_PLACEHOLDER = /^\s*\d+\s*$/;

/**
 * Pasting `Hi {{1}}` switches a field to Expression mode, where n8n computes `{{1}}` as `1`. So a text whose only
 * expressions are bare placeholders is taken as written (`written` is the stored `=Hi {{1}}`); one that mixes them
 * with real expressions cannot be read either way, and is refused.
 */
export function templateTextAsWritten(written: unknown, computed: unknown, field: string): unknown {
	if (typeof written !== 'string' || !written.startsWith('=')) return computed;
	const text = written.slice(1);
	const parts = [...text.matchAll(EXPRESSION_PART)].map((match) => match[1]);
	const placeholders = parts.filter((part) => BARE_PLACEHOLDER.test(part));
	if (placeholders.length === 0) return computed;
	if (placeholders.length === parts.length) return text;
	throw new InvalidFieldError(
		field,
		`is in Expression mode and mixes n8n expressions with template placeholders: n8n computed {{${placeholders[0].trim()}}} as ${placeholders[0].trim()}`,
		'Set the field to Fixed and paste the text as registered; to pick a template per row, map the whole text from a column instead, e.g. {{ $json.templateText }}',
	);
}
