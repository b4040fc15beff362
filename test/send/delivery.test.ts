/**
 * One item's delivery on a simulated clock, as n8n's Retry On Fail runs the node again on the same
 * items: what an earlier try got is told again, never sent again.
 */
import { classifyResponse } from '../../nodes/TemplateMessage/api/outcome';
import { Redactor } from '../../nodes/TemplateMessage/api/redact';
import { FlowControl } from '../../nodes/TemplateMessage/flow/flowControl';
import { Pacer } from '../../nodes/TemplateMessage/flow/pacer';
import { deliver } from '../../nodes/TemplateMessage/send/delivery';
import { SentMemory } from '../../nodes/TemplateMessage/send/sentMemory';
import type { PreparedMessage } from '../../nodes/TemplateMessage/shared/contracts';
import { SimulatedClock } from '../helpers/simulatedClock';

test('Retry On Fail: an unknown delivery whose answer named a msgid keeps it in the retried try, for Get Status; nothing is sent again', async () => {
	const clock = new SimulatedClock();
	const memory = new SentMemory({}, 'sent-run-0');
	const message: PreparedMessage = { request: { phone_number: '62812', message: { type: 'template', template: { template_code_id: 'tpl', payload: [] } } }, tryKey: 'k' };
	let posts = 0;
	const context = () => ({
		post: async () => {
			posts++;
			return { outcome: classifyResponse({ statusCode: 200, headers: {}, body: { msgid: 'm-42' } }, clock.now()) };
		},
		flow: new FlowControl(new Pacer(0, clock.now), { maxThrottleWaitMs: 120_000, maxOutageWaitMs: 120_000, continueOnFail: false }, { log: () => undefined, hint: () => undefined }, clock),
		retry: { maxAttempts: 5, maxThrottleWait: 120_000, maxOutageWait: 120_000, retryUnknownDelivery: false },
		memory,
		redactor: new Redactor('token'),
	});
	expect(await clock.run(deliver(0, message, context()))).toMatchObject({ kind: 'deliveryUnknown', outcome: { msgid: 'm-42' } });
	// n8n runs the node again: the same item comes back. Was: the row without its msgid ("the Send did not give this item one").
	expect(await clock.run(deliver(0, message, context()))).toMatchObject({ kind: 'deliveryUnknown', sentInEarlierTry: true, outcome: { msgid: 'm-42' } });
	expect(posts).toBe(1);
});
