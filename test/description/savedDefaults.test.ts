/**
 * n8n's editor saves only the parameters that differ from their defaults, and n8n 2.x checks a workflow's
 * nodes before it publishes it (WorkflowValidationService: NodeHelpers.getNodeParametersIssues). n8n 2.41
 * fills in the defaults first (the end-to-end test publishes such a workflow); a check of the form as saved,
 * as that service run alone does, reads a required field left at a filled-in default as missing. No field
 * of the node depends on which of the two an n8n version does.
 */
import type { INode, INodeParameters } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { TemplateMessage } from '../../nodes/TemplateMessage/TemplateMessage.node';

const { description } = new TemplateMessage();

function asSaved(parameters: INodeParameters, typeVersion: number): INode {
	const node: INode = { id: 'n', name: 'Template Message', type: 'n8n-nodes-template-message.templateMessage', typeVersion, position: [0, 0], parameters };
	return { ...node, parameters: NodeHelpers.getNodeParameters(description.properties, parameters, false, false, node, description) ?? {} };
}

/** What n8n's publish check names as missing or invalid. */
function issuesOnPublish(parameters: INodeParameters, typeVersion: number): string[] {
	const issues = NodeHelpers.getNodeParametersIssues(description.properties, asSaved(parameters, typeVersion), description);
	return Object.keys(issues?.parameters ?? {}).sort();
}

describe.each([1, 2])('version %p, each operation with every field at its default, as n8n saves it', (typeVersion) => {
	test.each<[string, INodeParameters, string[]]>([
		['Send with the recipient and the template filled', { operation: 'send', phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl' }, []],
		['Send Once with a key of your own', { operation: 'send', phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl', sendOnce: 'customKey', messageKey: '={{ $json.orderId }}' }, []],
		['Get Status (Message ID left at its default expression)', { operation: 'getStatus' }, []],
		['Forget Sent Messages by key (Message Key left at its default expression)', { operation: 'forget', forget: 'keys' }, []],
		['Forget Sent Messages, all', { operation: 'forget', forget: 'all' }, []],
	])('%s: missing %j', (_name, parameters, missing) => {
		expect(issuesOnPublish(parameters, typeVersion)).toEqual(missing);
	});
});

test('no field that is filled in by default is required: left as it is, n8n saves it empty', () => {
	const filledAndRequired = description.properties.filter((property) => property.required === true && property.default !== '' && property.default !== undefined);
	expect(filledAndRequired.map((property) => property.name)).toEqual([]);
});
