/**
 * The node as an AI Agent's tool (usableAsTool), in n8n's engine the way n8n runs one: n8n-core's
 * getInputConnectionData and makeHandleToolInvocation, parameters from $fromAI, one item per call,
 * a new run index for each try (see test/helpers/toolAgents.ts). The default Agent's way, by engine
 * requests, is test/engine/aiTool.agent.engine.test.ts.
 */
import type { IDataObject, IExecuteFunctions, INode, INodeType } from 'n8n-workflow';

import type { ApiServer } from '../helpers/apiServer';
import { acceptAll, startApiServer } from '../helpers/apiServer';
import { deduplicationStore } from '../helpers/deduplicationStore';
import { AGENT, agentDescription, runChat, toolParameters } from '../helpers/toolAgents';

let api: ApiServer;
beforeEach(async () => {
	api = await startApiServer();
});
afterEach(async () => {
	await api.close();
});

/** A stand-in agent: calls its one tool with each of `calls` in turn, and puts out what the tool answered (or its error) each time. */
function agentType(calls: IDataObject[]): INodeType {
	return {
		description: agentDescription('Calls its tool'),
		async execute(this: IExecuteFunctions) {
			const tools = (await this.getInputConnectionData('ai_tool' as never, 0)) as Array<{ invoke: (input: IDataObject) => Promise<string> }>;
			const rows = [];
			for (const args of calls) {
				try {
					rows.push({ json: { answer: await tools[0].invoke(args) } });
				} catch (error) {
					rows.push({ json: { toolError: (error as Error).message } });
				}
			}
			return [rows];
		},
	} as unknown as INodeType;
}

async function runAsTool(parameters: IDataObject, args: IDataObject | IDataObject[], settings: Partial<INode> = {}) {
	return await runChat(api.baseUrl, agentType(Array.isArray(args) ? args : [args]), parameters, settings);
}

test('a tool call sends one message, as the README shows it', async () => {
	const result = await runAsTool(toolParameters, { phone_number: '+62 812 3456 7890', values: ['Budi'] });
	const [agentRow] = result.output(AGENT);
	expect(agentRow.json.toolError).toBeUndefined();
	expect(JSON.parse(String(agentRow.json.answer))).toMatchObject([{ status: 'sent', success: true }]);
	expect(api.requests).toHaveLength(1);
});

test("n8n's Retry On Fail on the tool does not post a message whose delivery is unknown again", async () => {
	// The first request reaches the API and the connection drops before an answer: the message may have gone out.
	api.respondWith((request, index) => (index === 0 ? { resetAfterBody: true } : acceptAll(request, index)));
	const result = await runAsTool(toolParameters, { phone_number: '+62 812 3456 7890', values: ['Budi'] }, { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 });
	const [agentRow] = result.output(AGENT);
	// As in a workflow (test/engine/delivery.engine.test.ts, "n8n's Retry On Fail does not post it again"): one request.
	// The agent reads the row, with what it means, not a thrown error's bare message.
	expect({ requests: api.requests.length, toolError: agentRow.json.toolError }).toEqual({ requests: 1, toolError: undefined });
	expect(JSON.parse(String(agentRow.json.answer))).toEqual([
		expect.objectContaining({ status: 'unknown', error: expect.stringMatching(/^Delivery unknown/), details: expect.objectContaining({ description: expect.stringMatching(/may have accepted this message/) }) }),
	]);
});

test('with On Error "Continue (using error output)" (a saved workflow of Agent v1 or v2): the message goes, and the agent reads its row', async () => {
	const result = await runAsTool(toolParameters, { phone_number: '+62 812 3456 7890', values: ['Budi'] }, { onError: 'continueErrorOutput' });
	const [agentRow] = result.output(AGENT);
	expect({ toolError: agentRow.json.toolError, requests: api.requests.length }).toEqual({ toolError: undefined, requests: 1 });
	expect(JSON.parse(String(agentRow.json.answer))).toEqual([expect.objectContaining({ status: 'sent' })]);
});

test('with Retry On Fail, two calls of the tool with two messages in one execution send both: a try is told from another call by its message', async () => {
	const result = await runAsTool(toolParameters, [{ phone_number: '+62 812 3456 7890', values: ['Budi'] }, { phone_number: '+62 813 1111 2222', values: ['Sari'] }], { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 });
	expect(result.output(AGENT).map((row) => JSON.parse(String(row.json.answer))[0].status)).toEqual(['sent', 'sent']);
	expect(api.requests.map((request) => (request.body as IDataObject).phone_number)).toEqual(['6281234567890', '6281311112222']);
});

