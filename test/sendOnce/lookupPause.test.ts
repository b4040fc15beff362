/**
 * The pause before a write is looked up again follows how long store calls take, not how long a call waited
 * for this process's other calls: a claim queued behind another run's settling would otherwise pause for
 * twice that wait, and the next for twice its own, and so on. On a simulated clock (store calls take no time).
 */
import { MessageRecord } from '../../nodes/TemplateMessage/sendOnce/record';
import { orderedStore } from './orderedStore';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

async function settled<T>(work: Promise<T>): Promise<T> {
	let done = false;
	void work.finally(() => (done = true));
	while (!done) await jest.advanceTimersByTimeAsync(1);
	return await work;
}

test('runs settling a message sent before one after the other, each with the next run\'s claim queued behind it: every lookup waits the shortest pause', async () => {
	const keys = Array.from({ length: 8 }, (_, index) => `order-${index}`);
	const store = orderedStore('wf-pauses', keys);
	let current = MessageRecord.open(store.ctx);
	await settled(current.claim([keys[0]], { moveToNewest: [], dropMarks: [] }));
	for (let index = 1; index < keys.length; index++) {
		const next = MessageRecord.open(store.ctx);
		const sentBefore = keys[index - 1];
		const settling = current.settleRun({ forget: [], keep: [sentBefore], inDoubt: [], leftOver: { moveToNewest: [sentBefore], dropMarks: [sentBefore] } });
		await settled(Promise.all([settling, next.claim([`new-${index}`], { moveToNewest: [], dropMarks: [] })]));
		current = next;
	}
	// Each write with a marker, then its lookup: 20 ms apart, the shortest pause, every time.
	const pauses: number[] = [];
	for (const [index, call] of store.calls.entries()) {
		const marker = call.values.find((value) => value.includes('\u0000run:'));
		const lookup = marker === undefined ? -1 : store.calls.findIndex((later, laterIndex) => laterIndex > index && later.values.includes(marker));
		if (lookup !== -1 && store.calls.slice(0, index).every((earlier) => !earlier.values.includes(marker!))) pauses.push(store.calls[lookup].at - call.at);
	}
	expect(pauses.length).toBeGreaterThanOrEqual(2 * (keys.length - 1));
	expect(new Set(pauses)).toEqual(new Set([20]));
});
