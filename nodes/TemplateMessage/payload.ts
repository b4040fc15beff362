import { InvalidFieldError } from './InvalidFieldError';
import { describeValue, hasControlCharacter, normalisePhoneNumber, quote } from './phone';

/** The request body of `POST /api/v2/push/message`, as the spec describes it. */
export interface SendRequestBody {
	phone_number: string;
	message: {
		type: 'template';
		template: {
			template_code_id: string;
			payload: PayloadComponent[];
		};
	};
}

export type ComponentPosition = 'header' | 'body' | 'button';

export interface PayloadComponent {
	position: ComponentPosition;
	parameters: object[];
}

export type HeaderType = 'none' | 'text' | 'image' | 'video' | 'document';
export type ButtonKind = 'quickReply' | 'dynamicUrl';

export interface ButtonInput {
	kind: unknown;
	index: unknown;
	value: unknown;
}

/** The naming variants the spec shows side by side; the defaults follow its examples. */
export interface CompatibilityOptions {
	buttonTypeField: 'sub_type' | 'sub_types';
	dynamicUrlSubType: 'url' | 'url_dynamic';
	buttonIndexFormat: 'string' | 'number';
	quickReplyValueField: 'payload' | 'text' | 'both';
}

export const DEFAULT_COMPATIBILITY: CompatibilityOptions = {
	buttonTypeField: 'sub_type',
	dynamicUrlSubType: 'url',
	buttonIndexFormat: 'string',
	quickReplyValueField: 'payload',
};

export type ComponentsInput =
	| {
			mode: 'fields';
			bodyValues: unknown[];
			header: { type: unknown; text?: unknown; url?: unknown };
			buttons: ButtonInput[];
	  }
	| { mode: 'json'; rawPayload: unknown };

/** Everything the node read for one item, before any checking. */
export interface MessageInput {
	phoneNumber: unknown;
	defaultCountryCode?: unknown;
	templateCodeId: unknown;
	components: ComponentsInput;
	compatibility?: Partial<CompatibilityOptions>;
}

export const FIELD = {
	templateCodeId: 'Template Code ID',
	bodyValues: 'Body Values',
	headerType: 'Header Type',
	headerText: 'Header Text',
	headerMediaUrl: 'Header Media URL',
	buttons: 'Buttons',
	rawPayload: 'Payload (JSON)',
} as const;

/**
 * Builds and validates the request body for one item. Pure: same input, same output, no I/O.
 * Throws InvalidFieldError naming the field at the first problem found.
 */
export function buildSendRequest(input: MessageInput): SendRequestBody {
	const compatibility = { ...DEFAULT_COMPATIBILITY, ...input.compatibility };
	const phoneNumber = normalisePhoneNumber(input.phoneNumber, input.defaultCountryCode);
	const templateCodeId = requiredText(input.templateCodeId, FIELD.templateCodeId, 'Copy the template code id from the developer dashboard (the template must be Approved)').trim();
	const payload =
		input.components.mode === 'json'
			? parseRawPayload(input.components.rawPayload)
			: buildComponents(input.components, compatibility);

	return {
		phone_number: phoneNumber,
		message: {
			type: 'template',
			template: { template_code_id: templateCodeId, payload },
		},
	};
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

function buildHeaderParameter(header: { type: unknown; text?: unknown; url?: unknown }): object | undefined {
	const type = header.type ?? 'none';
	switch (type) {
		case 'none':
			return undefined;
		case 'text':
			return { type: 'text', text: requiredText(header.text, FIELD.headerText) };
		case 'image':
		case 'video':
		case 'document':
			return { type, [type as string]: { url: mediaUrl(header.url) } };
		default:
			throw new InvalidFieldError(FIELD.headerType, `${describeValue(type)} is not one of none, text, image, video, document`, 'Pick the kind of header the template has');
	}
}

/** Rule 6: media URLs must be http or https, checked here so that nothing is sent otherwise. */
export function mediaUrl(raw: unknown): string {
	const text = requiredText(raw, FIELD.headerMediaUrl, 'Give the public http(s) address of the image, video or document').trim();
	// The text is sent as it is, so it must be what the URL parser understood: the parser drops
	// tabs and line breaks and reads a backslash as a slash, which the API's parser may not.
	if (/[\s\\]/.test(text) || hasControlCharacter(text)) {
		throw new InvalidFieldError(FIELD.headerMediaUrl, `${quote(text)} contains a space, tab, line break, control character or backslash`, 'Write spaces in a URL as %20, and use / between its parts');
	}
	const url = parseUrl(text);
	if (url === undefined) {
		throw new InvalidFieldError(FIELD.headerMediaUrl, `${quote(text)} is not a URL`, 'Give a full address starting with https:// (or http://)');
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		throw new InvalidFieldError(FIELD.headerMediaUrl, `${quote(text)} uses ${url.protocol.replace(':', '')}; only http and https are allowed`, 'Host the file at a web address starting with https://');
	}
	if (url.hostname === '') {
		throw new InvalidFieldError(FIELD.headerMediaUrl, `${quote(text)} has no host`, 'Give a full address such as https://cdn.example.com/file.pdf');
	}
	return text;
}

function parseUrl(text: string): URL | undefined {
	try {
		return new URL(text);
	} catch {
		return undefined;
	}
}

/** JSON.parse that reports failure as a value, so callers can throw their own field error. */
function parseJson(text: string): { value: unknown } | { error: string } {
	try {
		return { value: JSON.parse(text) };
	} catch (error) {
		return { error: (error as Error).message };
	}
}

function buildButtonParameters(buttons: ButtonInput[], compatibility: CompatibilityOptions): object[] {
	const seen = new Set<number>();
	return buttons.map((button, position) => {
		const field = `${FIELD.buttons} → button ${position + 1}`;
		const index = buttonIndex(button.index, `${field} → Index`);
		if (seen.has(index)) {
			throw new InvalidFieldError(`${field} → Index`, `index ${index} is used by another button`, 'Each button of the template has its own index, starting at 0');
		}
		seen.add(index);

		let subType: string;
		let inner: Record<string, string>;
		if (button.kind === 'quickReply') {
			subType = 'quick_reply';
			const payload = requiredText(button.value, `${field} → Payload`, 'A quick reply button needs the payload text that comes back when the recipient taps it');
			inner = quickReplyParameter(payload, compatibility.quickReplyValueField);
		} else if (button.kind === 'dynamicUrl') {
			subType = compatibility.dynamicUrlSubType;
			inner = { type: 'text', text: requiredText(button.value, `${field} → URL Suffix`, 'A dynamic URL button needs the text appended to the URL registered with the template') };
		} else {
			throw new InvalidFieldError(`${field} → Type`, `${describeValue(button.kind)} is not a button type with parameters (quick reply or dynamic URL)`, 'Call-phone and static URL buttons take no parameters: leave them out');
		}

		return {
			[compatibility.buttonTypeField]: subType,
			index: compatibility.buttonIndexFormat === 'string' ? String(index) : index,
			parameters: [inner],
		};
	});
}

function quickReplyParameter(payload: string, field: CompatibilityOptions['quickReplyValueField']): Record<string, string> {
	if (field === 'text') return { type: 'payload', text: payload };
	if (field === 'both') return { type: 'payload', payload, text: payload };
	return { type: 'payload', payload };
}

function buttonIndex(raw: unknown, field: string): number {
	// Decimal digits only: Number() would also read "0x10", "0b11" and "1e3" as 16, 3 and 1000.
	const index = typeof raw === 'string' && /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : raw;
	// A safe integer: larger ones print in exponent form ("1e+21"), which is no index.
	if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0) {
		throw new InvalidFieldError(field, `${describeValue(raw)} is not a whole number of 0 or more`, 'Buttons are numbered in template order starting at 0');
	}
	return index;
}

