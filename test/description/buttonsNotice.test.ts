import path from 'node:path';

import type { INode, INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { properties } from '../../nodes/TemplateMessage/actions/router';
import { TemplateMessage } from '../../nodes/TemplateMessage/TemplateMessage.node';

const description: INodeTypeDescription = new TemplateMessage().description;
const notice = properties.find(({ name }) => name === 'buttonsNotice') as INodeProperties;

type Helpers = typeof NodeHelpers;

// The editor and a run decide with n8n-workflow's own display check: this one and each older engine's.
const ENGINES: Array<[string, Helpers]> = [
	['2.x', NodeHelpers],
	...['n8n-1.123', 'n8n-1.78'].map((name): [string, Helpers] => [name, (require(path.join(__dirname, '../../engines', name, 'node_modules/n8n-workflow')) as { NodeHelpers: Helpers }).NodeHelpers]),
];

function shown(helpers: Helpers, parameters: INode['parameters']): boolean {
	const node: INode = { id: 'n', name: 'Template Message', type: 'n8n-nodes-template-message.templateMessage', typeVersion: 2, position: [0, 0], parameters };
	// n8n-workflow before 1.8x takes no node type description: its fifth argument is the display key.
	if (helpers.displayParameterPath.toString().includes('nodeTypeDescription')) return helpers.displayParameterPath(parameters, notice, '', node, description);
	return (helpers.displayParameterPath as (...args: unknown[]) => boolean)(parameters, notice, '', node);
}

const button = { kind: 'quickReply', index: 0, payload: 'paid' };

describe.each(ENGINES)('the buttons notice, as n8n-workflow %s shows it', (_engine, helpers) => {
	test.each([
		['a new node (Header None, no buttons)', { operation: 'send', payloadMode: 'fields', headerType: 'none', buttons: {} }],
		['every button removed', { operation: 'send', payloadMode: 'fields', buttons: { button: [] } }],
		['a button, but Using JSON', { operation: 'send', payloadMode: 'json', buttons: { button: [button] } }],
		['a button, but Get Status', { operation: 'getStatus', payloadMode: 'fields', buttons: { button: [button] } }],
	])('hidden for %s', (_case, parameters) => {
		expect(shown(helpers, parameters)).toBe(false);
	});

	test('n8n can order the parameters it depends on, as a run does before anything else', () => {
		const nodeType = { description };
		const parameters = { operation: 'send', payloadMode: 'fields', buttons: { button: [button] } };
		const node: INode = { id: 'n', name: 'Template Message', type: 'n8n-nodes-template-message.templateMessage', typeVersion: 2, position: [0, 0], parameters };
		expect(() => (helpers.getNodeParameters as (...args: unknown[]) => unknown)(description.properties, parameters, true, false, node, nodeType)).not.toThrow();
	});

	test.each([
		['one button', [button]],
		['two buttons', [button, { kind: 'dynamicUrl', index: 1, urlSuffix: 'x' }]],
		['a button not yet filled in', [{}]],
	])('shown once Buttons holds %s', (_case, buttons) => {
		expect(shown(helpers, { operation: 'send', payloadMode: 'fields', headerType: 'none', buttons: { button: buttons } })).toBe(true);
	});
});
