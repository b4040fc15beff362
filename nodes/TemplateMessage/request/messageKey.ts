import { fingerprint } from '../shared/fingerprint';
import { InvalidFieldError } from '../shared/InvalidFieldError';
import { describeValue, hasLoneSurrogate, refuseLostDigits } from './text';
import type { SendRequestBody, SendOnce } from '../shared/contracts';
import { MESSAGE_KEY_FIELD } from '../shared/contracts';

const MAX_KEY_LENGTH = 500;
/**
 * What Forget takes: every key Send writes, a recipient and template one with a Template Code ID of up to
 * 4,096 characters included, each of them two UTF-16 units if need be (only a key given to Once per Message Key
 * is held to MAX_KEY_LENGTH).
 */
const MAX_STORED_KEY_LENGTH = 9000;

/** The recipient is the normalised number the API gets, so "+62 812-3456" and "628123456" are one recipient. */
export function messageKey(request: SendRequestBody, sendOnce: Exclude<SendOnce, 'off'>, customKey?: unknown): string {
	const recipientAndTemplate = `${request.phone_number}|${request.message.template.template_code_id}`;
	if (sendOnce === 'recipientTemplate') return recipientAndTemplate;
	if (sendOnce === 'recipientTemplateValues') return `${recipientAndTemplate}|${fingerprint(JSON.stringify(request.message.template.payload))}`;
	const key = customMessageKey(customKey);
	// n8n's store keeps a hash of the key's UTF-8: half an emoji becomes U+FFFD there, one key for two messages.
	if (hasLoneSurrogate(key)) {
		throw new InvalidFieldError(MESSAGE_KEY_FIELD, 'holds half of an emoji (a lone UTF-16 surrogate), which n8n would record as another message\'s key', 'An expression cut the text inside an emoji (e.g. with .slice()): cut it with Array.from(text).slice(…).join("") instead, or map the whole value');
	}
	return key;
}

export function customMessageKey(value: unknown, maxLength = MAX_KEY_LENGTH): string {
	// Two order ids beyond 2^53 can arrive as one number: one key for two messages.
	refuseLostDigits(value, MESSAGE_KEY_FIELD);
	if (value !== undefined && value !== null && typeof value !== 'string' && typeof value !== 'number') {
		throw new InvalidFieldError(MESSAGE_KEY_FIELD, `expected text or a number, got ${describeValue(value)}`, 'Map one value that names the message, e.g. {{ $json.orderId }}, or join several into one text: {{ $json.orderId }}-{{ $json.phone }}');
	}
	// {{ Number($json.order) }} of "ORD-1" is NaN, as is every other order's: one key for every message.
	if (typeof value === 'number' && !Number.isFinite(value)) {
		throw new InvalidFieldError(MESSAGE_KEY_FIELD, `is ${String(value)}, not a number that names a message`, 'Map the value itself, e.g. {{ $json.orderId }}: an expression like Number() or parseInt() of a text that is not a number gives NaN for every item');
	}
	const key = value === undefined || value === null ? '' : String(value).trim();
	if (key === '') {
		throw new InvalidFieldError(MESSAGE_KEY_FIELD, 'is empty', 'Map a value that names the message once, e.g. {{ $json.orderId }}, or {{ $json.phone }}-{{ $now.toFormat(\'yyyy-MM-dd\') }} for once a day');
	}
	// The record marks its own entries with a NUL character (a key's pending mark, a run's markers).
	if (key.includes('\u0000')) {
		throw new InvalidFieldError(MESSAGE_KEY_FIELD, 'contains a NUL character (\\u0000)', 'Map a value of visible characters, such as an order id');
	}
	if (key.length > maxLength) {
		throw new InvalidFieldError(MESSAGE_KEY_FIELD, `has ${key.length} characters; at most ${maxLength} are allowed`, 'Use a shorter value that still names the message, such as an order id');
	}
	return key;
}

/** A key to forget: any key Send writes, whatever its Send Once choice. */
export function storedMessageKey(value: unknown): string {
	return customMessageKey(value, MAX_STORED_KEY_LENGTH);
}

/** The same message in every try of n8n's Retry On Fail (see PreparedMessage.tryKey). */
export function tryKeyOf(request: SendRequestBody): string {
	return fingerprint(messageKey(request, 'recipientTemplate'));
}