/** Text from a mapped value: strings as given, numbers and booleans as their text. */
function requiredText(raw: unknown, field: string, hint?: string): string {
	if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
	if (typeof raw === 'boolean' || typeof raw === 'bigint') return String(raw);
	if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
		throw new InvalidFieldError(field, 'is empty', hint);
	}
	if (typeof raw !== 'string') {
		throw new InvalidFieldError(field, `expected text, got ${describeValue(raw)}`, hint);
	}
	if (raw.length > MAX_TEXT_LENGTH) {
		throw new InvalidFieldError(field, `is ${raw.length} characters long; at most ${MAX_TEXT_LENGTH} are sent`, 'Template values are short texts: check the right column is mapped');
	}
	return raw;
}

const MAX_BODY_VALUES = 100;

/** Far above what any template field takes (a body is at most about 1,000 characters). */
export const MAX_TEXT_LENGTH = 4096;

const POSITIONS: readonly string[] = ['header', 'body', 'button'];
const RAW_PAYLOAD_HINT = 'Give the payload array, e.g. [{"position":"body","parameters":[{"type":"text","text":"Budi"}]}]';

/** The raw mode: the user gives the `payload` array (JSON text or an expression's value). */
function parseRawPayload(raw: unknown): PayloadComponent[] {
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
	value.forEach((component: unknown, i) => {
		const where = `${FIELD.rawPayload} → component ${i + 1}`;
		if (typeof component !== 'object' || component === null || Array.isArray(component)) {
			throw new InvalidFieldError(where, `must be an object with position and parameters, got ${describeValue(component)}`, RAW_PAYLOAD_HINT);
		}
		const { position, parameters } = component as Record<string, unknown>;
		if (typeof position !== 'string' || !POSITIONS.includes(position)) {
			throw new InvalidFieldError(`${where} → position`, `${describeValue(position)} is not header, body or button`, RAW_PAYLOAD_HINT);
		}
		if (!Array.isArray(parameters)) {
			throw new InvalidFieldError(`${where} → parameters`, `must be a list, got ${describeValue(parameters)}`, RAW_PAYLOAD_HINT);
		}
	});
	return value as PayloadComponent[];
}

/** The spec's payload is 4 levels deep at most (payload → button → parameters → parameter). */
const MAX_RAW_PAYLOAD_DEPTH = 8;
const MAX_RAW_PAYLOAD_LENGTH = 64 * 1024;

/**
 * Depth and approximate serialised length of a value, walked without recursion and given up
 * as soon as either passes its limit, so that no structure can overflow the stack here or later
 * (the request is serialised to be sent).
 */
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
