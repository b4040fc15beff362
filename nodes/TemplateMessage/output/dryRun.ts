import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ReadMessage, RunOptions, Skip } from '../shared/contracts';
import { isInvalid } from '../shared/contracts';
import { FIELD } from '../shared/fieldNames';
import { optionPath } from '../shared/options';
import { notice } from '../shared/notice';
import { rowsOf } from './rows';

/**
 * `repeats`: item → the earlier item with the same request, counted whether or not Skip Duplicates is on;
 * `skipped`: what a real run would skip (repeatsToSkip: those with Skip Duplicates, and a Send Once key's repeats).
 */
export function dryRunOutput(
	ctx: IExecuteFunctions,
	prepared: ReadMessage[],
	repeats: Map<number, number>,
	skipped: Map<number, Skip>,
	{ skipDuplicates, includeRequestPayload, includeInputFields, sendOnce }: Pick<RunOptions, 'skipDuplicates' | 'includeRequestPayload' | 'includeInputFields' | 'sendOnce'>,
	{ credential, record, continueOnFail }: WouldStopRun,
	input: INodeExecutionData[],
): INodeExecutionData[] {
	const firstInvalid = continueOnFail ? -1 : prepared.findIndex(isInvalid);
	const summary = [
		dryRunSummary(prepared, repeats, skipped, skipDuplicates),
		firstInvalid === -1 ? '' : `A real run would send nothing: the invalid item ${firstInvalid} stops it before the first request (On Error: Continue sends the others).`,
		sendOnce === 'off' ? '' : SEND_ONCE_UNKNOWN,
		credentialSentence(credential),
		record && `A real run would send nothing: ${record.replace(/\.$/, '')}.`,
	]
		.filter(Boolean)
		.join(' ');
	notice(ctx, summary);
	// Version 1's rows are 0.1.0's: a repeat's row names the item it repeats, and carries the request, skipped or not.
	const skipOf = (itemIndex: number) => (ctx.getNode().typeVersion < 2 ? undefined : skipped.get(itemIndex));
	const sources = prepared.map((message, itemIndex) => ({
		itemIndex,
		result: isInvalid(message)
			? ({ kind: 'invalid', invalid: message } as const)
			: ({ kind: 'dryRun', skip: skipOf(itemIndex), duplicateOf: skipped.get(itemIndex)?.duplicateOf ?? repeats.get(itemIndex) } as const),
		message: isInvalid(message) ? undefined : message,
		includeRequest: includeRequestPayload,
		dryRun: true,
	}));
	return rowsOf(ctx, sources, input, includeInputFields);
}

/** What would stop a real run before it sends anything: the credential's problem, Send Once's record that cannot be opened, an invalid item without Continue On Fail. */
export interface WouldStopRun {
	credential?: string;
	record?: string;
	continueOnFail: boolean;
}

const SEND_ONCE_UNKNOWN =
	`${FIELD.sendOnce}: messages sent by earlier executions are not looked up in a dry run (n8n's record of them cannot be read without writing to it), so some of these may be skipped in a real run.`;

function credentialSentence(problem: string | undefined): string {
	return problem === undefined
		? "The credential's Base URL and JWT are well formed; whether the API takes the token shows only in a real run or the credential's connection test."
		: `A real run would send nothing: ${problem.replace(/\.$/, '')}.`;
}

export function dryRunSummary(prepared: ReadMessage[], repeats: Map<number, number>, skipped: Map<number, Skip>, skipDuplicates: boolean): string {
	const failures = new Map<string, number>();
	let valid = 0;
	for (const item of prepared) {
		if (isInvalid(item)) {
			const field = item.field ?? 'other';
			failures.set(field, (failures.get(field) ?? 0) + 1);
		} else valid++;
	}
	const wouldSend = valid - skipped.size;
	const parts = [`Dry run: ${wouldSend} of ${prepared.length} item(s) would be sent.`];
	if (failures.size > 0) {
		const list = [...failures].sort((a, b) => b[1] - a[1]).map(([field, count]) => `${count} × ${field}`);
		const invalid = prepared.length - valid;
		parts.push(`${invalid} ${invalid === 1 ? 'fails' : 'fail'} a check: ${list.join(', ')}.`);
	}
	if (repeats.size > 0) {
		parts.push(
			`${repeats.size} repeat an earlier item (same recipient, template and values)${skipDuplicates ? ' and would be skipped' : `; ${optionPath('skipDuplicates')} would skip them`}.`,
		);
	}
	// Those a real run skips for their Send Once key alone (the same key, not the same request counted above).
	const byKey = [...skipped.keys()].filter((itemIndex) => !(skipDuplicates && repeats.has(itemIndex))).length;
	if (byKey > 0) parts.push(`${byKey} ${byKey === 1 ? 'has' : 'have'} the message key of an earlier item (${FIELD.sendOnce}) and would be skipped.`);
	return parts.join(' ');
}
