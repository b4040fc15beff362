import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription, NodeConnectionType } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { properties, router, subtitle } from './actions/router';
import { testCredential } from './api/credentialTest';
import { CREDENTIAL_TYPE } from './shared/contracts';

// n8n-workflow exports NodeConnectionTypes from 1.83 on; without the fallback an older n8n could not load the node.
const MAIN = (NodeConnectionTypes as Partial<typeof NodeConnectionTypes> | undefined)?.Main ?? ('main' as NodeConnectionType);

export class TemplateMessage implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Template Message',
		name: 'templateMessage',
		icon: { light: 'file:../../icons/templateMessage.svg', dark: 'file:../../icons/templateMessage.dark.svg' },
		group: ['output'],
		// 2: Payload (JSON) starts empty, and a dry run's rows carry the request only with Include Request Payload.
		version: [1, 2],
		defaultVersion: 2,
		subtitle,
		description: 'Send approved template messages (text, media header, quick reply and URL buttons) to phone numbers, and look up whether each was delivered and read',
		defaults: { name: 'Template Message' },
		usableAsTool: true,
		inputs: [MAIN],
		outputs: [MAIN],
		// Written out (CREDENTIAL_TYPE): n8n's lint reads the name and testedBy as literals.
		credentials: [{ name: CREDENTIAL_TYPE, required: true, testedBy: 'testCredential' }],
		properties,
	};

	// The node's own credential test tells a refused connection, DNS, timeout and TLS errors apart; a declarative one shows only the code.
	methods = { credentialTest: { testCredential } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
