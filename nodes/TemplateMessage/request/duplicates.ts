import type { PreparedMessage, Skip } from '../shared/contracts';
import { FIELD } from '../shared/fieldNames';
import { fingerprint } from '../shared/fingerprint';
import { optionPath } from '../shared/options';

/**
 * For each item whose message repeats an earlier item's (the same request, as text), the index of the first.
 * Only a short hash of each request is held: a long value in many placeholders of many rows would make the
 * texts themselves hundreds of megabytes. Two requests of one hash are compared whole, so a collision is
 * never a repeat.
 */
export function requestRepeats(messages: Array<PreparedMessage | undefined>): Map<number, number> {
	const text = (itemIndex: number) => JSON.stringify(messages[itemIndex]?.request);
	const firstOfHash = new Map<string, number[]>();
	const repeats = new Map<number, number>();
	messages.forEach((message, itemIndex) => {
		if (message === undefined) return;
		const whole = text(itemIndex);
		const hash = fingerprint(whole);
		const firsts = firstOfHash.get(hash);
		const earlier = firsts?.find((first) => text(first) === whole);
		if (earlier !== undefined) repeats.set(itemIndex, earlier);
		else if (firsts) firsts.push(itemIndex);
		else firstOfHash.set(hash, [itemIndex]);
	});
	return repeats;
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
 * (`knownRepeats`, given when the caller has them already).
 */
export function repeatsToSkip(messages: Array<PreparedMessage | undefined>, skipDuplicates: boolean, knownRepeats?: Map<number, number>): Map<number, Skip> {
	const skip = new Map<number, Skip>();
	if (skipDuplicates) {
		for (const [itemIndex, duplicateOf] of knownRepeats ?? requestRepeats(messages)) {
			skip.set(itemIndex, { duplicateOf, reason: `Same recipient, template and values as item ${duplicateOf}: ${NOT_TWICE(duplicateOf)} (${optionPath('skipDuplicates')})` });
		}
	}
	for (const [itemIndex, duplicateOf] of findRepeats(messages.map((message) => message?.key))) {
		skip.set(itemIndex, { duplicateOf, reason: `Same message key as item ${duplicateOf}: ${NOT_TWICE(duplicateOf)} (${FIELD.sendOnce})` });
	}
	return skip;
}
