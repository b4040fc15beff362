import type { IDataObject } from 'n8n-workflow';

import { rememberSentByRun, runMemory, sentByEarlierRuns } from '../../nodes/TemplateMessage/send/sentMemory';

test("what the node's runs in an execution sent: earlier runs summed, a retried run's count replaced", () => {
	const context: IDataObject = {};
	expect(sentByEarlierRuns(context, 0)).toBe(0);
	rememberSentByRun(context, 0, 5);
	rememberSentByRun(context, 1, 2);
	// Retry On Fail runs the node again at the same index: its count replaces the first try's.
	rememberSentByRun(context, 1, 3);
	expect([sentByEarlierRuns(context, 1), sentByEarlierRuns(context, 2)]).toEqual([5, 8]);
});

test('counts an execution saved before this version kept (one per run index) are still counted', () => {
	const context: IDataObject = { 'sent-by-run': { 0: 5, 1: 3 } };
	expect(sentByEarlierRuns(context, 2)).toBe(8);
	rememberSentByRun(context, 2, 4);
	expect(sentByEarlierRuns(context, 3)).toBe(12);
});

test("a run's memory drops the earlier runs' (n8n never runs an earlier index again), never its own or a tool's", () => {
	const context: IDataObject = { 'sent-run-0': { 0: {} }, 'sent-run-1': { 0: {} }, 'sent-run-2': { 0: {} }, 'sent-as-tool-abc': { 0: {} }, 'sent-by-run': {} };
	runMemory(context, 2);
	expect(Object.keys(context).sort()).toEqual(['sent-as-tool-abc', 'sent-by-run', 'sent-run-2']);
});
