import type { Refusal, SendResult } from '../../nodes/TemplateMessage/shared/contracts';
import { failsTheNode } from '../../nodes/TemplateMessage/shared/contracts';
import type { StatusResult } from '../../nodes/TemplateMessage/shared/status';
import { lookupFailsTheNode } from '../../nodes/TemplateMessage/shared/status';

const refusal = (scope: Refusal['scope']): Refusal => ({ scope, itemIndex: 0, templateCodeId: 'T1', reason: 'why' });
const rejected = { kind: 'rejected' as const, reason: 'Invalid phone', transient: false };
const unknown = { kind: 'unknown' as const, reason: 'timed out after the request left' };

// Without Continue On Fail, a failure ends the run there and fails the node; a message surely not sent for a
// reason of its own (an earlier refusal holding it back) or skipped is not one.
test.each<[string, boolean, SendResult]>([
	['sent', false, { kind: 'sent', msgid: 'm1', attempts: 1, sentInEarlierTry: false }],
	['refused', true, { kind: 'refused', outcome: rejected, attempts: 1, sentInEarlierTry: false }],
	['delivery unknown', true, { kind: 'deliveryUnknown', outcome: unknown, attempts: 1, sentInEarlierTry: false }],
	['a fault of the node', true, { kind: 'fault', fault: 'oops' }],
	['given up while throttled', true, { kind: 'heldBack', heldBy: refusal('throttled'), attempts: 3 }],
	['held back by an account refusal', false, { kind: 'heldBack', heldBy: refusal('account'), attempts: 0 }],
	['not recorded: the store failed', true, { kind: 'notRecorded', cause: 'storeFailed', reason: 'db down' }],
	['not recorded: overwritten by other executions', false, { kind: 'notRecorded', cause: 'overwritten', reason: 'raced' }],
	['sent before', false, { kind: 'sentBefore', by: 'earlier' }],
	['in doubt', false, { kind: 'inDoubt' }],
])('a send %s fails the node: %p', (_, fails, result) => {
	expect(failsTheNode(result)).toBe(fails);
});

test.each<[string, boolean, StatusResult]>([
	['with a status', false, { kind: 'status', reading: { deliveryStatus: 'read', final: true, statusAt: null, deliveredAt: null } as never, attempts: 1 }],
	['without a msgid', false, { kind: 'noMsgid', reason: 'not sent' }],
	['not found', false, { kind: 'notFound', outcome: rejected, attempts: 1 }],
	['unreadable', false, { kind: 'unreadable', reason: 'too large', attempts: 1 }],
	['failed', true, { kind: 'failed', outcome: unknown, attempts: 5 }],
	['given up while throttled', true, { kind: 'heldBack', heldBy: refusal('throttled'), attempts: 3 }],
	['held back by an account refusal', false, { kind: 'heldBack', heldBy: refusal('account'), attempts: 0 }],
])('a lookup %s fails the node: %p', (_, fails, result) => {
	expect(lookupFailsTheNode(result)).toBe(fails);
});
