/**
 * A run's claims over its items, against n8n's store as its code behaves (see orderedStore): what each
 * item is told, and the record every call leaves.
 */
import { Claims } from '../../nodes/TemplateMessage/sendOnce/claims';
import { MessageRecord } from '../../nodes/TemplateMessage/sendOnce/record';
import { orderedStore } from './orderedStore';

const sizing = { concurrency: 1, maxPerSecond: 0, sendInDoubt: false };

test('two runs of one n8n finding a message sent before: both say so, only the run whose mark covers it moves it, and its key or mark is in the record at every call', async () => {
	const store = orderedStore('wf-two-runs', ['order-7']);
	store.watch('order-7');
	const first = new Claims(MessageRecord.open(store.ctx), new Map([[0, 'order-7']]), sizing);
	const second = new Claims(MessageRecord.open(store.ctx), new Map([[0, 'order-7']]), sizing);
	expect(await first.claim(0)).toBe('sentBefore');
	expect(await second.claim(0)).toBe('sentBefore');
	await first.release();
	await second.release();
	expect([...store.lost]).toEqual([]);
	expect({ key: store.has('order-7'), mark: store.has('order-7\u0000pending') }).toEqual({ key: true, mark: false });
	// One move: the key removed once, to be recorded again at the newest end.
	expect(store.calls.filter((call) => call.kind === 'remove' && call.values.includes('template-message:order-7'))).toHaveLength(1);
});
