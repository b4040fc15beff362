import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { PreparedMessage } from '../shared/contracts';
import { dryRunItem } from './items';
import { notice } from '../shared/notice';
import { optionPath } from '../shared/contracts';

/**
 * A dry run's output: every item's request and preview (or why it is invalid), and one summary of
 * the whole input, shown above the output and logged. Repeated rows (`repeats`: item → the item
 * it repeats) are counted either way.
 */
export function dryRunOutput(ctx: IExecuteFunctions, prepared: Array<PreparedMessage | NodeOperationError>, repeats: Map<number, number>, skipDuplicates: boolean): INodeExecutionData[] {
	const summary = dryRunSummary(prepared, repeats, skipDuplicates);
	notice(ctx, summary);
	return prepared.map((item, itemIndex) => dryRunItem(item, itemIndex, repeats.get(itemIndex)));
}

/**
 * One sentence on the whole input of a dry run: how many items would be sent, how many fail which
 * field's check (the field as the error names it, e.g. "Body Values"), how many repeat an earlier item.
 */
export function dryRunSummary(prepared: Array<PreparedMessage | NodeOperationError>, repeats: Map<number, number>, skipDuplicates: boolean): string {
	const failures = new Map<string, number>();
	let valid = 0;
	for (const item of prepared) {
		if (item instanceof NodeOperationError) {
			const field = typeof item.context.field === 'string' ? item.context.field.split(' → ')[0] : 'other';
			failures.set(field, (failures.get(field) ?? 0) + 1);
		} else valid++;
	}
	const wouldSend = skipDuplicates ? valid - repeats.size : valid;
	const parts = [`Dry run: ${wouldSend} of ${prepared.length} item(s) would be sent.`];
	if (failures.size > 0) {
		const list = [...failures].sort((a, b) => b[1] - a[1]).map(([field, count]) => `${count} × ${field}`);
		parts.push(`${prepared.length - valid} fail a check: ${list.join(', ')}.`);
	}
	if (repeats.size > 0) {
		parts.push(
			`${repeats.size} repeat an earlier item (same recipient, template and values)${skipDuplicates ? ' and would be skipped' : `; ${optionPath('skipDuplicates')} would skip them`}.`,
		);
	}
	return parts.join(' ');
}
