/**
 * Send Once's record within one n8n process: the marks its runs hold are no doubt to the next claim,
 * however the runs' calls interleave. Against a plain in-memory store with n8n's answer shape.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { ForgetTries } from '../../nodes/TemplateMessage/sendOnce/forgetTries';
import { MessageRecord } from '../../nodes/TemplateMessage/sendOnce/record';
import { orderedStore } from './orderedStore';

/** One workflow's store, shared by the runs of one process: each call gives a run's context, with its execution's cancel signal. */
function sharedStore(workflowId: string): (signal?: AbortSignal) => IExecuteFunctions {
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
	return (signal) =>
		({ getNode: () => ({ name: 'Template Message' }), getWorkflow: () => ({ id: workflowId }), getExecutionCancelSignal: () => signal, helpers }) as unknown as IExecuteFunctions;
}

const storeContext = (workflowId: string): IExecuteFunctions => sharedStore(workflowId)();

const nothingLeft = () => ({ moveToNewest: [], dropMarks: [] });

test('a run whose claim was asked for while another run settled still holds its mark: the next claim finds the message sent before, not in doubt', async () => {
	const ctx = storeContext('wf-interleaved');
	const first = MessageRecord.open(ctx);
	expect(await first.claim(['order-12'], nothingLeft())).toEqual({ sentBefore: new Set(), inDoubt: new Set(), raced: new Set(), overwritten: new Set(), movedByOther: new Set(), movesStood: true });
	// The first run sent it and settles; a second run asks to claim it before that settling has run.
	const settling = first.settleRun({ forget: [], keep: ['order-12'], inDoubt: [], leftOver: { moveToNewest: [], dropMarks: ['order-12'] } });
	const second = MessageRecord.open(ctx);
	const secondClaim = second.claim(['order-12'], nothingLeft());
	await settling;
	expect((await secondClaim).sentBefore).toEqual(new Set(['order-12']));
	// The second run now holds the key's mark while it moves the key to the newest end: a third sees it sent before.
	const third = await MessageRecord.open(ctx).claim(['order-12'], nothingLeft());
	expect({ sentBefore: [...third.sentBefore], inDoubt: [...third.inDoubt] }).toEqual({ sentBefore: ['order-12'], inDoubt: [] });
});

test("a claim after a slow one waits as long before its lookup: another worker's write can land as late as a slow claim on a starved machine", async () => {
	const calls: Array<{ at: number; items: string[] }> = [];
	let delayMs = 150;
	const ctx = storeContext('wf-slow-claims');
	const record = ctx.helpers.checkProcessedAndRecord.bind(ctx.helpers);
	ctx.helpers.checkProcessedAndRecord = (async (items: string[], ...rest: unknown[]) => {
		await new Promise((resolve) => setTimeout(resolve, delayMs));
		calls.push({ at: Date.now(), items });
		return await (record as (...args: unknown[]) => ReturnType<typeof record>)(items, ...rest);
	}) as typeof ctx.helpers.checkProcessedAndRecord;
	await MessageRecord.open(ctx).claim(['order-1'], nothingLeft());
	delayMs = 0;
	calls.length = 0;
	await MessageRecord.open(ctx).claim(['order-2'], nothingLeft());
	// Its record call, then its lookup after the pause: twice the slow claim's 150 ms or more, not its
	// own few ms (20, the shortest pause). Less 50 ms for timers that fire early by a millisecond.
	expect(calls).toHaveLength(2);
	expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(2 * 150 - 50);
});

test('a run that pushes keys out of a full record counts them, the settle write\'s marker and the marks it keeps room for aside', async () => {
	const store = orderedStore('wf-pushed-out', ['a', 'b', 'c']);
	const record = MessageRecord.open(store.ctx, 3);
	expect([...(await record.claim(['a', 'd'], nothingLeft())).sentBefore]).toEqual(['a']);
	// d sent; a, sent before, moved to the newest end.
	const { pushedOut } = await record.settleRun({ forget: [], keep: ['d', 'a'], inDoubt: [], leftOver: { moveToNewest: ['a'], dropMarks: ['d', 'a'] } });
	expect({ pushedOut, b: store.has('b'), size: store.size }).toEqual({ pushedOut: 1, b: false, size: 3 });
});

