import { fingerprint } from '../shared/fingerprint';
import { InvalidFieldError } from '../shared/InvalidFieldError';
import { refuseLostDigits } from './text';
import type { SendRequestBody, SendOnce } from '../shared/contracts';
import { MESSAGE_KEY_FIELD } from '../shared/contracts';

const MAX_KEY_LENGTH = 500;

/** The recipient is the normalised number the API gets, so "+62 812-3456" and "628123456" are one recipient. */
export function messageKey(request: SendRequestBody, sendOnce: Exclude<SendOnce, 'off'>, customKey?: unknown): string {
	const recipientAndTemplate = `${request.phone_number}|${request.message.template.template_code_id}`;
	if (sendOnce === 'recipientTemplate') return recipientAndTemplate;
	if (sendOnce === 'recipientTemplateValues') return `${recipientAndTemplate}|${fingerprint(JSON.stringify(request.message.template.payload))}`;
	return customMessageKey(customKey);
}

export function customMessageKey(value: unknown): string {
	// Two order ids beyond 2^53 can arrive as one number: one key for two messages.
	refuseLostDigits(value, MESSAGE_KEY_FIELD);
	const key = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
	if (key === '') {
		throw new InvalidFieldError(MESSAGE_KEY_FIELD, 'is empty', 'Map a value that names the message once, e.g. {{ $json.orderId }}, or {{ $json.phone }}-{{ $now.toFormat(\'yyyy-MM-dd\') }} for once a day');
	}
	// The record marks its own entries with a NUL character (a key's pending mark, a run's markers).
	if (key.includes('\u0000')) {
		throw new InvalidFieldError(MESSAGE_KEY_FIELD, 'contains a NUL character (\\u0000)', 'Map a value of visible characters, such as an order id');
	}
	if (key.length > MAX_KEY_LENGTH) {
		throw new InvalidFieldError(MESSAGE_KEY_FIELD, `has ${key.length} characters; at most ${MAX_KEY_LENGTH} are allowed`, 'Use a shorter value that still names the message, such as an order id');
	}
	return key;
}

/** The same message in every try of n8n's Retry On Fail (see PreparedMessage.tryKey). */
export function tryKeyOf(request: SendRequestBody): string {
	return fingerprint(messageKey(request, 'recipientTemplate'));
}
