/**
 * An operation module that is not registered fails here: every `*.operation.ts` in actions/ is an entry of the
 * Operation field, in its own words, and each entry's module is one of those files.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';

import type { INodePropertyOptions } from 'n8n-workflow';

import { properties } from '../../nodes/TemplateMessage/actions/router';
import { OPERATION_NAME } from '../../nodes/TemplateMessage/shared/fieldNames';

const ACTIONS = path.join(__dirname, '../../nodes/TemplateMessage/actions');

test('every operation module in actions/ is an entry of the Operation field, and nothing else is', () => {
	const modules = readdirSync(ACTIONS).filter((file) => file.endsWith('.operation.ts'));
	const listed = (properties.find((property) => property.name === 'operation')!.options as INodePropertyOptions[]).map((option) => option.value);
	const offered = modules.map((file) => (require(path.join(ACTIONS, file)) as { menuEntry: INodePropertyOptions }).menuEntry.value);
	expect([...offered].sort()).toEqual([...listed].sort());
	expect(modules.length).toBe(listed.length);
});

test('each operation is named once, in OPERATION_NAME, under its value', () => {
	const listed = properties.find((property) => property.name === 'operation')!.options as INodePropertyOptions[];
	expect(Object.fromEntries(listed.map((entry) => [entry.value, entry.name]))).toEqual(OPERATION_NAME);
});