test('after a call whose delivery was unknown, a later call with another message to the same recipient and template is sent', async () => {
	api.respondWith((request, index) => (index === 0 ? { resetAfterBody: true } : acceptAll(request, index)));
	const result = await runAsTool(toolParameters, [{ phone_number: '+62 812 3456 7890', values: ['order A-1'] }, { phone_number: '+62 812 3456 7890', values: ['order B-2'] }]);
	const rows = result.output(AGENT).map((row) => row.json);
	expect(JSON.parse(String(rows[0].answer))).toEqual([expect.objectContaining({ status: 'unknown' })]);
	expect({ requests: api.requests.length, second: rows[1] }).toEqual({ requests: 2, second: { answer: expect.stringContaining('"sent"') } });
});

/** A stand-in agent that makes its tool calls in parallel, as LangChain's agents do with several tool calls in one step. */
function parallelAgentType(calls: IDataObject[]): INodeType {
	const agent = agentType(calls);
	return {
		...agent,
		async execute(this: IExecuteFunctions) {
			const tools = (await this.getInputConnectionData('ai_tool' as never, 0)) as Array<{ invoke: (input: IDataObject) => Promise<string> }>;
			const rows = await Promise.all(calls.map(async (args) => {
				try {
					return { json: { answer: await tools[0].invoke(args) } };
				} catch (error) {
					return { json: { toolError: (error as Error).message } };
				}
			}));
			return [rows];
		},
	} as unknown as INodeType;
}

test('Retry On Fail with two tool calls at once: the message of unknown delivery is not posted again when the other call succeeds meanwhile', async () => {
	// Budi's message: the connection drops after the request left (unknown). Sari's: accepted 50 ms later, while Budi's call waits to retry.
	api.respondWith((request, index) => {
		const phone = String((request.body as IDataObject).phone_number);
		if (phone === '6281234567890' && api.requests.filter((r) => String((r.body as IDataObject).phone_number) === phone).length === 1) return { resetAfterBody: true };
		return { ...(acceptAll(request, index) as object), delayMs: 50 } as never;
	});
	const calls = [{ phone_number: '+62 812 3456 7890', values: ['Budi'] }, { phone_number: '+62 813 1111 2222', values: ['Sari'] }];
	await runChat(api.baseUrl, parallelAgentType(calls), toolParameters, { retryOnFail: true, maxTries: 2, waitBetweenTries: 500 }, { chat: { chatInput: 'Tell Budi and Sari' } });
	const toBudi = api.requests.filter((request) => (request.body as IDataObject).phone_number === '6281234567890');
	expect(toBudi).toHaveLength(1);
});

test("Retry On Fail on the tool: a message of unknown delivery whose value reads the clock ($now, new at each try) is not posted again", async () => {
	api.respondWith((request, index) => (index === 0 ? { resetAfterBody: true } : acceptAll(request, index)));
	const clockValue = { ...toolParameters, bodyValuesList: "={{ $fromAI('values', 'Texts for the placeholders, in order', 'json').concat([String($now.toMillis())]) }}" };
	const result = await runAsTool(clockValue, { phone_number: '+62 812 3456 7890', values: ['Budi'] }, { retryOnFail: true, maxTries: 2, waitBetweenTries: 50 });
	expect({ requests: api.requests.length, answer: JSON.parse(String(result.output(AGENT)[0].json.answer)) }).toEqual({ requests: 1, answer: [expect.objectContaining({ status: 'unknown' })] });
});

test('Forget as a tool, its removal failing in the first call: the agent reads the failure, and calling again says what the record held, not what the first call wrote to find out', async () => {
	const store = deduplicationStore() as unknown as { removeProcessed: (...args: unknown[]) => Promise<void> };
	const remove = store.removeProcessed.bind(store);
	let failures = 0;
	// The record's own three attempts at its removal fail: the first try fails after its keys were recorded.
	store.removeProcessed = async (...args: unknown[]) => {
		if (failures++ < 3) throw new Error('connection lost');
		await remove(...args);
	};
	try {
		const result = await runAsTool({ operation: 'forget', forgetKey: "={{ $fromAI('key', 'The message key to forget', 'string') }}" }, [{ key: 'never-sent-key' }, { key: 'never-sent-key' }]);
		const [failed, again] = result.output(AGENT).map((row) => JSON.parse(String(row.json.answer)));
		expect(failed).toEqual([{ error: 'connection lost [item 0]', details: expect.objectContaining({ description: expect.stringMatching(/^n8n's store of sent messages failed: whether this key was forgotten is not known/) }) }]);
		// Was forgotten: true: each call of a tool has a run index of its own, and the second found the first's write.
		expect(again).toEqual([{ forgotten: false, messageKey: 'never-sent-key', reason: expect.stringMatching(/^Send Once holds no message with this key/) }]);
		expect(failures).toBe(4);
	} finally {
		store.removeProcessed = remove;
	}
});
