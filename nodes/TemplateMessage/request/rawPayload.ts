import { FIELD } from '../shared/fieldNames';
import { InvalidFieldError } from '../shared/InvalidFieldError';
import type { PayloadComponent } from '../shared/contracts';
import { isMediaHeaderKind } from '../shared/contracts';
import { truncate } from '../shared/bounded';
import { refuseBrokenLink, unusedButtonIndex } from './buttons';
import { mediaUrl } from './mediaUrl';
import { describeValue, isEmptyValue, parseJson, refuseLostDigits } from './text';

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
		refuseRewrittenNumber(raw);
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
 * What the contract requires of each parameter, and the values the fields refuse when empty (an empty
 * mapped cell would send "Hi , …"), named as the template check names them: `Payload (JSON) → body →
 * value 1`. A button's index is read as the fields read it, decimal digits only. What the contract does
 * not describe (another type of value, such as a currency; another field of a media object) goes as given.
 */
function checkValues(position: string, parameters: unknown[]): void {
	const indexes = new Set<number>();
	parameters.forEach((parameter: unknown, i) => {
		const name = position === 'button' ? `${FIELD.rawPayload} → button ${i + 1}` : `${FIELD.rawPayload} → ${position} → value ${i + 1}`;
		const entry = objectOf(parameter, name, position === 'button' ? 'sub_type, index and parameters' : 'type and its value');
		if (position !== 'button') {
			if (entry.type === 'text' || (entry.type === undefined && 'text' in entry)) filled(entry.text, name);
			else if (position === 'header' && typeof entry.type === 'string' && isMediaHeaderKind(entry.type)) {
				const media = objectOf(entry[entry.type], `${name} → ${entry.type}`, 'url');
				mediaUrl(media.url, false, `${name} → ${entry.type} → url`);
			}
			return;
		}
		unusedButtonIndex(entry.index, `${name} → index`, indexes);
		const kind = entry.sub_type ?? entry.sub_types;
		if (typeof kind !== 'string' || kind.trim() === '') {
			throw new InvalidFieldError(`${name} → sub_type`, kind === undefined ? 'is missing' : `${describeValue(kind)} is not a kind of button`, 'Give the kind of button: "quick_reply", or "url" (also written "url_dynamic") for a dynamic URL button');
		}
		if (!Array.isArray(entry.parameters) || entry.parameters.length === 0) {
			throw new InvalidFieldError(`${name} → parameters`, entry.parameters === undefined ? 'are missing' : `must be a list of values, got ${describeValue(entry.parameters)}`, 'A quick reply carries [{"type":"payload","payload":"…"}], a dynamic URL [{"type":"text","text":"…"}]');
		}
		for (const inner of entry.parameters as unknown[]) {
			const value = objectOf(inner, `${name} → parameters`, 'type and its value');
			if (value.type === 'payload') filled(value.payload ?? value.text, `${name} → payload`);
			else if (value.type === 'text') {
				filled(value.text, `${name} → text`);
				if (typeof value.text === 'string') refuseBrokenLink(value.text, `${name} → text`);
			}
		}
	});
}

function objectOf(value: unknown, field: string, holding: string): Record<string, unknown> {
	if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
	throw new InvalidFieldError(field, `must be an object with ${holding}, got ${describeValue(value)}`, RAW_PAYLOAD_HINT);
}

/** Text with something in it, or a number that holds its digits; what an empty cell or a wrong expression gives is refused. */
function filled(value: unknown, field: string): void {
	refuseLostDigits(value, field);
	if (typeof value === 'number' && Number.isFinite(value)) return;
	if (isEmptyValue(value)) throw new InvalidFieldError(field, 'is empty', 'Map a column that has a value in this row, or leave rows without one out with a Filter step before this node');
	if (typeof value !== 'string') throw new InvalidFieldError(field, `expected text, got ${describeValue(value)}`, RAW_PAYLOAD_HINT);
}

/**
 * A value (`"text"` or `"payload"`, what the recipient reads) written as a number that JSON sends otherwise
 * than written: mapped without quotes, `"text": {{ $json.ref }}`, a reference beyond 2^53
 * (12345678901234567890 goes as …567000) or an amount "150000.50" (goes as 150000.5). Other numbers (an
 * index, a field the contract does not describe) go as JSON reads them.
 */
function refuseRewrittenNumber(json: string): void {
	// Each text, and the number after it when it is a key: a key's own text is skipped whole, so no digit in a text is read.
	const keyAndNumber = /"((?:[^"\\]|\\.)*)"(?:\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?))?/g;
	for (let match = keyAndNumber.exec(json); match !== null; match = keyAndNumber.exec(json)) {
		const [, key, written] = match;
		if (written === undefined || (key !== 'text' && key !== 'payload')) continue;
		const sent = JSON.stringify(Number(written));
		if (sent === written) continue;
		throw new InvalidFieldError(
			FIELD.rawPayload,
			`holds the number ${truncate(written, 40)} as a ${key}, which JSON sends as ${truncate(sent, 40)}`,
			`Put the value in quotes, as text, e.g. "${key}": "{{ $json.ref }}": a value mapped without quotes becomes a number and loses what a number cannot hold`,
		);
	}
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
