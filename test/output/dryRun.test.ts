import type { INode } from 'n8n-workflow';

import { dryRunSummary } from '../../nodes/TemplateMessage/output/dryRun';
import { invalidMessage } from '../../nodes/TemplateMessage/output/errors';
import { FIELD } from '../../nodes/TemplateMessage/shared/fieldNames';
import { InvalidFieldError } from '../../nodes/TemplateMessage/shared/InvalidFieldError';

const node = { id: 'n', name: 'Template Message', type: 'n8n-nodes-template-message.templateMessage', typeVersion: 2, position: [0, 0], parameters: {} } as INode;
const invalid = (field: string, itemIndex: number) => invalidMessage(node, new InvalidFieldError(field, 'is wrong'), itemIndex, undefined, { phoneNumber: '+62 812', templateCodeId: 'tpl' } as never);

test("a dry run counts invalid items by the field as the editor names it, a part of a field counted with its field", () => {
	const read = [
		invalid(`${FIELD.bodyValues} → value 2`, 0),
		invalid(FIELD.bodyValues, 1),
		invalid(FIELD.templateBody, 2),
		invalid(`${FIELD.templateButtons} → button 2`, 3),
		invalid('Default Country Code', 4),
	];
	expect(read.map((message) => message.field)).toEqual([FIELD.bodyValues, FIELD.bodyValues, FIELD.templateBody, FIELD.templateButtons, 'Default Country Code']);
	expect(read[0].identifiedBy).toEqual({ phone_number: '+62 812', template_code_id: 'tpl' });
	expect(dryRunSummary(read, new Map(), new Map(), false)).toBe(
		'Dry run: 0 of 5 item(s) would be sent. 5 fail a check: 2 × Body Values, 1 × Template (Checks and Preview) → Body Text, 1 × Template (Checks and Preview) → Buttons, 1 × Default Country Code.',
	);
});
