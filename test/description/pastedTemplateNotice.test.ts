import type { INode, INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers, resetSafeRegexEngine, setSafeRegexEngine } from 'n8n-workflow';

import { properties } from '../../nodes/TemplateMessage/actions/router';
import { pastedTemplateNotices } from '../../nodes/TemplateMessage/description/templateFields';
import { templateTextAsWritten } from '../../nodes/TemplateMessage/request/pastedTemplate';
import { TemplateMessage } from '../../nodes/TemplateMessage/TemplateMessage.node';
import type { ApiServer } from '../helpers/apiServer';
import { startApiServer } from '../helpers/apiServer';
import { runSendNode, SEND_NODE } from '../helpers/engine';

const description: INodeTypeDescription = new TemplateMessage().description;
const node = (parameters: INode['parameters']): INode => ({ id: 'n', name: 'Template Message', type: 'n8n-nodes-template-message.templateMessage', typeVersion: 2, position: [0, 0], parameters });

/** Whether n8n (its own display check, as the editor and a run use it) shows the Body Text notice for this stored value. */
function shown(stored: string): boolean {
	const parameters = { operation: 'send', template: { bodyText: stored } };
	return NodeHelpers.displayParameterPath(parameters, pastedTemplateNotices[0], '', node(parameters), description);
}

/** What the run makes of a stored value: kept as written, computed by n8n, or refused. */
function run(written: string): 'asWritten' | 'computed' | 'refused' {
	try {
		return templateTextAsWritten(written, 'computed by n8n', 'Body Text') === 'computed by n8n' ? 'computed' : 'asWritten';
	} catch {
		return 'refused';
	}
}

test.each([
	['=Hi {{1}}, invoice {{2}} for {{3}} is due.', 'asWritten'],
	['=Order {{ 1 }}', 'asWritten'],
	['=Hi {{1}}, from {{ $json.shop }}', 'refused'],
	['={{ $json.templateText }}', 'computed'],
	['=Hi there', 'computed'],
])('n8n shows the notice for the expression %j, which the run takes %s, as the notice says', (stored, taken) => {
	expect(shown(stored)).toBe(true);
	expect(run(stored)).toBe(taken);
});

test.each(['Hi {{1}}', 'Hi there', ''])('n8n shows no notice for the fixed value %j, which the run takes as it is', (stored) => {
	expect(shown(stored)).toBe(false);
	expect(run(stored)).toBe('computed');
});

test('one notice per template text, each shown by its own field', () => {
	expect(pastedTemplateNotices.map((notice) => Object.keys(notice.displayOptions!.show!))).toEqual([['/template.bodyText'], ['/template.headerText']]);
});

/** Every display condition in the description, anywhere in it (fields, options, collections, their show and hide). */
function conditionsIn(fields: INodeProperties[]): object[] {
	const found: object[] = [];
	const visit = (value: unknown): void => {
		if (Array.isArray(value)) value.forEach(visit);
		else if (value && typeof value === 'object') {
			if ('_cnd' in value) found.push((value as { _cnd: object })._cnd);
			Object.values(value).forEach(visit);
		}
	};
	visit(fields);
	return found;
}

/** Conditions that can fail a run: a regex runs under a time limit a busy machine can exceed (2.x), and n8n 1.78 calls the string ones on an unset value. */
const FAILING_CONDITIONS = ['regex', 'startsWith', 'endsWith', 'includes'];

test('no display condition can throw while n8n resolves the parameters, which it does in executions too', () => {
	expect(conditionsIn(properties).filter((condition) => FAILING_CONDITIONS.some((key) => key in condition))).toEqual([]);
});

describe("a run while n8n's regex engine times out on everything (as on a busy machine)", () => {
	let api: ApiServer;
	beforeAll(async () => {
		api = await startApiServer();
		const timedOut = () => {
			throw new Error('Regular expression execution timed out');
		};
		setSafeRegexEngine({ exec: timedOut, test: timedOut, replace: timedOut, matchAll: timedOut, split: timedOut });
	});
	afterAll(async () => {
		resetSafeRegexEngine();
		await api.close();
	});

	test.each([
		['pasted (Expression mode)', '=Hi {{1}}, your order {{2}} is confirmed.'],
		['typed (Fixed)', 'Hi {{1}}, your order {{2}} is confirmed.'],
	])('the template body %s: the message is checked against it and sent', async (_how, bodyText) => {
		const sentBefore = api.requests.length;
		const result = await runSendNode({
			baseUrl: api.baseUrl,
			items: [{ phone: '+62 812 3456 7890' }],
			parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl', bodyValues: { values: [{ text: 'Dewi' }, { text: 'ORD-1' }] }, template: { bodyText } },
			typeVersion: 2,
		});
		expect(result.output(SEND_NODE).map((item) => item.json.status)).toEqual(['sent']);
		expect(api.requests).toHaveLength(sentBefore + 1);
	});
});
