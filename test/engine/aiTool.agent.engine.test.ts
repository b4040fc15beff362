/**
 * The node as the default AI Agent's tool (Agent 3.1 in n8n 2.41, 3 in 1.123): called by engine requests, the tool
 * run as a node of the execution, the LLM reading its output through n8n's buildObservation (test/helpers/toolAgents.ts).
 */
import path from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import type { ApiServer } from '../helpers/apiServer';
import { acceptAll, startApiServer } from '../helpers/apiServer';
import { resetDeduplicationStore } from '../helpers/deduplicationStore';
import { PACKAGE_ROOT } from '../helpers/engine';
import { runAsEngineTool, toolParameters } from '../helpers/toolAgents';

let api: ApiServer;
beforeEach(async () => {
	resetDeduplicationStore();
	api = await startApiServer();
});
afterEach(async () => {
	await api.close();
});

const budi = { phone_number: '+62 812 3456 7890', values: ['Budi'] };
/** The first request reaches the API and the connection drops before an answer: the message may have gone out. */
const firstDropsAfterBody = () => api.respondWith((request, index) => (index === 0 ? { resetAfterBody: true } : acceptAll(request, index)));
const sentTo = () => api.requests.map((request) => (request.body as IDataObject).phone_number);

test('a message of unknown delivery reaches the agent as a row saying it may have gone out, and the execution goes on', async () => {
	firstDropsAfterBody();
	const { result, observations } = await runAsEngineTool(api.baseUrl, toolParameters, [[budi]]);
	// n8n 2.41 handed the agent a thrown error's message alone ("Delivery unknown: connection reset [item 0]"); 1.123 failed the execution.
	expect({ status: result.run.status, requests: api.requests.length }).toEqual({ status: 'success', requests: 1 });
	expect(JSON.parse(observations[0])).toEqual([
		expect.objectContaining({ status: 'unknown', success: false, details: expect.objectContaining({ description: expect.stringMatching(/may have accepted this message/) }) }),
	]);
});

test('an agent calling again with the same arguments after "delivery unknown" does not post the message a second time', async () => {
	firstDropsAfterBody();
	// As LLMs do after a failed call; each call's input carries its own toolCallId.
	const { observations } = await runAsEngineTool(api.baseUrl, toolParameters, [[budi], (read) => (read.length === 1 ? [budi] : [])]);
	expect(api.requests).toHaveLength(1);
	expect(observations.map((observation) => JSON.parse(observation)[0].status)).toEqual(['unknown', 'unknown']);
	expect(JSON.parse(observations[1])[0].details.description).toMatch(/^The API may have accepted this message, so it was not sent again/);
});

test('with Send Once, an agent calling again after a message went out is told it was sent before: nothing goes twice', async () => {
	const parameters = { ...toolParameters, sendOnce: 'recipientTemplate' };
	const { observations } = await runAsEngineTool(api.baseUrl, parameters, [[budi], [budi]]);
	expect(sentTo()).toEqual(['6281234567890']);
	expect(observations.map((observation) => JSON.parse(observation)[0].status)).toEqual(['sent', 'skipped']);
});

test('a value the model got wrong comes back naming the field; told so, the agent calls again and the message goes once', async () => {
	const { result, observations } = await runAsEngineTool(api.baseUrl, toolParameters, [[{ ...budi, phone_number: '0812 3456 7890' }], (read) => (read.length === 1 ? [budi] : [])]);
	expect({ status: result.run.status, calls: observations.length }).toEqual({ status: 'success', calls: 2 });
	expect(JSON.parse(observations[0])).toEqual([expect.objectContaining({ status: 'invalid', error: expect.stringMatching(/^Phone Number: "0812 3456 7890" has no \+ in front/) })]);
	expect(sentTo()).toEqual(['6281234567890']);
});

test.each([
	// An Indonesian mobile without its 0 and without +62: as it stands, +81 Japan.
	['812 3456 7890'],
	// An Indian mobile as India writes it, without +91: as it stands, +98 Iran.
	['98765 43210'],
	// Digits with the country code but no +: the model may as well have left the code out.
	['6281234567890'],
])('a number the model chose without + ("%s") is refused, not sent abroad', async (phone) => {
	const { observations } = await runAsEngineTool(api.baseUrl, toolParameters, [[{ ...budi, phone_number: phone }]]);
	expect(sentTo()).toEqual([]);
	expect(JSON.parse(observations[0])).toEqual([expect.objectContaining({ status: 'invalid', error: expect.stringMatching(/^Phone Number: .* has no \+ in front: a number chosen by the AI model must start with \+ \(or 00\) and its country code/) })]);
});

test("a Phone Number from $fromAI typed 'number', which cannot hold a +: the refusal names the fix the user can make", async () => {
	const parameters = { ...toolParameters, phoneNumber: "={{ $fromAI('phone_number', 'Recipient phone number', 'number') }}" };
	const { observations } = await runAsEngineTool(api.baseUrl, parameters, [[{ ...budi, phone_number: 6281234567890 }]]);
	expect(sentTo()).toEqual([]);
	expect(JSON.parse(observations[0])[0].details.description).toMatch(/^The model gave a number, which cannot hold a \+: give \$fromAI\(\) the type 'string' for the Phone Number/);
});

