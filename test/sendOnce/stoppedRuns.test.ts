/**
 * Send Once's wait for a cancelled run (sendOnce/record.ts claimAfterStoppedRuns) when the waiting
 * run is itself cancelled. On a simulated clock: store calls take no time, so only the code's own waits count.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { MessageRecord } from '../../nodes/TemplateMessage/sendOnce/record';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** One workflow's store shared by runs of one process, each run with its own execution's cancel signal. */
function sharedStore(workflowId: string) {
	const values = new Set<string>();
	const helpers = {
		async checkProcessedAndRecord(items: string[]) {
			const processed = items.filter((item) => values.has(item));
			for (const item of items) values.add(item);
			return { new: items.filter((item) => !processed.includes(item)), processed };
		},
		async removeProcessed(items: string[]) {
			for (const item of items) values.delete(item);
		},
		async getProcessedDataCount() {
			return values.size;
		},
	};
	return (signal: AbortSignal): IExecuteFunctions =>
		({ getNode: () => ({ name: 'Template Message' }), getWorkflow: () => ({ id: workflowId }), getExecutionCancelSignal: () => signal, helpers }) as unknown as IExecuteFunctions;
}

const nothingLeft = () => ({ moveToNewest: [], dropMarks: [] });

/** Simulated milliseconds until `work` is done (at most `limitMs`, then undefined). */
async function simulatedMs(work: Promise<unknown>, limitMs: number): Promise<number | undefined> {
	let done = false;
	void work.then(
		() => (done = true),
		() => (done = true),
	);
	const start = Date.now();
	while (!done && Date.now() - start < limitMs) await jest.advanceTimersByTimeAsync(10);
	return done ? Date.now() - start : undefined;
}

test('two executions cancelled together, each with a block claimed after the cancel that meets the other\'s keys: they settle at once, not after waiting 60 s on each other', async () => {
	const context = sharedStore('wf-two-cancelled');
	const stopA = new AbortController();
	const stopB = new AbortController();
	const a = MessageRecord.open(context(stopA.signal));
	const b = MessageRecord.open(context(stopB.signal));
	// Each run's first block: A holds order-1's mark, B order-2's (as Claims does: senders are sending them).
	await simulatedMs(a.claim(['order-1'], nothingLeft()), 5_000);
	await simulatedMs(b.claim(['order-2'], nothingLeft()), 5_000);
	// Stop execution / Timeout Workflow on both; each run's next block (claimed ahead, queued) runs after it.
	stopA.abort();
	stopB.abort();
	const aSecond = a.claim(['order-2'], nothingLeft());
	const bSecond = b.claim(['order-1'], nothingLeft());
	// Each run settles once its blocks are claimed (Claims.release awaits them), as sendAll's finally does.
	const aSettled = aSecond.then(async () => await a.settleRun({ forget: ['order-1'], keep: [], inDoubt: [], leftOver: nothingLeft() }));
	const bSettled = bSecond.then(async () => await b.settleRun({ forget: ['order-2'], keep: [], inDoubt: [], leftOver: nothingLeft() }));
	// A cancelled run sends nothing more: waiting for another cancelled run gains it nothing. Here A waits for B's
	// settle, which waits for B's claim, which waits for A's settle: both hang until the 60 s timer.
	const tookMs = await simulatedMs(Promise.all([aSettled, bSettled]), 59_000);
	expect(tookMs).toBeDefined();
});

test('a run cancelled while its claim waits for another cancelled run stops waiting: its own marks are not held for 60 s', async () => {
	const context = sharedStore('wf-waiter-cancelled');
	const stopA = new AbortController();
	const stopB = new AbortController();
	const a = MessageRecord.open(context(stopA.signal));
	await simulatedMs(a.claim(['order-1'], nothingLeft()), 5_000);
	stopA.abort();
	// A stays in a store call of its own (it never settles in this test): B, not cancelled, waits for it.
	const b = MessageRecord.open(context(stopB.signal));
	const bClaim = b.claim(['order-1', 'order-9'], nothingLeft());
	await jest.advanceTimersByTimeAsync(1_000);
	// Now B is cancelled too: it sends nothing more, so nothing is gained by waiting out the 60 s.
	stopB.abort();
	const tookMs = await simulatedMs(bClaim, 30_000);
	expect(tookMs).toBeDefined();
});
