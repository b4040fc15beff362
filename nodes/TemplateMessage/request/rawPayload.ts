import { FIELD } from '../shared/fieldNames';
import { InvalidFieldError } from '../shared/InvalidFieldError';
import type { PayloadComponent } from '../shared/contracts';
import { buttonIndex, refuseBrokenLink } from './buttons';
import { describeValue, parseJson } from './text';

const POSITIONS: readonly string[] = ['header', 'body', 'button'];
const RAW_PAYLOAD_HINT = 'Give the payload array, e.g. [{"position":"body","parameters":[{"type":"text","text":"Budi"}]}]';

/** The raw mode: the user gives the `payload` array (JSON text or an expression's value). */
export function parseRawPayload(raw: unknown): PayloadComponent[] {
	let value = raw;
	if (typeof raw === 'string') {
		if (raw.trim() === '') return [];
		if (raw.length > MAX_RAW_PAYLOAD_LENGTH) {
			throw new InvalidFieldError(FIELD.rawPayload, `is ${raw.length} characters long; at most ${MAX_RAW_PAYLOAD_LENGTH}`, RAW_PAYLOAD_HINT);
		}
		const parsed = parseJson(raw);
		if ('error' in parsed) {
			throw new InvalidFieldError(FIELD.rawPayload, `is not valid JSON (${parsed.error})`, RAW_PAYLOAD_HINT);
		}
		value = parsed.value;
	}
	if (!Array.isArray(value)) {
		throw new InvalidFieldError(FIELD.rawPayload, `must be a list of components, got ${describeValue(value)}`, RAW_PAYLOAD_HINT);
	}
	const size = measure(value);
	if (size.depth > MAX_RAW_PAYLOAD_DEPTH || size.length > MAX_RAW_PAYLOAD_LENGTH) {
		throw new InvalidFieldError(
			FIELD.rawPayload,
			size.depth > MAX_RAW_PAYLOAD_DEPTH ? `is nested more than ${MAX_RAW_PAYLOAD_DEPTH} levels deep` : `is larger than ${MAX_RAW_PAYLOAD_LENGTH} characters`,
			RAW_PAYLOAD_HINT,
		);
	}
	const seen = new Set<string>();
	value.forEach((component: unknown, i) => {
		const where = `${FIELD.rawPayload} → component ${i + 1}`;
		if (typeof component !== 'object' || component === null || Array.isArray(component)) {
			throw new InvalidFieldError(where, `must be an object with position and parameters, got ${describeValue(component)}`, RAW_PAYLOAD_HINT);
		}
		const { position, parameters } = component as Record<string, unknown>;
		if (typeof position !== 'string' || !POSITIONS.includes(position)) {
			throw new InvalidFieldError(`${where} → position`, `${describeValue(position)} is not header, body or button`, RAW_PAYLOAD_HINT);
		}
		if (seen.has(position)) {
			throw new InvalidFieldError(`${where} → position`, `is a second ${position} component`, `Give one ${position} component with all its parameters in one list: the API takes one component per part of the template`);
		}
		seen.add(position);
		if (!Array.isArray(parameters)) {
			throw new InvalidFieldError(`${where} → parameters`, `must be a list, got ${describeValue(parameters)}`, RAW_PAYLOAD_HINT);
		}
		checkValues(position, parameters);
	});
	return value as PayloadComponent[];
}

/**
 * The values the fields refuse when empty are refused here too (an empty mapped cell would send
 * "Hi , …"), named as the template check names them: `Payload (JSON) → body → value 1`. A button's
 * index is read as the fields read it, decimal digits only.
 */
function checkValues(position: string, parameters: unknown[]): void {
	parameters.forEach((parameter: unknown, i) => {
		if (typeof parameter !== 'object' || parameter === null || Array.isArray(parameter)) return;
		const entry = parameter as Record<string, unknown>;
		if (position !== 'button') {
			if (entry.type === 'text' || (entry.type === undefined && 'text' in entry)) filled(entry.text, `${FIELD.rawPayload} → ${position} → value ${i + 1}`);
			return;
		}
		const name = `${FIELD.rawPayload} → button ${i + 1}`;
		buttonIndex(entry.index, `${name} → index`);
		const inner = Array.isArray(entry.parameters) ? (entry.parameters as unknown[]) : [];
		for (const value of inner) {
			if (typeof value !== 'object' || value === null) continue;
			const { type, text, payload } = value as Record<string, unknown>;
			if (type === 'payload') filled(payload, `${name} → payload`);
			else if (type === 'text') {
				filled(text, `${name} → text`);
				if (typeof text === 'string') refuseBrokenLink(text, `${name} → text`);
			}
		}
	});
}

/** Text with something in it, or a number; what an empty cell or a wrong expression gives is refused. */
function filled(value: unknown, field: string): void {
	if (typeof value === 'number' && Number.isFinite(value)) return;
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) throw new InvalidFieldError(field, 'is empty', 'Map a column that has a value in this row, or leave rows without one out with a Filter step before this node');
	if (typeof value !== 'string') throw new InvalidFieldError(field, `expected text, got ${describeValue(value)}`, RAW_PAYLOAD_HINT);
}

/** The spec's payload is 4 levels deep at most (payload → button → parameters → parameter). */
const MAX_RAW_PAYLOAD_DEPTH = 8;
const MAX_RAW_PAYLOAD_LENGTH = 64 * 1024;

/** Walked without recursion and given up at either limit, so that nothing overflows the stack here or when sent. */
function measure(value: unknown): { depth: number; length: number } {
	const stack: Array<[unknown, number]> = [[value, 1]];
	let depth = 0;
	let length = 0;
	while (stack.length > 0) {
		const [current, level] = stack.pop()!;
		if (level > depth) depth = level;
		if (depth > MAX_RAW_PAYLOAD_DEPTH || length > MAX_RAW_PAYLOAD_LENGTH) break;
		if (typeof current === 'string') length += current.length + 2;
		else if (typeof current !== 'object' || current === null) length += String(current).length;
		else {
			const entries = Array.isArray(current) ? current : Object.entries(current).flat();
			length += 2 + entries.length;
			for (const entry of entries) stack.push([entry, level + 1]);
		}
	}
	return { depth, length };
}
