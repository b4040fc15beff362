import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

/** What became of one input item: the `status` column of every output row. */
export type OutputStatus = 'sent' | 'failed' | 'unknown' | 'notSent' | 'invalid' | 'skipped' | 'inDoubt' | 'dryRun';

export function statusOf(json: IDataObject): OutputStatus {
	if (json.success === true) return 'sent';
	if (json.inDoubt === true) return 'inDoubt';
	if (json.skipped === true) return 'skipped';
	if (json.dryRun === true && json.error === undefined) return 'dryRun';
	const delivery = (json.details as IDataObject | undefined)?.delivery ?? json.delivery;
	return delivery === 'unknown' || delivery === 'notSent' || delivery === 'invalid' ? delivery : 'failed';
}

const WORDS: Array<[OutputStatus, string]> = [
	['failed', 'refused'],
	['unknown', 'delivery unknown'],
	['notSent', 'not sent (held back or throttled)'],
	['invalid', 'invalid'],
	['skipped', 'skipped'],
	['inDoubt', 'in doubt (not sent: see the rows)'],
];

/**
 * One sentence on a real run, shown above the output as a dry run's is: what became of the items.
 * An item a stopped run never reached (undefined) was not sent.
 */
export function runSummary(output: Array<INodeExecutionData | undefined>): string {
	const counts = new Map<OutputStatus, number>();
	for (const item of output) {
		const status = item === undefined ? 'notSent' : statusOf(item.json);
		counts.set(status, (counts.get(status) ?? 0) + 1);
	}
	const rest = WORDS.filter(([status]) => counts.has(status)).map(([status, word]) => `${counts.get(status)} ${word}`);
	return `Sent ${counts.get('sent') ?? 0} of ${output.length} item(s)${rest.length > 0 ? `: ${rest.join(', ')}` : ''}.`;
}
