import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { runScopedName, tryMemoryName } from '../../nodes/TemplateMessage/shared/tryMemory';

const context = (data: IDataObject, tool: boolean, input: IDataObject[] = [{ chatInput: 'Tell Budi' }]) =>
	({
		getContext: () => data,
		isToolExecution: () => tool,
		getNode: () => ({ type: 'n8n-nodes-template-message.templateMessage' }),
		getInputData: () => input.map((json) => ({ json })),
	}) as unknown as IExecuteFunctions;

test('a run keeps its tries under its run index; the next run (a later batch) drops the earlier runs\' of its kind only', () => {
	const data: IDataObject = { 'forget-run-0': {}, 'forget-run-1': {}, 'sent-run-0': {}, 'forget-as-tool-x': {}, 'forget-run-x': {} };
	expect(runScopedName(data, 'forget', 2)).toBe('forget-run-2');
	expect(Object.keys(data).sort()).toEqual(['forget-as-tool-x', 'forget-run-x', 'sent-run-0']);
});

test('as a tool, by the call: every try of one call (n8n gives each a new run index) finds the same memory; another call its own', () => {
	const data: IDataObject = { 'forget-run-0': {} };
	const first = tryMemoryName(context(data, true), 'forget', 0, () => ['key-a']);
	expect(tryMemoryName(context(data, true), 'forget', 1, () => ['key-a'])).toBe(first);
	expect(tryMemoryName(context(data, true), 'forget', 1, () => ['key-b'])).not.toBe(first);
	expect(tryMemoryName(context(data, true, [{ chatInput: 'Tell Ayu' }]), 'forget', 1, () => ['key-a'])).not.toBe(first);
	// n8n 2.x's engine puts each call's id in the input: an agent calling again with the same arguments finds the first call's.
	expect(tryMemoryName(context(data, true, [{ chatInput: 'Tell Budi', toolCallId: 'call_2' }]), 'forget', 1, () => ['key-a'])).toBe(first);
	expect(first).toMatch(/^forget-as-tool-/);
	// A tool's tries drop nothing: the run index says nothing of them.
	expect(Object.keys(data)).toEqual(['forget-run-0']);
	expect(tryMemoryName(context(data, false), 'forget', 1, () => [])).toBe('forget-run-1');
});
