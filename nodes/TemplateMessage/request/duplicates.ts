import type { PreparedMessage, Skip } from '../shared/contracts';
import { FIELD } from '../shared/fieldNames';
import { optionPath } from '../shared/options';

/** Each message's whole request as text (the same text is the same message); none for an invalid item. */
export function requestKeysOf(messages: Array<PreparedMessage | undefined>): Array<string | undefined> {
	return messages.map((message) => message && JSON.stringify(message.request));
}

/** For each item whose key repeats an earlier item's, the index of the first. */
export function findRepeats(keys: Array<string | undefined>): Map<number, number> {
	const first = new Map<string, number>();
	const repeats = new Map<number, number>();
	keys.forEach((key, itemIndex) => {
		if (key === undefined) return;
		const earlier = first.get(key);
		if (earlier === undefined) first.set(key, itemIndex);
		else repeats.set(itemIndex, earlier);
	});
	return repeats;
}

/** Said before the first one's answer is known: it may be refused, or its delivery unknown. */
const NOT_TWICE = (duplicateOf: number) => `not sent a second time; item ${duplicateOf}'s row says whether it went out`;

/**
 * Repeats of an earlier item: the same Send Once key, or, with Skip Duplicate Messages, the same request
 * (`requestRepeats`, given when the caller has them already).
 */
export function repeatsToSkip(messages: Array<PreparedMessage | undefined>, skipDuplicates: boolean, requestRepeats?: Map<number, number>): Map<number, Skip> {
	const skip = new Map<number, Skip>();
	if (skipDuplicates) {
		for (const [itemIndex, duplicateOf] of requestRepeats ?? findRepeats(requestKeysOf(messages))) {
			skip.set(itemIndex, { duplicateOf, reason: `Same recipient, template and values as item ${duplicateOf}: ${NOT_TWICE(duplicateOf)} (${optionPath('skipDuplicates')})` });
		}
	}
	for (const [itemIndex, duplicateOf] of findRepeats(messages.map((message) => message?.key))) {
		skip.set(itemIndex, { duplicateOf, reason: `Same message key as item ${duplicateOf}: ${NOT_TWICE(duplicateOf)} (${FIELD.sendOnce})` });
	}
	return skip;
}
