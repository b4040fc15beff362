/**
 * Options as expressions give them: a switch or a number as text is read as meant; anything else is a
 * field error naming the option, never its default (a Dry Run that fell back to off would send).
 */
import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readOptions } from '../../nodes/TemplateMessage/shared/options';
import { readStatusOptions } from '../../nodes/TemplateMessage/shared/statusOptions';
import { InvalidFieldError } from '../../nodes/TemplateMessage/shared/InvalidFieldError';
import { fieldError, runOptionRefused } from '../../nodes/TemplateMessage/shared/optionSpec';

const node = { name: 'Template Message', typeVersion: 2 } as INode;
const run = (options: IDataObject) => readOptions(options, 'run', 2, runOptionRefused(node));

test('a switch is on or off, also as the text "true" or "false" an expression gives', () => {
	expect(run({ dryRun: true }).dryRun).toBe(true);
	expect(run({ dryRun: 'true' }).dryRun).toBe(true);
	expect(run({ dryRun: ' TRUE ' }).dryRun).toBe(true);
	expect(run({ dryRun: 'false' }).dryRun).toBe(false);
	expect(run({ dryRun: '' }).dryRun).toBe(false);
	expect(run({}).dryRun).toBe(false);
});

test.each<[IDataObject[string]]>([['yes'], [1], [{ on: true }]])('a switch given %j is refused, naming the option, not taken as off', (value) => {
	expect(() => run({ dryRun: value })).toThrow(NodeOperationError);
	expect(() => run({ dryRun: value })).toThrow(/^Options → Dry Run \(Send Nothing\): expected true or false, got /);
});

test('a number is read from the text an expression gives; other text is refused, naming the option', () => {
	expect(run({ maxAttempts: '1' }).maxAttempts).toBe(1);
	expect(run({ maxPerSecond: ' 5 ' }).maxPerSecond).toBe(5);
	expect(run({ maxPerSecond: '' }).maxPerSecond).toBe(25);
	expect(() => run({ maxPerSecond: 'five' })).toThrow(/^Options → Max Messages per Second: expected a number, got "five"$/);
	expect(readStatusOptions({ maxAttempts: '1' }, 2, fieldError).maxAttempts).toBe(1);
	expect(() => readStatusOptions({ waitLimit: 'soon' }, 2, runOptionRefused(node))).toThrow(/^Options → Wait Limit .*: expected a number, got "soon"$/);
});

test('a number below its minimum, or too small to be anything but 0, is refused naming the option: a rate held at 0 would be no limit', () => {
	expect(() => run({ maxPerSecond: -25 })).toThrow(/^Options → Max Messages per Second: expected 0 or more, got -25$/);
	expect(() => run({ maxPerSecond: '0.001' })).toThrow(/^Options → Max Messages per Second: expected 0 or more, got 0\.001, less than the smallest it takes \(0\.01\)$/);
	expect(() => run({ maxConcurrency: 0 })).toThrow(/^Options → Max Concurrent Requests: expected 1 to 100, got 0$/);
	expect(() => run({ maxAttempts: '-3' })).toThrow(/^Options → Max Attempts: expected 1 to 10, got -3$/);
	expect(() => readStatusOptions({ maxPerSecond: -1 }, 2, runOptionRefused(node))).toThrow(/^Options → Max Requests per Second: expected 0 or more, got -1$/);
	expect(() => readStatusOptions({ waitLimit: 0.001 }, 2, runOptionRefused(node))).toThrow(/^Options → Wait Limit .*: expected 0 to \d+, got 0\.001/);
	// 0 itself, the smallest step, and a whole number's fraction read as before; above the maximum, the maximum.
	expect(run({ maxPerSecond: 0 }).maxPerSecond).toBe(0);
	expect(run({ maxPerSecond: 0.01 }).maxPerSecond).toBe(0.01);
	expect(run({ maxAttempts: 2.7 }).maxAttempts).toBe(2);
	expect(run({ maxAttempts: 50 }).maxAttempts).toBe(10);
});

test('a choice given by an expression is one of its values; a name or anything else is refused, naming the option', () => {
	expect(readStatusOptions({ waitUntil: 'delivered', waitLimit: 1 }, 2, fieldError).wait).toEqual({ until: 'delivered', limitMs: 60_000 });
	expect(readStatusOptions({ waitUntil: '' }, 2, fieldError).wait).toBeUndefined();
	expect(() => readStatusOptions({ waitUntil: 'Delivered' }, 2, runOptionRefused(node))).toThrow(/^Options → Wait Until: expected one of "once", .*"delivered".*, got "Delivered"$/);
	expect(() => readOptions({ buttonTypeField: 'subtype' }, 'item', 2, fieldError)).toThrow(InvalidFieldError);
});
