import type { ButtonInput, CompatibilityOptions } from '../shared/contracts';
import { buttonKindsInText, NO_VALUE_BUTTONS_IN_TEXT, TEMPLATE_BUTTON_KINDS, VALUE_BUTTON_KINDS } from '../shared/contracts';
import { FIELD } from '../shared/fieldNames';
import { InvalidFieldError } from '../shared/InvalidFieldError';
import { hasControlCharacter } from '../shared/invisibleCharacters';
import { describeValue, requiredText } from './text';

export function buildButtonParameters(buttons: ButtonInput[], compatibility: CompatibilityOptions): object[] {
	const seen = new Set<number>();
	return buttons.map((button, position) => {
		const field = button.field ?? `${FIELD.buttons} → button ${position + 1}`;
		const index = unusedButtonIndex(button.index, `${field} → Index`, seen);

		let subType: string;
		let inner: Record<string, string>;
		if (button.kind === 'quickReply') {
			subType = 'quick_reply';
			const payload = requiredText(button.value, `${field} → ${TEMPLATE_BUTTON_KINDS.quickReply.value!.displayName}`, 'A quick reply button needs the payload text that comes back when the recipient taps it');
			inner = quickReplyParameter(payload, compatibility.quickReplyValueField);
		} else if (button.kind === 'dynamicUrl') {
			subType = compatibility.dynamicUrlSubType;
			const suffixField = `${field} → ${TEMPLATE_BUTTON_KINDS.dynamicUrl.value!.displayName}`;
			const suffix = requiredText(button.value, suffixField, 'A dynamic URL button needs the text appended to the URL registered with the template');
			refuseBrokenLink(suffix, suffixField);
			inner = { type: 'text', text: suffix };
		} else {
			throw new InvalidFieldError(`${field} → Type`, `${describeValue(button.kind)} is not a button type with parameters (${buttonKindsInText(VALUE_BUTTON_KINDS, 'or')})`, `${NO_VALUE_BUTTONS_IN_TEXT} take no parameters: leave them out`);
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

/** A URL suffix is appended to a link: a line break or a tab there would break the link the recipient taps. */
export function refuseBrokenLink(suffix: string, field: string): void {
	if (hasControlCharacter(suffix) || /[\u2028\u2029]/.test(suffix)) {
		throw new InvalidFieldError(field, 'contains a line break, a tab or another control character, which a link cannot hold', 'Remove it from the value, e.g. with .trim() in the expression');
	}
}

/** A button's index, read as buttonIndex reads it, that no button before it (`seen`, which it joins) has. */
export function unusedButtonIndex(raw: unknown, field: string, seen: Set<number>): number {
	const index = buttonIndex(raw, field);
	if (seen.has(index)) throw new InvalidFieldError(field, `index ${index} is used by another button`, 'Each button of the template has its own index, starting at 0');
	seen.add(index);
	return index;
}

export function buttonIndex(raw: unknown, field: string): number {
	// Decimal digits only ("+1" and "1.0" as a sheet may write a whole number): Number() would also read
	// "0x10", "0b11" and "1e3" as 16, 3 and 1000.
	const digits = typeof raw === 'string' ? /^\+?(\d{1,15})(?:\.0+)?$/.exec(raw.trim()) : null;
	const index = digits ? Number(digits[1]) : raw;
	// A safe integer: larger ones print in exponent form ("1e+21"), which is no index.
	if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0) {
		throw new InvalidFieldError(field, `${describeValue(raw)} is not a whole number of 0 or more`, 'Buttons are numbered in template order starting at 0');
	}
	return index;
}
