/**
 * Every fact a result carries reaches its row. The table of samples and changes below is typed from
 * ItemResult: a new kind, or a new field on one, fails typecheck here until it has a sample and a change,
 * and this test fails until the row shows the change (a column in FIELDS, output/rows.ts).
 */
import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { rowsOf } from '../../nodes/TemplateMessage/output/rows';
import type { ItemResult, ItemResultKind, PreparedMessage, Refusal } from '../../nodes/TemplateMessage/shared/contracts';
import { statusOf } from '../../nodes/TemplateMessage/shared/contracts';

const node: INode = { id: 'n', name: 'Template Message', type: 'n8n-nodes-template-message.templateMessage', typeVersion: 2, position: [0, 0], parameters: {} };
const ctx = { getNode: () => node } as unknown as IExecuteFunctions;
const message: PreparedMessage = {
	request: { phone_number: '6281234567890', message: { type: 'template', template: { template_code_id: 'tpl', payload: [] } } },
	preview: 'Hi Budi',
	key: 'key-1',
	tryKey: 'try-1',
};
const refusal: Refusal = { scope: 'account', itemIndex: 0, templateCodeId: 'tpl', reason: 'Token invalid', statusCode: 401, apiCode: 45 };

type Variant<K extends ItemResultKind> = Extract<ItemResult, { kind: K }>;
/** For each kind: a sample, and for each of its fields a change of its value. */
type Cases = { [K in ItemResultKind]: { sample: Variant<K>; change: { [F in Exclude<keyof Variant<K>, 'kind'>]-?: (value: Variant<K>[F]) => Variant<K>[F] } } };

const more = (n: number) => n + 1;
const flip = (value: boolean) => !value;
const CASES: Cases = {
	sent: { sample: { kind: 'sent', msgid: 'm-1', attempts: 1, sentInEarlierTry: false }, change: { msgid: (id) => `${id}x`, attempts: more, sentInEarlierTry: flip } },
	refused: {
		sample: { kind: 'refused', outcome: { kind: 'rejected', reason: 'Invalid number', statusCode: 400, apiCode: 13, transient: false }, attempts: 1, sentInEarlierTry: false },
		change: { outcome: (outcome) => ({ ...outcome, reason: `${outcome.reason}x` }), attempts: more, sentInEarlierTry: flip },
	},
	deliveryUnknown: {
		sample: { kind: 'deliveryUnknown', outcome: { kind: 'unknown', reason: 'no answer before the timeout' }, attempts: 1, sentInEarlierTry: false },
		change: { outcome: (outcome) => ({ ...outcome, reason: `${outcome.reason}x` }), attempts: more, sentInEarlierTry: flip },
	},
	fault: { sample: { kind: 'fault', fault: 'boom' }, change: { fault: (text) => `${text}x` } },
	heldBack: { sample: { kind: 'heldBack', heldBy: refusal, attempts: 0 }, change: { heldBy: (by) => ({ ...by, itemIndex: by.itemIndex + 1 }), attempts: more } },
	notRecorded: {
		sample: { kind: 'notRecorded', cause: 'storeFailed', reason: 'database down' },
		change: { cause: (cause) => (cause === 'storeFailed' ? 'overwritten' : 'storeFailed'), reason: (text) => `${text}x` },
	},
	duplicate: { sample: { kind: 'duplicate', duplicate: { reason: 'repeats item 0', duplicateOf: 0 } }, change: { duplicate: (skip) => ({ ...skip, duplicateOf: skip.duplicateOf + 1 }) } },
	sentBefore: { sample: { kind: 'sentBefore', by: 'earlier' }, change: { by: (by) => (by === 'earlier' ? 'concurrent' : 'earlier') } },
	inDoubt: { sample: { kind: 'inDoubt' }, change: {} },
	invalid: {
		sample: { kind: 'invalid', invalid: { invalid: new NodeOperationError(node, 'Phone Number: is empty [item 0]', { itemIndex: 0 }), field: 'Phone Number', identifiedBy: { phone_number: '' } } },
		change: { invalid: (invalid) => ({ ...invalid, invalid: new NodeOperationError(node, 'Phone Number: is too short [item 0]', { itemIndex: 0 }) }) },
	},
};

function row(result: ItemResult): string {
	const [item] = rowsOf(ctx, [{ itemIndex: 0, result, message: result.kind === 'invalid' ? undefined : message, includeRequest: true }], [{ json: {} }], false);
	return JSON.stringify(item.json);
}

describe.each(Object.keys(CASES) as ItemResultKind[])('a %s result', (kind) => {
	const { sample, change } = CASES[kind] as unknown as { sample: ItemResult; change: Record<string, (value: unknown) => unknown> };

	test('comes out with its status', () => {
		expect(JSON.parse(row(sample))).toMatchObject({ status: statusOf(sample) });
	});

	const fields = Object.keys(change);
	if (fields.length > 0) {
		test.each(fields)('its %s reaches the row', (field) => {
			const changed = { ...sample, [field]: change[field]((sample as unknown as Record<string, unknown>)[field]) } as ItemResult;
			expect(row(changed)).not.toEqual(row(sample));
		});
	}
});

describe("a failed row's status under its 0.1.0 name, `delivery`", () => {
	const refused = CASES.refused.sample as ItemResult;
	const failedRow = (typeVersion: number) => {
		const versioned = { getNode: () => ({ ...node, typeVersion }) } as unknown as IExecuteFunctions;
		return rowsOf(versioned, [{ itemIndex: 0, result: refused, message, includeRequest: false }], [{ json: {} }], false)[0].json;
	};

	test('stays in rows of node version 1, which workflows saved with 0.1.0 have', () => {
		expect(failedRow(1)).toMatchObject({ status: 'failed', delivery: 'failed', details: { delivery: 'failed' } });
	});

	test('is gone from rows of version 2, which say it once, as status', () => {
		const row = failedRow(2);
		expect(row).toMatchObject({ status: 'failed' });
		expect('delivery' in row || 'delivery' in (row.details as object)).toBe(false);
	});
});
