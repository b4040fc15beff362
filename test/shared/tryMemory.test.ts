import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { runScopedName, tryMemoryName } from '../../nodes/TemplateMessage/shared/tryMemory';

const context = (data: IDataObject, tool: boolean) =>
	({ getContext: () => data, isToolExecution: () => tool, getNode: () => ({ type: 'n8n-nodes-template-message.templateMessage' }) }) as unknown as IExecuteFunctions;

test('a run keeps its tries under its run index; the next run (a later batch) drops the earlier runs\' of its kind only', () => {
	const data: IDataObject = { 'forget-run-0': {}, 'forget-run-1': {}, 'sent-run-0': {}, 'forget-as-tool-x': {}, 'forget-run-x': {} };
	expect(runScopedName(data, 'forget', 2)).toBe('forget-run-2');
	expect(Object.keys(data).sort()).toEqual(['forget-as-tool-x', 'forget-run-x', 'sent-run-0']);
});

test('as a tool, by the call: every try of one call (n8n gives each a new run index) finds the same memory; another call its own', () => {
	const data: IDataObject = { 'forget-run-0': {} };
	const first = tryMemoryName(context(data, true), 'forget', 0, () => [{ query: 'a', id: 'call-1' }]);
	expect(tryMemoryName(context(data, true), 'forget', 1, () => [{ query: 'a', id: 'call-1' }])).toBe(first);
	expect(tryMemoryName(context(data, true), 'forget', 1, () => [{ query: 'a', id: 'call-2' }])).not.toBe(first);
	expect(first).toMatch(/^forget-as-tool-/);
	// A tool's tries drop nothing: the run index says nothing of them.
	expect(Object.keys(data)).toEqual(['forget-run-0']);
	expect(tryMemoryName(context(data, false), 'forget', 1, () => [])).toBe('forget-run-1');
});