test('a Forget that fails between recording its keys and removing them leaves them in doubt, never new or sent before; the next Forget clears them', async () => {
	const ctx = storeContext('wf-forget-crash');
	const run = MessageRecord.open(ctx);
	await run.claim(['order-sent'], nothingLeft());
	await run.settleRun({ forget: [], keep: ['order-sent'], inDoubt: [], leftOver: { moveToNewest: [], dropMarks: ['order-sent'] } });
	const remove = ctx.helpers.removeProcessed;
	ctx.helpers.removeProcessed = (async () => {
		throw new Error('connection lost');
	}) as typeof remove;
	await expect(MessageRecord.open(ctx).forget(['order-sent', 'order-never'], new ForgetTries({}, 'forget-run-0'))).rejects.toThrow('connection lost');
	const afterCrash = await MessageRecord.open(ctx).claim(['order-sent', 'order-never', 'order-new'], nothingLeft());
	// A later run sends neither: each comes out in doubt (not sent, and said so), not sent again blindly.
	expect({ sentBefore: [...afterCrash.sentBefore], inDoubt: [...afterCrash.inDoubt].sort() }).toEqual({ sentBefore: [], inDoubt: ['order-never', 'order-sent'] });
	ctx.helpers.removeProcessed = remove;
	expect([...(await MessageRecord.open(ctx).forget(['order-sent', 'order-never'], new ForgetTries({}, 'forget-run-0'))).held].sort()).toEqual(['order-never', 'order-sent']);
	const cleared = await MessageRecord.open(ctx).claim(['order-sent', 'order-never'], nothingLeft());
	expect({ sentBefore: [...cleared.sentBefore], inDoubt: [...cleared.inDoubt] }).toEqual({ sentBefore: [], inDoubt: [] });
});

describe('Forget tried again by n8n (Retry On Fail) in the same execution', () => {
	test('failed between its record and its removal: the retry takes the keys out without looking them up again, and says which the record held', async () => {
		const ctx = storeContext('wf-forget-retry');
		const run = MessageRecord.open(ctx);
		await run.claim(['order-sent'], nothingLeft());
		await run.settleRun({ forget: [], keep: ['order-sent'], inDoubt: [], leftOver: { moveToNewest: [], dropMarks: ['order-sent'] } });
		const execution = {};
		const remove = ctx.helpers.removeProcessed;
		ctx.helpers.removeProcessed = (async () => {
			throw new Error('connection lost');
		}) as typeof remove;
		await expect(MessageRecord.open(ctx).forget(['order-sent', 'order-never'], new ForgetTries(execution, 'forget-run-0'))).rejects.toThrow('connection lost');
		ctx.helpers.removeProcessed = remove;
		// Was both: the retry found its own try's writes.
		expect([...(await MessageRecord.open(ctx).forget(['order-sent', 'order-never'], new ForgetTries(execution, 'forget-run-0'))).held]).toEqual(['order-sent']);
		const cleared = await MessageRecord.open(ctx).claim(['order-sent', 'order-never'], nothingLeft());
		expect({ sentBefore: [...cleared.sentBefore], inDoubt: [...cleared.inDoubt] }).toEqual({ sentBefore: [], inDoubt: [] });
	});

	test('a key an earlier try took out, sent again since by another execution, is not taken out again', async () => {
		const ctx = storeContext('wf-forget-twice');
		const sendOnce = async () => {
			const run = MessageRecord.open(ctx);
			const claim = await run.claim(['order-1'], nothingLeft());
			await run.settleRun({ forget: [], keep: claim.sentBefore.has('order-1') ? [] : ['order-1'], inDoubt: [], leftOver: { moveToNewest: [], dropMarks: ['order-1'] } });
			return !claim.sentBefore.has('order-1');
		};
		expect(await sendOnce()).toBe(true);
		const execution = {};
		expect([...(await MessageRecord.open(ctx).forget(['order-1'], new ForgetTries(execution, 'forget-run-0'))).held]).toEqual(['order-1']);
		// Between n8n's tries, another execution sends it again, as the Forget meant it to be.
		expect(await sendOnce()).toBe(true);
		expect([...(await MessageRecord.open(ctx).forget(['order-1'], new ForgetTries(execution, 'forget-run-0'))).held]).toEqual(['order-1']);
		// Still recorded: a third Send does not send it.
		expect(await sendOnce()).toBe(false);
	});

});

// Send Once's wait for a cancelled run of this process (record.ts claimAfterStoppedRuns) when the waiting run is itself
// cancelled. On a simulated clock: store calls take no time, so only the code's own waits count.
describe('a claim meeting the marks of a cancelled run', () => {
	beforeEach(() => jest.useFakeTimers());
	afterEach(() => jest.useRealTimers());

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
});