test('with Default Country Code set, a local number the model chose is read by it', async () => {
	const { observations } = await runAsEngineTool(api.baseUrl, { ...toolParameters, options: { defaultCountryCode: '62' } }, [[{ ...budi, phone_number: '0812 3456 7890' }]]);
	expect(sentTo()).toEqual(['6281234567890']);
	expect(JSON.parse(observations[0])[0].status).toBe('sent');
});

test('with On Error "Continue (using error output)", for which n8n hands the agent nothing (not even a sent row), nothing is sent', async () => {
	const { result, observations } = await runAsEngineTool(api.baseUrl, toolParameters, [[budi]], { onError: 'continueErrorOutput' });
	expect(api.requests).toHaveLength(0);
	// n8n 2.41 hands the agent the error's message; 1.123, as after any error with Continue, the agent's own input.
	expect(observations).toHaveLength(1);
	expect(observations[0]).not.toMatch(/"sent"/);
	expect(JSON.stringify([observations, result.run.data.resultData.runData])).toMatch(/On Error is \\+"Continue \(using error output\)\\+", which a tool has no output for: nothing was done/);
});

test('Get Status and Forget as the default Agent\'s tools: their failures are rows too', async () => {
	api.respondWith(() => ({ status: 401, body: { errors: [{ message: 'Token invalid', code: 45 }] } }));
	const { observations } = await runAsEngineTool(api.baseUrl, { operation: 'getStatus', messageId: "={{ $fromAI('msgid', 'The msgid a send put out', 'string') }}" }, [[{ msgid: 'm-1' }]]);
	expect(JSON.parse(observations[0])).toEqual([expect.objectContaining({ error: expect.stringMatching(/HTTP 401/) })]);
	const forget = await runAsEngineTool(api.baseUrl, { operation: 'forget', forgetKey: "={{ $fromAI('key', 'The message key to forget', 'string') }}" }, [[{ key: '' }]]);
	expect(JSON.parse(forget.observations[0])).toEqual([expect.objectContaining({ error: expect.stringMatching(/Message Key/) })]);
});

test.each<[string, IDataObject, IDataObject, string, RegExp]>([
	[
		'a credential the node refuses (a Base URL without https://)',
		{ operation: 'getStatus', messageId: "={{ $fromAI('msgid', 'The msgid a send put out', 'string') }}" },
		{ msgid: 'm-1' },
		'no scheme',
		/^The credential's Base URL/,
	],
	[
		'a setting the model filled in out of bounds (a Wait Limit of -1)',
		{ operation: 'getStatus', messageId: "={{ $fromAI('msgid', 'The msgid a send put out', 'string') }}", statusOptions: { waitUntil: 'delivered', waitLimit: "={{ $fromAI('minutes', 'Minutes to wait', 'number') }}" } },
		{ msgid: 'm-1', minutes: -1 },
		'as given',
		/Wait Limit/,
	],
])('a failure of the whole call (%s) reaches the agent as a row with what to do, and the chat goes on', async (_name, parameters, args, baseUrlForm, error) => {
	const baseUrl = baseUrlForm === 'no scheme' ? api.baseUrl.replace(/^https?:\/\//, '') : api.baseUrl;
	const { result, observations } = await runAsEngineTool(baseUrl, parameters, [[args]]);
	// Was: n8n 1.123 failed the chat execution; 2.41 handed the agent the message without its description.
	expect({ status: result.run.status, calls: observations.length }).toEqual({ status: 'success', calls: 1 });
	const [row] = JSON.parse(observations[0]) as IDataObject[];
	expect(row).toMatchObject({ success: false, error: expect.stringMatching(error) });
	expect((row.details as IDataObject).description).toMatch(/\S Nothing was done: no request left for the API\.$/);
	expect(api.requests).toHaveLength(0);
});

test("Send's failure of the whole call says the message was not sent, in a row of Send's status", async () => {
	const { observations } = await runAsEngineTool(api.baseUrl.replace(/^https?:\/\//, ''), toolParameters, [[budi]]);
	expect(JSON.parse(observations[0])).toEqual([expect.objectContaining({ status: 'notSent', success: false, error: expect.stringMatching(/^The credential's Base URL/) })]);
	expect(api.requests).toHaveLength(0);
});

test('a failure after a request left is not made a row saying nothing was done: the message may have gone out', async () => {
	// A fault no code path has today, put where it would hide the most: building the rows of a message that went out.
	const rows = require(path.join(PACKAGE_ROOT, 'dist/nodes/TemplateMessage/output/rows.js')) as { rowsOf: (...args: unknown[]) => unknown };
	const spy = jest.spyOn(rows, 'rowsOf').mockImplementation(() => {
		throw new Error('a fault after sending');
	});
	try {
		const { observations } = await runAsEngineTool(api.baseUrl, toolParameters, [[budi]]);
		expect(api.requests).toHaveLength(1);
		expect(observations.join('\n')).not.toMatch(/Nothing was done/);
	} finally {
		spy.mockRestore();
	}
});
