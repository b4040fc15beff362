/**
 * The node as an AI Agent's tool, the two ways n8n runs one. Through LangChain (`getInputConnectionData` →
 * n8n-core's makeHandleToolInvocation: one item of the call's arguments, a new run index for each try), as Agent v1
 * and v2 and other LangChain consumers do; and by engine requests, as the default Agent does (3 in n8n 1.123, 3.1
 * in 2.41): the agent returns `{ actions, metadata }`, the engine runs the tool as a node of the execution
 * (WorkflowExecute.handleEngineRequest: its input item is the agent's input, the call's arguments and `toolCallId`;
 * Retry On Fail at the same run index) and resumes the agent with the tool's run, which it reads with
 * buildObservation (@n8n/n8n-nodes-langchain/dist/utils/agent-execution/buildSteps.js, 2.41; 1.123 alike).
 * The description is converted as n8n's tool generation does it (n8n/dist/tool-generation/ai-tools.js: the app is
 * installed while these suites run, so not read from it).
 */
import type { IDataObject, IExecuteFunctions, INode, INodeType, INodeTypeDescription, IWorkflowSettings } from 'n8n-workflow';
import { deepCopy } from 'n8n-workflow';

import { CREDENTIAL_TYPE, loadPackage, NODE_TYPE, runWorkflow, TEST_TOKEN } from './engine';

export const TOOL_TYPE = `${NODE_TYPE}Tool`;
export const AGENT = 'Agent';
export const TOOL = 'Template Message Tool';

/** The README's tool set-up ("An AI agent's tool"). */
export const toolParameters = {
	phoneNumber: "={{ $fromAI('phone_number', 'Recipient phone number, + and its country code first', 'string') }}",
	templateCodeId: 'order_shipped',
	bodyValuesMode: 'list',
	bodyValuesList: "={{ $fromAI('values', 'Texts for the placeholders, in order', 'json') }}",
};

/** What n8n's convertNodeToAiTool changes that execution reads: the name, the connections, a Tool Description. */
function convertNodeToAiTool(description: INodeTypeDescription): INodeTypeDescription {
	const toolDescription = { displayName: 'Description', name: 'toolDescription', type: 'string', default: description.description, required: true } as const;
	return { ...description, name: `${description.name}Tool`, displayName: `${description.displayName} Tool`, inputs: [], outputs: ['ai_tool'] as never, usableAsTool: undefined, properties: [toolDescription, ...description.properties] };
}

/** The tool variant n8n registers for a usableAsTool node: the same class, its description converted. */
export async function toolType(): Promise<INodeType> {
	const { nodeTypes } = await loadPackage();
	const node = nodeTypes[NODE_TYPE] as INodeType;
	return Object.assign(Object.create(node) as INodeType, { description: convertNodeToAiTool(deepCopy(node.description)) });
}

type ToolRun = { data?: { ai_tool?: Array<Array<{ json: IDataObject }>> }; error?: { message?: string; name?: string } };

/** buildSteps.js's buildObservation: what the LLM reads of a tool's run. */
export function buildObservation(toolData: ToolRun | undefined): string {
	const aiToolData = toolData?.data?.ai_tool?.[0]?.map((item) => item?.json);
	if (aiToolData && aiToolData.length > 0) return JSON.stringify(aiToolData);
	if (toolData?.error) return JSON.stringify({ error: toolData.error.message ?? 'Unknown error', ...(toolData.error.name && { errorType: toolData.error.name }) });
	return JSON.stringify('');
}

/** The calls of one LLM turn, or a function of what the LLM read so far (an LLM deciding to call again). */
export type AgentStep = IDataObject[] | ((observations: string[]) => IDataObject[]);

/** A stand-in agent's description: one main input, its tool, one main output. */
export function agentDescription(description: string): INodeTypeDescription {
	return { displayName: AGENT, name: 'agent', group: ['transform'], version: 1, description, defaults: { name: AGENT }, inputs: ['main', 'ai_tool'], outputs: ['main'], properties: [] } as unknown as INodeTypeDescription;
}

/** The default Agent's way: makes the calls of `steps[0]` by an engine request, reads what came back, then `steps[1]`, … */
function engineAgentType(steps: AgentStep[], observations: string[]): INodeType {
	let step = 0;
	return {
		description: agentDescription('Calls its tool by engine requests'),
		async execute(this: IExecuteFunctions, response?: { actionResponses?: Array<{ data: ToolRun }> }) {
			for (const answer of response?.actionResponses ?? []) observations.push(buildObservation(answer.data));
			while (step < steps.length) {
				const next = steps[step];
				const calls = typeof next === 'function' ? next(observations) : next;
				step++;
				if (calls.length === 0) continue;
				return {
					actions: calls.map((input, index) => ({ actionType: 'ExecutionNodeAction', nodeName: TOOL, input, type: 'ai_tool', id: `call_${step}_${index}`, metadata: { itemIndex: 0 } })),
					metadata: {},
				} as never;
			}
			return [[{ json: { observations } }]];
		},
	} as unknown as INodeType;
}

/** A chat execution whose default Agent makes `steps` of calls to the node as its tool; `observations`: what the LLM read, call by call. */
export async function runAsEngineTool(baseUrl: string, parameters: IDataObject, steps: AgentStep[], settings: Partial<INode> = {}) {
	const observations: string[] = [];
	const result = await runChat(baseUrl, engineAgentType(steps, observations), parameters, settings, {
		chat: { chatInput: 'Tell Budi his order shipped', sessionId: 'session-1' },
		// What n8n gives every new workflow (execution order v1): the engine runs a requested tool before resuming the agent.
		workflowSettings: { executionOrder: 'v1' },
	});
	return { result, observations };
}

/** A chat trigger, `agent`, and the node as its tool with `parameters` and node `settings` (Retry On Fail, On Error). */
export async function runChat(
	baseUrl: string,
	agent: INodeType,
	parameters: IDataObject,
	settings: Partial<INode> = {},
	{ chat = { chatInput: 'Tell Budi his order shipped' }, workflowSettings }: { chat?: IDataObject; workflowSettings?: IWorkflowSettings } = {},
) {
	const tool: INode = {
		id: 'tool',
		name: TOOL,
		type: TOOL_TYPE,
		typeVersion: 2,
		position: [200, 200],
		parameters: parameters as INode['parameters'],
		credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Template Message account' } },
		...settings,
	};
	return await runWorkflow(
		{
			nodes: [
				{ id: 'chat', name: 'Chat', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{ id: 'agent', name: AGENT, type: 'test.agent', typeVersion: 1, position: [200, 0], parameters: {} },
				tool,
			],
			connections: {
				Chat: { main: [[{ node: AGENT, type: 'main', index: 0 }]] },
				[TOOL]: { ai_tool: [[{ node: AGENT, type: 'ai_tool' as never, index: 0 }]] },
			},
			pinData: { Chat: [{ json: chat }] },
			...(workflowSettings ? { settings: workflowSettings } : {}),
		},
		{ [CREDENTIAL_TYPE]: { baseUrl, token: TEST_TOKEN } },
		{ [TOOL_TYPE]: await toolType(), 'test.agent': agent },
	);
}
