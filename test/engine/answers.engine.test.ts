/**
 * Every answer read as meant (issue 38), in n8n's engine against a local API: the API's code 9 in a
 * 200 is waited out like a 429, a byte order mark before the JSON is skipped, and a Base URL or a JWT
 * that cannot work is named before anything is sent.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ApiServer } from '../helpers/apiServer';
import { acceptAll, startApiServer } from '../helpers/apiServer';
import { resetDeduplicationStore } from '../helpers/deduplicationStore';
import { ENGINE, runSendNode, SEND_NODE, TEST_TOKEN } from '../helpers/engine';

let api: ApiServer;
beforeEach(async () => {
	api = await startApiServer();
});
afterEach(async () => {
	await api.close();
});

const recipients = (count: number) => Array.from({ length: count }, (_, i) => ({ phone: `62812100${String(i).padStart(5, '0')}` }));
const parameters = { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl-answers', options: {} };
const phoneOf = (body: unknown) => String((body as IDataObject).phone_number);

test('HTTP 200 {"success":false} with code 9 on the first answers: the node waits, then sends every item once', async () => {
	const acceptedFor: Record<string, number> = {};
	api.respondWith((request, index) => {
		if (index < 3) return { status: 200, body: { success: false, errors: [{ message: 'Too many requests', code: 9 }] }, headers: { 'Retry-After': '1' } };
		acceptedFor[phoneOf(request.body)] = (acceptedFor[phoneOf(request.body)] ?? 0) + 1;
		return acceptAll(request, index);
	});
	const items = recipients(6);
	const result = await runSendNode({ baseUrl: api.baseUrl, items, parameters });

	expect(result.run.data.resultData.error).toBeUndefined();
	const output = result.output(SEND_NODE);
	expect(output.map((item) => item.json.status)).toEqual(items.map(() => 'sent'));
	expect(acceptedFor).toEqual(Object.fromEntries(items.map(({ phone }) => [phone, 1])));
	// The three throttled ones were tried again, as after a 429: each row counts its requests.
	expect(api.requests.length).toBe(items.length + 3);
	expect(output.reduce((sum, item) => sum + Number(item.json.attempts), 0)).toBe(items.length + 3);
	// The summary says what the limit cost; the seconds waited depend on how the three pauses overlapped.
	const hints = (result.run.data.resultData.runData[SEND_NODE][0].hints ?? []).map((hint) => hint.message);
	if (ENGINE.keepsExecutionHints) expect(hints).toEqual([expect.stringMatching(/^Sent 6 of 6 item\(s\)\. Waited \d+(\.\d)? s for the API's rate limit: 3 answers were "too many requests" \(HTTP 429 or code 9\)\.$/)]);
});

test('an accepted answer with a UTF-8 byte order mark before its JSON is a sent row with its msgid', async () => {
	api.respondWith(() => ({ status: 200, rawBody: '\uFEFF{"msgid":"msg-bom-1","success":true}', headers: { 'content-type': 'application/json; charset=utf-8' } }));
	const result = await runSendNode({ baseUrl: api.baseUrl, items: recipients(1), parameters });

	expect(result.output(SEND_NODE).map((item) => [item.json.status, item.json.msgid])).toEqual([['sent', 'msg-bom-1']]);
});

test('a refusal with a byte order mark keeps its code and reason', async () => {
	api.respondWith(() => ({ status: 406, rawBody: '\uFEFF{"errors":[{"message":"Template does not exist","code":59}]}', headers: { 'content-type': 'application/json' } }));
	const result = await runSendNode({ baseUrl: api.baseUrl, items: recipients(1), parameters, onError: 'continueRegularOutput' });

	const [row] = result.output(SEND_NODE);
	expect(row.json.error).toBe('The API refused the message (HTTP 406): Template does not exist (code 59) [item 0]');
	expect(row.json.details).toMatchObject({ delivery: 'failed', apiCode: 59 });
});

test.each([
	['a query', '/?code=abc', /^The credential's Base URL has a query \(the part from "\?" on\)/],
	['a fragment', '/#/dashboard', /^The credential's Base URL has a fragment \(the part from "#" on\)/],
	["another API version's path", '/api/v1', /^The credential's Base URL contains another API version's path \(\/api\/v1\)/],
	['/API/V2 in capitals', '/API/V2', /^The credential's Base URL ends with the API's own path \(\/API\/V2\)/],
])('a Base URL with %s is refused before anything is sent, naming the part', async (_, suffix, message) => {
	const result = await runSendNode({ baseUrl: `${api.baseUrl}${suffix}`, items: recipients(2), parameters });
	expect(String(result.nodeError(SEND_NODE)?.message)).toMatch(message);
	expect(api.requests).toHaveLength(0);
});

test.each([
	['one slash after its scheme', (baseUrl: string) => baseUrl.replace('://', ':/'), /^The credential's Base URL needs two slashes after its scheme/],
	['no slash after its scheme', (baseUrl: string) => baseUrl.replace('://', ':'), /^The credential's Base URL needs two slashes after its scheme/],
	['a backslash before ".."', (baseUrl: string) => `${baseUrl}/gw\\..`, /^The credential's Base URL contains a backslash/],
])('a Base URL with %s (which n8n 2.x refused without sending, or sent elsewhere) is named; with Send Once, fixed, every message goes', async (_, mistype, message) => {
	resetDeduplicationStore();
	const items = recipients(3);
	const once = { ...parameters, sendOnce: 'recipientTemplate' };
	const mistyped = await runSendNode({ baseUrl: mistype(api.baseUrl), items, parameters: once, typeVersion: 2, onError: 'continueRegularOutput' });
	expect(String(mistyped.nodeError(SEND_NODE)?.message)).toMatch(message);
	expect(api.requests).toHaveLength(0);
	const fixed = await runSendNode({ baseUrl: api.baseUrl, items, parameters: once, typeVersion: 2 });
	expect(fixed.output(SEND_NODE).map((item) => item.json.status)).toEqual(['sent', 'sent', 'sent']);
});

test.each([
	['with a zero-width space copied along', `${TEST_TOKEN}\u200b`, "The credential's JWT contains a character no token has (U+200B, which does not show)", 'Copy the token again from the developer dashboard, as plain text.'],
	['shown cut short', `${TEST_TOKEN.slice(0, 30)}\u2026`, 'The credential\'s JWT ends in "…" (U+2026), as a token shown cut short does', 'Copy the whole token from the developer dashboard (its copy button), not the text shown.'],
	['in double quotes', `"${TEST_TOKEN}"`, "The credential's JWT is in quotation marks, which would be sent as part of the token", 'Enter the token without the quotation marks around it.'],
	['in single quotes', `'${TEST_TOKEN}'`, "The credential's JWT is in quotation marks, which would be sent as part of the token", 'Enter the token without the quotation marks around it.'],
	['as Bearer Bearer', `Bearer Bearer ${TEST_TOKEN}`, "The credential's JWT starts with \"Bearer Bearer\"", 'Enter the token with one "Bearer " in front at most, or the token alone.'],
])('a JWT %s is named with the fix before anything is sent, and never shown', async (_, token, message, description) => {
	const result = await runSendNode({ baseUrl: api.baseUrl, token, items: recipients(2), parameters });
	expect(result.nodeError(SEND_NODE)).toMatchObject({ message, description });
	expect(api.requests).toHaveLength(0);
	expect(JSON.stringify(result.run)).not.toContain(TEST_TOKEN);
});
